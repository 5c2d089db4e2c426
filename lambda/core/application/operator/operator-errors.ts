import { PipelineError, type Problem } from '../../domain/errors';
import { VersionConflictError } from '../../ports/repositories';

/**
 * Why an operator's request cannot be done, as the use cases see it; the HTTP layer answers each
 * reason with its status in the API's table (lambda/operator/http-kit.ts, docs/OPERATOR-API.md).
 * - `not_found`: no such conversation, prompt or version;
 * - `conflict`: the conversation is not in a state that allows it, or someone else got there first;
 * - `forbidden`: the conversation belongs to another operator;
 * - `outside_window`: WhatsApp's 24-hour customer service window is closed;
 * - `send_failed`: WhatsApp refused or did not answer; nothing was recorded as sent;
 * - `invalid`: the request is well-formed but its values are not acceptable;
 * - `template_not_approved`: the setting names a template that is not stored, or not approved.
 */
export type OperatorFailureReason = 'not_found' | 'conflict' | 'forbidden' | 'outside_window' | 'send_failed' | 'invalid' | 'template_not_approved' | GateRefusal;
/** The prompt gate's refusals (prompt-gate.ts): each is a 409 the console explains. */
export type GateRefusal = 'not_evaluated' | 'evaluation_regression' | 'evaluation_required' | 'no_scenarios';

export class OperatorActionError extends PipelineError {
  override readonly name = 'OperatorActionError';
  /** Only a send WhatsApp refused or did not answer may succeed when tried again. */
  override readonly retryable: boolean;

  constructor(
    readonly reason: OperatorFailureReason,
    message: string,
    override readonly problem?: Problem,
  ) {
    super(message);
    this.retryable = reason === 'send_failed';
  }

  /** The reason is the code: the operator API answers it as it is. */
  override get code(): OperatorFailureReason {
    return this.reason;
  }
}

/** What `write` answers; when another edit won the version race, a `conflict` that tells the admin `whatToDo`. */
export async function conflictIfRaced<T>(write: Promise<T>, whatToDo: string): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof VersionConflictError) throw new OperatorActionError('conflict', whatToDo);
    throw error;
  }
}
