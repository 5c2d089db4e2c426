import type { GateTurn, GateVerdict, TurnGate } from './turn-gate';

/**
 * Only messages of a type the pipeline cannot read: no agent, so nothing counted against a budget
 * either. The customer is told so once per conversation (the session records it in the write that
 * carries the notice), then nothing.
 */
export class UnreadableMessagesGate implements TurnGate {
  readonly name = 'unreadable';
  readonly step = 'with_history';

  constructor(private readonly notice: string) {}

  check({ pending, session }: GateTurn): GateVerdict | undefined {
    if (!pending.every((turn) => turn.unsupported === true)) return undefined;
    if (session?.unsupportedNoticeAt !== undefined) return { kind: 'unanswered', outcome: 'unsupported_told_already' };
    return { kind: 'answer', reply: this.notice, change: (answered, at) => ({ ...answered, unsupportedNoticeAt: at }) };
  }
}
