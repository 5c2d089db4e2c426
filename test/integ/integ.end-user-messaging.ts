// Integration test of the End User Messaging shape: an AgentPipeline with the scripted agent whose
// inbound function is subscribed to the event topic End User Messaging Social publishes to. Deployed,
// it asserts that a role of the account cannot publish on the topic (only the service may), and that
// an event for the linked number, delivered to the inbound function as the topic would, leaves the
// message's inbound receipt in the table. `npm run integ` compares the synthesized stack with the
// committed snapshot (no deploy); `npm run integ:deploy` deploys it, runs the assertions and destroys it.
import { App, Stack } from 'aws-cdk-lib';
import { AgentBackend, AgentPipeline, WhatsAppChannel } from '../../lib';
import { DISPOSABLE, INTEG_MESSAGE, messageReceivedTest } from './inbound-sender';

/** The service's id of the linked number; no number needs to be linked for the inbound path. */
const ORIGINATION_PHONE_NUMBER_ID = 'phone-number-id-0123456789abcdef0123456789abcdef';

const app = new App();
const stack = new Stack(app, 'AgentPipelineInteg-EndUserMessaging');
const pipeline = new AgentPipeline(stack, 'Pipeline', {
  environment: 'integ-end-user-messaging',
  agentBackend: AgentBackend.scripted(),
  channel: WhatsAppChannel.endUserMessaging({ phoneNumbers: [{ id: ORIGINATION_PHONE_NUMBER_ID, metaPhoneNumberId: INTEG_MESSAGE.metaPhoneNumberId }] }),
  ...DISPOSABLE,
});

messageReceivedTest(app, 'EndUserMessaging', {
  pipeline,
  destination: { topic: pipeline.eventTopic!, inboundFunction: pipeline.webhookFunction, originationPhoneNumberId: ORIGINATION_PHONE_NUMBER_ID },
  messageId: 'wamid.integ-end-user-messaging-text',
});
