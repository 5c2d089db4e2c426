// Entry point of the webhook function. The HTTP contract lives in webhook-http.ts, the behaviour in
// core/application/register-inbound.ts, the composition in ../composition/webhook.ts.
import { composedOnFirstInvocation } from '../composition/compose-function';
import { readWebhookSettings, toldToThisFunction } from '../composition/read-settings';
import { composeWebhook } from '../composition/webhook';

export const handler = composedOnFirstInvocation(() => composeWebhook(readWebhookSettings(toldToThisFunction(__dirname))));
