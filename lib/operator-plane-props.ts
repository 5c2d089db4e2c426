import type { Duration } from 'aws-cdk-lib';
import type { ConsoleFrontDoor } from './console-front-door';
import type { HandoffTexts } from './contract/handoff-texts';
import type { MessageTemplatesProps } from './message-templates';

/**
 * The operator plane of an `AgentPipeline`: the people who take handed-off conversations, the
 * console they work in, and what a handoff tells them and the customer. `adminPhoneNumbers` turns
 * it on; every other prop here needs it.
 */
export interface OperatorPlaneProps {
  /**
   * Phones (digits with country code, e.g. `5511912345678`) of the admins of the operator plane.
   * Giving it turns the plane on: an operator function behind its own Function URL (`consoleUrl`)
   * serving the operator API, and sign-in by sending `login` to the business number on WhatsApp.
   * These admins can never be removed at run time; they add further operators and admins in the
   * console.
   *
   * @default - no operator plane: handed-off conversations wait in the human inbox in the table
   */
  readonly adminPhoneNumbers?: string[];

  /**
   * Names of the admins in `adminPhoneNumbers`, by their phone (e.g. `{ '5511912345678': 'Ana
   * Lima' }`): the console shows them on the Operators screen and as the author of their replies.
   * Every key must be one of `adminPhoneNumbers`; each name 1 to 60 characters. A name an admin
   * gives the same phone in the console's operators list takes precedence. Only with
   * `adminPhoneNumbers`.
   *
   * @default - the deploy-time admins go by their phone until the operators list names them
   */
  readonly adminDisplayNames?: Record<string, string>;

  /**
   * IANA time zone of the operators' working day: login links, operator sessions and declared
   * availability end at its midnight. Only with `adminPhoneNumbers`. Required with a `locale` other
   * than `Locale.PT_BR`: a language does not tell where the people who speak it work.
   *
   * @default 'America/Sao_Paulo' with the pt-BR locale; no default with another
   */
  readonly timeZone?: string;

  /**
   * How long a handed-off conversation waits unclaimed before the available operators are
   * notified again (at most 3 times). The handoff sweeper runs every minute, so 1 minute is the
   * shortest useful value. Only with `adminPhoneNumbers`.
   *
   * @default Duration.minutes(5)
   */
  readonly handoffRenotifyAfter?: Duration;

  /**
   * How long a handed-off conversation waits before the customer is told, once, that a person
   * will answer. Only with `adminPhoneNumbers`.
   *
   * @default Duration.minutes(10)
   */
  readonly customerRenotifyAfter?: Duration;

  /**
   * The texts customers and operators receive around a handoff. Only with `adminPhoneNumbers`.
   *
   * @default - the `locale`'s texts, documented on each field of `HandoffTexts`
   */
  readonly handoffTexts?: HandoffTexts;

  /**
   * The business's WhatsApp message templates: the account they are read from, and the one a
   * handoff notice goes as to an operator whose window is closed. Operators send templates from
   * the console to re-engage a customer who wrote more than 24 hours ago. Only with
   * `adminPhoneNumbers`.
   *
   * @default - no templates
   */
  readonly messageTemplates?: MessageTemplatesProps;

  /**
   * Concurrent executions reserved for, and allowed to, the operator function (1 to 900). Its
   * Function URL is public: every request, signed in or not, is an invocation, so without a cap a
   * flood of requests could take the account's concurrency from the webhook and the orchestrator.
   * Excess requests get 429 and the console tries again at its next poll (every 4 s). Ten
   * executions answer a few hundred API calls a second, far more than a team of operators makes.
   * Lambda keeps 100 of the account's concurrency unreserved, so an account whose quota is below
   * 100 plus this value (a new account's may be 10) needs a quota increase first. Only with
   * `adminPhoneNumbers`.
   *
   * @default 10
   */
  readonly operatorReservedConcurrency?: number;

  /**
   * Puts the console behind an Amazon CloudFront distribution, where an AWS WAF web ACL can filter
   * requests before they cost an invocation: the operator function's URL then takes only requests
   * CloudFront signed (`AWS_IAM` auth through origin access control), and login links point at the
   * distribution. Only with `adminPhoneNumbers`. See the README, "Putting the console behind
   * CloudFront and WAF".
   *
   * @default - the console is served by the operator function's own public URL
   */
  readonly consoleFrontDoor?: ConsoleFrontDoor;
}
