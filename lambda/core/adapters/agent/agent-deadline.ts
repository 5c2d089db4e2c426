import { FALLBACK_TEXT_DEFAULTS } from '../../../../lib/contract';

/**
 * Sent when an agent has nothing better to say (deadline reached before any text, or an empty
 * answer). Every adapter takes a replacement (`fallbackReply`), which the construct's
 * `deadlineFallbackText` sets.
 */
export const DEFAULT_FALLBACK_REPLY: string = FALLBACK_TEXT_DEFAULTS.agentDeadline;

/** Marks a backend call abandoned because the turn's deadline passed. */
export const DEADLINE_REACHED = Symbol('deadline reached');

/**
 * Runs a backend call with an abort signal that fires at `deadline` (epoch ms, read against `now`),
 * so a slow model or function can never hold the orchestrator past its Lambda timeout. Resolves
 * {@link DEADLINE_REACHED} when the deadline has passed before or during the call.
 */
export async function callBeforeDeadline<T>(
  deadline: number,
  now: () => number,
  call: (abortSignal: AbortSignal) => Promise<T>,
): Promise<T | typeof DEADLINE_REACHED> {
  const remainingMs = deadline - now();
  if (remainingMs <= 0) return DEADLINE_REACHED;
  const abortSignal = AbortSignal.timeout(remainingMs);
  try {
    return await call(abortSignal);
  } catch (error) {
    if (abortSignal.aborted) return DEADLINE_REACHED;
    throw error;
  }
}
