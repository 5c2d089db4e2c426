import { runSimulation } from '@cloud-copilot/iam-simulate';
import { type PrincipalIdentity, variantName } from '../../../local/runtime/function-principals';
import type { DeployedRole, DeploymentPermissions } from './deployment-permissions';
import { type EvaluatedService, type IamRequest, iamRequestsOf } from './iam-requests';

/** What IAM decides for one request: `Allowed`, `ImplicitlyDenied`, `ExplicitlyDenied`, or why it could not be evaluated. */
export interface Decision {
  readonly allowed: boolean;
  readonly result: string;
}

/** One request a principal sent, as a local server received it. */
export interface EvaluatedCall {
  readonly identity: PrincipalIdentity;
  /** The suite that made it (the signing session token), when it says. */
  readonly suite?: string;
  readonly service: EvaluatedService;
  readonly operation: string;
  readonly body: Record<string, unknown>;
}

/** A denial, as the report prints it: one per principal, variant, action and resource, with the context of its first occurrence. */
export interface RecordedDenial {
  readonly principal: string;
  readonly variant: string;
  readonly action: string;
  readonly resource: string;
  /** The context of the first request denied so. */
  readonly context: IamRequest['context'];
  readonly result: string;
  readonly suites: Set<string>;
  count: number;
}

/**
 * The check could not tell whether IAM allows a request: the deployment it names could not be
 * synthesized (no bundles: `npm run build` was not run), or the request could not be read. The run
 * fails on it; the request is answered with this name and message rather than allowed or denied.
 */
export class PermissionCheckUnavailable extends Error {
  override readonly name = 'PermissionCheckUnavailable';
}

/** Everything the evaluator saw, for the report at the end of the run. */
export interface PermissionLedger {
  /** `principal variant service` → requests. */
  readonly requests: Map<string, number>;
  /** `principal action` and `principal@variant action` → IAM requests of that pair evaluated, allowed or not (what coverage is checked against). */
  readonly seenPairs: Map<string, number>;
  /** `principal variant` → requests not evaluated because the variant has no role for the principal. */
  readonly unevaluated: Map<string, number>;
  readonly denials: Map<string, RecordedDenial>;
  /** `principal variant` → why its requests could not be checked, and how many were not. */
  readonly unavailable: Map<string, { readonly reason: string; count: number }>;
  /** Suites that sent at least one evaluated request. */
  readonly suites: Set<string>;
  decisionsEvaluated: number;
}

/** Evaluates one IAM request against a role with iam-simulate: the role's identity policies, and the resource's policy when it has one. */
export async function evaluate(role: DeployedRole, account: string, request: IamRequest): Promise<Decision> {
  const result = await runSimulation(
    {
      request: { principal: role.arn, action: request.action, resource: { resource: request.resource, accountId: account }, contextVariables: { ...request.context } as Record<string, string | string[]> },
      identityPolicies: role.policies.map(({ name, policy }) => ({ name, policy })),
      resourcePolicy: request.resourcePolicy,
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    {},
  );
  if (result.resultType === 'error') return { allowed: false, result: `not evaluable: ${result.errors.message}` };
  return { allowed: result.overallResult === 'Allowed', result: result.overallResult };
}

/** AWS's message for a refused request. */
export function accessDeniedMessage(identity: PrincipalIdentity, role: DeployedRole, request: IamRequest, decision: Decision): string {
  const reason = decision.result === 'ExplicitlyDenied' ? 'with an explicit deny in a policy' : `because no identity-based policy allows the ${request.action} action`;
  return `User: ${role.arn.replace(':iam::', ':sts::').replace(':role/', ':assumed-role/')}/${identity.principal} is not authorized to perform: ${request.action} on resource: ${request.resource} ${reason}`;
}

/**
 * Checks each request a pipeline principal sends against that principal's role in the synthesized
 * variant it names, and records what it saw. Decisions are cached by principal, action, resource and
 * context; the partition keys of `dynamodb:LeadingKeys` are cached by the class of the role's
 * patterns they match, so a new customer costs no new evaluation.
 */
export class PermissionEvaluator {
  readonly ledger: PermissionLedger = { requests: new Map(), seenPairs: new Map(), unevaluated: new Map(), denials: new Map(), unavailable: new Map(), suites: new Set(), decisionsEvaluated: 0 };
  private readonly decisions = new Map<string, Promise<Decision>>();
  private readonly leadingKeyPatterns = new Map<DeployedRole, readonly string[] | undefined>();

  constructor(private readonly deploymentOf: (variant: string) => Promise<DeploymentPermissions>) {}

  /**
   * The refusal's message, or `undefined` when every IAM request of the call is allowed (or the
   * principal has no role in that variant). Throws `PermissionCheckUnavailable`, and records why,
   * when it cannot tell.
   */
  async check(call: EvaluatedCall): Promise<string | undefined> {
    const variant = variantName(call.identity.variant);
    const { principal } = call.identity;
    increment(this.ledger.requests, `${principal} ${variant} ${call.service}`);
    try {
      return await this.checkIn(variant, call);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const unavailable = this.ledger.unavailable.get(`${principal} ${variant}`) ?? { reason, count: 0 };
      unavailable.count += 1;
      this.ledger.unavailable.set(`${principal} ${variant}`, unavailable);
      throw new PermissionCheckUnavailable(`The permission check could not evaluate this ${call.service} ${call.operation} of ${principal} (${variant}): ${reason}`);
    }
  }

  private async checkIn(variant: string, call: EvaluatedCall): Promise<string | undefined> {
    const { principal } = call.identity;
    const deployment = await this.deploymentOf(variant);
    const role = deployment.roles.get(principal);
    if (role === undefined) {
      increment(this.ledger.unevaluated, `${principal} ${variant}`);
      return undefined;
    }
    if (call.suite !== undefined) this.ledger.suites.add(call.suite);
    for (const request of iamRequestsOf(call.service, call.operation, call.body, deployment)) {
      increment(this.ledger.seenPairs, `${principal} ${request.action}`);
      increment(this.ledger.seenPairs, `${principal}@${variant} ${request.action}`);
      const decision = await this.decide(role, deployment.account, request);
      if (decision.allowed) continue;
      this.recordDenial(call, variant, request, decision);
      return accessDeniedMessage(call.identity, role, request, decision);
    }
    return undefined;
  }

  private decide(role: DeployedRole, account: string, request: IamRequest): Promise<Decision> {
    const key = JSON.stringify([role.arn, role.policies.length, request.action, request.resource, request.resourcePolicy !== undefined, this.cacheContext(role, request.context)]);
    let decision = this.decisions.get(key);
    if (decision === undefined) {
      this.ledger.decisionsEvaluated += 1;
      decision = evaluate(role, account, request);
      this.decisions.set(key, decision);
    }
    return decision;
  }

  /** The context as the role's conditions can tell it apart: each partition key by the patterns it matches. */
  private cacheContext(role: DeployedRole, context: IamRequest['context']): unknown {
    const values = context['dynamodb:LeadingKeys'];
    const patterns = this.patternsOf(role);
    if (values === undefined || patterns === undefined) return context;
    const classes = [...new Set([values].flat().map((value) => patterns.map((pattern) => `${+likeMatch(pattern, value)}${+(pattern === value)}`).join('')))].sort();
    return { ...context, 'dynamodb:LeadingKeys': classes };
  }

  /** The role's `dynamodb:LeadingKeys` condition values, if all of them are string comparisons (else no class caching). */
  private patternsOf(role: DeployedRole): readonly string[] | undefined {
    if (!this.leadingKeyPatterns.has(role)) {
      const patterns: string[] = [];
      let comparable = true;
      for (const { policy } of role.policies) {
        for (const statement of policy.Statement) {
          for (const [operator, keys] of Object.entries((statement.Condition ?? {}) as Record<string, Record<string, unknown>>)) {
            for (const [key, value] of Object.entries(keys)) {
              if (key.toLowerCase() !== 'dynamodb:leadingkeys') continue;
              if (!/^(ForAllValues:|ForAnyValue:)?String(Not)?(Equals|Like)(IfExists)?$/.test(operator)) comparable = false;
              patterns.push(...[value].flat().map(String));
            }
          }
        }
      }
      this.leadingKeyPatterns.set(role, comparable ? patterns : undefined);
    }
    return this.leadingKeyPatterns.get(role);
  }

  private recordDenial(call: EvaluatedCall, variant: string, request: IamRequest, decision: Decision): void {
    const key = JSON.stringify([call.identity.principal, variant, request.action, request.resource]);
    const denial = this.ledger.denials.get(key) ?? { principal: call.identity.principal, variant, action: request.action, resource: request.resource, context: request.context, result: decision.result, suites: new Set<string>(), count: 0 };
    denial.count += 1;
    if (call.suite !== undefined) denial.suites.add(call.suite);
    this.ledger.denials.set(key, denial);
  }
}

/** IAM's `StringLike`: `*` any run of characters, `?` one character. */
function likeMatch(pattern: string, value: string): boolean {
  const expression = pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${expression}$`, 's').test(value);
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
