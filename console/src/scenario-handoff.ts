import type { ScenarioDraft } from './prompt-gate';

/**
 * A scenario handed from one screen to another in memory (the conversation's "turn into a
 * scenario" opens the suite's editor with it): taken once, never kept in the browser's storage.
 */
let handedScenario: ScenarioDraft | undefined;

export function handScenario(draft: ScenarioDraft): void {
  handedScenario = draft;
}

export function takeHandedScenario(): ScenarioDraft | undefined {
  const taken = handedScenario;
  handedScenario = undefined;
  return taken;
}
