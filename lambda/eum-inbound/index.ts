// Entry point of the End User Messaging inbound function. The SNS contract lives in sns-events.ts,
// the behaviour in core/application/register-inbound.ts, the composition in ../composition/eum-inbound.ts.
import { composedOnFirstInvocation } from '../composition/compose-function';
import { composeEndUserMessagingInbound } from '../composition/eum-inbound';
import { readEndUserMessagingInboundSettings, toldToThisFunction } from '../composition/read-settings';

export const handler = composedOnFirstInvocation(() => composeEndUserMessagingInbound(readEndUserMessagingInboundSettings(toldToThisFunction(__dirname))));
