import type { TurnTraceView } from '../../lib/contract/operator-api';
import { isValidCustomerId } from '../core/domain/inbound-turn';
import type { TurnCheckpointStore } from '../core/ports/agent-tools';
import { HttpError } from './http-kit';
import { ok, route, type Route } from './router';

/** A turn's trace, for admins (docs/OPERATOR-API.md#a-turns-trace): what the agent did to write a reply. */
export function traceRoutes(traces: Pick<TurnCheckpointStore, 'loadTrace'>): Route[] {
  return [
    route('GET conversations/:customerId/turns/:messageId/trace', 'admin', async (context) => {
      const { customerId, messageId } = context.params;
      if (!isValidCustomerId(customerId)) throw new HttpError('bad_customer_id', 'customerId is not a WhatsApp id');
      const trace = await traces.loadTrace(customerId, messageId);
      if (trace === undefined) throw new HttpError('not_found', 'No trace of that turn (a turn writes one when the agent or a gate answers it; it is kept 7 days)');
      const answer: TurnTraceView = trace;
      return ok({ trace: answer });
    }),
  ];
}
