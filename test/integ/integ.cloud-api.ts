// Integration test of the Cloud API shape: an AgentPipeline with the scripted agent, its webhook
// behind the public Function URL Meta calls. Deployed, it asserts that a notification signed with
// the app secret is answered 200 and that its inbound receipt is in the table. `npm run integ`
// compares the synthesized stack with the committed snapshot (no deploy); `npm run integ:deploy`
// deploys it, runs the assertions and destroys it.
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { AgentBackend, AgentPipeline } from '../../lib';
import { WHATSAPP_SECRET_FIELDS } from '../../lib/contract';
import { DISPOSABLE, INTEG_MESSAGE, messageReceivedTest } from './inbound-sender';

const app = new App();
const stack = new Stack(app, 'AgentPipelineInteg-CloudApi');
// The test signs with a generated app secret; the access token stays a placeholder, so the reply's
// send fails after the receipt this test is about.
const whatsAppSecret = new secretsmanager.Secret(stack, 'WhatsAppSecret', {
  removalPolicy: RemovalPolicy.DESTROY,
  generateSecretString: {
    secretStringTemplate: JSON.stringify({ [WHATSAPP_SECRET_FIELDS.verifyToken]: 'integ-verify-token', [WHATSAPP_SECRET_FIELDS.accessToken]: 'integ-access-token' }),
    generateStringKey: WHATSAPP_SECRET_FIELDS.appSecret,
    excludePunctuation: true,
  },
});
const pipeline = new AgentPipeline(stack, 'Pipeline', {
  environment: 'integ-cloud-api',
  agentBackend: AgentBackend.scripted(),
  whatsAppSecret,
  phoneNumberIds: [INTEG_MESSAGE.metaPhoneNumberId],
  ...DISPOSABLE,
});

messageReceivedTest(app, 'CloudApi', {
  pipeline,
  destination: { webhookUrl: pipeline.webhookUrl!, secret: whatsAppSecret },
  messageId: 'wamid.integ-cloud-api-signed-text',
});
