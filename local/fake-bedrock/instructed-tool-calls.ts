import type { ConverseCommandInput } from '@aws-sdk/client-bedrock-runtime';
import type { FakeToolCall } from './fake-converse-model';

/** A customer asking for a person, in the pipeline's languages. */
const ASKS_FOR_A_PERSON = /\b(pessoa|humano|atendente|person|human|agent|persona|agente)\b/iu;
/** A prompt that tells the model to hand over to people (the default prompt does). */
const HANDOFF_INSTRUCTION = /\b(hand|pass|transfer)\b[^.]{0,60}\b(human|person|people)\b|request_human_handoff/iu;
const EMAIL = /[^\s@]+@[^\s@]+\.[^\s@]+/u;

/**
 * The fake Converse model's tool calls (`FakeConverseModelOptions.toolCall`) of a model that follows
 * its system prompt, for the local runtime's evaluations (docs/EVALUATION.md#local-runs): in the
 * first round of a turn, a customer asking for a person is handed to people when the prompt says
 * so, and an e-mail address is recorded as registration data; otherwise the fake goes on as usual.
 * So a prompt edited to drop the handoff instruction changes what the agent does, as a model's
 * behaviour would.
 */
export function instructedToolCall(turn: readonly string[], roundsDone: number, input: ConverseCommandInput): FakeToolCall | undefined {
  if (roundsDone > 0) return undefined;
  const last = turn.at(-1) ?? '';
  const system = (input.system ?? []).flatMap((block) => ('text' in block && typeof block.text === 'string' ? [block.text] : [])).join('\n');
  if (ASKS_FOR_A_PERSON.test(last) && HANDOFF_INSTRUCTION.test(system)) return { name: 'request_human_handoff', input: { reason: 'The customer asked for a person.' } };
  const email = EMAIL.exec(last)?.[0];
  if (email !== undefined) return { name: 'update_cadastral_data', input: { data: { email } } };
  return undefined;
}
