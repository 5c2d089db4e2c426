import { type DestinationRule, META_GRAPH_HOSTS, META_MEDIA_HOSTS, safeDestination, UnsafeDestinationError, withConfiguredHost } from '../outbound/safe-destination';

/** Where the Cloud API adapters send the access token: Meta's Graph API, or the root the deployment configured. */
export function graphApiRule(baseUrl: string): DestinationRule {
  return withConfiguredHost({ purpose: 'the Graph API', hosts: META_GRAPH_HOSTS }, baseUrl);
}

/** Where a media download may go with the token: Meta's media hosts (the URL the metadata names), and the Graph API's. */
export function mediaDownloadRule(baseUrl: string): DestinationRule {
  const graph = graphApiRule(baseUrl);
  return { purpose: 'a media download', hosts: [...graph.hosts, ...META_MEDIA_HOSTS] };
}

/**
 * The Graph API root every Cloud API adapter is built with (`whatsAppApiBaseUrl`), checked by the
 * one rule for credentials (safe-destination.ts), without its trailing slashes.
 */
export function graphApiRoot(baseUrl: string, env: NodeJS.ProcessEnv = process.env): string {
  try {
    safeDestination(baseUrl, graphApiRule(baseUrl), env);
  } catch (error) {
    if (!(error instanceof UnsafeDestinationError)) throw error;
    // The access token travels in every request: never in clear text, whatever the environment says.
    throw new RangeError(`The Graph API base URL must start with https:// (plain http only on the loopback interface, outside Lambda): ${error.message}`);
  }
  return baseUrl.replace(/\/+$/, '');
}
