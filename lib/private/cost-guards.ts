import { Token } from 'aws-cdk-lib';
import type { CustomerBudget } from '../customer-budget';
import type { PipelineBudget } from '../pipeline-budget';
import { COST_GUARD_DEFAULTS, type DeploymentOptions, PIPELINE_BUDGET_DEFAULTS } from '../contract';
import { checkInteger, definedFields, type Fail } from './prop-checks';

export const MAX_OVER_BUDGET_REPLY_LENGTH = 1024;
const BUDGET_LIMIT_MAXIMA = { turnsPerMinute: 10_000, turnsPerHour: 100_000, agentTokensPerDay: 1_000_000_000 } as const;
const PIPELINE_TOKENS_PER_DAY_MAXIMUM = 1_000_000_000_000;

/** `customerBudget`, checked: the fields the consumer set (the plan's writer defaults the rest). */
export function resolveCustomerBudget(fail: Fail, props: CustomerBudget | undefined): DeploymentOptions['customerBudget'] {
  const budget = definedFields(props ?? {});
  for (const [name, max] of Object.entries(BUDGET_LIMIT_MAXIMA) as [keyof typeof BUDGET_LIMIT_MAXIMA, number][]) {
    const value = budget[name];
    if (value !== undefined) checkInteger(fail, `customerBudget.${name}`, value, 1, max);
  }
  const perMinute = budget.turnsPerMinute ?? COST_GUARD_DEFAULTS.turnsPerMinute;
  const perHour = budget.turnsPerHour ?? COST_GUARD_DEFAULTS.turnsPerHour;
  if (!Token.isUnresolved(perMinute) && !Token.isUnresolved(perHour) && perMinute > perHour) {
    fail(`customerBudget.turnsPerMinute (${perMinute}) is more than turnsPerHour (${perHour}): the hour would refuse what the minute allows. Lower turnsPerMinute or raise turnsPerHour.`);
  }
  checkBudgetReply(fail, 'customerBudget.reply', budget.reply);
  return Object.keys(budget).length === 0 ? undefined : budget;
}

/** The pipeline-wide budget with its alarm share resolved; undefined when off. */
export interface ResolvedPipelineBudget extends PipelineBudget {
  readonly alarmAtShareOfBudget: number;
}

export function resolvePipelineBudget(fail: Fail, props: PipelineBudget | undefined): ResolvedPipelineBudget | undefined {
  if (props === undefined) return undefined;
  const budget = definedFields(props);
  if (budget.agentTokensPerDay === undefined) fail('pipelineBudget.agentTokensPerDay is required: the model tokens all customers together may use per UTC day.');
  checkInteger(fail, 'pipelineBudget.agentTokensPerDay', budget.agentTokensPerDay!, 1, PIPELINE_TOKENS_PER_DAY_MAXIMUM);
  const share = budget.alarmAtShareOfBudget ?? PIPELINE_BUDGET_DEFAULTS.alarmAtShareOfBudget;
  if (!Token.isUnresolved(share) && !(share > 0 && share <= 1)) {
    fail(`pipelineBudget.alarmAtShareOfBudget must be above 0 and at most 1 (e.g. 0.8 to be warned at 80 % of the budget); got ${share}.`);
  }
  checkBudgetReply(fail, 'pipelineBudget.reply', budget.reply);
  return { agentTokensPerDay: budget.agentTokensPerDay!, alarmAtShareOfBudget: share, ...(budget.reply === undefined ? {} : { reply: budget.reply }) };
}

function checkBudgetReply(fail: Fail, label: string, reply: string | undefined): void {
  if (reply !== undefined && !Token.isUnresolved(reply) && (reply.trim() === '' || reply.length > MAX_OVER_BUDGET_REPLY_LENGTH)) {
    fail(`${label} must be a text of 1 to ${MAX_OVER_BUDGET_REPLY_LENGTH} characters (a WhatsApp message the customer reads); got ${reply.length}.`);
  }
}
