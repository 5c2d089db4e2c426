// The operator's redrive, on the local runtime: a poisoned turn lands in the DLQ, the cause is
// fixed, the redrive brings the message back and it is answered once; a record whose reply was
// already sent is redriven without a second send; consumed and unreadable records are dropped
// only when that is safe or confirmed.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { ScriptedAgent } from '../../lambda/core/adapters/agent/scripted-agent';
import { createDynamoRepositories } from '../../lambda/core/adapters/dynamodb/dynamo-repositories';
import { encodeDispatchMessage } from '../../lambda/core/adapters/sqs/dispatch-message';
import { FALLBACK_TEXT_DEFAULTS } from '../../lib/contract';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { newCustomer } from '../support/ids';
import { startTestPipeline } from '../support/pipeline';
import { waitUntil } from '../support/waiting';
import { startFakeCloudFormation } from '../support/fake-cloudformation';
import { principalIdentity } from '../support/permissions/function-principals';
import { isCompleted } from '../support/inspect';
import { localRedriveTarget, recordsIn, redrive, runRedriveScenario } from './harness/redrive';
import type { ScenarioRun } from './harness/scenario-run';

let pipeline: LocalPipeline | undefined;
afterEach(async () => {
  await pipeline?.stop();
  pipeline = undefined;
});

async function deadLetters(queueUrl: string): Promise<number> {
  return recordsIn(queueUrl, pipeline!.sqsClient);
}

/** The environment of an operator whose credentials are the redrive's role (`grantRedrive`). */
function asRedriveRole(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const { accessKeyId, secretAccessKey, sessionToken } = principalIdentity('redrive');
  return { ...env, AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_SESSION_TOKEN: sessionToken };
}

/**
 * The package's command-line tool, from source, as `npx cdk-whatsapp-agent-pipeline …` runs its
 * bundle. Never blocking this process: the fakes and the permission proxy it calls may be served
 * from it (a single suite runs in the jest process itself).
 */
function runCli(args: string[], env: NodeJS.ProcessEnv = asRedriveRole()): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const root = join(__dirname, '..', '..');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'bin', 'cli.ts'), ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

test('a turn that failed three times is parked in the DLQ; once the agent is fixed, the redrive gets it answered once', async () => {
  let agentBroken = true;
  const agent = new ScriptedAgent({ failWhen: () => (agentBroken ? new Error('the model endpoint is down') : undefined) });
  pipeline = await startTestPipeline({ agent, queue: { visibilityTimeoutSeconds: 1 } });
  const customer = newCustomer();
  const { messageId } = await pipeline.sendCustomerMessage(customer, 'Quero saber o preço do exame');
  await waitUntil(async () => (await deadLetters(pipeline!.deadLetterQueueUrl)) === 1, 30_000, 'the record to reach the DLQ');
  expect(agent.requests).toHaveLength(3);

  // Investigate first: nothing changes in a dry run.
  const inspected = await redrive(localRedriveTarget(pipeline), { apply: false });
  expect(inspected.map(({ inspection, action }) => [inspection.customer, inspection.messageId, inspection.verdict, action])).toEqual([[customer, messageId, 'redrive', 'inspected']]);
  expect(inspected[0].inspection.receipt?.deadLetteredAt).toBeDefined();
  expect(inspected[0].inspection.replies).toEqual([]);
  expect(await deadLetters(pipeline.deadLetterQueueUrl)).toBe(1);

  agentBroken = false;
  const [redriven] = await redrive(localRedriveTarget(pipeline));
  expect(redriven.action).toBe('redriven');
  await pipeline.fakeWhatsApp.waitForSent(2, 15_000);
  await pipeline.waitForIdle();

  // The failure notice when the message was parked, then the answer: the notice is not sent again.
  expect(pipeline.fakeWhatsApp.sent().map((sent) => sent.text)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed, 'Olá! Recebi: Quero saber o preço do exame (mensagem 1)']);
  expect(await deadLetters(pipeline.deadLetterQueueUrl)).toBe(0);
  const { history } = await pipeline.conversation(customer);
  expect(history.map((message) => [message.role, message.deliveryStatus, message.quarantinedAt])).toEqual([
    ['user', undefined, undefined],
    ['assistant', 'sent', undefined],
  ]);
  const { receipts } = createDynamoRepositories({ tableName: pipeline.tableName });
  expect(await isCompleted(receipts, { customerId: customer, messageId })).toBe(true);
  expect((await receipts.getLatest(customer))?.pendingMessageIds).toEqual([]);
}, 90_000);

test('a burst parked by one failed turn comes back whole: only the first record reached the DLQ, the redrive restores every parked message', async () => {
  let agentBroken = true;
  const agent = new ScriptedAgent({ failWhen: () => (agentBroken ? new Error('the model endpoint is down') : undefined) });
  pipeline = await startTestPipeline({ agent, queue: { visibilityTimeoutSeconds: 1 } });
  const customer = newCustomer();
  await pipeline.sendCustomerMessages(customer, ['Oi', 'Quero um exame']);
  await waitUntil(async () => (await deadLetters(pipeline!.deadLetterQueueUrl)) === 1, 30_000, 'the record to reach the DLQ');
  await pipeline.waitForIdle();

  agentBroken = false;
  const [outcome] = await redrive(localRedriveTarget(pipeline));
  expect(outcome.inspection.parked).toHaveLength(2);
  expect(outcome.action).toBe('redriven');
  await pipeline.fakeWhatsApp.waitForSent(2, 15_000);
  await pipeline.waitForIdle();
  expect(pipeline.fakeWhatsApp.sent().map((sent) => sent.text)).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed, 'Olá! Recebi: Oi | Quero um exame (mensagem 2)']);
  const { history } = await pipeline.conversation(customer);
  expect(history.map((message) => message.text)).toEqual(['Oi', 'Quero um exame', 'Olá! Recebi: Oi | Quero um exame (mensagem 2)']);
}, 90_000);

test('records of consumed messages are dropped; unreadable ones stay until confirmed; the CLI shows and applies the same', async () => {
  pipeline = await startTestPipeline({ agent: new ScriptedAgent() });
  const customer = newCustomer();
  const { messageId } = await pipeline.sendCustomerMessage(customer, 'Oi');
  await pipeline.fakeWhatsApp.waitForSent(1, 15_000);
  await pipeline.waitForIdle();
  // A copy of the answered turn's record, and a body no turn can read, in the DLQ.
  for (const [body, group] of [
    [encodeDispatchMessage({ customerId: customer, messageId }), customer],
    ['{"not":"a turn"}', 'someone'],
  ]) {
    await pipeline.sqsClient.send(new SendMessageCommand({ QueueUrl: pipeline.deadLetterQueueUrl, MessageBody: body, MessageGroupId: group, MessageDeduplicationId: `${group}-copy` }));
  }

  const cli = (...flags: string[]) => runCli(['redrive', '--table', pipeline!.tableName, '--queue-url', pipeline!.turnQueueUrl, '--dlq-url', pipeline!.deadLetterQueueUrl, ...flags]);
  const dryRun = await cli();
  expect(dryRun.status).toBe(0);
  expect(dryRun.stdout).toMatch(/verdict {4}drop → inspected/);
  expect(dryRun.stdout).toMatch(/verdict {4}confirm \(confirmed: drop\) → inspected/);
  expect(await deadLetters(pipeline.deadLetterQueueUrl)).toBe(2);

  const unconfirmed = await cli('--apply');
  // Not finished: a record waits for a confirmation.
  expect(unconfirmed.status).toBe(3);
  expect(unconfirmed.stdout).toMatch(/Done: .*1 dropped/);
  expect(await deadLetters(pipeline.deadLetterQueueUrl)).toBe(1);

  const confirmed = await cli('--apply', '--yes');
  expect(confirmed.status).toBe(0);
  expect(await deadLetters(pipeline.deadLetterQueueUrl)).toBe(0);
  await pipeline.waitForIdle();
  expect(pipeline.fakeWhatsApp.sent()).toHaveLength(1);
}, 180_000); // three runs of the tool from source (tsx compiles it each time)

test('a record whose reply was already sent is redriven to complete the bookkeeping, without a second send', async () => {
  // The send succeeds on the first attempt, then completing the turn fails on every attempt: the
  // final one parks the message, and the record lands in the DLQ with its reply recorded as sent.
  await runRedriveScenario(
    {
      name: 'completion keeps failing',
      faults: [{ boundary: 'ledger.complete › dynamodb.transact', kind: 'transient', phase: 'before', times: 3 }],
      act: async (run, redriveNow) => {
        await run.send('Oi, tudo bem?');
        await run.drain();
        const outcomes = await redriveNow();
        expect(outcomes.map(({ inspection, action }) => [inspection.verdict, action])).toEqual([['complete', 'redriven']]);
        expect(outcomes[0].inspection.replies.map((reply) => reply.status)).toEqual(['sent']);
        await run.drain(run.clean);
      },
    },
    ({ result, sent }) => {
      expect(result.faultsFired).toBe(3);
      expect(sent).toEqual(['Olá! Recebi: Oi, tudo bem? (mensagem 1)']);
    },
  );
}, 90_000);

test('messages parked before they reached the history are found and restored too', async () => {
  // Opening the session fails on every attempt, before the turn appends the burst to the history.
  await runRedriveScenario(
    {
      name: 'opening the session keeps failing',
      faults: [{ boundary: 'sessions.put › dynamodb.transact', kind: 'transient', phase: 'before', times: 3 }],
      act: async (run, redriveNow) => {
        await run.send('Oi');
        await run.send('Quero um exame');
        await run.drain();
        const outcomes = await redriveNow();
        expect(outcomes.map(({ inspection, action }) => [inspection.verdict, inspection.parked.length, action])).toEqual([['redrive', 2, 'redriven']]);
        await run.drain(run.clean);
      },
    },
    ({ sent }) => expect(sent).toEqual(['Olá! Recebi: Oi | Quero um exame (mensagem 2)']),
  );
}, 90_000);

/** A burst (`Oi`, `Quero um exame`) with a drain after each step listed, then the redrive and a clean drain. */
function burstThenRedrive(drainAfterFirst: boolean, drainAfterSecond: boolean): (run: ScenarioRun, redriveNow: () => Promise<unknown>) => Promise<void> {
  return async (run, redriveNow) => {
    await run.send('Oi');
    if (drainAfterFirst) await run.drain();
    await run.send('Quero um exame');
    if (drainAfterSecond) await run.drain();
    await redriveNow();
    await run.drain(run.clean);
  };
}

const BURST_ANSWERED_ONCE = ['Olá! Recebi: Oi | Quero um exame (mensagem 2)'];

test('a burst whose reply went out before its bookkeeping failed for good is completed, never answered twice', async () => {
  // The first record's first two attempts fail early; the last one drains both messages and sends
  // one reply, then completing them fails. The reply in the outbox owns both messages: whatever runs
  // next (the second record, or a redrive) completes them without asking the agent again.
  await runRedriveScenario(
    {
      name: 'completing a burst keeps failing',
      faults: [
        { boundary: 'ledger.readMarker › dynamodb.batchGet', kind: 'transient', phase: 'before', times: 2 },
        { boundary: 'ledger.complete › dynamodb.transact', kind: 'transient', phase: 'before' },
      ],
      act: burstThenRedrive(false, true),
    },
    ({ result, sent }) => {
      expect(result.faultsFired).toBe(3);
      expect(sent).toEqual(BURST_ANSWERED_ONCE);
    },
  );
}, 90_000);

test('a redriven message older than one still pending is answered with it, in the order the customer wrote them', async () => {
  await runRedriveScenario(
    {
      name: 'a parked message comes back behind a newer one',
      faults: [{ boundary: 'agent.respond', kind: 'transient', phase: 'before', times: 3 }],
      act: burstThenRedrive(true, false),
    },
    // Parked after the third failure: the customer was told once, then answered after the redrive.
    ({ sent }) => expect(sent).toEqual([FALLBACK_TEXT_DEFAULTS.turnFailed, ...BURST_ANSWERED_ONCE]),
  );
}, 90_000);

test('a message is never left hidden from the agent but still pending: parking is all or nothing', async () => {
  // The turn fails on every attempt; on the last one, parking it fails too (a throttled write).
  // The customer's next message must be answered together with it, visibly.
  await runRedriveScenario(
    {
      name: 'parking fails half-way',
      faults: [
        { boundary: 'agent.respond', kind: 'transient', phase: 'before', times: 3 },
        { boundary: 'ledger.park › dynamodb.transact', kind: 'transient', phase: 'before' },
      ],
      act: burstThenRedrive(true, true),
    },
    ({ result, sent }) => {
      expect(result.faultsFired).toBe(4);
      expect(sent).toEqual(BURST_ANSWERED_ONCE);
    },
  );
}, 90_000);

test('a final attempt whose reply write failed with an unknown outcome does not park a message the outbox answers', async () => {
  // The first two attempts fail at the agent; on the last one the reply is persisted but the write
  // reports an error (DynamoDB may commit a transaction and still answer 500).
  await runRedriveScenario(
    {
      name: 'persist outcome unknown on the last attempt',
      faults: [
        { boundary: 'agent.respond', kind: 'transient', phase: 'before', times: 2 },
        { boundary: 'ledger.persistResult › dynamodb.transact', kind: 'transient', phase: 'after' },
      ],
      act: burstThenRedrive(true, true),
    },
    ({ result, sent }) => {
      expect(result.faultsFired).toBe(3);
      expect(sent).toEqual(BURST_ANSWERED_ONCE);
    },
  );
}, 90_000);

test('a redriven message older than a reply waiting in the outbox is not taken for answered by it', async () => {
  // The first message is parked before its turn appended it (opening the session fails three
  // times). The second one's turn persists its reply and dies before sending it. The redrive brings
  // the first message back; the second record's retry settles the reply — which answers only the
  // second message — and the first one is still written to the history.
  await runRedriveScenario(
    {
      name: 'a parked message and a reply in the outbox',
      // The reply answers only the second message: the first is completed unanswered, as checked below.
      invariantsHold: false,
      faults: [
        { boundary: 'sessions.put › dynamodb.transact', kind: 'transient', phase: 'before', times: 3 },
        { boundary: 'ledger.readSendGuard › dynamodb.batchGet', kind: 'crash', phase: 'before' },
      ],
      act: async (run, redriveNow) => {
        await run.send('Oi');
        await run.drain();
        await run.send('Quero um exame');
        const record = (await run.live.queue.receive())!;
        expect((await run.live.queue.process(record)).deleted).toBe(false);
        await redriveNow();
        await run.drain(run.clean);
      },
    },
    async ({ result, env, sent }) => {
      expect(result.faultsFired).toBe(4);
      const { items } = await env.repositories.messages.history(result.customer, { limit: 10 });
      expect([...items].reverse().map((message) => `${message.role}: ${message.text}`)).toEqual([
        'user: Oi',
        'user: Quero um exame',
        'assistant: Olá! Recebi: Quero um exame (mensagem 1)',
      ]);
      for (const { id } of result.messages) expect(await isCompleted(env.repositories.receipts, { customerId: result.customer, messageId: id })).toBe(true);
      expect(sent).toEqual(['Olá! Recebi: Quero um exame (mensagem 1)']);
    },
  );
}, 90_000);

test('the CLI finds the table and queues from the stack outputs the construct writes (--stack)', async () => {
  pipeline = await startTestPipeline({ agent: new ScriptedAgent() });
  const customer = newCustomer();
  await pipeline.sqsClient.send(
    new SendMessageCommand({ QueueUrl: pipeline.deadLetterQueueUrl, MessageBody: '{"not":"a turn"}', MessageGroupId: customer, MessageDeduplicationId: `${customer}-stray` }),
  );
  const cloudFormation = await startFakeCloudFormation({
    'WhatsAppAgent-prod': {
      AgentTableName: pipeline.tableName,
      AgentTurnQueueUrl: pipeline.turnQueueUrl,
      AgentDeadLetterQueueUrl: pipeline.deadLetterQueueUrl,
      AgentWebhookUrl: 'https://example.lambda-url.us-east-1.on.aws/',
    },
  });
  try {
    const env = asRedriveRole({ ...process.env, AWS_ENDPOINT_URL_CLOUDFORMATION: cloudFormation.endpoint });
    const dryRun = await runCli(['redrive', '--stack', 'WhatsAppAgent-prod', '--region', 'sa-east-1'], env);
    expect(dryRun.stderr).toBe('');
    expect(dryRun.status).toBe(0);
    expect(dryRun.stdout).toContain(`${pipeline.deadLetterQueueUrl} → ${pipeline.turnQueueUrl}, table ${pipeline.tableName}`);
    expect(dryRun.stdout).toMatch(/verdict {4}confirm \(confirmed: drop\) → inspected/);
    expect(await deadLetters(pipeline.deadLetterQueueUrl)).toBe(1);

    const unknown = await runCli(['redrive', '--stack', 'NoSuchStack', '--region', 'sa-east-1'], env);
    expect(unknown.status).toBe(6);
    expect(unknown.stderr).toBe('Stack NoSuchStack does not exist in Region sa-east-1 for these credentials: check --stack, and --region (the stack\'s Region).\n');
    expect(cloudFormation.requestedStacks).toEqual(['WhatsAppAgent-prod', 'NoSuchStack']);
  } finally {
    await cloudFormation.stop();
  }
}, 180_000);
