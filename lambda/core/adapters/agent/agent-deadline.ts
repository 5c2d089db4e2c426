/**
 * Sent when an agent has nothing better to say (deadline reached before any text, or an empty
 * answer). The pipeline's customers write Portuguese; every adapter lets the consumer replace it.
 */
export const DEFAULT_FALLBACK_REPLY =
  'Desculpe, não consegui concluir minha resposta agora. Pode repetir sua última mensagem em instantes?';

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
