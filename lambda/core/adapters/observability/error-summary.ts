/** What a log line may say about an error: its name and codes, never its message, cause or fields. */
export interface ErrorSummary {
  readonly errorName: string;
  readonly errorCode?: string | number;
  readonly errorReason?: string;
  readonly httpStatus?: number;
}

/**
 * A loggable summary of `error`. Third-party errors (AWS SDK, Graph API, a consumer's agent function)
 * may quote the request they failed on — customer text, phone numbers — in their message or fields,
 * so only the name and the machine-readable codes leave the process.
 */
export function errorSummary(error: unknown): { readonly error: ErrorSummary } {
  if (typeof error !== 'object' || error === null) return { error: { errorName: typeof error } };
  const fields = error as { name?: unknown; code?: unknown; metaCode?: unknown; reason?: unknown; category?: unknown; httpStatus?: unknown; $metadata?: { httpStatusCode?: unknown } };
  // The provider's code says more than the pipeline's, which names the class again.
  const code = fields.metaCode ?? fields.code;
  const reason = fields.reason ?? fields.category;
  const httpStatus = fields.httpStatus ?? fields.$metadata?.httpStatusCode;
  return {
    error: {
      errorName: typeof fields.name === 'string' ? fields.name : 'Error',
      ...(typeof code === 'string' || typeof code === 'number' ? { errorCode: code } : {}),
      ...(typeof reason === 'string' ? { errorReason: reason } : {}),
      ...(typeof httpStatus === 'number' ? { httpStatus } : {}),
    },
  };
}
