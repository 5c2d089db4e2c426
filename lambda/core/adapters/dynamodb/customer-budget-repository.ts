import {
  budgetDayExpiry,
  budgetTokens,
  budgetWindows,
  limitWindow,
  reachedLimit,
  type BudgetCounts,
  type BudgetLimit,
  type BudgetWindows,
  type CustomerBudgetLimits,
  type TokenUsage,
} from '../../domain/customer-budget';
import { epochSeconds } from '../../domain/timestamps';
import type { BudgetVerdict, CustomerBudgetRepository } from '../../ports/repositories';
import type { DynamoKit, Item, UpdateRequest } from './dynamo-kit';
import { customerBudgetKey, ENTITY_TYPE, EntityType, TTL } from './keys';
import { conditionally } from './repository-support';

/** The day's model tokens (input plus output) on a budget item, with input and output apart. */
export const AGENT_TOKENS = 'agent_tokens';
const INPUT_TOKENS = 'input_tokens';
const OUTPUT_TOKENS = 'output_tokens';
/** The turn the item counted last: a retry of that turn is admitted again without a second count. */
const LAST_ADMITTED_TURN = 'last_admitted_turn';
/** The limit's window in which the customer last received the budget reply. */
const LAST_TOLD_WINDOW = 'last_told_window';
const hourTurns = (hour: string) => `turns_h${hour}`;
const minuteTurns = (minute: string) => `turns_m${minute}`;

/**
 * One item per customer and UTC day (see keys.ts): a turn is admitted by a single conditional
 * `ADD` on the counts of its minute and hour, with the day's tokens in the same condition, so the
 * check and the count are one atomic step. A refused turn counts nothing; a retried turn counts once.
 * The window in which the customer last received the budget reply is recorded on the item, so
 * they are told once per window however many messages they send in it.
 */
export class DynamoCustomerBudgetRepository implements CustomerBudgetRepository {
  constructor(private readonly kit: DynamoKit) {}

  async toldInWindow(customerId: string, at: Date, limit: BudgetLimit): Promise<boolean> {
    const item = await this.kit.get({ key: customerBudgetKey(customerId, at), consistentRead: true });
    return item?.[LAST_TOLD_WINDOW] === limitWindow(limit, budgetWindows(at));
  }

  async admitTurn(customerId: string, turnId: string, at: Date, limits: CustomerBudgetLimits): Promise<BudgetVerdict> {
    const windows = budgetWindows(at);
    const names = { '#minute': minuteTurns(windows.minute), '#hour': hourTurns(windows.hour), '#tokens': AGENT_TOKENS, '#turn': LAST_ADMITTED_TURN, ...this.headerNames() };
    const admitted = await conditionally(() =>
      this.kit.update({
        key: customerBudgetKey(customerId, at),
        update: `ADD #minute :one, #hour :one SET #turn = :turn, ${this.headerSets()}`,
        condition:
          '(attribute_not_exists(#turn) OR #turn <> :turn) AND ' +
          '(attribute_not_exists(#minute) OR #minute < :perMinute) AND (attribute_not_exists(#hour) OR #hour < :perHour) AND ' +
          '(attribute_not_exists(#tokens) OR #tokens < :perDay)',
        names,
        values: { ':one': 1, ':turn': turnId, ':perMinute': limits.turnsPerMinute, ':perHour': limits.turnsPerHour, ':perDay': limits.agentTokensPerDay, ...this.headerValues(at) },
      }),
    );
    if (admitted) return { admitted: true };
    // Only a refusal, or a retry of the turn admitted last, pays this read.
    const item = await this.kit.get({ key: customerBudgetKey(customerId, at), consistentRead: true });
    if (item?.[LAST_ADMITTED_TURN] === turnId) return { admitted: true };
    const limit = reachedLimit(countsOf(item, windows), limits) ?? 'turns_per_minute';
    return { admitted: false, limit, toldInWindow: item?.[LAST_TOLD_WINDOW] === limitWindow(limit, windows) };
  }

  async markTold(customerId: string, at: Date, limit: BudgetLimit): Promise<void> {
    await this.kit.update({
      key: customerBudgetKey(customerId, at),
      update: `SET #window = :window, ${this.headerSets()}`,
      names: { '#window': LAST_TOLD_WINDOW, ...this.headerNames() },
      values: { ':window': limitWindow(limit, budgetWindows(at)), ...this.headerValues(at) },
    });
  }

  async addTokens(customerId: string, at: Date, usage: TokenUsage): Promise<void> {
    await this.kit.update(addTokensUpdate(customerBudgetKey(customerId, at), EntityType.customerBudget, at, usage));
  }

  private headerNames() {
    return { '#entity': ENTITY_TYPE, '#ttl': TTL };
  }

  private headerSets(): string {
    return '#entity = :entity, #ttl = :ttl';
  }

  private headerValues(at: Date) {
    return { ':entity': EntityType.customerBudget, ':ttl': epochSeconds(budgetDayExpiry(at)) };
  }
}

/** One `ADD` of a turn's tokens to the day item at `key` (created with its entity type and expiry if absent). */
export function addTokensUpdate(key: UpdateRequest['key'], entityType: EntityType, at: Date, usage: TokenUsage): UpdateRequest {
  return {
    key,
    update: 'ADD #tokens :total, #input :input, #output :output SET #entity = :entity, #ttl = :ttl',
    names: { '#tokens': AGENT_TOKENS, '#input': INPUT_TOKENS, '#output': OUTPUT_TOKENS, '#entity': ENTITY_TYPE, '#ttl': TTL },
    values: { ':total': budgetTokens(usage), ':input': usage.inputTokens, ':output': usage.outputTokens, ':entity': entityType, ':ttl': epochSeconds(budgetDayExpiry(at)) },
  };
}

function countsOf(item: Item | undefined, windows: BudgetWindows): BudgetCounts {
  const count = (name: string) => (typeof item?.[name] === 'number' ? (item[name] as number) : 0);
  return { turnsThisMinute: count(minuteTurns(windows.minute)), turnsThisHour: count(hourTurns(windows.hour)), agentTokensToday: count(AGENT_TOKENS) };
}
