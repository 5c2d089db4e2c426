import type { MessageTemplateRepository, SessionRepository } from '../ports/repositories';
import { isEvaluationCustomer } from '../domain/evaluation/prompt-gate';
import { lastActivityOf, type Session } from '../domain/session';
import { addMilliseconds, isoMicros, toEpochMicros } from '../domain/timestamps';
import type { TemplateRef } from '../domain/whatsapp-template';
import { WhatsAppSendError, type WhatsAppSender } from '../ports/whatsapp-sender';
import { forEachQuietSession } from './close-idle-conversations';
import { namedTemplateSend, type NamedTemplateSend, pipelineTemplateProblem, templateNameOf } from './named-template';
import { type OutOfTurnMessageDependencies, sendOutOfTurn } from './operator/out-of-turn-message';
import type { MessagingConsent } from './privacy/messaging-consent';

export interface ReengagementSettings {
  /** The approved template a customer who went quiet is sent; its one body parameter, if it has one, is the customer's name. */
  readonly template: TemplateRef;
  /** How long after the conversation's last activity (`messageTemplates.reengagement.after`); below the idle timeout. */
  readonly afterMs: number;
}

export interface ReengagementDependencies extends OutOfTurnMessageDependencies {
  readonly sessions: SessionRepository;
  readonly templates: Pick<MessageTemplateRepository, 'get'>;
  readonly whatsapp: WhatsAppSender;
  /** A customer who opted out is sent nothing. */
  readonly consent: Pick<MessagingConsent, 'isOptedOut'>;
  readonly settings: ReengagementSettings;
}

export interface ReengagementReport {
  /** Conversations the index listed as quiet for `afterMs` (re-engaged before or not). */
  readonly quiet: number;
  readonly sent: number;
  /** Claimed, then refused by WhatsApp: not sent again (at most once). */
  readonly failed: number;
  /** Not sent: the template takes the customer's name and the conversation does not know it. */
  readonly withoutName: number;
  /** `false` when the template is not stored (sync the templates), not approved, or takes values the pipeline cannot fill: nothing is sent until it is ready. */
  readonly templateReady: boolean;
  /** Why the stored template cannot be sent by the pipeline (a header or button value, more than the name in the body). */
  readonly templateProblem?: string;
  readonly complete: boolean;
}

/**
 * The re-engagement of a customer who went quiet in a conversation the agent serves: once per
 * conversation, `afterMs` after its last activity, the configured template — never free text,
 * which WhatsApp refuses outside the 24-hour window. Each send is claimed on the session first
 * (`reengagedAt`, conditioned on the activity read), so a retried or concurrent sweep never sends
 * twice and a customer who wrote meanwhile is not sent it; a send WhatsApp refuses keeps its claim,
 * so a customer is re-engaged at most once. The claim leaves the last activity as it was: the idle
 * close still comes after the idle timeout, and a customer who answers goes on as in any turn.
 * Opted-out customers are sent nothing. The template costs no model tokens, so it counts against
 * neither budget.
 */
export class ReengageQuietCustomers {
  constructor(private readonly deps: ReengagementDependencies) {}

  async sweep(remainingMs: () => number = () => Number.POSITIVE_INFINITY): Promise<ReengagementReport> {
    const template = await this.deps.templates.get(this.deps.settings.template);
    const notReady = { quiet: 0, sent: 0, failed: 0, withoutName: 0, templateReady: false, complete: true };
    if (template === undefined || template.status !== 'APPROVED') return notReady;
    const templateProblem = pipelineTemplateProblem(template);
    if (templateProblem !== undefined) return { ...notReady, templateProblem };
    const quietSince = addMilliseconds(this.deps.clock.now(), -this.deps.settings.afterMs);
    let failed = 0;
    let withoutName = 0;
    const pass = await forEachQuietSession(this.deps.sessions, quietSince, remainingMs, async (session) => {
      // A scenario's customer, which a run that did not finish left, is no one to write to: the idle sweep erases it.
      if (isEvaluationCustomer(session.customerId) || session.reengagedAt !== undefined || toEpochMicros(lastActivityOf(session)) > toEpochMicros(quietSince)) return false;
      let send: NamedTemplateSend;
      try {
        send = namedTemplateSend(template, templateNameOf(session));
      } catch {
        withoutName++;
        return false;
      }
      const outcome = await this.reengage(session, send);
      if (outcome === 'failed') failed++;
      return outcome === 'sent';
    });
    return { quiet: pass.listed, sent: pass.handled, failed, withoutName, templateReady: true, complete: pass.complete };
  }

  private async reengage(session: Session, send: NamedTemplateSend): Promise<'sent' | 'skipped' | 'failed'> {
    if (await this.deps.consent.isOptedOut(session.customerId)) return 'skipped';
    if (!(await this.deps.sessions.claimReengagement(session, isoMicros(this.deps.clock.now())))) return 'skipped';
    const address = { businessPhoneNumberId: session.businessPhoneNumberId ?? '', customerId: session.customerId, customerIdKind: session.customerIdKind ?? 'phone' } as const;
    try {
      await sendOutOfTurn(this.deps, session, { role: 'system', text: send.text, template: send.ref }, (callbackData) =>
        this.deps.whatsapp.sendTemplate({ ...address, ...send.message, callbackData }),
      );
    } catch (error) {
      if (error instanceof WhatsAppSendError) return 'failed';
      throw error;
    }
    return 'sent';
  }
}
