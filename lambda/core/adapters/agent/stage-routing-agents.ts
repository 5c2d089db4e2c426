import type { AgentPort, AgentStages } from '../../ports/agent';

/** The stages of `AgentBackend.stages()`: each name's agent, built by the backend's adapter. */
export class StageRoutingAgents implements AgentStages {
  readonly names: readonly string[];

  constructor(
    private readonly agents: ReadonlyMap<string, AgentPort>,
    readonly entry: string,
    readonly maxHandoversPerTurn: number,
  ) {
    if (!agents.has(entry)) throw new RangeError(`The entry stage "${entry}" is not one of the stages (${[...agents.keys()].join(', ')})`);
    this.names = [...agents.keys()];
  }

  agentOf(stage: string): AgentPort | undefined {
    return this.agents.get(stage);
  }
}
