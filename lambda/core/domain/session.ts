import { IllegalStateTransitionError } from './errors';
import type { ConversationMemory } from './conversation-memory';
import type { CustomerIdKind } from './inbound-turn';
import { isoMicros, toEpochMicros, type IsoTimestamp } from './timestamps';
import type { CarriesUnknownAttributes } from './unknown-attributes';

/**
 * Where a conversation stands. The agent answers in NEW and QUALIFYING; AWAITING_HUMAN (a handoff
 * was requested) and HUMAN_ACTIVE (an operator owns it) are human-owned, so customer messages go to
 * the human inbox instead of the agent; CLOSED is terminal (the next message opens a new session).
 */
export const SessionState = {
  NEW: 'NEW',
  QUALIFYING: 'QUALIFYING',
  AWAITING_HUMAN: 'AWAITING_HUMAN',
  HUMAN_ACTIVE: 'HUMAN_ACTIVE',
  CLOSED: 'CLOSED',
} as const;
export type SessionState = (typeof SessionState)[keyof typeof SessionState];

export const SESSION_STATES: readonly SessionState[] = Object.values(SessionState);

/**
 * The state machine. Staying in the same state is not a transition (callers skip the write).
 * An operator may hand a conversation back to the agent (→ QUALIFYING) or back to the queue
 * (HUMAN_ACTIVE → AWAITING_HUMAN); nothing leaves CLOSED.
 */
export const LEGAL_TRANSITIONS: Readonly<Record<SessionState, readonly SessionState[]>> = {
  NEW: ['QUALIFYING', 'AWAITING_HUMAN', 'CLOSED'],
  QUALIFYING: ['AWAITING_HUMAN', 'CLOSED'],
  AWAITING_HUMAN: ['HUMAN_ACTIVE', 'QUALIFYING', 'CLOSED'],
  HUMAN_ACTIVE: ['AWAITING_HUMAN', 'QUALIFYING', 'CLOSED'],
  CLOSED: [],
};

export function isSessionState(value: unknown): value is SessionState {
  return typeof value === 'string' && (SESSION_STATES as readonly string[]).includes(value);
}

export function isLegalTransition(from: SessionState, to: SessionState): boolean {
  return LEGAL_TRANSITIONS[from].includes(to);
}

/** Throws {@link IllegalStateTransitionError} unless `from → to` is in {@link LEGAL_TRANSITIONS}. */
export function assertLegalTransition(from: SessionState, to: SessionState): void {
  if (!isLegalTransition(from, to)) throw new IllegalStateTransitionError(from, to);
}

/** A human (not the agent) answers the customer in these states. */
export function isHumanOwned(state: SessionState): boolean {
  return state === SessionState.AWAITING_HUMAN || state === SessionState.HUMAN_ACTIVE;
}

/**
 * The states the idle sweep closes: the agent's. A conversation waiting for or served by a person
 * is left to people (and the handoff sweeper's reminders); a closed one is done.
 */
export const AGENT_OWNED_STATES: readonly SessionState[] = [SessionState.NEW, SessionState.QUALIFYING];

export function isAgentOwned(state: SessionState): boolean {
  return AGENT_OWNED_STATES.includes(state);
}

/**
 * When an agent-owned conversation last moved: its last write, which is the turn that answered
 * the customer's last message (or the hand back to the agent). Nothing else writes a session in
 * the agent's states, so the sweep needs no attribute of its own.
 */
export function lastActivityOf(session: Pick<Session, 'updatedAt'>): IsoTimestamp {
  return session.updatedAt;
}

/**
 * A session's place in the idle index moves at most this often: a move is a delete and a put in
 * the index, so moving it with every turn of a lively conversation would double the index's writes.
 */
export const ACTIVITY_INDEX_STEP_MS = 15 * 60_000;

/**
 * The last activity as the idle index holds it: where it is now (`activityIndexedAt`, else the
 * creation) while that is less than a step before the last activity, else the last activity. Never
 * after it, so the sweep finds every idle session, at most a step early (it checks `updated_at`).
 */
export function indexedActivityOf(session: Pick<Session, 'createdAt' | 'updatedAt' | 'activityIndexedAt'>): IsoTimestamp {
  const indexed = session.activityIndexedAt ?? session.createdAt;
  const lagMicros = toEpochMicros(session.updatedAt) - toEpochMicros(indexed);
  return isoMicros(lagMicros >= 0 && lagMicros < ACTIVITY_INDEX_STEP_MS * 1000 ? indexed : session.updatedAt);
}

/** Held while an operator's manual reply is being sent, so two sends cannot interleave. */
export interface HumanSendLock {
  readonly lockId: string;
  readonly acquiredAt: IsoTimestamp;
  /** A lock past this instant is dead and may be taken over. */
  readonly expiresAt: IsoTimestamp;
}

/** The customer's last message as an inbox row shows it (inbox-summary.ts cuts it). */
export interface CustomerMessageSummary {
  /** The text cut to 120 characters on a word boundary. */
  readonly preview: string;
  readonly at: IsoTimestamp;
}

/** The CRM projection's view of a session, attached on read; never written with the session. */
export interface SessionCrmView {
  readonly status: string;
  readonly contactId?: string;
  readonly dealId?: string;
}

export interface Session extends CarriesUnknownAttributes {
  readonly sessionId: string;
  /** The customer id used in keys: phone, or business-scoped user id. */
  readonly customerId: string;
  readonly customerIdKind?: CustomerIdKind;
  /** The business number (phone_number_id) the conversation happens on. */
  readonly businessPhoneNumberId?: string;
  readonly state: SessionState;
  readonly currentAgent?: string;
  readonly segment?: string;
  readonly intent?: string;
  readonly qualificationData: Readonly<Record<string, unknown>>;
  readonly cadastralData: Readonly<Record<string, unknown>>;
  /** The operator who owns the conversation (HUMAN_ACTIVE). */
  readonly assignedTo?: string;
  readonly humanSendLock?: HumanSendLock;
  readonly handoffRequestedAt?: IsoTimestamp;
  /** Why the agent handed the conversation to people, as it said (the last handoff's). */
  readonly handoffReason?: string;
  /** The customer's WhatsApp profile name, as their last message carried it. */
  readonly profileName?: string;
  /** The customer's last message, as an inbox row shows it. */
  readonly lastCustomerMessage?: CustomerMessageSummary;
  /** By operator phone, the time of the customer's last message when they last opened the conversation (the newest few; see inbox-summary.ts): a later one is unread for them. */
  readonly seenBy?: Readonly<Record<string, IsoTimestamp>>;
  /** When the available operators were first told about this handoff (or the customer that nobody is). */
  readonly handoffNotifiedAt?: IsoTimestamp;
  readonly handoffRenotifiedAt?: IsoTimestamp;
  readonly handoffRenotifyCount: number;
  readonly handoffCustomerRenotifiedAt?: IsoTimestamp;
  readonly closedAt?: IsoTimestamp;
  /** When the customer who went quiet was sent the re-engagement template: once per conversation, claimed before the send. */
  readonly reengagedAt?: IsoTimestamp;
  /** When the customer was told that a message of theirs is of a type the pipeline cannot read: once per conversation. */
  readonly unsupportedNoticeAt?: IsoTimestamp;
  /** The customer's conversation that was closed when this one opened: its last messages are this one's earlier conversation. */
  readonly previousSessionId?: string;
  /** In the agent's states, where the idle index holds the session when that is not its creation (see {@link indexedActivityOf}). */
  readonly activityIndexedAt?: IsoTimestamp;
  /** The summary of the conversation's older messages the agent is shown (docs/DESIGN.md#memory). */
  readonly memory?: ConversationMemory;
  readonly createdAt: IsoTimestamp;
  readonly updatedAt: IsoTimestamp;
  readonly crm?: SessionCrmView;
}

/** The session after a validated transition (in memory; persisting it is the repository's job). */
export function transitionSession(session: Session, to: SessionState, at: IsoTimestamp): Session {
  assertLegalTransition(session.state, to);
  return { ...session, state: to, updatedAt: at, ...(to === SessionState.CLOSED ? { closedAt: at } : {}) };
}

/** Whom a new session is with, and on which business number. */
export type SessionParty = Pick<Session, 'customerId' | 'customerIdKind' | 'businessPhoneNumberId'>;

/**
 * A conversation opened at `at` (not yet written), in `state`; after `previous` (the customer's
 * closed session), whose last messages it is shown.
 */
export function openSession(party: SessionParty, sessionId: string, at: IsoTimestamp, options: { readonly previous?: Session; readonly state?: SessionState; readonly handoffReason?: string } = {}): Session {
  return {
    sessionId,
    customerId: party.customerId,
    customerIdKind: party.customerIdKind,
    businessPhoneNumberId: party.businessPhoneNumberId,
    state: options.state ?? SessionState.NEW,
    qualificationData: {},
    cadastralData: {},
    handoffRenotifyCount: 0,
    ...(options.handoffReason === undefined ? {} : { handoffReason: options.handoffReason }),
    ...(options.previous === undefined ? {} : { previousSessionId: options.previous.sessionId }),
    createdAt: at,
    updatedAt: at,
  };
}
