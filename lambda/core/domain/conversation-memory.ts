import type { IsoTimestamp } from './timestamps';
import { toEpochMicros } from './timestamps';

/**
 * What the agent remembers of a conversation that outgrew its window: a summary of the messages up
 * to `through`, kept on the session. The agent is shown the summary and the messages after
 * `through` — a window that starts at a fixed point and grows until the next fold, so the prompt's
 * prefix stays the same bytes from turn to turn and the prompt cache keeps reading it. What the
 * agent recorded (qualification and registration data, segment, intent) is on the session itself
 * and reaches every turn's prompt whatever folds: the summary is only the conversation's text.
 */
export interface ConversationMemory {
  readonly summary: string;
  /** The history timestamp of the newest message the summary covers: the agent's window starts after it. */
  readonly through: IsoTimestamp;
  /** When the summary was last written. */
  readonly foldedAt: IsoTimestamp;
}

/** How big the agent's window may grow, and how often it may fold. */
export interface WindowLimits {
  /** Messages shown at most (the pipeline's 50). */
  readonly messages: number;
  /** Characters of history shown at most (`agentHistoryMaxCharacters`). */
  readonly characters: number;
  /** Agent replies since the last fold before the next may happen. */
  readonly foldEveryTurns: number;
}

/** A message of the window as the fold reads it. */
export interface WindowMessage {
  readonly role: 'customer' | 'assistant';
  readonly text: string;
  readonly at: IsoTimestamp;
}

/** Which of a window's messages fold into the summary, and which stay shown. */
export interface FoldPlan<T> {
  readonly fold: readonly T[];
  readonly keep: readonly T[];
}

/** The messages after the fold point, in order; all of them without a memory. */
export function afterFoldPoint<T extends Pick<WindowMessage, 'at'>>(messages: readonly T[], memory: ConversationMemory | undefined): T[] {
  if (memory === undefined) return [...messages];
  const through = toEpochMicros(memory.through);
  return messages.filter((message) => toEpochMicros(message.at) > through);
}

/**
 * Whether the window (the visible messages after the fold point, oldest first) must fold, and how:
 * when it holds more messages or characters than the agent is shown, and at least
 * `foldEveryTurns` agent replies since the last fold. The newest messages stay — at most
 * `messages − 2 × foldEveryTurns` of them, within the same share of the characters, so the next
 * fold is `foldEveryTurns` turns away — starting at a customer message, as a conversation starts.
 * `undefined`: no fold now.
 */
export function planFold<T extends WindowMessage>(window: readonly T[], limits: WindowLimits): FoldPlan<T> | undefined {
  const characters = window.reduce((sum, message) => sum + message.text.length, 0);
  if (window.length <= limits.messages && characters <= limits.characters) return undefined;
  if (window.filter((message) => message.role === 'assistant').length < limits.foldEveryTurns) return undefined;
  const keptMessages = Math.max(2, limits.messages - 2 * limits.foldEveryTurns);
  const keptCharacters = Math.floor((limits.characters * keptMessages) / limits.messages);
  let start = window.length;
  let kept = 0;
  while (start > 0 && window.length - start < keptMessages && kept + window[start - 1].text.length <= keptCharacters) {
    start--;
    kept += window[start].text.length;
  }
  while (start < window.length && window[start].role !== 'customer') start++;
  // Nothing would fold, or nothing would stay: the newest message alone is over the limits (it is cut, as today).
  if (start === 0 || start >= window.length) return undefined;
  return { fold: window.slice(0, start), keep: window.slice(start) };
}
