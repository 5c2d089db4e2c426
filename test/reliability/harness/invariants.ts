/**
 * The four promises of the pipeline, checked on what a run left behind (the table, the fake Graph
 * API's deliveries, the queues) and on the evidence the fault injectors recorded (which remote
 * calls were made, by which invocation, in which order):
 *
 * 1. every accepted message is in the history exactly once and its receipt is completed;
 * 2. a customer never receives two replies for one turn, nor a reply superseded before its last
 *    check — except a resend after an unknown outcome, which must be counted;
 * 3. history is in registration order, every reply comes after what it answers, and the delivered
 *    replies answer every message once, in order, the last one answering the newest;
 * 4. nothing is left pending: the pending list is empty, the outbox clear, no record in the DLQ.
 *
 * A failure notice (the fallback text a customer gets when their messages are parked) is no reply:
 * it answers nothing, so it is held to its own promise — claimed at most once per parked set,
 * delivered at most once per claim, placed after the message it is for — and left out of the rest.
 */
import { MEDIA_DEFAULTS } from '../../../lib/contract';
import { converseAttachmentBlocks } from '../../../lambda/core/adapters/agent/converse-media';
import { customerJobPrefix } from '../../../lambda/core/application/transcription-jobs';
import { CustomerPseudonyms } from '../../../lambda/core/application/privacy/customer-pseudonyms';
import { textWithMediaNote } from '../../../lambda/core/domain/media-limits';
import type { Message } from '../../../lambda/core/domain/message';
import type { AgentRequest } from '../../../lambda/core/ports/agent';
import { bucketObjectKeys } from '../../support/media-bucket';
import type { InboundTurn } from '../../../lambda/core/domain/inbound-turn';
import type { BoundaryCrossing, FaultInjector, FiredFault, PortCall } from '../../support/fault-injection';
import { customerOfInvocation } from './drivers';
import type { RecordedMetric, ReliabilityEnvironment } from './pipeline-under-test';

export interface SentMessage {
  readonly id: string;
  /** Unique per customer, without ` | ` (the scripted agent joins a turn's texts with it). */
  readonly text: string;
}

export interface CustomerRun {
  readonly customer: string;
  /** Every message the customer sent (and the webhook accepted). */
  readonly messages: readonly SentMessage[];
  /** The messages the agent must answer. Default: all (the others went to a human). */
  readonly answeredByAgent?: readonly string[];
  /** Records of the customer still in the DLQ. */
  readonly deadLettered?: number;
  /**
   * Messages that were parked (their turn failed on every attempt) and redriven later: one a newer
   * message overtook meanwhile is completed without a reply, and the agent did not see it while it
   * was parked.
   */
  readonly parked?: readonly string[];
}

/** What the injectors of a run recorded (webhook and orchestrator side together). */
export interface RunEvidence {
  readonly crossings: readonly BoundaryCrossing[];
  readonly portCalls: readonly PortCall[];
  readonly fired: readonly FiredFault[];
  readonly metrics: readonly RecordedMetric[];
}

export interface InvariantReport {
  readonly violations: string[];
  /** Texts WhatsApp accepted for the customer. */
  readonly sends: number;
  /** Deliveries beyond one per reply the pipeline recorded as sent. */
  readonly duplicates: number;
  /** Invocations that lost track of a reply WhatsApp had accepted (a resend may follow). */
  readonly unknownOutcomes: number;
}

const SCRIPTED_REPLY = /^Olá! Recebi: ([\s\S]*) \(mensagem (\d+)\)$/;
const SEND = 'whatsapp.sendText';
/** The reply's `sent` status is recorded in the turn's completion transaction (or, outside a turn, by `markOutboundSent`). */
function recordsSent(crossing: BoundaryCrossing): boolean {
  if (crossing.boundary === 'messages.markOutboundSent › dynamodb.update') return true;
  if (crossing.boundary !== 'ledger.complete › dynamodb.transact') return false;
  const actions = crossing.args[0] as readonly { readonly update?: { readonly values?: Record<string, unknown> } }[];
  return actions.some((action) => action.update?.values?.[':status'] === 'sent');
}
/** The port reads that see the latest-inbound marker: a turn's last check before sending is one of them. */
const MARKER_READS = new Set(['receipts.getLatest', 'ledger.readMarker', 'ledger.readSendGuard']);

/** What one function's injector and metrics recorded. */
export function evidenceOf(fn: { readonly injector: FaultInjector; readonly metrics: { readonly recorded: readonly RecordedMetric[] } }): RunEvidence {
  return { crossings: fn.injector.crossings, portCalls: fn.injector.portCalls, fired: fn.injector.fired, metrics: fn.metrics.recorded };
}

export function mergeEvidence(...parts: RunEvidence[]): RunEvidence {
  return {
    crossings: parts.flatMap((part) => part.crossings),
    portCalls: parts.flatMap((part) => part.portCalls),
    fired: parts.flatMap((part) => part.fired),
    metrics: parts.flatMap((part) => part.metrics),
  };
}

export async function checkInvariants(env: ReliabilityEnvironment, run: CustomerRun, evidence: RunEvidence): Promise<InvariantReport> {
  const { customer } = run;
  const violations: string[] = [];
  const history = await fullHistory(env, customer);
  const inbound = history.filter((message) => message.direction === 'inbound');
  const notices = history.filter((message) => message.failureNoticeFor !== undefined);
  // The pipeline's own messages: not what a person of the business wrote from the WhatsApp Business app.
  const outbound = history.filter((message) => message.direction === 'outbound' && message.failureNoticeFor === undefined && message.role !== 'business_app');
  const noticeTexts = new Set(notices.map((notice) => notice.text));
  const allSends = env.fake.sent().filter((sent) => sent.recipient === customer);
  const sends = allSends.filter((sent) => !noticeTexts.has(sent.text));
  const latest = await env.repositories.receipts.getLatest(customer);
  const position = new Map(history.map((message, index) => [message.messageId, index]));

  // 1. Exactly once, never lost.
  for (const message of run.messages) {
    const stored = inbound.filter((entry) => entry.messageId === message.id).length;
    if (stored !== 1) violations.push(`I1 ${message.text} is in the history ${stored} times`);
    const receipt = await env.repositories.receipts.getReceipt({ customerId: customer, messageId: message.id });
    if (!receipt) violations.push(`I1 ${message.text} has no receipt`);
    else if (receipt.completedAt === undefined && receipt.humanRoutedAt === undefined) violations.push(`I4 ${message.text} is not completed`);
  }
  const known = new Set(run.messages.map((message) => message.id));
  for (const entry of inbound) if (!known.has(entry.messageId)) violations.push(`I1 unexpected customer message in the history: ${entry.text}`);

  // 2. One reply per turn; superseded replies never go out; unknown outcomes counted.
  const sentPerMessage = new Map<string, number>();
  for (const reply of outbound.filter((message) => message.deliveryStatus === 'sent')) {
    const answered = reply.replyToMessageId ?? '?';
    sentPerMessage.set(answered, (sentPerMessage.get(answered) ?? 0) + 1);
  }
  for (const [answered, count] of sentPerMessage) if (count > 1) violations.push(`I2 ${count} replies recorded as sent for one message (${answered})`);
  let duplicates = 0;
  for (const sent of sends) {
    if (!outbound.some((reply) => reply.text === sent.text)) violations.push(`I2 a reply was delivered that the history does not hold: ${sent.text}`);
  }
  for (const reply of outbound) {
    const delivered = sends.filter((sent) => sent.text === reply.text).length;
    const expected = reply.deliveryStatus === 'sent' ? 1 : 0;
    if (reply.deliveryStatus === 'sent' && delivered === 0) violations.push(`I2 recorded as sent but never delivered: ${reply.text}`);
    duplicates += Math.max(0, delivered - expected);
  }
  const noticesPerSet = new Map<string, number>();
  for (const notice of notices) noticesPerSet.set(notice.failureNoticeFor!, (noticesPerSet.get(notice.failureNoticeFor!) ?? 0) + 1);
  for (const [parkedSet, count] of noticesPerSet) if (count > 1) violations.push(`I2 ${count} failure notices for one parked set (${textOf(run, parkedSet)})`);
  const noticesDelivered = allSends.length - sends.length;
  if (noticesDelivered > notices.length) violations.push(`I2 ${noticesDelivered} failure notices delivered, ${notices.length} claimed`);
  for (const notice of notices) {
    if ((position.get(notice.failureNoticeFor!) ?? Infinity) > position.get(notice.messageId)!) violations.push(`I3 a failure notice is placed before the message it is for: ${textOf(run, notice.failureNoticeFor!)}`);
  }
  const lostTrack = invocationsThatLostTrackOfASend(evidence, customer, noticeTexts);
  if (duplicates > lostTrack.length) {
    violations.push(`I2 ${duplicates} duplicate or superseded deliveries, but only ${lostTrack.length} sends had an unknown outcome`);
  }
  const crashed = new Set(evidence.fired.filter((fault) => fault.kind === 'crash').map((fault) => fault.invocation));
  for (const invocation of lostTrack) {
    const counted = evidence.metrics.some((metric) => metric.invocation === invocation && metric.name === 'ReplyOutcomeUnknown');
    if (!crashed.has(invocation) && !counted) violations.push(`I2 ${invocation} lost track of a delivered reply without counting ReplyOutcomeUnknown`);
  }
  violations.push(...staleSends(evidence, customer, inbound, outbound, noticeTexts));

  // 3. Registration order, replies after what they answer, every message answered once in order.
  const registration = registrationWindows(evidence, customer);
  for (const [earlier, first] of registration) {
    for (const [later, second] of registration) {
      if (first.committedBy < second.firstAttempt && (position.get(earlier) ?? -1) > (position.get(later) ?? -1)) {
        violations.push(`I3 history holds ${textOf(run, later)} before ${textOf(run, earlier)}, registered after it`);
      }
    }
  }
  for (const reply of outbound) {
    const answered = position.get(reply.replyToMessageId ?? '');
    if (answered === undefined || answered > position.get(reply.messageId)!) violations.push(`I3 a reply is placed before the message it answers: ${reply.text}`);
  }
  const mustBeAnswered = new Set(run.answeredByAgent ?? run.messages.map((message) => message.id));
  const parked = new Set(run.parked ?? []);
  const delivered = outbound.filter((message) => message.deliveryStatus === 'sent');
  const answeredTexts: string[] = [];
  for (const reply of delivered) {
    const parsed = SCRIPTED_REPLY.exec(reply.text);
    if (!parsed) {
      violations.push(`I3 not a scripted reply: ${reply.text}`);
      continue;
    }
    const texts = parsed[1].split(' | ');
    answeredTexts.push(...texts);
    const sessionMessages = inbound.filter((message) => message.sessionId === reply.sessionId).map((message) => message.text);
    const count = sessionMessages.indexOf(texts[texts.length - 1]) + 1;
    if (parked.size === 0 && Number(parsed[2]) !== count) violations.push(`I3 the agent saw ${parsed[2]} customer messages when answering ${texts.join(' | ')}, the history holds ${count}`);
  }
  const customerWrote = inbound
    .filter((message) => mustBeAnswered.has(message.messageId) && (!parked.has(message.messageId) || answeredTexts.includes(message.text)))
    .map((message) => message.text);
  if (answeredTexts.join('\n') !== customerWrote.join('\n')) {
    violations.push(`I3 the delivered replies answered [${answeredTexts.join(', ')}] but the customer wrote [${customerWrote.join(', ')}]`);
  }
  const firstDeliveries = [...new Set(sends.map((sent) => sent.text))].filter((text) => delivered.some((reply) => reply.text === text));
  if (firstDeliveries.join('\n') !== delivered.map((reply) => reply.text).join('\n')) violations.push('I3 replies were delivered in another order than the history holds them');

  // 4. Nothing left half-done.
  if ((latest?.pendingMessageIds.length ?? 0) > 0) violations.push(`I4 pending list not drained: ${latest!.pendingMessageIds.map((id) => textOf(run, id)).join(', ')}`);
  if (latest?.outbox !== undefined) violations.push('I4 a reply is still in the outbox');
  for (const message of inbound) if (message.quarantinedAt !== undefined) violations.push(`I4 ${message.text} is still parked (hidden from the agent)`);
  if ((run.deadLettered ?? 0) > 0) violations.push(`I4 ${run.deadLettered} record(s) of the customer in the DLQ`);

  return { violations, sends: allSends.length, duplicates, unknownOutcomes: lostTrack.length };
}

/** A customer's attachment as the run sent it: the message's text (its caption) and bytes. */
export interface SentAttachment {
  readonly customer: string;
  readonly text: string;
  readonly bytes: Uint8Array;
}

/**
 * A downloaded attachment's own promises under faults: the turn's retries overwrite one object
 * (never more than one in the bucket for the message), and every agent request that holds the
 * message has it as an image block with the bytes sent — or, once the download gave up on the
 * last attempt, the download note: never a placeholder without either.
 */
export async function checkAttachmentInvariants(env: ReliabilityEnvironment, attachment: SentAttachment, requests: readonly AgentRequest[]): Promise<string[]> {
  const violations = await checkAttachmentCount(env, attachment.customer, attachment.text);
  let seen = 0;
  for (const request of requests) {
    const entry = request.history.find((candidate) => candidate.role === 'customer' && candidate.media !== undefined);
    if (entry === undefined) continue;
    seen++;
    const { media } = entry;
    if (media!.state === 'failed' && media!.refusal === 'download_failed' && entry.text === textWithMediaNote(attachment.text, media!)) continue;
    const block = (await converseAttachmentBlocks(request.history, request.mediaStore)).get(entry);
    const bytes = block?.image?.source?.bytes;
    if (media!.state !== 'stored' || bytes === undefined) violations.push(`M2 the agent got ${attachment.text} as a ${media!.state} attachment with neither its image block nor the download note`);
    else if (Buffer.compare(Buffer.from(bytes), Buffer.from(attachment.bytes)) !== 0) violations.push(`M2 the image block of ${attachment.text} does not hold the bytes the customer sent`);
  }
  if (seen === 0) violations.push(`M2 no agent request held ${attachment.text}`);
  return violations;
}

/** M1: at most one object in the bucket for the customer's one attachment (a retried download overwrites its key). */
export async function checkAttachmentCount(env: ReliabilityEnvironment, customer: string, text: string): Promise<string[]> {
  const pseudonym = await new CustomerPseudonyms(env.repositories.customerData).of(customer);
  const objects = await bucketObjectKeys(process.env.AWS_ENDPOINT_URL_S3!, env.mediaBucketName, `${MEDIA_DEFAULTS.keyPrefix}${pseudonym}/`);
  return objects.length > 1 ? [`M1 ${objects.length} objects in the bucket for ${text}`] : [];
}

/**
 * A voice note's promises: its transcription job — the customer's words — is gone from Transcribe
 * once the run is over, whatever failed where (the turn deletes every job it read, and a retry finds
 * the job an attempt left); and every agent request holding the voice note has its transcript, or
 * the note of a voice note the turn could not transcribe or download.
 */
export async function checkVoiceNoteInvariants(env: ReliabilityEnvironment, voiceNote: { readonly customer: string; readonly text: string; readonly words: string }, requests: readonly AgentRequest[]): Promise<string[]> {
  const violations: string[] = [];
  const pseudonym = await new CustomerPseudonyms(env.repositories.customerData).of(voiceNote.customer);
  const left = [...env.transcribe.jobs.keys()].filter((name) => name.startsWith(customerJobPrefix(pseudonym)));
  if (left.length > 0) violations.push(`T1 ${left.length} transcription job(s) of the voice note left in Transcribe`);
  let seen = 0;
  for (const request of requests) {
    const entry = request.history.find((candidate) => candidate.role === 'customer' && candidate.media?.kind === 'audio');
    if (entry === undefined) continue;
    seen++;
    const { media } = entry;
    if (media!.transcript === voiceNote.words) continue;
    if (media!.transcript === undefined && entry.text === textWithMediaNote(voiceNote.text, media!)) continue;
    violations.push(`T2 the agent got the voice note with neither its transcript nor the note (${media!.state}${media!.transcript === undefined ? '' : `, heard "${media!.transcript}"`})`);
  }
  if (seen === 0) violations.push('T2 no agent request held the voice note');
  return violations;
}

/**
 * The webhook's half alone (no turn has run yet): every message registered once, on the pending
 * list once in registration order, and queued once (FIFO deduplication absorbs re-dispatches).
 */
export async function checkInboundInvariants(env: ReliabilityEnvironment, run: CustomerRun, queuedIds: readonly string[], evidence: RunEvidence): Promise<string[]> {
  const violations: string[] = [];
  const latest = await env.repositories.receipts.getLatest(run.customer);
  const pending = latest?.pendingMessageIds ?? [];
  for (const message of run.messages) {
    const receipt = await env.repositories.receipts.getReceipt({ customerId: run.customer, messageId: message.id });
    if (receipt?.agentRoutedAt === undefined || receipt.dispatchedAt === undefined) violations.push(`I1 ${message.text} is not registered, routed and dispatched`);
    const listed = pending.filter((id) => id === message.id).length;
    if (listed !== 1) violations.push(`I1 ${message.text} is ${listed} times on the pending list`);
    const queued = queuedIds.filter((id) => id === message.id).length;
    if (queued !== 1) violations.push(`I2 ${message.text} was queued ${queued} times`);
  }
  const registration = registrationWindows(evidence, run.customer);
  for (const [earlier, first] of registration) {
    for (const [later, second] of registration) {
      if (first.committedBy < second.firstAttempt && pending.indexOf(earlier) > pending.indexOf(later)) {
        violations.push(`I3 the pending list holds ${textOf(run, later)} before ${textOf(run, earlier)}, registered after it`);
      }
    }
  }
  if (latest?.latestMessageId !== pending.at(-1)) violations.push(`I3 the latest message is ${latest?.latestMessageId}, the last registered ${pending.at(-1)}`);
  return violations;
}

async function fullHistory(env: ReliabilityEnvironment, customer: string): Promise<Message[]> {
  const newestFirst: Message[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.repositories.messages.history(customer, { limit: 100, cursor });
    newestFirst.push(...page.items);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return newestFirst.reverse();
}

function textOf(run: CustomerRun, id: string): string {
  return run.messages.find((message) => message.id === id)?.text ?? id;
}

/**
 * Invocations of the customer in which WhatsApp accepted a reply (the real send went through)
 * but the reply was not recorded as sent: the next attempt will send it again. Failure notices
 * (`noticeTexts`) are never sent again, whether recorded or not.
 */
function invocationsThatLostTrackOfASend(evidence: RunEvidence, customer: string, noticeTexts: ReadonlySet<string>): string[] {
  const ofCustomer = evidence.crossings.filter((crossing) => customerOfInvocation(crossing.invocation) === customer && !isNoticeSend(crossing, noticeTexts));
  const invocations = new Set(ofCustomer.filter((crossing) => crossing.boundary === SEND && crossing.realCall === 'ok').map((crossing) => crossing.invocation!));
  return [...invocations].filter((invocation) => {
    const sent = ofCustomer.filter((crossing) => crossing.invocation === invocation && crossing.boundary === SEND && crossing.realCall === 'ok').length;
    const recorded = ofCustomer.filter((crossing) => crossing.invocation === invocation && recordsSent(crossing) && crossing.realCall === 'ok').length;
    return sent > recorded;
  });
}

interface RegistrationWindow {
  /** When the first delivery of the message started registering it. */
  readonly firstAttempt: number;
  /** By when the message was certainly registered: the end of the first registration call that returned. */
  readonly committedBy: number;
}

/** From the webhook's calls of `registerInbound`: the window in which each message got registered. */
function registrationWindows(evidence: RunEvidence, customer: string): Map<string, RegistrationWindow> {
  const windows = new Map<string, RegistrationWindow>();
  for (const call of evidence.portCalls) {
    if (call.port !== 'receipts' || call.method !== 'registerInbound') continue;
    const turn = call.args[0] as InboundTurn;
    if (turn.customerId !== customer) continue;
    const window = windows.get(turn.messageId) ?? { firstAttempt: call.seq, committedBy: Number.POSITIVE_INFINITY };
    const committedBy = call.error === undefined && call.endSeq !== undefined ? Math.min(window.committedBy, call.endSeq) : window.committedBy;
    windows.set(turn.messageId, { firstAttempt: Math.min(window.firstAttempt, call.seq), committedBy });
  }
  return windows;
}

/**
 * A reply may only go out if, at the sending invocation's last check of the latest message before
 * the send, no newer message was registered yet. (A message registered between that check and the
 * send cannot be seen by any implementation; the next turn answers it.)
 */
function staleSends(evidence: RunEvidence, customer: string, inbound: readonly Message[], outbound: readonly Message[], noticeTexts: ReadonlySet<string>): string[] {
  const violations: string[] = [];
  const registration = registrationWindows(evidence, customer);
  const order = inbound.map((message) => message.messageId);
  for (const send of evidence.crossings) {
    if (send.boundary !== SEND || send.realCall !== 'ok' || customerOfInvocation(send.invocation) !== customer || isNoticeSend(send, noticeTexts)) continue;
    const { text } = send.args[0] as { text: string };
    const reply = outbound.find((message) => message.text === text);
    const lastCheck = evidence.portCalls
      .filter((call) => call.invocation === send.invocation && MARKER_READS.has(`${call.port}.${call.method}`) && call.seq < send.seq)
      .at(-1);
    if (!reply || !lastCheck) continue;
    for (const newer of order.slice(order.indexOf(reply.replyToMessageId ?? '') + 1)) {
      if ((registration.get(newer)?.committedBy ?? Infinity) < lastCheck.seq) {
        violations.push(`I2 delivered "${text}" although a newer message was registered before the last check`);
      }
    }
  }
  return violations;
}

/** A send of a failure notice, and with it the notice's record as sent (it answers no message). */
function isNoticeSend(crossing: BoundaryCrossing, noticeTexts: ReadonlySet<string>): boolean {
  return crossing.boundary === SEND && noticeTexts.has((crossing.args[0] as { text: string }).text);
}
