import type { Duration } from 'aws-cdk-lib';

/** An approved WhatsApp message template: its name in one language. */
export interface MessageTemplateRef {
  /** The template's name in WhatsApp Manager (lower-case letters, digits and underscores). */
  readonly name: string;

  /** Meta's language code of the approved translation, e.g. `pt_BR`, `en_US`. */
  readonly language: string;
}

/**
 * The business's WhatsApp message templates: where the pipeline reads them, and the ones it sends
 * by itself. Templates are the only messages WhatsApp delivers outside the customer's 24-hour
 * service window; they are created and approved in WhatsApp Manager (docs/TEMPLATES.md). Only with
 * `adminPhoneNumbers`.
 */
export interface MessageTemplatesProps {
  /**
   * The WhatsApp Business Account whose templates the pipeline reads into its table (on the
   * schedule below, and when an admin syncs them in the console).
   *
   * On the Cloud API channel: Meta's numeric WABA id, shown in WhatsApp Manager's account settings;
   * the channel's access token must be allowed `whatsapp_business_management` on it. On
   * `WhatsAppChannel.endUserMessaging()`: the linked account's id in End User Messaging
   * (`waba-…`, as its console and `ListLinkedWhatsAppBusinessAccounts` show it); the operator and
   * handoff sweeper functions are granted `social-messaging:ListWhatsAppMessageTemplates` and
   * `social-messaging:GetWhatsAppMessageTemplate` on that account's ARN.
   *
   * @default - no template sync: the console lists no templates and operators cannot send one
   */
  readonly businessAccountId?: string;

  /**
   * How often the templates are read again; Meta's status notifications keep them current in
   * between. From 1 hour to 7 days. Only with `businessAccountId`.
   *
   * @default Duration.hours(6)
   */
  readonly syncInterval?: Duration;

  /**
   * The template a handoff notice goes as to an operator whose own 24-hour window is closed (they
   * have not written to the business number for a day, so WhatsApp refuses the text). Its body
   * takes no parameter or one, the customer's name; a template with a button that opens the
   * console is a good fit. When no operator could be reached at all, the customer is told nobody
   * is available.
   *
   * @default - an operator whose window is closed is not reached
   */
  readonly handoffNoticeTemplate?: MessageTemplateRef;

  /**
   * A customer who went quiet in a conversation the agent serves is sent this template once, some
   * time after their last message, by the idle sweeper (docs/TEMPLATES.md, "Re-engaging a customer
   * who went quiet"). Never to a customer who opted out; the template must be synced into the table.
   *
   * @default - a customer who went quiet is not written to
   */
  readonly reengagement?: ReengagementProps;
}

/** The template a customer who went quiet is sent once, and how long after their last message. */
export interface ReengagementProps {
  /**
   * The approved template. Its body takes no parameter or one, the customer's name: a template
   * that takes one is not sent to a customer whose name the conversation does not know.
   */
  readonly template: MessageTemplateRef;

  /**
   * How long after the conversation's last message the template goes, from 15 minutes (the idle
   * sweeper runs every 15) to `conversationIdleTimeout` minus 15 minutes, so a run falls between
   * the re-engagement and the close. A template is delivered outside the 24-hour window too.
   */
  readonly after: Duration;
}
