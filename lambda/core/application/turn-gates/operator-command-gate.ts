import type { InboundTurn } from '../../domain/inbound-turn';
import type { GateTurn, GateVerdict, TurnGate } from './turn-gate';

/** What answers an operator's command sent to the business number (the operator plane's `login`). */
export interface OperatorCommands {
  /** Whether `turn` was a command, now answered. */
  handle(turn: InboundTurn): Promise<boolean>;
}

/** An operator's command is answered by the command itself: no session, no history, no agent. */
export class OperatorCommandGate implements TurnGate {
  readonly name = 'operator_command';
  readonly step = 'before_history';

  constructor(private readonly commands: OperatorCommands) {}

  async check({ last }: GateTurn): Promise<GateVerdict | undefined> {
    return (await this.commands.handle(last)) ? { kind: 'unanswered', outcome: 'operator_command' } : undefined;
  }
}
