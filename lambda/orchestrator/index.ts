// Entry point of the orchestrator function. The SQS contract lives in turn-handler.ts, the behaviour
// in core/application/process-turn.ts, the composition in ../composition/orchestrator.ts.
import { composedOnFirstInvocation } from '../composition/compose-function';
import { composeOrchestrator } from '../composition/orchestrator';
import { readOrchestratorSettings, toldToThisFunction } from '../composition/read-settings';

export const handler = composedOnFirstInvocation(() => composeOrchestrator(readOrchestratorSettings(toldToThisFunction(__dirname))));
