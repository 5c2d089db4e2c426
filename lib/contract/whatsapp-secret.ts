/**
 * The WhatsApp secret's JSON document: its fields and the placeholder of an unfilled one.
 * CDK-free: the construct, the Lambda handlers, the console and the local runtime import it alike.
 * Internal: not part of the jsii API.
 */

/**
 * Value the construct writes into the fields of a freshly created WhatsApp secret that only the
 * operator can supply (Meta issues them); the runtime can recognise an unfilled secret by it.
 */
export const WHATSAPP_SECRET_PLACEHOLDER = 'REPLACE_ME';

/** Keys of the JSON document stored in the WhatsApp secret. */
export const WHATSAPP_SECRET_FIELDS = {
  appSecret: 'appSecret',
  verifyToken: 'verifyToken',
  accessToken: 'accessToken',
} as const;

/**
 * Keys the WhatsApp secret may carry besides the required ones. `previousAppSecret`: during an app
 * secret rotation, the old secret, accepted on inbound signatures until it is removed.
 */
export const WHATSAPP_SECRET_OPTIONAL_FIELDS = {
  previousAppSecret: 'previousAppSecret',
} as const;

