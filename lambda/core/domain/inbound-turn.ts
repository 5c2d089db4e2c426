import type { InboundMedia } from './media';

/**
 * One customer message as the pipeline understands it, normalised from Meta's webhook payload.
 * Never carries the raw webhook body (it may be 3 MB; an item is at most 400 KB).
 */
export interface InboundTurn {
  /**
   * The customer id used in keys and as the SQS MessageGroupId: the WhatsApp phone (`from`), or the
   * business-scoped user id (`from_user_id`) when Meta omits the phone.
   */
  readonly customerId: string;
  /** Whether `customerId` is a phone (reply with `to`) or a business-scoped user id (reply with `recipient`). */
  readonly customerIdKind: CustomerIdKind;
  /** Meta's message id (`wamid…`): the deduplication key. */
  readonly messageId: string;
  /** Meta's timestamp of the message, ISO-8601 UTC. Never used for ordering (registration order is). */
  readonly providerTimestamp: string;
  /** When the webhook received it, ISO-8601 UTC. */
  readonly receivedAt: string;
  /** Meta's message type (`text`, `image`, `audio`, `interactive`, …). */
  readonly messageType: string;
  /** The text, or a normalised placeholder such as `[image]` for media. */
  readonly text: string;
  /** The attachment the customer sent (image, video, audio, document, sticker), to be downloaded by the turn. */
  readonly media?: InboundMedia;
  /** The message this one quotes (Meta's `context.id`): the turn shows the agent its text, read from the history. */
  readonly quotedMessageId?: string;
  /** A tap on a reply button or a list row: the option's id (`text` is its title). */
  readonly choiceId?: string;
  /** A reaction: recorded on the message it reacts to, and no turn of its own. */
  readonly reaction?: InboundReaction;
  /** An edit: the id of the message whose text it replaces (`text` is the new text). */
  readonly editOf?: string;
  /** A revoke: the id of the message the customer deleted; recorded on it, and no turn of its own. */
  readonly revokes?: string;
  /** A type the pipeline cannot read (Meta's `unsupported`, or one it does not know): answered with a short notice, not by the agent. */
  readonly unsupported?: boolean;
  /** The business phone number id that received it (replies are sent from it). */
  readonly businessPhoneNumberId: string;
  /** The business display phone number, when Meta sends it. */
  readonly displayPhoneNumber?: string;
  /** The customer's WhatsApp profile name (`contacts[].profile.name`), when Meta sends it. */
  readonly profileName?: string;
}

/** A customer's reaction to a message of the conversation; no `emoji`: the reaction was removed. */
export interface InboundReaction {
  readonly targetMessageId: string;
  readonly emoji?: string;
}

/** Whether a message is something for the agent to answer: reactions and revokes are recorded, never answered. */
export function startsTurn(turn: Pick<InboundTurn, 'reaction' | 'revokes'>): boolean {
  return turn.reaction === undefined && turn.revokes === undefined;
}

/**
 * An edit that reaches the agent as a message of its own (its original was answered already, or
 * is unknown) says it is one, so the agent reads a correction rather than a repeat.
 */
export function asTurnOfItsOwn(turn: InboundTurn): InboundTurn {
  return turn.editOf === undefined ? turn : { ...turn, text: `[edited] ${turn.text}` };
}

export type CustomerIdKind = 'phone' | 'user_id';

/**
 * A customer id the pipeline can work with: it is an SQS MessageGroupId (1 to 128 printable ASCII
 * characters) and a key segment (no `#`). Meta's phones and business-scoped user ids always are.
 */
export function isValidCustomerId(value: string): boolean {
  return /^[!-"$-~]{1,128}$/.test(value);
}

/** A message id the pipeline can key history by: printable ASCII without `#`, as Meta's `wamid…` ids are. */
export function isValidMessageId(value: string): boolean {
  return /^[!-"$-~]{1,512}$/.test(value);
}
