/**
 * Customer ids are personal data: logs keep only the last four characters, enough to correlate a
 * support ticket without exposing the phone number.
 */
export function maskCustomerId(customerId: string): string {
  return customerId.length <= 4 ? '****' : `****${customerId.slice(-4)}`;
}
