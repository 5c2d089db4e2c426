/**
 * Fault injection at the remote-call boundaries of the pipeline, for reliability tests only.
 *
 * Production code is composed through its ports, so a test wraps the port objects it hands to the
 * use cases — the DynamoDB kit under the repositories, the SQS dispatcher, the WhatsApp sender, the
 * agent, the media source and the media bucket — and nothing in `lambda/` knows about it. Each call of a wrapped remote is a *boundary
 * crossing*, named after the port method that issued it (`ledger.complete › dynamodb.transact`)
 * and numbered per name, so a clean run enumerates every boundary a scenario crosses and a faulty
 * run can strike exactly one of them, before or after the real call:
 *
 * - `crash`: the invocation dies. The real call happened (`after`) or not (`before`); from then on
 *   every call of the same invocation fails too, as nothing runs in a dead process.
 * - `transient`: the service answers a retryable error (throttling, 5xx). `after`: the request took
 *   effect first, as a DynamoDB write can before an InternalServerError.
 * - `timeout_unknown`: the caller stops waiting; it cannot know whether the request took effect
 *   (`after`: it did; `before`: it did not).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { AgentInvocationError } from '../../lambda/core/ports/agent';
import { MediaSourceError } from '../../lambda/core/ports/media-source';
import { MediaStoreError } from '../../lambda/core/ports/media-store';
import { WhatsAppSendError } from '../../lambda/core/ports/whatsapp-sender';

export type FaultKind = 'crash' | 'transient' | 'timeout_unknown';
export type FaultPhase = 'before' | 'after';
export const FAULT_KINDS: readonly FaultKind[] = ['crash', 'transient', 'timeout_unknown'];
export const FAULT_PHASES: readonly FaultPhase[] = ['before', 'after'];

export interface FaultPlan {
  /** A boundary name, as {@link FaultInjector.crossings} lists them. */
  readonly boundary: string;
  /** The crossing of that boundary to strike, 1-based. Default 1. */
  readonly occurrence?: number;
  readonly phase: FaultPhase;
  readonly kind: FaultKind;
  /** Consecutive crossings struck from `occurrence` on: a lasting outage. Default 1. */
  readonly times?: number;
}

/** The invocation died here. The handlers must never turn it into a business outcome. */
export class InvocationCrash extends Error {
  override readonly name = 'InvocationCrash';
  constructor(
    readonly boundary: string,
    readonly phase: FaultPhase,
  ) {
    super(`the invocation died ${phase} ${boundary}`);
  }
}

/** How a remote service reports a failure to its caller; `applied` tells whether the request took effect. */
export interface FailureModel {
  transient(boundary: string, applied: boolean): Error;
  timeout(boundary: string, applied: boolean): Error;
}

function sdkError(name: string, message: string, fault: 'client' | 'server', httpStatusCode: number | undefined, retryable: object | undefined): Error {
  return Object.assign(new Error(message), { name, $fault: fault, $retryable: retryable, $metadata: { httpStatusCode, attempts: 3, totalRetryDelay: 0 } });
}

/** DynamoDB and SQS through the AWS SDK, after the SDK's own retries gave up. */
export const AWS_SDK_FAILURES: FailureModel = {
  transient: (boundary, applied) =>
    applied
      ? sdkError('InternalServerError', `injected: ${boundary} answered 500 after applying the request`, 'server', 500, {})
      : sdkError('ThrottlingException', `injected: ${boundary} was throttled`, 'client', 400, { throttling: true }),
  timeout: (boundary) => sdkError('TimeoutError', `injected: ${boundary} timed out`, 'client', undefined, {}),
};

/**
 * The WhatsApp sender's errors. A send Meta accepted can only fail as a transport error from the
 * caller's point of view (the answer was lost), so every `applied` failure is an unknown outcome.
 */
export const WHATSAPP_FAILURES: FailureModel = {
  transient: (boundary, applied) =>
    applied
      ? new WhatsAppSendError(`injected: ${boundary} connection lost after the request was sent`, { category: 'transport', retryable: true, outcomeUnknown: true, partsDelivered: 0 })
      : new WhatsAppSendError(`injected: ${boundary} answered 503`, { category: 'provider_unavailable', retryable: true, outcomeUnknown: false, httpStatus: 503, metaCode: 131016, partsDelivered: 0 }),
  timeout: (boundary) => new WhatsAppSendError(`injected: ${boundary} timed out`, { category: 'transport', retryable: true, outcomeUnknown: true, partsDelivered: 0 }),
};

/** Agents have no side effects: whether the model ran makes no difference to the caller. */
export const AGENT_FAILURES: FailureModel = {
  transient: (boundary) => new AgentInvocationError('invocation_failed', `injected: ${boundary} was throttled`),
  timeout: (boundary) => new AgentInvocationError('invocation_failed', `injected: ${boundary} timed out`),
};

/**
 * The provider's media endpoints (the Graph API's, End User Messaging's `GetWhatsAppMessageMedia`):
 * a throttled or failed request a later attempt can repeat. A transfer the provider completed
 * before the answer was lost has written the object: the retry writes the same key again.
 */
export const MEDIA_SOURCE_FAILURES: FailureModel = {
  transient: (boundary, applied) => new MediaSourceError(applied ? `injected: ${boundary} answered 500 after completing the request` : `injected: ${boundary} answered 429`, true),
  timeout: (boundary) => new MediaSourceError(`injected: ${boundary} timed out`, true),
};

/** The media bucket: S3's retryable errors after the SDK's own retries gave up (a put that took effect overwrites the same key on retry). */
export const MEDIA_STORE_FAILURES: FailureModel = {
  transient: (boundary, applied) => new MediaStoreError(applied ? `injected: ${boundary} answered 500 after storing the object` : `injected: ${boundary} answered 503 SlowDown`, true),
  timeout: (boundary) => new MediaStoreError(`injected: ${boundary} timed out`, true),
};

/** One crossing of a boundary, in the order crossings started. */
export interface BoundaryCrossing {
  /** Position in the process-wide event order (starts and ends of calls, of every injector). */
  readonly seq: number;
  readonly boundary: string;
  readonly occurrence: number;
  readonly invocation?: string;
  readonly args: readonly unknown[];
  /** Set once the real call settled: whether it took effect as far as the service is concerned. */
  realCall?: 'ok' | 'error' | 'not_made';
  endSeq?: number;
  fault?: FaultPlan;
}

/** One call of a labelled port (e.g. a repository method), with its arguments and how it ended. */
export interface PortCall {
  readonly seq: number;
  readonly port: string;
  readonly method: string;
  readonly args: readonly unknown[];
  readonly invocation?: string;
  endSeq?: number;
  result?: unknown;
  error?: unknown;
}

export interface FiredFault extends FaultPlan {
  readonly occurrence: number;
  readonly invocation?: string;
}

/** Where a scheduler may interleave other work: just before a remote call and just after it. */
export interface InterleavePoint {
  readonly boundary: string;
  readonly phase: FaultPhase;
  readonly invocation?: string;
}

/** Runs at one crossing (e.g. a newer customer message arriving right after a write), outside any invocation. */
export interface BoundaryHook {
  readonly boundary: string;
  readonly occurrence?: number;
  readonly phase: FaultPhase;
  readonly action: () => Promise<void>;
}

export interface InvocationOutcome<T> {
  /** A crash fault struck this invocation: whatever it returned is lost with the process. */
  readonly crashed: boolean;
  readonly value?: T;
  readonly error?: unknown;
}

export interface FaultInjectorOptions {
  readonly plans?: readonly FaultPlan[];
  /** Awaited at every {@link InterleavePoint}: lets a scheduler decide what runs next. */
  readonly interleave?: (point: InterleavePoint) => Promise<void>;
}

/** One order for the events of every injector in the process, so webhook and orchestrator events compare. */
let eventSequence = 0;
const nextSequence = () => eventSequence++;

interface CallContext {
  readonly invocation?: { readonly id: string; dead: boolean };
  /** The labelled port method the current remote calls are made for. */
  readonly caller?: string;
}

/**
 * One storage for every injector: each AsyncLocalStorage that ever ran stays enabled, and every
 * promise of the process pays for each one (a suite creates hundreds of injectors).
 */
const callContext = new AsyncLocalStorage<CallContext>();

export class FaultInjector {
  private readonly plans: readonly FaultPlan[];
  private readonly hooks: BoundaryHook[] = [];
  private readonly counts = new Map<string, number>();
  private readonly interleave?: (point: InterleavePoint) => Promise<void>;
  private running = 0;
  private readonly idleWaiters: (() => void)[] = [];
  readonly crossings: BoundaryCrossing[] = [];
  readonly portCalls: PortCall[] = [];
  readonly fired: FiredFault[] = [];

  constructor(options: FaultInjectorOptions = {}) {
    this.plans = options.plans ?? [];
    this.interleave = options.interleave;
  }

  /** Real remote calls in progress (a scheduler waits for none before it picks the next step). */
  get inFlight(): number {
    return this.running;
  }

  /** Resolves once no remote call is in flight. */
  idle(): Promise<void> {
    return this.running === 0 ? Promise.resolve() : new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private callStarted(): void {
    this.running++;
  }

  private callEnded(): void {
    if (--this.running > 0) return;
    const waiters = this.idleWaiters.splice(0);
    waiters.forEach((resolve) => resolve());
  }

  /** The id of the invocation the caller runs in, if any. */
  get currentInvocation(): string | undefined {
    return callContext.getStore()?.invocation?.id;
  }

  hook(hook: BoundaryHook): void {
    this.hooks.push(hook);
  }

  /**
   * Runs a remote call that is no boundary (it cannot fail by injection, nothing interleaves there)
   * but counts as in flight: the test harness's own calls, such as an event source's receive.
   */
  async track<T>(call: () => Promise<T>): Promise<T> {
    this.callStarted();
    try {
      return await call();
    } finally {
      this.callEnded();
    }
  }

  /** Labels the remote calls made by the methods of a port that is not remote itself (a repository). */
  port<T extends object>(name: string, target: T): T {
    return this.proxy(target, (method, call) => (...args: unknown[]) => {
      const store = callContext.getStore();
      const record: PortCall = { seq: nextSequence(), port: name, method, args, invocation: store?.invocation?.id };
      this.portCalls.push(record);
      const settle = (outcome: Partial<PortCall>) => Object.assign(record, outcome, { endSeq: nextSequence() });
      let returned: unknown;
      try {
        returned = callContext.run({ ...store, caller: `${name}.${method}` }, () => call(args));
      } catch (error) {
        settle({ error });
        throw error;
      }
      if (!(returned instanceof Promise)) {
        settle({ result: returned });
        return returned;
      }
      return returned.then(
        (result) => (settle({ result }), result),
        (error: unknown) => {
          settle({ error });
          throw error;
        },
      );
    });
  }

  /** Makes every method call of `target` (all asynchronous: remote calls) a boundary crossing where faults strike. */
  remote<T extends object>(name: string, target: T, failures: FailureModel): T {
    return this.proxy(target, (method, call) => (...args: unknown[]) => this.cross(`${name}.${method}`, args, failures, () => call(args) as Promise<unknown>));
  }

  /**
   * Runs one invocation (a webhook request, an orchestrator record). A crash fault inside it is
   * reported as `crashed` instead of whatever the handler made of it.
   */
  async runInvocation<T>(id: string, invoke: () => Promise<T>): Promise<InvocationOutcome<T>> {
    const invocation = { id, dead: false };
    try {
      const value = await callContext.run({ invocation }, invoke);
      return { crashed: invocation.dead, value };
    } catch (error) {
      return { crashed: invocation.dead, error };
    }
  }

  private proxy<T extends object>(target: T, wrap: (method: string, call: (args: unknown[]) => unknown) => (...args: unknown[]) => unknown): T {
    return new Proxy(target, {
      get: (object, property, receiver) => {
        const value = Reflect.get(object, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string' || property === 'constructor') return value;
        return wrap(property, (args) => (value as (...parameters: unknown[]) => unknown).apply(object, args));
      },
    });
  }

  private async cross(remote: string, args: readonly unknown[], failures: FailureModel, call: () => Promise<unknown>): Promise<unknown> {
    const store = callContext.getStore();
    const invocation = store?.invocation;
    const boundary = store?.caller ? `${store.caller} › ${remote}` : remote;
    this.assertAlive(invocation, boundary);
    const occurrence = (this.counts.get(boundary) ?? 0) + 1;
    this.counts.set(boundary, occurrence);
    const crossing: BoundaryCrossing = { seq: nextSequence(), boundary, occurrence, invocation: invocation?.id, args };
    this.crossings.push(crossing);
    const fault = this.strike(boundary, occurrence);
    if (fault) crossing.fault = fault;
    const finish = (realCall: BoundaryCrossing['realCall']) => Object.assign(crossing, { realCall, endSeq: nextSequence() });

    await this.pause({ boundary, phase: 'before', invocation: invocation?.id }, occurrence);
    if (invocation?.dead || fault?.phase === 'before') finish('not_made');
    this.assertAlive(invocation, boundary);
    if (fault?.phase === 'before') this.fire(fault, occurrence, failures, invocation);

    this.callStarted();
    let outcome: { ok: true; value: unknown } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await call() };
    } catch (error) {
      outcome = { ok: false, error };
    } finally {
      this.callEnded();
    }
    finish(outcome.ok ? 'ok' : 'error');

    await this.pause({ boundary, phase: 'after', invocation: invocation?.id }, occurrence);
    // The process died while the call was out: its answer is lost with it.
    this.assertAlive(invocation, boundary);
    if (fault?.phase === 'after') this.fire(fault, occurrence, failures, invocation);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  private async pause(point: InterleavePoint, occurrence: number): Promise<void> {
    await this.interleave?.(point);
    for (const hook of this.hooks) {
      if (hook.boundary === point.boundary && hook.phase === point.phase && (hook.occurrence ?? 1) === occurrence) {
        await callContext.exit(hook.action);
      }
    }
  }

  private assertAlive(invocation: CallContext['invocation'], boundary: string): void {
    if (invocation?.dead) throw new InvocationCrash(boundary, 'before');
  }

  private strike(boundary: string, occurrence: number): FaultPlan | undefined {
    return this.plans.find((candidate) => {
      const first = candidate.occurrence ?? 1;
      return candidate.boundary === boundary && occurrence >= first && occurrence < first + (candidate.times ?? 1);
    });
  }

  private fire(fault: FaultPlan, occurrence: number, failures: FailureModel, invocation: CallContext['invocation']): never {
    this.fired.push({ ...fault, occurrence, invocation: invocation?.id });
    const applied = fault.phase === 'after';
    switch (fault.kind) {
      case 'crash':
        if (invocation) invocation.dead = true;
        throw new InvocationCrash(fault.boundary, fault.phase);
      case 'transient':
        throw failures.transient(fault.boundary, applied);
      case 'timeout_unknown':
        throw failures.timeout(fault.boundary, applied);
    }
  }
}
