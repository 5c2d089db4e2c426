import type { Locale } from '../../../../lib/contract';
import { defaultModelCost } from '../../../../lib/contract/model-prices';
import { addUsage, type TokenUsage } from '../../domain/customer-budget';
import { expectationProblems, type TurnObservation } from '../../domain/evaluation/expectations';
import type { LearnedFields, Scenario, ScenarioLocale, ScenarioTurn } from '../../domain/evaluation/scenario';
import { isoMicros } from '../../domain/timestamps';
import { openSession, SessionState, type Session } from '../../domain/session';
import type { Clock, IdGenerator } from '../../ports/clock';
import type { EvaluationCleanup, EvaluationJudge, EvaluationStage, StageRecording } from '../../ports/evaluation';
import type { SessionRepository } from '../../ports/repositories';
import { agentCostUsd } from '../agent-cost';
import type { TurnRequest } from '../process-turn';
import type { TurnReport } from '../turn-settings';

export interface ScenarioRunnerDependencies {
  /** The deployment's turn use case (process-turn.ts), composed on the evaluation stage. */
  readonly turns: { execute(request: TurnRequest): Promise<TurnReport> };
  readonly stage: EvaluationStage;
  readonly sessions: Pick<SessionRepository, 'getActive' | 'put'>;
  /** Grades the rubric checks; without one, a scenario with a rubric fails on it. */
  readonly judge?: EvaluationJudge;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** The pipeline's locale: a scenario's customer language unless its start names one. */
  readonly locale: Locale;
  /** The customer a scenario of this run plays (the evaluation key space of keys.ts). */
  readonly customerIdOf: (runId: string, scenario: number) => string;
  /** The business number the conversations are with. */
  readonly businessPhoneNumberId: string;
  /** How long one turn may take, as the orchestrator's invocation bounds it. */
  readonly turnTimeoutMs: number;
  /** Erases each scenario's customer once played (a deployment's table); without, its items stay (a table of the run's own). */
  readonly cleanup?: EvaluationCleanup;
}

export interface ScenarioResult {
  readonly name: string;
  readonly passed: boolean;
  readonly turns: readonly TurnResult[];
  /** The turn path's model tokens and the judge's. */
  readonly usage: TokenUsage;
  /** At the packaged model prices; `undefined` when no priced model reported tokens. */
  readonly costUsd?: number;
  readonly durationMs: number;
  /** The scenario could not be played to its end (a turn failed): what happened. */
  readonly error?: string;
}

export interface TurnResult {
  /** What the customer sent, as a line of the report. */
  readonly customer: string;
  readonly replies: readonly string[];
  /** One line per failed check; empty when the turn passed. */
  readonly problems: readonly string[];
}

export interface SuiteResult {
  readonly runId: string;
  readonly scenarios: readonly ScenarioResult[];
  readonly usage: TokenUsage;
  readonly costUsd?: number;
}

const NO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0 };

/** Model tokens, and their estimated cost when a priced model reported them. */
export interface Used {
  readonly usage: TokenUsage;
  readonly costUsd?: number;
}

/** What several parts used together: their tokens, and their cost when any part was priced. */
export function usedTogether(parts: readonly Used[]): Used {
  const costs = parts.flatMap((part) => (part.costUsd === undefined ? [] : [part.costUsd]));
  return { usage: parts.reduce((sum, part) => addUsage(sum, part.usage), NO_USAGE), ...(costs.length > 0 && { costUsd: costs.reduce((sum, cost) => sum + cost, 0) }) };
}

/**
 * Plays scenarios through the deployment's real turn path (docs/EVALUATION.md): each scenario is a
 * customer of the run's own, whose messages are registered as the webhook registers them and whose
 * turns the orchestrator's use case answers; at most `concurrency` scenarios at a time.
 */
export class RunScenarios {
  constructor(private readonly deps: ScenarioRunnerDependencies) {}

  async execute(scenarios: readonly Scenario[], concurrency: number): Promise<SuiteResult> {
    const runId = this.deps.ids.newId().replace(/[^A-Za-z0-9]/g, '').slice(0, 12);
    const results: ScenarioResult[] = new Array(scenarios.length);
    let next = 0;
    const worker = async () => {
      for (let index = next++; index < scenarios.length; index = next++) results[index] = await this.play(scenarios[index], this.deps.customerIdOf(runId, index));
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, scenarios.length)) }, worker));
    return { runId, scenarios: results, ...usedTogether(results) };
  }

  private async play(scenario: Scenario, customerId: string): Promise<ScenarioResult> {
    const started = this.deps.clock.now().getTime();
    const locale: ScenarioLocale = scenario.start?.locale ?? this.deps.locale;
    const turns: TurnResult[] = [];
    const transcript: { role: 'customer' | 'agent'; text: string }[] = [];
    const spent: Used[] = [];
    const count = (tokens: TokenUsage | undefined, cost: number | undefined) => spent.push({ usage: tokens ?? NO_USAGE, ...(cost !== undefined && { costUsd: cost }) });
    this.deps.stage.recordTools(customerId, scenario.tools ?? {});
    let error: string | undefined;
    const sessions = new Map<string, Session>();
    try {
      let session = await this.open(scenario, customerId);
      for (const turn of scenario.turns) {
        const played = await this.playTurn(turn, customerId, session);
        session = played.session;
        if (session !== undefined) sessions.set(session.sessionId, session);
        count(played.usage, played.costUsd);
        transcript.push({ role: 'customer', text: customerLine(turn) }, ...played.recording.replies.map((text) => ({ role: 'agent' as const, text })));
        const graded = await this.grade(turn, transcript, played.recording.replies.join('\n'), locale);
        count(graded.usage, graded.costUsd);
        const observation = observed(played.recording, session, played.before);
        const problems = [...expectationProblems(turn.expect ?? {}, observation, locale), ...played.recording.unrecorded.map((call) => `tools: ${call}`), ...graded.problems];
        turns.push({ customer: customerLine(turn), replies: played.recording.replies, problems });
      }
    } catch (failure) {
      error = `the turn path failed: ${(failure as Error).message}`;
    } finally {
      this.deps.stage.release(customerId);
    }
    // A cleanup that fails leaves items an erasure of the customer id removes; the result stands.
    await this.deps.cleanup?.forget(customerId, [...sessions.values()]).catch((failure: unknown) => {
      error ??= `the scenario played, but its items were not erased: ${(failure as Error).message}`;
    });
    const passed = error === undefined && turns.every((turn) => turn.problems.length === 0);
    const durationMs = this.deps.clock.now().getTime() - started;
    return { name: scenario.name, passed, turns, ...usedTogether(spent), durationMs, ...(error !== undefined && { error }) };
  }

  /** The scenario's starting state: a session that knows what `start` says, when it says anything. */
  private async open(scenario: Scenario, customerId: string): Promise<Session | undefined> {
    const { stage, learned } = scenario.start ?? {};
    if (stage === undefined && learned === undefined) return undefined;
    const opened = openSession({ customerId, customerIdKind: 'phone', businessPhoneNumberId: this.deps.businessPhoneNumberId }, this.deps.ids.newId(), isoMicros(this.deps.clock.now()), {
      state: SessionState.QUALIFYING,
    });
    const session: Session = {
      ...opened,
      ...(stage !== undefined && { currentAgent: stage }),
      cadastralData: { ...learned?.cadastral },
      qualificationData: { ...learned?.qualification },
      ...(learned?.segment !== undefined && { segment: learned.segment }),
      ...(learned?.intent !== undefined && { intent: learned.intent }),
    };
    await this.deps.sessions.put(session);
    return session;
  }

  private async playTurn(turn: ScenarioTurn, customerId: string, before: Session | undefined) {
    await this.deps.stage.receive(customerId, turn.customer);
    const report = await this.deps.turns.execute({ customerId, deadline: this.deps.clock.now().getTime() + this.deps.turnTimeoutMs });
    const session = await this.deps.sessions.getActive(customerId);
    const agent = report.agent;
    const fold = agent?.memoryFold?.outcome === 'folded' ? agent.memoryFold.usage : undefined;
    const tokens = agent?.usage === undefined ? fold : fold === undefined ? agent.usage : addUsage(agent.usage, fold);
    return { recording: this.deps.stage.take(customerId), session, before, usage: tokens, costUsd: agent && agentCostUsd(agent) };
  }

  private async grade(turn: ScenarioTurn, transcript: readonly { role: 'customer' | 'agent'; text: string }[], reply: string, locale: ScenarioLocale) {
    const rubric = turn.expect?.rubric ?? [];
    const { judge } = this.deps;
    if (rubric.length === 0) return { problems: [], usage: undefined, costUsd: undefined };
    if (judge === undefined) return { problems: ['rubric: no judge model to grade it'], usage: undefined, costUsd: undefined };
    const grades = await Promise.all(rubric.map((criterion) => judge.grade({ criterion, transcript, reply, locale })));
    const usage = grades.reduce<TokenUsage | undefined>((sum, grade) => (grade.usage === undefined ? sum : addUsage(sum ?? NO_USAGE, grade.usage)), undefined);
    const problems = grades.flatMap((grade, index) => (grade.pass ? [] : [`rubric: "${rubric[index]}" failed: ${grade.reason}`]));
    return { problems, usage, costUsd: usage && defaultModelCost(judge.model, usage) };
  }
}

/** What the turn did, as the expectations read it. */
function observed(recording: StageRecording, after: Session | undefined, before: Session | undefined): TurnObservation {
  const handedOff = after?.state === SessionState.AWAITING_HUMAN && before?.state !== SessionState.AWAITING_HUMAN;
  return { replies: recording.replies, toolCalls: recording.toolCalls, ...(after?.currentAgent !== undefined && { stage: after.currentAgent }), handedOff, learned: learnedOf(after) };
}

function learnedOf(session: Session | undefined): LearnedFields {
  if (session === undefined) return {};
  const texts = (fields: Readonly<Record<string, unknown>>) => Object.fromEntries(Object.entries(fields).map(([key, value]) => [key, String(value)]));
  return { cadastral: texts(session.cadastralData), qualification: texts(session.qualificationData), ...(session.segment !== undefined && { segment: session.segment }), ...(session.intent !== undefined && { intent: session.intent }) };
}

/** The customer's message as a report line. */
export function customerLine({ customer }: ScenarioTurn): string {
  if (customer.text !== undefined) return customer.text;
  if (customer.tap !== undefined) return `[tap] ${customer.tap.title}`;
  return `[${customer.media!.kind}]${customer.media!.caption === undefined ? '' : ` ${customer.media!.caption}`}`;
}
