import type { WhatsAppFailureCategory } from '../../ports/whatsapp-sender';

/**
 * How the pipeline treats each of Meta's Cloud API error codes (`error.code` of a Graph API error
 * answer; see Meta's "WhatsApp error codes" reference). Meta recommends keying error handling on
 * `code`, never on the message text.
 *
 * The rule behind `retryable`: an error about THIS message or THIS recipient is permanent — sending
 * the same request again cannot succeed, so the turn completes without a reply. An error about our
 * account, our credentials or Meta's capacity says nothing about the reply, which stays valid: it is
 * retryable, so the record stays in the queue and, if the fault outlasts the redrive limit, the
 * DLQ (14 days) keeps it for a redrive once an operator fixed the cause — and the DLQ alarm is what
 * tells the operator. Treating those as permanent would silently drop every reply sent during an
 * expired-token or blocked-account incident.
 *
 * 190 (access token expired) follows that rule: it is `authentication`, retryable. The sender also
 * re-reads the secret once, bypassing its cache, so a token already rotated in Secrets Manager is
 * used at once instead of failing until the cache expires.
 */
export const META_ERROR_CODES: Readonly<Record<number, MetaErrorTreatment>> = {
  // Authentication: the token is invalid or expired.
  0: { title: 'AuthException', category: 'authentication', retryable: true },
  190: { title: 'Access token has expired', category: 'authentication', retryable: true },

  // Account and permissions: an operator must act; the reply itself is fine.
  3: { title: 'API method (capability or permissions)', category: 'account', retryable: true },
  10: { title: 'Permission denied', category: 'account', retryable: true },
  33: { title: 'Parameter value is not valid (business phone number deleted)', category: 'account', retryable: true },
  368: { title: 'Temporarily blocked for policies violations', category: 'account', retryable: true },
  131005: { title: 'Access denied', category: 'account', retryable: true },
  131031: { title: 'Account has been locked', category: 'account', retryable: true },
  131042: { title: 'Business eligibility payment issue', category: 'account', retryable: true },

  // Rate limits: retry later (SQS redelivery after the visibility timeout spaces the attempts).
  4: { title: 'API too many calls', category: 'rate_limit', retryable: true },
  613: { title: 'Calls to this API have exceeded the rate limit', category: 'rate_limit', retryable: true },
  80007: { title: 'Rate limit issues (WhatsApp Business Account)', category: 'rate_limit', retryable: true },
  130429: { title: 'Rate limit hit (Cloud API throughput)', category: 'rate_limit', retryable: true },
  131048: { title: 'Spam rate limit hit', category: 'rate_limit', retryable: true },
  131056: { title: '(Business Account, Consumer Account) pair rate limit hit', category: 'rate_limit', retryable: true },

  // Meta-side failures: transient by nature.
  1: { title: 'API unknown (possible server error)', category: 'provider_unavailable', retryable: true },
  2: { title: 'API service (temporary downtime or overload)', category: 'provider_unavailable', retryable: true },
  131000: { title: 'Something went wrong', category: 'provider_unavailable', retryable: true },
  131016: { title: 'Service overloaded', category: 'provider_unavailable', retryable: true },
  131057: { title: 'Account in maintenance mode', category: 'provider_unavailable', retryable: true },
  133004: { title: 'Server temporarily unavailable', category: 'provider_unavailable', retryable: true },

  // This recipient cannot receive this message: permanent.
  131021: { title: 'Recipient cannot be sender', category: 'recipient', retryable: false },
  131026: { title: 'Message undeliverable', category: 'recipient', retryable: false },
  131030: { title: 'Recipient phone number not in allowed list', category: 'recipient', retryable: false },
  131047: { title: 'Re-engagement message (more than 24 hours since the customer last replied)', category: 'recipient', retryable: false },
  131049: { title: 'Meta chose not to deliver (per-user marketing limit)', category: 'recipient', retryable: false },
  131050: { title: 'User stopped marketing messages', category: 'recipient', retryable: false },
  130472: { title: "User's number is part of an experiment", category: 'recipient', retryable: false },

  // The request itself is wrong: sending it again cannot succeed.
  100: { title: 'Invalid parameter', category: 'request', retryable: false },
  131008: { title: 'Required parameter is missing', category: 'request', retryable: false },
  131009: { title: 'Parameter value is not valid', category: 'request', retryable: false },
  131051: { title: 'Unsupported message type', category: 'request', retryable: false },

  // A template send that does not match the business's templates (name, language, status, values).
  132000: { title: 'Template: number of parameters does not match', category: 'request', retryable: false },
  132001: { title: 'Template does not exist (in this language)', category: 'request', retryable: false },
  132005: { title: 'Template: translated text too long', category: 'request', retryable: false },
  132007: { title: 'Template: format character policy violated', category: 'request', retryable: false },
  132012: { title: 'Template: parameter format mismatch', category: 'request', retryable: false },
  132015: { title: 'Template is paused (low quality)', category: 'request', retryable: false },
  132016: { title: 'Template is disabled', category: 'request', retryable: false },
  132018: { title: 'Template: parameter with a new line, a tab or too many spaces', category: 'request', retryable: false },
};

export interface MetaErrorTreatment {
  readonly title: string;
  readonly category: WhatsAppFailureCategory;
  readonly retryable: boolean;
}

/** Graph API permission errors span a whole range (`200`–`299`, "API Permission"). */
const PERMISSION_CODE_RANGE = { from: 200, to: 299 } as const;

/**
 * The treatment of an error answer: by Meta's code when it is known, otherwise by the HTTP status
 * (429 and 5xx are transient, 401 is authentication, 403 is the account, other 4xx the request).
 */
export function classifyGraphApiError(httpStatus: number, code: number | undefined): MetaErrorTreatment {
  if (code !== undefined) {
    const known = META_ERROR_CODES[code];
    if (known) return known;
    if (code >= PERMISSION_CODE_RANGE.from && code <= PERMISSION_CODE_RANGE.to) {
      return { title: 'API permission', category: 'account', retryable: true };
    }
  }
  if (httpStatus === 429) return { title: `HTTP ${httpStatus}`, category: 'rate_limit', retryable: true };
  if (httpStatus >= 500) return { title: `HTTP ${httpStatus}`, category: 'provider_unavailable', retryable: true };
  if (httpStatus === 401) return { title: `HTTP ${httpStatus}`, category: 'authentication', retryable: true };
  if (httpStatus === 403) return { title: `HTTP ${httpStatus}`, category: 'account', retryable: true };
  return { title: `HTTP ${httpStatus}`, category: 'request', retryable: false };
}
