import { localePreset } from '../../../../lib/contract';
import type { InboundTurn } from '../../domain/inbound-turn';
import { textEndingWithLink } from '../../domain/message-template';
import { isLoginCommand } from '../../domain/operator';
import { WhatsAppSendError, type WhatsAppSender } from '../../ports/whatsapp-sender';
import type { OperatorSignIn } from './operator-sign-in';

/** Text of the link message in the default locale; the link always ends it (`{link}` marks the place). */
export const DEFAULT_LOGIN_LINK_TEXT = localePreset().texts.loginLink;

export interface OperatorLoginCommandOptions {
  readonly signIn: OperatorSignIn;
  readonly whatsapp: WhatsAppSender;
  /** The operator function's URL (the console). */
  readonly consoleUrl: string;
  /** @default DEFAULT_LOGIN_LINK_TEXT */
  readonly linkText?: string;
}

/**
 * The orchestrator asks this before the agent: an operator's `login` / `entrar` is answered with a
 * one-time console link, opens no customer session and never reaches the agent. From anybody else
 * it is an ordinary customer message.
 */
export class OperatorLoginCommand {
  constructor(private readonly options: OperatorLoginCommandOptions) {}

  /**
   * `true` when the message was an operator's login request and is now handled. A send WhatsApp may
   * retry is thrown (the turn is retried and issues a fresh link; the unused grant expires).
   */
  async handle(turn: InboundTurn): Promise<boolean> {
    if (turn.customerIdKind !== 'phone' || !isLoginCommand(turn.text)) return false;
    const issued = await this.options.signIn.issueLoginLink(turn.customerId, this.options.consoleUrl);
    if (issued === undefined) return false;
    try {
      await this.options.whatsapp.sendText({
        businessPhoneNumberId: turn.businessPhoneNumberId,
        customerId: turn.customerId,
        customerIdKind: 'phone',
        text: textEndingWithLink(this.options.linkText ?? DEFAULT_LOGIN_LINK_TEXT, {}, issued.link),
      });
    } catch (error) {
      if (error instanceof WhatsAppSendError && !error.retryable) return true;
      throw error;
    }
    return true;
  }
}
