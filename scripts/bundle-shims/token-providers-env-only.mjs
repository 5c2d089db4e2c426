// Stands in for `@aws-sdk/token-providers` in the Lambda bundles only (see bundle-lambdas.mjs).
// Only the Bedrock Runtime client reaches it, for its optional bearer-token auth: first the token in
// AWS_BEARER_TOKEN_BEDROCK (kept here), then an SSO token from the shared config and SSO cache
// files, which needs the SSO-OIDC client and can never answer in Lambda (no such files). Signing with
// the role's credentials (SigV4) does not come here at all.
import { setTokenFeature } from '@aws-sdk/core/client';
import { getBearerTokenEnvKey } from '@aws-sdk/core/httpAuthSchemes';
import { TokenProviderError } from '@smithy/core/config';

/** The bearer token of the environment variable named after the service's signing name. */
export const fromEnvSigningName = ({ logger, signingName } = {}) => async () => {
  if (!signingName) throw new TokenProviderError('A signingName is needed to name the token environment variable', { logger });
  const variable = getBearerTokenEnvKey(signingName);
  const value = process.env[variable];
  if (value === undefined) throw new TokenProviderError(`No token in the ${variable} environment variable`, { logger });
  const token = { token: value };
  setTokenFeature(token, 'BEARER_SERVICE_ENV_VARS', '3');
  return token;
};

/** The SDK's file-based (SSO) token chain, which finds nothing in Lambda: it fails as that chain would. */
export const nodeProvider = ({ logger } = {}) => async () => {
  throw new TokenProviderError('Could not load token from any providers', { logger, tryNextLink: false });
};
