/**
 * The operator API's answers as the console reads them (docs/OPERATOR-API.md). Kept apart from the
 * function's own types so the browser bundle never pulls server code in.
 */

export type SessionState = 'NEW' | 'QUALIFYING' | 'AWAITING_HUMAN' | 'HUMAN_ACTIVE' | 'CLOSED';

/** The states of a conversation that is not over. */
export const OPEN_STATES: readonly SessionState[] = ['AWAITING_HUMAN', 'HUMAN_ACTIVE', 'QUALIFYING', 'NEW'];

export type Role = 'operator' | 'admin';

export interface SignedIn {
  readonly operator: { readonly phone: string; readonly name?: string };
  readonly role: Role;
  readonly csrfToken: string;
  readonly expiresAt: string;
  /** Present when the API reports the operator's declared availability. */
  readonly available?: boolean;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly cursor?: string;
}

export type MessageRole = 'user' | 'assistant' | 'operator' | 'system';

export interface ConversationSummary {
  readonly customerId: string;
  readonly displayName?: string;
  readonly state: SessionState;
  readonly assignedTo?: string;
  readonly waitingSince?: string;
  readonly lastMessage?: { readonly role: MessageRole; readonly preview: string; readonly at: string };
  readonly updatedAt: string;
}

export interface ConversationView extends Omit<ConversationSummary, 'lastMessage'> {
  readonly sessionId: string;
  readonly qualificationData: Readonly<Record<string, unknown>>;
  readonly createdAt: string;
}

export interface HistoryEntry {
  readonly messageId: string;
  readonly direction: 'inbound' | 'outbound';
  readonly role: MessageRole;
  readonly text: string;
  readonly at: string;
  readonly deliveryStatus?: string;
  readonly operatorPhone?: string;
}

export interface ConversationDetail {
  readonly conversation: ConversationView;
  /** Newest first, as the API pages them. */
  readonly messages: readonly HistoryEntry[];
  readonly cursor?: string;
}
