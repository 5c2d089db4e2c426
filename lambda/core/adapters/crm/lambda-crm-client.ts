import type { CrmSyncRequest } from '../../domain/crm-sync';
import type { CrmClient, CrmSendOutcome } from '../../ports/crm-client';
import type { LambdaInvoke } from '../lambda/lambda-invoke';
import { parseAcceptedIds } from './crm-answer';

/** SDK errors raised before the function ran: trying again cannot duplicate anything. */
const NOT_INVOKED_ERRORS = new Set(['TooManyRequestsException', 'ResourceNotFoundException', 'ResourceNotReadyException', 'AccessDeniedException', 'ResourceConflictException']);

/**
 * The CRM behind a consumer's Lambda function, invoked synchronously with the request as its event
 * (contract version 1, docs/CRM.md). The function answers `{status: "accepted", contactId, dealId}`,
 * `{status: "retry", reason}` or `{status: "refused", reason}`. An error thrown by the function, a
 * timeout or an answer outside the contract leaves the outcome unknown: it may have reached the CRM.
 */
export class LambdaCrmClient implements CrmClient {
  constructor(
    private readonly functionName: string,
    private readonly invoke: LambdaInvoke,
  ) {}

  async send(request: CrmSyncRequest, { timeoutMs }: { readonly timeoutMs: number }): Promise<CrmSendOutcome> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      const result = await this.invoke({ FunctionName: this.functionName, Payload: Buffer.from(JSON.stringify(request)) }, { abortSignal: abort.signal });
      if (result.FunctionError !== undefined) return { kind: 'unknown', reason: `crm_function_error: ${result.FunctionError}` };
      return functionAnswer(result.Payload === undefined ? '' : Buffer.from(result.Payload).toString('utf8'));
    } catch (error) {
      const name = (error as Error).name;
      if (NOT_INVOKED_ERRORS.has(name)) return { kind: 'retryable', reason: `crm_function_not_invoked: ${name}` };
      return { kind: 'unknown', reason: abort.signal.aborted ? `crm_timeout after ${timeoutMs} ms` : `crm_invoke_failed: ${name}` };
    } finally {
      clearTimeout(timer);
    }
  }
}

function functionAnswer(text: string): CrmSendOutcome {
  let answer: { status?: unknown; reason?: unknown } | undefined;
  try {
    answer = JSON.parse(text) as typeof answer;
  } catch {
    return { kind: 'unknown', reason: 'crm_function_answer_not_json' };
  }
  const reason = typeof answer?.reason === 'string' ? answer.reason.replace(/[^\x20-\x7e]/g, '?').slice(0, 200) : 'no reason given';
  switch (answer?.status) {
    case 'accepted':
      return parseAcceptedIds(answer, 'function');
    case 'retry':
      return { kind: 'retryable', reason: `crm_function_retry: ${reason}` };
    case 'refused':
      return { kind: 'refused', reason: `crm_function_refused: ${reason}` };
    default:
      return { kind: 'unknown', reason: 'crm_function_answer_outside_contract' };
  }
}
