import type { Message } from '../message';
import { pseudonymiser, recordedIdentity } from '../pseudonymised-text';
import type { Session } from '../session';
import { cutOnCodePoints } from '../text-bounds';
import { type CustomerMessage, SCENARIO_FORMAT_VERSION, type Scenario, type ScenarioLocale } from './scenario';

/** The most turns a scenario holds (`evaluation/scenario.schema.json`): a longer conversation keeps its latest. */
export const SCENARIO_MAX_TURNS = 20;

/** A stage name as the format's `start.stage` and `handover` take one. */
const STAGE_NAME = /^[a-z][a-z0-9_-]{0,39}$/;

/** The format's bounds on a customer message's texts. */
const BOUNDS = { text: 4096, tapTitle: 24, tapId: 256, caption: 1024 } as const;

/** A conversation to draft a scenario from: its session and its messages, oldest first. */
export interface ConversationRecord {
  readonly session: Pick<Session, 'customerId' | 'createdAt' | 'currentAgent' | 'profileName' | 'cadastralData' | 'qualificationData'>;
  /**
   * The session's messages, oldest first: every customer message of its latest turns (more than
   * {@link SCENARIO_MAX_TURNS} of them when it had more), and the business's messages between them,
   * whose choices tell a button tap from a list tap.
   */
  readonly messages: readonly Message[];
  /** The messages stop short of the session's first: the customer wrote earlier messages not given here. */
  readonly partial?: boolean;
}

/** Who the scenario is drafted for. */
export interface DraftContext {
  /** The pipeline's locale: the scenario's customer language. */
  readonly locale: ScenarioLocale;
  /** The audit's pseudonym of the customer (its first 8 characters name the scenario). */
  readonly pseudonym: string;
}

/**
 * A scenario in the file format from a real conversation (docs/EVALUATION.md, "From a real
 * conversation"): one turn per customer message, pseudonymised, its latest {@link SCENARIO_MAX_TURNS};
 * no expectation (what went wrong is the admin's to say), nothing the agent learned, none of the
 * business's texts. `undefined` when the conversation has no customer message to play.
 */
export function draftScenario({ session, messages, partial = false }: ConversationRecord, { locale, pseudonym }: DraftContext): Scenario | undefined {
  const pseudonymise = pseudonymiser({ customerId: session.customerId, ...withProfileName(recordedIdentity(session.cadastralData, session.qualificationData), session.profileName) });
  const customerTurns = messages.flatMap((message, index) => {
    const customer = message.role === 'user' && message.direction === 'inbound' ? customerMessageOf(message, (choiceId) => tapKindOf(choiceId, messages, index), pseudonymise) : undefined;
    return customer === undefined ? [] : [{ customer }];
  });
  if (customerTurns.length === 0) return undefined;
  const turns = customerTurns.slice(-SCENARIO_MAX_TURNS);
  const day = session.createdAt.slice(0, 10);
  const name = `conversation-${day.replace(/-/g, '')}-${pseudonym.slice(0, 8)}`;
  const cut = partial || customerTurns.length > turns.length ? ` Only its latest ${turns.length === 1 ? 'customer message is' : `${turns.length} customer messages are`} here; the earlier ones were left out.` : '';
  const stage = session.currentAgent !== undefined && STAGE_NAME.test(session.currentAgent) ? ` At the end it was at the stage ${session.currentAgent}.` : '';
  const description =
    `Drafted from a conversation of ${day} (customer ${pseudonym.slice(0, 8)} in the admin audit): the customer's messages, pseudonymised ` +
    `(names, phone numbers, e-mail addresses, recorded data and long numbers masked; media as placeholders); the business's replies are not kept.${cut}${stage} ` +
    'Write what each turn must do.';
  return { formatVersion: SCENARIO_FORMAT_VERSION, name, description, start: { locale }, turns };
}

function withProfileName(identity: ReturnType<typeof recordedIdentity>, profileName: string | undefined) {
  return profileName === undefined ? identity : { ...identity, names: [profileName, ...identity.names] };
}

/** The turn a customer message plays: a tap, a media placeholder or a text (`undefined`: none). */
function customerMessageOf(message: Message, tapKind: (choiceId: string) => 'button' | 'list' | undefined, pseudonymise: (text: string) => string): CustomerMessage | undefined {
  // The customer withdrew it: it is no part of what they said.
  if (message.revokedAt !== undefined) return undefined;
  if (message.media !== undefined) {
    const caption = message.media.caption === undefined ? '' : cutOnCodePoints(pseudonymise(message.media.caption), BOUNDS.caption).trim();
    return { media: { kind: message.media.kind, ...(caption !== '' && { caption }) } };
  }
  const text = cutOnCodePoints(pseudonymise(isFlowAnswer(message) ? withoutFlowValues(message.text) : message.text), BOUNDS.text).trim();
  if (text === '') return undefined;
  if (message.choiceId !== undefined) {
    const kind = tapKind(message.choiceId);
    return { tap: { ...(kind !== undefined && { kind }), id: cutOnCodePoints(pseudonymise(message.choiceId), BOUNDS.tapId), title: cutOnCodePoints(text, BOUNDS.tapTitle).trim() } };
  }
  // A template's quick-reply button: the customer tapped it, and its text is its title.
  if (message.messageType === 'button') return { tap: { kind: 'button', title: cutOnCodePoints(text, BOUNDS.tapTitle).trim() } };
  // What a location or a shared contact card says is someone's address or another person's data: only what it was is kept.
  if (message.messageType === 'location' || message.messageType === 'contacts') return { text: `[${message.messageType}]` };
  return { text };
}

/** Whether the option tapped was a reply button or a list row, from the latest business message before `position` that offered it. */
function tapKindOf(choiceId: string, messages: readonly Message[], position: number): 'button' | 'list' | undefined {
  for (let index = position - 1; index >= 0; index--) {
    const offered = messages[index].interactive;
    if (offered?.kind === 'buttons' && offered.buttons.some((button) => button.id === choiceId)) return 'button';
    if (offered?.kind === 'list' && offered.sections.some((section) => section.rows.some((row) => row.id === choiceId))) return 'list';
  }
  return undefined;
}

/** A WhatsApp Flow's answers (`[flow] <name>` and a `field: value` line per answer, as the webhook reads them). */
function isFlowAnswer(message: Message): boolean {
  return message.messageType === 'interactive' && message.text.startsWith('[flow]');
}

/**
 * A flow is a form, and its answers are what the customer filled in: a name, an address, a birth
 * date. The draft keeps which fields were answered, each value `[value]`, for the admin to fill in.
 */
function withoutFlowValues(text: string): string {
  const [heading, ...answers] = text.split('\n');
  return [heading, ...answers.flatMap((line) => {
    const field = /^([^:]{1,80}): /.exec(line)?.[1];
    return field === undefined ? [] : [`${field}: [value]`];
  })].join('\n');
}
