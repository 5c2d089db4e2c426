/**
 * The operator API's shared vocabulary (docs/OPERATOR-API.md): timestamps, pages, errors and the
 * states and roles every call speaks of. Types only; `operator-api.ts` re-exports them.
 * Internal: not part of the jsii API.
 */

/** ISO-8601 UTC with microseconds. */
export type Timestamp = string;

/** A JSON object whose fields the API does not fix (qualification data, a setting's details…). */
export interface JsonObject {
  readonly [field: string]: unknown;
}

/** A table item as the runtime stored it (docs/DESIGN.md#data-model): shown, not interpreted, by the console. */
export type StoredItem = object;

/** One page of a list: pass `cursor` back unchanged for the next; it is absent on the last page. */
export interface Page<Item> {
  readonly items: readonly Item[];
  readonly cursor?: string;
}

/** What every refused call answers. */
export interface ApiErrorBody {
  readonly error: string;
  /** In English, for logs and scripts. */
  readonly message: string;
  /** A refused value in parts, for a reader in another language: e.g. `{ code: 'out_of_range', field, min, max }`. */
  readonly problem?: ApiProblem;
}

export interface ApiProblem {
  readonly code: string;
  readonly field?: string;
  readonly [fact: string]: string | number | undefined;
}

export type ConversationState = 'NEW' | 'QUALIFYING' | 'AWAITING_HUMAN' | 'HUMAN_ACTIVE' | 'CLOSED';
export type OperatorRole = 'operator' | 'admin';
export type MessageRole = 'user' | 'assistant' | 'operator' | 'system' | 'business_app';

/**
 * Buttons, a list or a link button a message carried under its text, as the customer saw them
 * (docs/DESIGN.md#interactive-replies): `buttons` for `kind` `buttons`; `button` and `sections` for
 * `list`; `displayText` and `url` for `cta_url`.
 */
export interface HistoryInteractive {
  readonly kind: 'buttons' | 'list' | 'cta_url';
  readonly header?: string;
  readonly footer?: string;
  readonly buttons?: readonly HistoryChoice[];
  readonly button?: string;
  readonly sections?: ReadonlyArray<{ readonly title?: string; readonly rows: readonly HistoryChoice[] }>;
  readonly displayText?: string;
  readonly url?: string;
}

/** A button or a list row: the id a tap returns, and what the customer read. */
export interface HistoryChoice {
  readonly id: string;
  readonly title: string;
  readonly description?: string;
}

/** A history entry's choices: those the customer saw under its text, or the one they tapped. */
export interface CarriesChoices {
  /** Buttons, a list or a link button under `text` (its body). */
  readonly interactive?: HistoryInteractive;
  /** A customer's tap of a button or a list row: the option's id (`text` is its title). */
  readonly choiceId?: string;
}

/** `POST conversations/:customerId/messages`: an operator's reply. */
export interface ReplyRequest {
  /** 1–4096 characters, not blank; with `buttons`, the body: at most 1024. */
  readonly text: string;
  /** Up to 3 reply button titles (20 characters each, all different), tapped as `option-<n>`. */
  readonly buttons?: readonly string[];
}
