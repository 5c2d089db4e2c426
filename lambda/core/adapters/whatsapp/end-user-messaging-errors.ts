import type { WhatsAppFailureCategory } from '../../ports/whatsapp-sender';
import { META_ERROR_CODES, type MetaErrorTreatment } from './graph-api-errors';

/**
 * How the pipeline treats each exception of End User Messaging Social's `SendWhatsAppMessage`
 * (the service's API reference lists them; the SDK names each error after its shape). The rule is
 * the Graph API adapter's (see graph-api-errors.ts): an error about THIS message or THIS recipient
 * is permanent, an error about our account, our permissions or the provider's capacity is
 * retryable, so the reply stays queued — and in the dead-letter queue for a redrive — until an
 * operator fixes the cause.
 */
export const END_USER_MESSAGING_EXCEPTIONS: Readonly<Record<string, MetaErrorTreatment>> = {
  ThrottledRequestException: { title: 'Throttled request', category: 'rate_limit', retryable: true },
  LimitExceededException: { title: 'Limit exceeded', category: 'rate_limit', retryable: true },
  DependencyException: { title: 'Meta dependency failed', category: 'provider_unavailable', retryable: true },
  InternalServiceException: { title: 'Internal service error', category: 'provider_unavailable', retryable: true },
  // The execution role lacks social-messaging:SendWhatsAppMessage on this number, or Meta refused the account.
  AccessDeniedException: { title: 'Access denied', category: 'account', retryable: true },
  AccessDeniedByMetaException: { title: 'Access denied by Meta', category: 'account', retryable: true },
  // The origination number is not (or no longer) linked to this AWS account: configuration, not the reply.
  ResourceNotFoundException: { title: 'Phone number not found', category: 'account', retryable: true },
  ValidationException: { title: 'Validation error', category: 'request', retryable: false },
  InvalidParametersException: { title: 'Invalid parameters', category: 'request', retryable: false },
};

/**
 * The service passes Meta's refusals through in the exception's message, which carries Meta's
 * error code the way the Graph API writes it in its own messages: `(#131047) Re-engagement message`.
 */
const META_CODE_IN_MESSAGE = /\(#(\d{1,7})\)|\bcode\W{0,3}(\d{3,7})\b/i;

export interface EndUserMessagingErrorTreatment extends MetaErrorTreatment {
  /** Meta's error code, when the exception's message carried one. */
  readonly metaCode?: number;
}

/**
 * The treatment of a service exception: by Meta's code when the message names a known one (so a
 * closed 24-hour window is a permanent `recipient` failure on both channels), otherwise by the
 * exception's name, otherwise by its fault side (server → transient, client → the request).
 */
export function classifyEndUserMessagingError(name: string, message: string | undefined, fault: 'client' | 'server' | undefined): EndUserMessagingErrorTreatment {
  const match = META_CODE_IN_MESSAGE.exec(message ?? '');
  const metaCode = match ? Number(match[1] ?? match[2]) : undefined;
  const byMetaCode = metaCode === undefined ? undefined : META_ERROR_CODES[metaCode];
  if (byMetaCode) return { ...byMetaCode, metaCode };
  const byName = END_USER_MESSAGING_EXCEPTIONS[name];
  if (byName) return { ...byName, metaCode };
  const category: WhatsAppFailureCategory = fault === 'server' ? 'provider_unavailable' : 'request';
  return { title: name, category, retryable: fault === 'server', metaCode };
}

/** What an error of a signed End User Messaging call says of itself: the service's answer, or none (`httpStatus` absent). */
export interface EndUserMessagingFailure {
  readonly name: string;
  readonly message?: string;
  readonly httpStatus?: number;
  readonly fault?: 'client' | 'server';
}

/** The service exception's name, message, status and fault side (as `AwsApiError` and the SDK carry them). */
export function endUserMessagingFailureOf(error: unknown): EndUserMessagingFailure {
  const shape = (error ?? {}) as { readonly name?: unknown; readonly message?: unknown; readonly $fault?: unknown; readonly $metadata?: { readonly httpStatusCode?: unknown } };
  return {
    name: typeof shape.name === 'string' ? shape.name : 'Error',
    ...(typeof shape.message === 'string' ? { message: shape.message } : {}),
    ...(typeof shape.$metadata?.httpStatusCode === 'number' ? { httpStatus: shape.$metadata.httpStatusCode } : {}),
    ...(shape.$fault === 'server' || shape.$fault === 'client' ? { fault: shape.$fault } : {}),
  };
}
