/**
 * The business's `create_order` tool in the reliability runs: the Bedrock adapter on the fake
 * Converse model (told to order when the turn's last message asks for it), the consumer tool's
 * calls a boundary of their own, the turn's checkpoint writes boundaries of the table, and a fake
 * order service that honours idempotency keys and counts calls and effects separately.
 */
import { BedrockConverseAgent } from '../../../lambda/core/adapters/agent/bedrock-converse-agent';
import { LambdaTool } from '../../../lambda/core/adapters/agent/lambda-tool';
import type { ScriptedAgent } from '../../../lambda/core/adapters/agent/scripted-agent';
import { idempotencyKeyOf } from '../../../lambda/core/application/turn-tool-rounds';
import { AgentInvocationError, type AgentPort, type AgentRequest, type AgentResponse } from '../../../lambda/core/ports/agent';
import { FakeConverseModel } from '../../../local/fake-bedrock/fake-converse-model';
import { CREATE_ORDER_TOOL, FakeOrderService } from '../../support/fake-order-service';
import type { FailureModel, FaultInjector } from '../../support/fault-injection';

/** The tool's function after Lambda's own retries gave up: the turn is retried (with side effects, under the same key). */
const TOOL_FAILURES: FailureModel = {
  transient: (boundary) => new AgentInvocationError('invocation_failed', `injected: ${boundary} was throttled`),
  timeout: (boundary) => new AgentInvocationError('invocation_failed', `injected: ${boundary} timed out`),
};

/** A tool result the model read: the call it answers and what it said. */
export interface ResultRead {
  readonly toolUseId: string;
  readonly content: unknown;
}

/** One run's order tool: the service (shared by the run's clean and armed functions) and what the model read. */
export class OrderToolWorld {
  readonly orders = new FakeOrderService();
  readonly resultsRead: ResultRead[] = [];

  /**
   * The agent the orchestrator asks: the Bedrock adapter with the tool, whose reply is then the
   * scripted agent's words, so the invariants read it as every run's (`newerMessage`, when given,
   * arrives while the model makes its first call).
   */
  agent(injector: FaultInjector, scripted: ScriptedAgent, newerMessage?: () => Promise<void>): AgentPort {
    let firstCall = true;
    const model = new FakeConverseModel({
      toolRounds: 0,
      toolCall: (turn, roundsDone) => (roundsDone === 0 && /pedido/i.test(turn.at(-1) ?? '') ? { name: CREATE_ORDER_TOOL.name, input: { sku: 'pao-frances', quantity: 2 } } : undefined),
      answerAfter: async (input) => {
        this.record(input.messages ?? []);
        if (newerMessage !== undefined && firstCall) {
          firstCall = false;
          await newerMessage();
        }
      },
    });
    const invoke = async (input: { readonly Payload?: Uint8Array }) => ({ StatusCode: 200, Payload: new TextEncoder().encode(JSON.stringify(await this.orders.handler(JSON.parse(new TextDecoder().decode(input.Payload))))) });
    const lambdaTool = new LambdaTool({ ...CREATE_ORDER_TOOL, functionName: 'orders', timeoutMs: 5_000, invoke });
    // Only the call is remote: the schema check runs in the orchestrator.
    const calls = injector.remote('orderTool', { call: lambdaTool.call.bind(lambdaTool) }, TOOL_FAILURES);
    const tool = Object.assign(Object.create(lambdaTool) as LambdaTool, { call: calls.call });
    const bedrock = new BedrockConverseAgent({ modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', converse: model.converse, consumerTools: [tool] });
    return {
      respond: async (request: AgentRequest): Promise<AgentResponse> => {
        const answer = await bedrock.respond(request);
        if (answer.stopReason === 'superseded') return answer;
        return { ...answer, reply: (await scripted.respond(request)).reply };
      },
    };
  }

  private record(messages: NonNullable<Parameters<FakeConverseModel['converse']>[0]['messages']>): void {
    for (const block of messages.flatMap((message) => message.content ?? [])) {
      const json = block.toolResult?.content?.[0]?.json;
      if (block.toolResult?.toolUseId !== undefined && json !== undefined) this.resultsRead.push({ toolUseId: block.toolResult.toolUseId, content: json });
    }
  }

  /**
   * The promises of a side-effecting tool (docs/RELIABILITY.md): `ordered` orders created for the customer
   * (the customer asked once, or a newer message superseded the turn), at most one per key, and
   * the model never told a result other than the order created under that call's key.
   */
  violations(customer: string, ordered: 0 | 1): string[] {
    const events = this.orders.callsOf(customer);
    const keys = new Set(events.map((event) => event.idempotencyKey));
    const created = [...keys].flatMap((key) => (key !== undefined && this.orders.orderOf(key) !== undefined ? [key] : []));
    const violations: string[] = [];
    if (created.length !== ordered) violations.push(`T1 ${created.length} order(s) created for a customer who ${ordered === 1 ? 'asked once' : 'was superseded before the call'} (${events.length} call(s))`);
    const context = events[0]?.context;
    for (const read of this.resultsRead) {
      if (context === undefined) {
        violations.push(`T3 the model read a result of ${read.toolUseId} but the tool was never called`);
        continue;
      }
      const order = this.orders.orderOf(idempotencyKeyOf(context, read.toolUseId));
      if (JSON.stringify(read.content) !== JSON.stringify(order)) violations.push(`T3 the model read ${JSON.stringify(read.content)} for ${read.toolUseId}, not the order created under its key (${JSON.stringify(order)})`);
    }
    return violations;
  }
}
