/**
 * Who may do what with a conversation (docs/OPERATOR-API.md#who-may-do-what): one rule, pure, which
 * the operator API applies before every change (and conditions the change's write on) and the
 * console reads to decide which controls a person has — so the console offers no control the API
 * would refuse that person in that state. Every refusal says why, in a code the API answers as the
 * `problem` of its error and the console words (`error.<code>` in console/src/dictionaries/), and,
 * when another person has the conversation, who.
 * Internal: not part of the jsii API.
 */
import type { ConversationState, OperatorRole } from './operator-api';

/** What a person does with a conversation: `read` covers its notes and attachments, `reply` its templates and attachments sent. */
export type ConversationAction = 'read' | 'claim' | 'takeOver' | 'reply' | 'release' | 'close';

export const CONVERSATION_ACTIONS: readonly ConversationAction[] = ['read', 'claim', 'takeOver', 'reply', 'release', 'close'];

/** The person acting: their phone (who they are to `assignedTo`) and their current role. */
export interface ConversationActor {
  readonly phone: string;
  readonly role: OperatorRole;
}

/** What the rule reads of a conversation. */
export interface ConversationStanding {
  readonly state: ConversationState;
  readonly assignedTo?: string;
}

/**
 * Why a person may not do something:
 * - `conversation_taken`: another person has it (`assignedTo` says who);
 * - `conversation_yours`: the person has it already (a claim or a take-over of their own);
 * - `conversation_unclaimed`: it waits for a person and nobody claimed it — claim it first (only an
 *   admin gives back or closes one nobody has);
 * - `conversation_with_agent`: the agent serves it — only an admin reads it, takes it over or closes it;
 * - `conversation_waiting`: it waits for a person — claim it instead of taking it over;
 * - `conversation_closed`: it is closed (only an admin reads it).
 */
export type ConversationRefusalCode = 'conversation_taken' | 'conversation_yours' | 'conversation_unclaimed' | 'conversation_with_agent' | 'conversation_waiting' | 'conversation_closed';

export const CONVERSATION_REFUSAL_CODES: readonly ConversationRefusalCode[] = [
  'conversation_taken',
  'conversation_yours',
  'conversation_unclaimed',
  'conversation_with_agent',
  'conversation_waiting',
  'conversation_closed',
];

export interface ConversationRefusal {
  readonly code: ConversationRefusalCode;
  /**
   * The operator API's answer: `forbidden` (403) when it is someone else's to do — another person's
   * conversation, or an admin's call — and `conflict` (409) when the conversation's state does not allow it.
   */
  readonly status: 'forbidden' | 'conflict';
  /** With `conversation_taken`: the phone of the person who has the conversation. */
  readonly assignedTo?: string;
}

/** Why `actor` may not do `action` with `conversation` as it stands, or `undefined` when they may. */
export function conversationRefusal(actor: ConversationActor, conversation: ConversationStanding, action: ConversationAction): ConversationRefusal | undefined {
  const admin = actor.role === 'admin';
  // A take-over is an admin's call whatever the state: an operator is refused it as not theirs to do.
  const stateStatus = action === 'takeOver' && !admin ? 'forbidden' : 'conflict';
  switch (conversation.state) {
    case 'CLOSED':
      if (action === 'read') return admin ? undefined : { code: 'conversation_closed', status: 'forbidden' };
      return { code: 'conversation_closed', status: stateStatus };
    case 'NEW':
    case 'QUALIFYING':
      if (admin && (action === 'read' || action === 'takeOver' || action === 'close')) return undefined;
      // What an operator may never do here is not theirs; what nobody may do is the state's.
      return { code: 'conversation_with_agent', status: !admin && (action === 'read' || action === 'takeOver' || action === 'close') ? 'forbidden' : 'conflict' };
    case 'AWAITING_HUMAN':
      if (action === 'read' || action === 'claim') return undefined;
      if (action === 'takeOver') return { code: 'conversation_waiting', status: stateStatus };
      if (action === 'reply') return { code: 'conversation_unclaimed', status: 'conflict' };
      return admin ? undefined : { code: 'conversation_unclaimed', status: 'forbidden' };
    case 'HUMAN_ACTIVE': {
      const mine = conversation.assignedTo === actor.phone;
      const taken: ConversationRefusal = { code: 'conversation_taken', status: 'forbidden', assignedTo: conversation.assignedTo };
      if (action === 'claim' || action === 'takeOver') return mine ? { code: 'conversation_yours', status: stateStatus } : { ...taken, status: stateStatus };
      if (mine || (admin && action !== 'reply')) return undefined;
      return taken;
    }
  }
}

/** Whether `actor` may do `action` with `conversation` as it stands. */
export function mayDo(actor: ConversationActor, conversation: ConversationStanding, action: ConversationAction): boolean {
  return conversationRefusal(actor, conversation, action) === undefined;
}

/** The actions `actor` may take on `conversation` as it stands: the controls the console shows. */
export function permittedActions(actor: ConversationActor, conversation: ConversationStanding): ConversationAction[] {
  return CONVERSATION_ACTIONS.filter((action) => mayDo(actor, conversation, action));
}
