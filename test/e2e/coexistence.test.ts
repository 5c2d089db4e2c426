// A number shared with the WhatsApp Business app, end to end on the local runtime: signed Meta POSTs
// → webhook Function URL → DynamoDB Local + SQS FIFO emulator → orchestrator → scripted agent → fake
// Graph API. A person of the business answers a customer from the app (Meta's `smb_message_echoes`):
// the echo is recorded as theirs, the agent stops answering that customer — nobody is notified, since
// a person is answering — and goes on answering the others.
import { isCustomerWindowOpen } from '../../lambda/core/application/customer-window';
import { ANSWERED_FROM_PHONE } from '../../lambda/core/domain/business-echo';
import { SessionState } from '../../lambda/core/domain/session';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { deliverBusinessEcho, LOCAL_BUSINESS, newWamid, postSignedNotification } from '../../local/runtime/meta-notification';
import { tableRepositories } from '../support/dynamo-table';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { repliesTo } from '../support/media-bucket';
import { startOperatorPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';

let pipeline: LocalPipeline | undefined;
afterEach(async () => {
  await pipeline?.stop();
  pipeline = undefined;
});

it('an answer from the Business app pauses the agent for that customer only; a redelivered echo is recorded once', async () => {
  const admin = newOperatorPhone();
  pipeline = await startOperatorPipeline([admin]);
  const customer = newCustomer();
  const other = newCustomer();
  await pipeline.sendCustomerMessage(customer, 'Olá, vocês têm horário amanhã?');
  await waitUntil(() => repliesTo(pipeline!, customer).length === 1, 20_000, 'the agent answered the first message');
  await pipeline.waitForIdle();

  const echo = { to: customer, text: 'Oi! Aqui é a Ana, da recepção: temos às 10h.' };
  const first = await deliverBusinessEcho(pipeline.webhookUrl!, pipeline.appSecret, echo);
  expect(first.status).toBe(200);
  // Meta delivers again what it is not sure was received.
  expect((await deliverBusinessEcho(pipeline.webhookUrl!, pipeline.appSecret, { ...echo, messageId: first.messageId })).status).toBe(200);

  expect((await pipeline.sendCustomerMessage(customer, 'Perfeito, pode marcar')).status).toBe(200);
  await pipeline.sendCustomerMessage(other, 'Bom dia');
  await waitUntil(() => repliesTo(pipeline!, other).length === 1, 20_000, 'the agent answered another customer');
  await pipeline.waitForIdle();

  expect(repliesTo(pipeline, customer)).toHaveLength(1);
  const { session, history } = await pipeline.conversation(customer);
  expect(session).toMatchObject({ state: SessionState.AWAITING_HUMAN, handoffReason: ANSWERED_FROM_PHONE });
  expect(session?.assignedTo).toBeUndefined();
  expect(session?.handoffRequestedAt).toBeUndefined();
  expect(history.map((message) => [message.role, message.direction, message.text])).toEqual([
    ['user', 'inbound', 'Olá, vocês têm horário amanhã?'],
    ['assistant', 'outbound', expect.any(String)],
    ['business_app', 'outbound', echo.text],
    ['user', 'inbound', 'Perfeito, pode marcar'],
  ]);

  // A person is answering from the phone: nobody is paged, and the customer is not told that nobody is available.
  const sentBefore = pipeline.fakeWhatsApp.sent().length;
  const sweep = await pipeline.sweepHandoffs();
  expect(sweep).toMatchObject({ notified: 0, customersReminded: 0 });
  expect(pipeline.fakeWhatsApp.sent()).toHaveLength(sentBefore);
});

it('a business that writes first from the app opens the conversation with people, and the echo never opens the 24-hour window', async () => {
  pipeline = await startOperatorPipeline([newOperatorPhone()]);
  const customer = newCustomer();
  expect((await deliverBusinessEcho(pipeline.webhookUrl!, pipeline.appSecret, { to: customer, text: 'Seu pedido chegou!' })).status).toBe(200);
  const repositories = tableRepositories(pipeline.tableName);
  expect(await isCustomerWindowOpen({ messages: repositories.messages, clock: { now: () => new Date() } }, customer)).toBe(false);

  await pipeline.sendCustomerMessage(customer, 'Obrigado!');
  await pipeline.waitForIdle();

  expect(repliesTo(pipeline, customer)).toEqual([]);
  const { session, history } = await pipeline.conversation(customer);
  expect(session).toMatchObject({ state: SessionState.AWAITING_HUMAN, handoffReason: ANSWERED_FROM_PHONE });
  expect(history.map((message) => message.role)).toEqual(['business_app', 'user']);
});

it('a standby message (another app holds the thread) is recorded and not answered; a handover is accepted', async () => {
  pipeline = await startOperatorPipeline([newOperatorPhone()]);
  const customer = newCustomer();
  const value = { messaging_product: 'whatsapp', metadata: { display_phone_number: LOCAL_BUSINESS.displayPhoneNumber, phone_number_id: LOCAL_BUSINESS.businessPhoneNumberId } };
  const message = { from: customer, id: newWamid(), timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: 'Ainda estão abertos?' } };
  const notification = {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: LOCAL_BUSINESS.businessAccountId,
        changes: [
          { field: 'standby', value: { ...value, contacts: [{ wa_id: customer }], messages: [message] } },
          { field: 'messaging_handovers', value: { ...value, recipient: { id: customer }, control_passed: { metadata: '{}' } } },
        ],
      },
    ],
  };
  expect((await postSignedNotification(pipeline.webhookUrl!, pipeline.appSecret, notification)).status).toBe(200);
  expect((await postSignedNotification(pipeline.webhookUrl!, pipeline.appSecret, notification)).status).toBe(200);
  await pipeline.waitForIdle();

  expect(repliesTo(pipeline, customer)).toEqual([]);
  const { history } = await pipeline.conversation(customer);
  expect(history.map((entry) => [entry.role, entry.text])).toEqual([['user', 'Ainda estão abertos?']]);
});
