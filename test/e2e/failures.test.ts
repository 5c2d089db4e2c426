// End to end, when things go wrong: WhatsApp outages, poison messages, and a human taking over.
// Queues get a 2 s visibility timeout so SQS redelivers quickly; everything else is as deployed.
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import { encodeDispatchMessage } from '../../lambda/core/adapters/sqs/dispatch-message';
import { AgentInvocationError, type AgentRequest } from '../../lambda/core/ports/agent';
import { FALLBACK_TEXT_DEFAULTS } from '../../lib/contract';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import type { InvocationReport } from '../../local/runtime/sqs-event-source';
import { gate, waitUntil } from '../support/waiting';
import { newCustomer } from '../support/ids';
import { receiveOne } from '../support/inspect';
import { startTestPipeline } from '../support/pipeline';
import { localRedriveTarget, redrive } from '../reliability/harness/redrive';

const FAST_RETRIES = { visibilityTimeoutSeconds: 2 };

let pipeline: LocalPipeline | undefined;
let invocations: InvocationReport[];
beforeEach(() => {
  invocations = [];
});
afterEach(async () => {
  await pipeline?.stop();
  pipeline = undefined;
});

function repliesTo(customer: string): string[] {
  return pipeline!.fakeWhatsApp.sent().filter((message) => message.recipient === customer).map((message) => message.text);
}

function invocationsFor(customer: string): InvocationReport[] {
  return invocations.filter((report) => JSON.parse(report.record.body).phone_number === customer);
}

async function deadLetters(): Promise<number> {
  const { Attributes } = await pipeline!.sqsClient.send(
    new GetQueueAttributesCommand({ QueueUrl: pipeline!.deadLetterQueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
}

it('rides out a WhatsApp outage: the persisted reply is re-sent by the queue’s retries, once, without asking the agent again', async () => {
  const agent = new ScriptedAgent();
  pipeline = await startTestPipeline({ agent, queue: FAST_RETRIES, onInvocation: (report) => invocations.push(report) });
  const customer = newCustomer();
  pipeline.fakeWhatsApp.failNext(2, { httpStatus: 503, code: 2, message: 'Service temporarily unavailable or down.' });

  expect((await pipeline.sendCustomerMessage(customer, 'Oi, estão aí?')).status).toBe(200);
  await pipeline.fakeWhatsApp.waitForSent(1, 20_000);
  await pipeline.waitForIdle();

  expect(repliesTo(customer)).toEqual(['Olá! Recebi: Oi, estão aí? (mensagem 1)']);
  expect(invocationsFor(customer).map((report) => [report.outcome, report.receiveCount])).toEqual([
    ['retained', 1],
    ['retained', 2],
    ['deleted', 3],
  ]);
  expect(agent.requests).toHaveLength(1);
  expect(await deadLetters()).toBe(0);
  const { history } = await pipeline.conversation(customer);
  expect(history.map((message) => [message.role, message.deliveryStatus])).toEqual([
    ['user', undefined],
    ['assistant', 'sent'],
  ]);

  // Once WhatsApp is back, the conversation simply continues.
  await pipeline.sendCustomerMessage(customer, 'Que bom');
  await pipeline.fakeWhatsApp.waitForSent(2, 15_000);
  expect(repliesTo(customer)[1]).toBe('Olá! Recebi: Que bom (mensagem 2)');
});

it('moves a poisoned message to the DLQ after 3 receives without blocking other customers', async () => {
  // The poison's first agent call is held until the other customer had all three answers: if the
  // poison blocked the pipeline, those answers would never come. Its model calls fail as a
  // throttled endpoint does, which a retry might fix: so the record is retried to the end.
  const othersAnswered = gate();
  let poisonCalls = 0;
  const isPoison = (request: AgentRequest) => request.history.some((entry) => entry.text.includes('quebra o agente'));
  const agent = new ScriptedAgent({
    respondAfter: async (request) => {
      if (isPoison(request) && ++poisonCalls === 1) await othersAnswered.opened;
    },
    failWhen: (request) => (isPoison(request) ? new AgentInvocationError('invocation_failed', 'the model endpoint is throttling') : undefined),
  });
  pipeline = await startTestPipeline({ agent, queue: FAST_RETRIES, onInvocation: (report) => invocations.push(report) });
  const poisoned = newCustomer();
  const healthy = newCustomer();

  const { messageId } = await pipeline.sendCustomerMessage(poisoned, 'Isto quebra o agente');
  await waitUntil(() => poisonCalls === 1, 15_000, 'the poisoned turn to reach the agent');
  for (const [index, text] of ['Oi', 'Tudo bem?', 'Quero um exame'].entries()) {
    expect((await pipeline.sendCustomerMessage(healthy, text)).status).toBe(200);
    await waitUntil(() => repliesTo(healthy).length > index, 15_000, `answer ${index + 1} to the other customer`);
  }
  othersAnswered.open();

  const deadLetter = await receiveOne(pipeline.sqsClient, pipeline.deadLetterQueueUrl, 30_000);
  expect(JSON.parse(deadLetter.Body!)).toEqual({ phone_number: poisoned, message_id: messageId });
  expect(invocationsFor(poisoned).map((report) => [report.outcome, report.receiveCount])).toEqual([
    ['retained', 1],
    ['retained', 2],
    ['retained', 3],
  ]);
  // Without the operator plane nobody else tells the customer: the parked message gets the notice.
  expect(repliesTo(poisoned)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed]);
  expect(repliesTo(healthy)).toEqual([
    'Olá! Recebi: Oi (mensagem 1)',
    'Olá! Recebi: Tudo bem? (mensagem 2)',
    'Olá! Recebi: Quero um exame (mensagem 3)',
  ]);

  // The poisoned customer is not stuck: the parked message stays out of later turns.
  await pipeline.sendCustomerMessage(poisoned, 'Desculpe, outra pergunta');
  await waitUntil(() => repliesTo(poisoned).length === 2, 15_000, 'the poisoned customer’s next answer');
  expect(repliesTo(poisoned)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed, 'Olá! Recebi: Desculpe, outra pergunta (mensagem 1)']);
});

it('answers a failure no retry can fix with the fallback text on the first receive; a redelivery sends nothing again', async () => {
  const agent = new ScriptedAgent();
  pipeline = await startTestPipeline({ agent, queue: FAST_RETRIES, onInvocation: (report) => invocations.push(report) });
  const customer = newCustomer();

  const { messageId } = await pipeline.sendCustomerMessage(customer, 'Isto quebra o agente #falha');
  await pipeline.fakeWhatsApp.waitForSent(1, 15_000);
  await pipeline.waitForIdle();
  expect(invocationsFor(customer).map((report) => [report.outcome, report.receiveCount])).toEqual([['deleted', 1]]);
  expect(agent.calls).toBe(1);
  expect(repliesTo(customer)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed]);
  expect(await deadLetters()).toBe(0);
  const { history } = await pipeline.conversation(customer);
  expect(history.map((message) => [message.role, message.text, message.deliveryStatus])).toEqual([
    ['user', 'Isto quebra o agente #falha', undefined],
    ['system', FALLBACK_TEXT_DEFAULTS.turnFailed, 'sent'],
  ]);

  // The same record delivered again (SQS delivers at least once): the turn finds it answered.
  await pipeline.sqsClient.send(
    new SendMessageCommand({ QueueUrl: pipeline.turnQueueUrl, MessageBody: encodeDispatchMessage({ customerId: customer, messageId }), MessageGroupId: customer, MessageDeduplicationId: `${messageId}-again` }),
  );
  await waitUntil(() => invocationsFor(customer).length === 2, 15_000, 'the redelivered record');
  await pipeline.waitForIdle();
  expect(agent.calls).toBe(1);
  expect(repliesTo(customer)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed]);
});

it('stops involving the agent once a human was asked for: later messages go to the human inbox', async () => {
  const agent = new ScriptedAgent();
  pipeline = await startTestPipeline({ agent, onInvocation: (report) => invocations.push(report) });
  const customer = newCustomer();

  await pipeline.sendCustomerMessage(customer, 'Quero falar com uma pessoa #humano');
  await pipeline.fakeWhatsApp.waitForSent(1, 15_000);
  await pipeline.waitForIdle();
  expect((await pipeline.conversation(customer)).session?.state).toBe('AWAITING_HUMAN');
  const agentCalls = agent.requests.length;
  const turns = invocations.length;

  expect((await pipeline.sendCustomerMessage(customer, 'Alguém aí?')).status).toBe(200);
  await pipeline.waitForIdle();

  expect(agent.requests).toHaveLength(agentCalls);
  expect(invocations).toHaveLength(turns);
  expect(repliesTo(customer)).toHaveLength(1);
  const { session, history } = await pipeline.conversation(customer);
  expect(session?.state).toBe('AWAITING_HUMAN');
  expect(history[history.length - 1]).toMatchObject({ role: 'user', text: 'Alguém aí?' });
});

it('tells a customer whose turn failed on every receive once, without the operator plane; a redrive then answers and tells nothing again', async () => {
  // The model endpoint throttles on every receive, as it may for minutes: a retry could fix it, so
  // the record goes to the DLQ with the message parked, and the customer is told once meanwhile.
  let throttling = true;
  const agent = new ScriptedAgent({ failWhen: () => (throttling ? new AgentInvocationError('invocation_failed', 'the model endpoint is throttling') : undefined) });
  pipeline = await startTestPipeline({ agent, queue: FAST_RETRIES, onInvocation: (report) => invocations.push(report) });
  const customer = newCustomer();

  const { messageId } = await pipeline.sendCustomerMessage(customer, 'Vocês abrem sábado?');
  await waitUntil(async () => (await deadLetters()) === 1, 30_000, 'the record in the DLQ');
  await pipeline.waitForIdle();
  expect(invocationsFor(customer).map((report) => report.receiveCount)).toEqual([1, 2, 3]);
  const target = localRedriveTarget(pipeline);
  // The notice is no reply to the message: the redrive's verdict still redrives it.
  const [inspected] = await redrive(target, { apply: false });
  expect(inspected.inspection).toMatchObject({ messageId, verdict: 'redrive', replies: [] });
  expect(repliesTo(customer)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed]);
  // In the history (the console shows it), but neither the parked message nor the notice is the agent's to see.
  const { items: newestFirst } = await target.repositories.messages.history(customer);
  expect(newestFirst.map((message) => [message.role, message.text, message.deliveryStatus, message.failureNoticeFor])).toEqual([
    ['system', FALLBACK_TEXT_DEFAULTS.turnFailed, 'sent', messageId],
    ['user', 'Vocês abrem sábado?', undefined, undefined],
  ]);
  expect((await pipeline.conversation(customer)).history).toEqual([]);
  // The notice's send names it as callback data: WhatsApp's statuses of it are recorded on it.
  const [notice] = pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === customer);
  await pipeline.fakeWhatsApp.reportStatus(notice.providerMessageId, 'delivered');
  expect((await target.repositories.messages.history(customer)).items[0]).toMatchObject({ failureNoticeFor: messageId, receipt: { status: 'delivered' } });

  // The endpoint recovers; the operator's redrive asks the agent again, which sees the customer's
  // message last (the notice is hidden from it), and the notice is not sent again.
  throttling = false;
  const agentCalls = agent.calls;
  expect((await redrive(target)).map((outcome) => outcome.action)).toEqual(['redriven']);
  await waitUntil(() => repliesTo(customer).length === 2, 15_000, 'the agent’s answer after the redrive');
  await pipeline.waitForIdle();
  expect(repliesTo(customer)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed, 'Olá! Recebi: Vocês abrem sábado? (mensagem 1)']);
  expect(agent.calls).toBe(agentCalls + 1);
  expect(agent.requests.at(-1)!.history.at(-1)).toMatchObject({ role: 'customer', text: 'Vocês abrem sábado?' });
  expect(await deadLetters()).toBe(0);
});
