import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

/** Who an AWS call is signed as: fixed credentials or a provider of them, as the SDK clients take them. */
export type AwsCredentials = AwsCredentialIdentity | AwsCredentialIdentityProvider;

/** The same identity as a provider (what a signer takes); `undefined` leaves the SDK's default chain. */
export function credentialProvider(credentials: AwsCredentials | undefined): AwsCredentialIdentityProvider | undefined {
  if (credentials === undefined || typeof credentials === 'function') return credentials;
  return async () => credentials;
}
