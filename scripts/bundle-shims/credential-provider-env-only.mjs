// Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles only (see
// bundle-lambdas.mjs). Lambda hands every function its role's credentials in environment variables
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), the first source of the SDK's
// default chain; the rest of the chain (profiles, SSO, web identity, process, container and
// instance metadata, with the STS and SSO clients they carry) can never answer there.
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init = {}) => fromEnv(init);
