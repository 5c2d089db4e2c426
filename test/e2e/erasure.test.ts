// Erasure over the real pipeline: a customer who has every kind of item the pipeline stores — a
// conversation handed to people, claimed, answered and closed, whose session retention then removed
// while its CRM row stayed; consent events; demands; budgets; a dead-lettered turn; and, as they
// are also an admin, sign-in links and a console session — is erased from the console, and then no
// item of the table and no message of either queue names them. A turn still queued for them
// afterwards does nothing. A customer whose voice notes outlived the turn's wait: their
// transcription jobs are erased too, at once or by the idle sweep once they end.
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { createHash } from 'node:crypto';
import type { LocalPipeline } from '../../local/runtime/local-pipeline';
import { tableRepositories } from '../support/dynamo-table';
import { newCustomer, newMessageId, newOperatorPhone } from '../support/ids';
import { allItems, queueDepth, takeAll } from '../support/inspect';
import { type ConsoleClient, signInOverWhatsApp } from '../support/operator-console-client';
import { startOperatorPipeline } from '../support/pipeline';
import { repliesTo, sendAttachment, VOICE_NOTE_OGG } from '../support/media-bucket';
import { CustomerPseudonyms } from '../../lambda/core/application/privacy/customer-pseudonyms';
import { customerJobPrefix } from '../../lambda/core/application/transcription-jobs';
import { waitUntil } from '../support/waiting';

let pipeline: LocalPipeline;
let repositories: ReturnType<typeof tableRepositories>;
let admin: ConsoleClient;
const adminPhone = newOperatorPhone();
/** The customer erased: they also work as an admin. */
const customer = newOperatorPhone();
/** Another customer whose turn is dead-lettered too: their record must stay, visible. */
const bystander = newCustomer();

beforeAll(async () => {
  pipeline = await startOperatorPipeline([adminPhone, customer], {
    crmSync: {},
    // Quick retries, so a failing turn reaches the dead-letter queue in seconds.
    queue: { visibilityTimeoutSeconds: 2 },
  });
  repositories = tableRepositories(pipeline.tableName);
  admin = await signInOverWhatsApp(pipeline, adminPhone);
});
afterAll(async () => {
  await pipeline.stop();
});

const sentTo = (phone: string) => pipeline.fakeWhatsApp.sent().filter((message) => message.recipient === phone);

async function say(phone: string, text: string): Promise<void> {
  const before = sentTo(phone).length;
  expect((await pipeline.sendCustomerMessage(phone, text)).status).toBe(200);
  await waitUntil(() => sentTo(phone).length > before, 15_000, `an answer to "${text}"`);
  await pipeline.waitForIdle();
}

/** Every stored item and queued message that names `phone` (or one of `texts`). */
async function everythingNaming(phone: string, texts: readonly string[]) {
  const names = (value: unknown) => [phone, ...texts].some((needle) => JSON.stringify(value).includes(needle));
  const items = (await allItems(pipeline.tableName)).filter(names);
  const deadLetters = await takeAll(pipeline.deadLetterQueueUrl);
  const turns = await takeAll(pipeline.turnQueueUrl);
  return { items, deadLetters, turns, queued: [...deadLetters, ...turns].filter((message) => names([message.Body, message.Attributes])) };
}

/**
 * What docs/PRIVACY.md says stays: the audit of what the person did as an operator names them as its
 * author, and as the operator who signed in.
 */
function documentedToStay(item: Record<string, unknown>, phone: string): boolean {
  if (item.entity_type !== 'admin_audit' || item.author !== phone) return false;
  const rest = { ...item, author: undefined, resource_id: item.resource_type === 'operator' ? undefined : item.resource_id };
  return !JSON.stringify(rest).includes(phone);
}

it('erases a customer with every kind of item from the table and both queues; a turn queued afterwards does nothing', async () => {
  const texts = [`Oi, sou a Carla ${customer.slice(-4)} #dado name=Carla #fora teste de paternidade`, `Quero falar com uma pessoa ${customer.slice(-4)} #humano`];
  // A conversation: qualified, a demand, handed to people.
  await say(customer, texts[0]);
  await say(customer, texts[1]);
  const { session: handed } = await pipeline.conversation(customer);
  expect(handed?.state).toBe('AWAITING_HUMAN');

  // People take it: claimed, answered, closed (each audited).
  expect((await admin.call('POST', `/api/conversations/${customer}/claim`)).status).toBe(200);
  expect((await admin.call('POST', `/api/conversations/${customer}/messages`, { text: 'Olá Carla, aqui é a equipe' })).status).toBe(201);
  expect((await admin.call('POST', `/api/conversations/${customer}/close`)).status).toBe(200);

  // Its CRM row: refused once, retried by the admin (audited), then synced.
  pipeline.fakeCrm!.refuseNext('scripted refusal');
  await pipeline.syncCrm();
  expect((await repositories.crmSync.get(handed!.sessionId))?.status).toBe('BLOCKED');
  expect((await admin.call('POST', `/api/admin/crm/${handed!.sessionId}/retry`)).status).toBe(200);
  await pipeline.syncCrm();
  expect((await repositories.crmSync.get(handed!.sessionId))?.status).toBe('SYNCED');

  // Retention removes the closed session and its messages (what DynamoDB's TTL deletes); the CRM row stays.
  const sessionItems = (await allItems(pipeline.tableName)).filter((item) => item.PK === `SESSION#${customer}` && item.ttl !== undefined);
  expect(sessionItems.map((item) => item.entity_type)).toEqual(expect.arrayContaining(['message', 'session']));
  for (const item of sessionItems) await repositories.kit.delete({ key: { PK: String(item.PK), SK: String(item.SK) } });
  expect(await repositories.crmSync.get(handed!.sessionId)).toBeDefined();

  // Opted out and back: consent events and the current consent.
  await say(customer, 'PARAR');
  await say(customer, 'VOLTAR');

  // A WhatsApp outage sends a turn of the customer, and one of somebody else, to the dead-letter queue
  // (the reply stays in the outbox: it was written before the sends failed).
  const lastWords = `Ainda estão aí? ${customer.slice(-4)}`;
  texts.push(lastWords);
  for (const [phone, text] of [[customer, lastWords], [bystander, 'Oi, alguém?']] as const) {
    const depth = await queueDepth(pipeline.deadLetterQueueUrl);
    pipeline.fakeWhatsApp.failNext(3, { httpStatus: 503, code: 2, message: 'Service temporarily unavailable or down.' });
    await pipeline.sendCustomerMessage(phone, text);
    await waitUntil(async () => (await queueDepth(pipeline.deadLetterQueueUrl)) === depth + 1, 30_000, 'the failed turn in the dead-letter queue');
  }
  await pipeline.waitForIdle();

  // As an admin, the customer signs in: a used login link, a console session.
  const customerAsAdmin = await signInOverWhatsApp(pipeline, customer);
  expect((await customerAsAdmin.call('GET', '/api/session')).status).toBe(200);

  // Every kind of item is there to be erased (a used login link is gone already; its reference stays until it expires).
  const before = (await allItems(pipeline.tableName)).filter((item) => JSON.stringify(item).includes(customer));
  const kinds = [
    ...['active_pointer', 'session', 'message', 'inbound_receipt', 'latest_inbound', 'customer_budget', 'consent', 'consent_state'],
    ...['oop_demand', 'customer_demand_reference', 'crm_sync', 'customer_crm_sync_reference', 'admin_audit', 'operator_session', 'customer_auth_reference'],
  ];
  expect([...new Set(before.map((item) => item.entity_type))]).toEqual(expect.arrayContaining(kinds));

  // Their export says they had a console session and until when, never what signs in with it.
  const exported = await admin.call('GET', `/api/admin/customers/${customer}/export`);
  expect(exported.body.records.operator_session).toEqual([{ created_at: expect.any(String), expires_at: expect.any(String) }]);
  expect(JSON.stringify(exported.body)).not.toContain(customerAsAdmin.csrfToken);
  expect(JSON.stringify(exported.body)).not.toMatch(/token_hash|csrf/);

  const erased = await admin.call('POST', `/api/admin/customers/${customer}/erase`, { confirm: customer });
  expect(erased.status).toBe(200);
  expect(erased.body.erasure).toMatchObject({ deadLettersRemoved: 1 });

  const left = await everythingNaming(customer, texts);
  expect(left.items.filter((item) => !documentedToStay(item, customer))).toEqual([]);
  expect(left.items.map((item) => item.action)).toEqual(['operator.sign_in']);
  expect(left.queued).toEqual([]);
  // The other customer's dead letter is still there, visible at once for the redrive.
  expect(left.deadLetters.map((message) => JSON.parse(message.Body!).phone_number)).toEqual([bystander]);
  expect(left.turns).toEqual([]);
  // The audit names the customer by pseudonym: claim, reply, close, the CRM retry and the erasure are still there.
  const audit = (await allItems(pipeline.tableName)).filter((item) => item.entity_type === 'admin_audit' && item.author === adminPhone);
  expect(audit.map((item) => item.action)).toEqual(expect.arrayContaining(['conversation.claim', 'conversation.reply', 'conversation.close', 'crm.retry', 'customer.erase']));

  // A turn record of the customer still in the queue (e.g. sent just before the erasure) is a no-op.
  const sentBefore = sentTo(customer).length;
  await pipeline.sqsClient.send(
    new SendMessageCommand({
      QueueUrl: pipeline.turnQueueUrl,
      MessageBody: JSON.stringify({ phone_number: customer, message_id: newMessageId() }),
      MessageGroupId: customer,
      MessageDeduplicationId: createHash('sha256').update(newMessageId()).digest('hex'),
    }),
  );
  await waitUntil(async () => (await queueDepth(pipeline.turnQueueUrl)) === 0, 15_000, 'the queued turn to be consumed');
  await pipeline.waitForIdle();
  expect(sentTo(customer)).toHaveLength(sentBefore);
  expect((await everythingNaming(customer, texts)).items.filter((item) => !documentedToStay(item, customer))).toEqual([]);
}, 120_000);

describe('a customer whose voice note timed out', () => {
  // Transcripts that come after the turn stopped waiting: the job — the customer's words — stays in Transcribe.
  let voicePipeline: LocalPipeline;
  let voiceAdmin: ConsoleClient;
  const voiceAdminPhone = newOperatorPhone();
  beforeAll(async () => {
    voicePipeline = await startOperatorPipeline([voiceAdminPhone], {
      transcription: { transcripts: () => 'Meu exame deu alterado, o que eu faço?', pollsUntilDone: 1_000, maxWaitMs: 300, pollIntervalMs: 100, sweepAfterMs: 6 * 60_000 },
    });
    voiceAdmin = await signInOverWhatsApp(voicePipeline, voiceAdminPhone);
  });
  afterAll(() => voicePipeline.stop());

  /** A voice note the turn answers without its transcript (the wait ran out); its job still runs. */
  async function timedOutVoiceNote(phone: string): Promise<void> {
    const before = repliesTo(voicePipeline, phone).length;
    await sendAttachment(voicePipeline, phone, { type: 'audio', bytes: VOICE_NOTE_OGG, mimeType: 'audio/ogg; codecs=opus', fields: { voice: true } });
    await waitUntil(() => repliesTo(voicePipeline, phone).length > before, 30_000, 'the answer without the transcript');
    await voicePipeline.waitForIdle();
  }
  const jobsOf = (pseudonym: string) => [...voicePipeline.fakeTranscribe!.jobs.keys()].filter((name) => name.startsWith(customerJobPrefix(pseudonym)));

  it('the erasure deletes the ended job at once and reports the running one, which the idle sweep deletes once it ended; no other customer’s job is touched before its time', async () => {
    const erased = newCustomer();
    const other = newCustomer();
    const transcribe = voicePipeline.fakeTranscribe!;
    await timedOutVoiceNote(erased);
    await timedOutVoiceNote(other);
    // Transcribe ends those jobs later, as it would: the words are there, and no turn will read them.
    transcribe.finishRunning();
    await timedOutVoiceNote(erased);
    const voiceRepositories = tableRepositories(voicePipeline.tableName);
    const pseudonyms = new CustomerPseudonyms(voiceRepositories.customerData);
    const [erasedKey, otherKey] = [await pseudonyms.of(erased), await pseudonyms.of(other)];
    expect(jobsOf(erasedKey)).toHaveLength(2);
    expect(jobsOf(otherKey)).toHaveLength(1);

    const answer = await voiceAdmin.call('POST', `/api/admin/customers/${erased}/erase`, { confirm: erased });
    expect(answer.status).toBe(200);
    expect(answer.body.erasure).toMatchObject({ mediaObjectsDeleted: 2, transcriptionJobsDeleted: 1, transcriptionJobsRunning: 1 });
    expect(jobsOf(erasedKey)).toHaveLength(1);
    expect(jobsOf(otherKey)).toHaveLength(1);

    // The running job ends (its audio is gone, as the erasure left it). A sweep within the turn budget deletes nothing.
    transcribe.finishRunning();
    expect((await voicePipeline.sweepIdleConversations()).transcriptionJobs).toEqual({ deleted: 0, running: 0 });
    // Past the turn budget, the sweep deletes every ended job: the erased customer's last one, and the other customer's.
    transcribe.backdate(7 * 60_000);
    expect((await voicePipeline.sweepIdleConversations()).transcriptionJobs).toEqual({ deleted: 2, running: 0 });
    console.log(`jobs still in Transcribe after the erasure and the sweep: ${jobsOf(erasedKey).length + jobsOf(otherKey).length}`);
    expect([...transcribe.jobs.keys()]).toEqual([]);
  }, 120_000);
});
