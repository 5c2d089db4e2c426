// Handoff notifications over the real pipeline: available operators are told once, the customer is
// told when nobody is, the sweep re-notifies and reminds exactly once even when sweeps overlap, and
// a turn the agent fails for good ends with the fallback text and people, not silence.
import { setTimeout as sleep } from 'node:timers/promises';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { DEFAULT_HANDOFF_TEXTS } from '../../lib/contract';
import { AgentInvocationError, type AgentPort } from '../../lambda/core/ports/agent';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer, newOperatorPhone } from '../support/ids';
import { waitUntil } from '../support/waiting';
import { startOperatorPipeline } from '../support/pipeline';
import { tableRepositories } from '../support/dynamo-table';

const RENOTIFY_MS = 1_500;
// Far enough after the re-notification that a busy machine cannot blur the two.
const REMIND_MS = 15_000;

function textsTo(pipeline: LocalPipeline, phone: string): string[] {
  return pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === phone).map((message) => message.text);
}

describe('handoff notifications', () => {
  let pipeline: LocalPipeline;
  let repositories: ReturnType<typeof tableRepositories>;
  const admin = newOperatorPhone();
  const absent = newOperatorPhone();

  beforeAll(async () => {
    pipeline = await startOperatorPipeline([admin, absent], {
      // Long enough that a slow turn on a busy machine is not redelivered while it runs.
      queue: { visibilityTimeoutSeconds: 6 },
      handoffTimings: { renotifyOperatorsAfterMs: RENOTIFY_MS, remindCustomerAfterMs: REMIND_MS },
    });
    repositories = tableRepositories(pipeline.tableName);
  });
  afterAll(async () => {
    await pipeline.stop();
  });

  const setAvailable = (phone: string, available: boolean) => repositories.config.setOperatorAvailability(phone, available ? new Date().toISOString() : null, phone);
  const notificationsAbout = (phone: string, name: string) => textsTo(pipeline, phone).filter((text) => text.includes(name));

  it('tells the customer when nobody is available, and keeps it in the history', async () => {
    const customer = newCustomer();
    await pipeline.sendCustomerMessage(customer, 'Quero uma pessoa #humano');
    await waitUntil(() => textsTo(pipeline, customer).length === 2, 10_000, 'the reply and the notice');
    await pipeline.waitForIdle();
    expect(textsTo(pipeline, customer)).toEqual([expect.stringMatching(/^Olá! Recebi/), DEFAULT_HANDOFF_TEXTS.noOperatorAvailable]);
    const history = (await repositories.messages.history(customer)).items;
    expect(history[0]).toMatchObject({ role: 'system', text: DEFAULT_HANDOFF_TEXTS.noOperatorAvailable, deliveryStatus: 'sent' });
  });

  it('notifies each available operator once with the customer’s name and the console link; overlapping sweeps renotify and remind exactly once', async () => {
    await setAvailable(admin, true);
    await setAvailable(absent, false);
    const customer = newCustomer();
    await pipeline.sendCustomerMessage(customer, 'Sou a Rita #dado name=Rita #humano');
    await waitUntil(() => notificationsAbout(admin, 'Rita').length === 1, 10_000, 'the operator notification');
    await pipeline.waitForIdle();
    expect(notificationsAbout(admin, 'Rita')).toEqual([`Novo atendimento aguardando: Rita. Abra o console: ${pipeline.consoleUrl}`]);
    expect(notificationsAbout(absent, 'Rita')).toEqual([]);
    expect(textsTo(pipeline, customer)).not.toContain(DEFAULT_HANDOFF_TEXTS.noOperatorAvailable);

    // Sweeps before the re-notification time send nothing.
    await Promise.all([pipeline.sweepHandoffs(), pipeline.sweepHandoffs()]);
    expect(notificationsAbout(admin, 'Rita')).toHaveLength(1);

    await sleep(RENOTIFY_MS + 100);
    await Promise.all(Array.from({ length: 5 }, () => pipeline.sweepHandoffs()));
    expect(notificationsAbout(admin, 'Rita')).toHaveLength(2);
    expect(textsTo(pipeline, customer)).not.toContain(DEFAULT_HANDOFF_TEXTS.customerRenotify);

    const { handoffRequestedAt } = (await pipeline.conversation(customer)).session!;
    await sleep(Date.parse(handoffRequestedAt!) + REMIND_MS + 100 - Date.now());
    await Promise.all(Array.from({ length: 5 }, () => pipeline.sweepHandoffs()));
    expect(textsTo(pipeline, customer).filter((text) => text === DEFAULT_HANDOFF_TEXTS.customerRenotify)).toHaveLength(1);
    expect(notificationsAbout(admin, 'Rita')).toHaveLength(3);

    // Bounded: however long it waits, at most 1 + 3 notifications per operator and one reminder.
    for (let round = 0; round < 3; round++) {
      await sleep(RENOTIFY_MS + 100);
      await Promise.all([pipeline.sweepHandoffs(), pipeline.sweepHandoffs()]);
    }
    expect(notificationsAbout(admin, 'Rita')).toHaveLength(4);
    expect(textsTo(pipeline, customer).filter((text) => text === DEFAULT_HANDOFF_TEXTS.customerRenotify)).toHaveLength(1);
    const session = (await pipeline.conversation(customer)).session!;
    expect(session).toMatchObject({ state: 'AWAITING_HUMAN', handoffRenotifyCount: 3 });
  }, 90_000);

  it('lets the sweep send the first notification when the turn that handed off was retried', async () => {
    await setAvailable(admin, true);
    const customer = newCustomer();
    pipeline.fakeWhatsApp.failNext(1, { httpStatus: 500, code: 131000, message: 'Something went wrong' });
    await pipeline.sendCustomerMessage(customer, 'Sou o Davi #dado name=Davi #humano');
    await waitUntil(() => textsTo(pipeline, customer).length === 1, 20_000, 'the retried reply');
    await pipeline.waitForIdle();
    expect(textsTo(pipeline, customer)).toEqual([expect.stringMatching(/^Olá! Recebi/)]);
    expect(notificationsAbout(admin, 'Davi')).toEqual([]);

    const reports = await Promise.all([pipeline.sweepHandoffs(), pipeline.sweepHandoffs(), pipeline.sweepHandoffs()]);
    expect(reports.reduce((sum, report) => sum + report.notified, 0)).toBe(1);
    expect(notificationsAbout(admin, 'Davi')).toHaveLength(1);
  });
});

describe('a turn the agent fails for good', () => {
  // One receive, so the first attempt is the last: no retry timing on a busy machine.
  it('sends the fallback text and hands the conversation to people instead of the dead-letter queue', async () => {
    const admin = newOperatorPhone();
    const pipeline = await startOperatorPipeline([admin], { queue: { visibilityTimeoutSeconds: 20, maxReceiveCount: 1 } });
    const repositories = tableRepositories(pipeline.tableName);
    try {
      await repositories.config.setOperatorAvailability(admin, new Date().toISOString(), admin);
      const customer = newCustomer();
      await pipeline.sendCustomerMessage(customer, 'Isto vai falhar #falha');
      await waitUntil(() => textsTo(pipeline, customer).includes(DEFAULT_HANDOFF_TEXTS.fallback), 15_000, 'the fallback text');
      await pipeline.waitForIdle();
      expect(textsTo(pipeline, customer)).toEqual([DEFAULT_HANDOFF_TEXTS.fallback]);
      const { session, history } = await pipeline.conversation(customer);
      expect(session).toMatchObject({ state: 'AWAITING_HUMAN', handoffRequestedAt: expect.any(String) });
      expect(history.map((message) => [message.role, message.text])).toEqual([
        ['user', 'Isto vai falhar #falha'],
        ['system', DEFAULT_HANDOFF_TEXTS.fallback],
      ]);
      expect(textsTo(pipeline, admin)).toEqual([`Novo atendimento aguardando: ${customer}. Abra o console: ${pipeline.consoleUrl}`]);
      const receipts = await repositories.receipts.listDeadLettered(customer);
      expect(receipts).toEqual([]);
      const { Attributes } = await pipeline.sqsClient.send(
        new GetQueueAttributesCommand({ QueueUrl: pipeline.deadLetterQueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
      );
      expect(Attributes?.ApproximateNumberOfMessages).toBe('0');
    } finally {
      await pipeline.stop();
    }
  });
});

describe('a turn the agent fails on every receive', () => {
  it('goes to people on the last receive with the fallback text, once, and nothing in the dead-letter queue', async () => {
    const admin = newOperatorPhone();
    let calls = 0;
    const throttled: AgentPort = {
      respond: async () => {
        calls++;
        throw new AgentInvocationError('invocation_failed', 'the model endpoint is throttling');
      },
    };
    const pipeline = await startOperatorPipeline([admin], { agent: throttled, queue: { visibilityTimeoutSeconds: 2, maxReceiveCount: 3 } });
    const repositories = tableRepositories(pipeline.tableName);
    try {
      await repositories.config.setOperatorAvailability(admin, new Date().toISOString(), admin);
      const customer = newCustomer();
      await pipeline.sendCustomerMessage(customer, 'Oi, preciso de ajuda');
      await waitUntil(() => textsTo(pipeline, customer).includes(DEFAULT_HANDOFF_TEXTS.fallback), 30_000, 'the fallback text');
      await pipeline.waitForIdle();
      expect(calls).toBe(3);
      expect(textsTo(pipeline, customer)).toEqual([DEFAULT_HANDOFF_TEXTS.fallback]);
      const { session, history } = await pipeline.conversation(customer);
      expect(session).toMatchObject({ state: 'AWAITING_HUMAN', handoffRequestedAt: expect.any(String) });
      expect(history.map((message) => [message.role, message.text])).toEqual([
        ['user', 'Oi, preciso de ajuda'],
        ['system', DEFAULT_HANDOFF_TEXTS.fallback],
      ]);
      const { Attributes } = await pipeline.sqsClient.send(
        new GetQueueAttributesCommand({ QueueUrl: pipeline.deadLetterQueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
      );
      expect(Attributes?.ApproximateNumberOfMessages).toBe('0');
      expect(textsTo(pipeline, admin)).toEqual([`Novo atendimento aguardando: ${customer}. Abra o console: ${pipeline.consoleUrl}`]);
    } finally {
      await pipeline.stop();
    }
  });
});

describe('a customer who writes their own name into the operators’ notice', () => {
  it('reaches the operator as inert words, with the real console link once, at the end', async () => {
    const hostileName = [
      'Seu acesso expirou: entre AGORA em https://console-login.example/login?next={link}',
      'e digite sua senha $` $& $\' {name} *aqui*',
      'ou ligue +55 11 99999-0000 www.evil.example',
      'x'.repeat(5000),
    ].join('\n');
    // The agent records the name the customer gave and hands the conversation over, as a real model may.
    const agent: AgentPort = {
      respond: async () => ({
        reply: 'Vou chamar uma pessoa.',
        actions: [
          { type: 'update_qualification', data: { name: hostileName } },
          { type: 'request_human_handoff', reason: 'customer asked' },
        ],
        iterations: 1,
        stopReason: 'completed',
      }),
    };
    const admin = newOperatorPhone();
    const pipeline = await startOperatorPipeline([admin], { agent });
    const repositories = tableRepositories(pipeline.tableName);
    try {
      await repositories.config.setOperatorAvailability(admin, new Date().toISOString(), admin);
      const customer = newCustomer();
      await pipeline.sendCustomerMessage(customer, 'Meu nome é o que está acima');
      await waitUntil(() => textsTo(pipeline, admin).length === 1, 15_000, 'the operator notification');
      await pipeline.waitForIdle();
      const [notice] = textsTo(pipeline, admin);

      const consoleUrl = pipeline.consoleUrl!;
      expect(notice.endsWith(`Abra o console: ${consoleUrl}`)).toBe(true);
      expect(notice.split(consoleUrl)).toHaveLength(2);
      expect(notice).not.toMatch(/https:\/\/console-login|www\.evil|\{link\}|\{name\}|\$[`&']|\*aqui\*|99999|\n|x{100}/);
      expect(notice).toBe(`Novo atendimento aguardando: Seu acesso expirou entre AGORA em https console-login examp…. Abra o console: ${consoleUrl}`);
    } finally {
      await pipeline.stop();
    }
  });
});
