/**
 * Behind the console's CloudFront distribution (`consoleFrontDoor`) CloudFront signs each request
 * to the operator function's URL, but Lambda takes no unsigned payload: the browser sends the
 * SHA-256 of every body it sends (of the empty body too), which the signature covers. Without the
 * distribution the function ignores the header.
 */
export const PAYLOAD_HASH_HEADER = 'x-amz-content-sha256';

/** Lower-case hex SHA-256 of the UTF-8 text (or of the bytes), as Lambda expects it in {@link PAYLOAD_HASH_HEADER}. */
export async function sha256Hex(body: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', typeof body === 'string' ? new TextEncoder().encode(body) : body));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}
