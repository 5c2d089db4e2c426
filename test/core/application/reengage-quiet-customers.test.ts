// The re-engagement against DynamoDB Local, with the real webhook and turn use case: a customer who
// went quiet is sent the template once, with their name, recorded as they read it; a retried or
// concurrent sweep, an opted-out customer, a customer who wrote meanwhile and a refused send never
// lead to a second template; the idle close still comes at the idle timeout.
import { DynamoSessionRepository } from '../../../lambda/core/adapters/dynamodb/session-repository';
import { DynamoMessageRepository } from '../../../lambda/core/adapters/dynamodb/message-repository';
import { randomIdGenerator } from '../../../lambda/core/adapters/system/random-id-generator';
import { ReengageQuietCustomers } from '../../../lambda/core/application/reengage-quiet-customers';
import { type Session, SessionState } from '../../../lambda/core/domain/session';
import { templateFromMeta, type WhatsAppTemplate } from '../../../lambda/core/domain/whatsapp-template';
import { type OutboundTemplateMessage, WhatsAppSendError, type WhatsAppSender } from '../../../lambda/core/ports/whatsapp-sender';
import { newCustomer } from '../../support/ids';
import { bodyValues, QUIET_CUSTOMER_TEMPLATE } from '../../support/message-templates';
import { ManualClock } from '../../support/manual-clock';
import { TurnHarness } from '../../support/turn-harness';
import { messageNotification } from '../../support/webhook-events';

const HOUR = 3_600_000;
/** The template as the sync stores it. */
const TEMPLATE: WhatsAppTemplate = templateFromMeta(QUIET_CUSTOMER_TEMPLATE, '2026-01-01T00:00:00.000000Z')!;

let harness: TurnHarness;
afterEach(() => harness?.close());

/** Records the templates sent; `failNext` makes the next send refused as WhatsApp refuses it. */
class RecordingSender {
  readonly sent: OutboundTemplateMessage[] = [];
  failNext = false;
  async sendTemplate(message: OutboundTemplateMessage) {
    if (this.failNext) {
      this.failNext = false;
      throw new WhatsAppSendError('Message failed to send', { category: 'recipient', retryable: false, outcomeUnknown: false, httpStatus: 400, metaCode: 132001, partsDelivered: 0 });
    }
    this.sent.push(message);
    return { providerMessageId: `wamid.T${this.sent.length}`, providerMessageIds: [`wamid.T${this.sent.length}`] };
  }
}

interface ReengagerOptions {
  readonly sender?: RecordingSender;
  readonly optedOut?: readonly string[];
  readonly template?: WhatsAppTemplate;
  /** What the activity index lists, instead of the table's: a page read before the customer wrote. */
  readonly listed?: readonly Session[];
}

function reengagerAt(hoursLater: number, options: ReengagerOptions = {}) {
  const clock = new ManualClock(new Date(Date.now() + hoursLater * HOUR));
  const sender = options.sender ?? new RecordingSender();
  const sessions = new DynamoSessionRepository(harness.kit, clock);
  if (options.listed) sessions.listIdle = async (state) => ({ items: options.listed!.filter((session) => session.state === state) });
  const reengager = new ReengageQuietCustomers({
    sessions,
    messages: new DynamoMessageRepository(harness.kit, clock),
    receipts: harness.receipts,
    templates: { get: async (ref) => (ref.name === TEMPLATE.name && ref.language === TEMPLATE.language ? (options.template ?? TEMPLATE) : undefined) },
    whatsapp: sender as unknown as WhatsAppSender,
    consent: { isOptedOut: async (customerId) => (options.optedOut ?? []).includes(customerId) },
    clock,
    ids: randomIdGenerator,
    settings: { template: { name: TEMPLATE.name, language: TEMPLATE.language }, afterMs: 4 * HOUR },
  });
  return { reengager, sender, clock };
}

/** A conversation the agent answered once, of a customer without a WhatsApp profile name: their name is what they told the agent, if anything. */
async function answeredOnce(text = 'Oi, sou a Ana #dado nome=Ana'): Promise<string> {
  harness ??= await TurnHarness.start();
  const customer = newCustomer();
  const notification = JSON.parse(messageNotification(customer, { id: 'wamid.A', timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } }));
  delete notification.entry[0].changes[0].value.contacts[0].profile;
  expect((await harness.webhookPost(JSON.stringify(notification))).statusCode).toBe(200);
  await harness.process(customer, "wamid.A");
  return customer;
}

test('a customer who went quiet is sent the template once, with their name, recorded as they read it; the conversation stays open', async () => {
  harness = await TurnHarness.start();
  const customer = await answeredOnce();
  const before = (await harness.sessions.getActive(customer))!;

  expect(await reengagerAt(3).reengager.sweep()).toMatchObject({ sent: 0 });
  const { reengager, sender, clock } = reengagerAt(5);
  expect(await reengager.sweep()).toEqual({ quiet: 1, sent: 1, failed: 0, withoutName: 0, templateReady: true, complete: true });
  expect(sender.sent).toEqual([expect.objectContaining({ customerId: customer, templateName: TEMPLATE.name, languageCode: 'pt_BR', parameters: bodyValues(['Ana']) })]);

  const after = (await harness.sessions.getActive(customer))!;
  expect(after).toMatchObject({ sessionId: before.sessionId, state: SessionState.QUALIFYING, updatedAt: before.updatedAt });
  expect(after.reengagedAt).toBe(clock.now().toISOString().replace('Z', '000Z'));
  expect((await harness.history(customer)).at(-1)).toBe('system[sent]: Olá Ana, ainda podemos ajudar? Responda esta mensagem para continuar.');

  // A second sweep, later or concurrent, sends nothing more.
  const again = reengagerAt(6, { sender });
  const concurrent = reengagerAt(6, { sender });
  await Promise.all([again.reengager.sweep(), concurrent.reengager.sweep()]);
  expect(sender.sent).toHaveLength(1);
});

test('concurrent sweeps of a never re-engaged conversation send one template between them', async () => {
  harness = await TurnHarness.start();
  await answeredOnce();
  const sender = new RecordingSender();
  const reports = await Promise.all([reengagerAt(5, { sender }).reengager.sweep(), reengagerAt(5, { sender }).reengager.sweep()]);
  expect(sender.sent).toHaveLength(1);
  expect(reports.map((report) => report.sent).sort()).toEqual([0, 1]);
});

test('an opted-out customer, a customer whose name is unknown to a template that takes it, and a missing template: nothing is sent', async () => {
  harness = await TurnHarness.start();
  const optedOut = await answeredOnce();
  const unnamed = await answeredOnce('Oi');
  const { reengager, sender } = reengagerAt(5, { optedOut: [optedOut] });
  expect(await reengager.sweep()).toMatchObject({ quiet: 2, sent: 0, withoutName: 1 });
  expect(sender.sent).toEqual([]);
  expect((await harness.sessions.getActive(optedOut))!.reengagedAt).toBeUndefined();
  expect((await harness.sessions.getActive(unnamed))!.reengagedAt).toBeUndefined();

  // A template without parameters goes to the customer whose name is unknown.
  const plain = reengagerAt(5, { optedOut: [optedOut], template: { ...TEMPLATE, body: 'Ainda podemos ajudar?', bodyParameters: [] } });
  expect(await plain.reengager.sweep()).toMatchObject({ sent: 1 });
  expect(plain.sender.sent).toEqual([expect.objectContaining({ customerId: unnamed, parameters: [] })]);

  const paused = reengagerAt(5, { template: { ...TEMPLATE, status: 'PAUSED' } });
  expect(await paused.reengager.sweep()).toMatchObject({ sent: 0, templateReady: false });
});

test('a template that takes a header or a button value is not ready: nobody is claimed, and the report says why', async () => {
  harness = await TurnHarness.start();
  const customer = await answeredOnce();
  const withButton = { ...TEMPLATE, buttons: [{ type: 'URL', text: 'Ver', url: 'https://loja.example/{{1}}' }] };
  const { reengager, sender } = reengagerAt(5, { template: withButton });

  expect(await reengager.sweep()).toMatchObject({ sent: 0, templateReady: false, templateProblem: expect.stringContaining('takes values the pipeline cannot fill by itself') });
  expect(sender.sent).toEqual([]);
  expect((await harness.sessions.getActive(customer))!.reengagedAt).toBeUndefined();
});

test('a customer who wrote after the sweep read their conversation is not re-engaged, and goes on as in any turn', async () => {
  harness = await TurnHarness.start();
  const customer = await answeredOnce();
  const stale = (await harness.sessions.getActive(customer))!;
  await harness.receive(customer, 'wamid.B', 'Ainda estou aqui');
  await harness.process(customer, 'wamid.B');

  const { reengager, sender } = reengagerAt(5, { listed: [stale] });
  expect(await reengager.sweep()).toMatchObject({ quiet: 1, sent: 0, failed: 0 });
  expect(sender.sent).toEqual([]);
  const current = (await harness.sessions.getActive(customer))!;
  expect(current).toMatchObject({ sessionId: stale.sessionId, state: SessionState.QUALIFYING });
  expect(current.reengagedAt).toBeUndefined();
  // Quiet again since the answer, the customer is re-engaged for that activity.
  expect(await reengagerAt(5).reengager.sweep()).toMatchObject({ sent: 1 });
});

test('a send WhatsApp refuses keeps its claim: the customer is re-engaged at most once', async () => {
  harness = await TurnHarness.start();
  const customer = await answeredOnce();
  const sender = new RecordingSender();
  sender.failNext = true;
  expect(await reengagerAt(5, { sender }).reengager.sweep()).toMatchObject({ sent: 0, failed: 1 });
  expect((await harness.sessions.getActive(customer))!.reengagedAt).toBeDefined();
  expect(await reengagerAt(6, { sender }).reengager.sweep()).toMatchObject({ sent: 0, failed: 0 });
  expect(sender.sent).toEqual([]);
  expect(await harness.history(customer)).toHaveLength(2);
});

test('a scenario customer an evaluation run left when it did not finish is sent nothing', async () => {
  harness = await TurnHarness.start();
  const scenarioCustomer = 'eval-20261207181500000-unfinished-0';
  await harness.receive(scenarioCustomer, 'wamid.E', 'Sou a Ana #dado nome=Ana');
  await harness.process(scenarioCustomer, 'wamid.E');
  const customer = await answeredOnce();

  const { reengager, sender } = reengagerAt(5);
  expect(await reengager.sweep()).toMatchObject({ quiet: 2, sent: 1, failed: 0, withoutName: 0 });
  expect(sender.sent.map((message) => message.customerId)).toEqual([customer]);
  expect((await harness.sessions.getActive(scenarioCustomer))?.reengagedAt).toBeUndefined();
});
