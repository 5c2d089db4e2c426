import { partition } from '@aws-sdk/core/client';

// Apart from the store: the operator function composes with the links' origin (its content
// security policy), while the store itself is loaded only with the first attachment.

/**
 * The bucket's base URL: `{endpoint}/{bucket}` on a local server, else S3's virtual-hosted
 * `https://{bucket}.s3.{region}.{partition's domain}` (path-style for an existing bucket with a dot
 * in its name, which S3's certificate does not cover, as the SDK does). Presigned links point here
 * too, so the console's content security policy allows this origin.
 */
export function mediaBucketUrl(bucketName: string, endpoint: string | undefined, region: string | undefined): string {
  const regional = `s3.${region}.${region === undefined ? 'amazonaws.com' : partition(region).dnsSuffix}`;
  if (endpoint !== undefined) return `${endpoint.replace(/\/$/, '')}/${bucketName}`;
  return bucketName.includes('.') ? `https://${regional}/${bucketName}` : `https://${bucketName}.${regional}`;
}
