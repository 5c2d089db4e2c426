import type * as sns from 'aws-cdk-lib/aws-sns';

/** A WhatsApp number linked to AWS End User Messaging Social. */
export interface EndUserMessagingPhoneNumber {
  /**
   * The number's id in End User Messaging Social (`phone-number-id-…`, shown in the console under
   * the WhatsApp Business Account, or by `aws socialmessaging list-linked-whatsapp-business-accounts`).
   * Replies are sent from it, and IAM allows sending from it alone.
   */
  readonly id: string;

  /**
   * Meta's id of the same number (digits; `metaPhoneNumberId` in the service's events). Customer
   * messages to any other number of the WhatsApp Business Account are dropped and counted.
   */
  readonly metaPhoneNumberId: string;
}

/** Settings of the End User Messaging Social channel. */
export interface EndUserMessagingChannelOptions {
  /** The linked numbers this pipeline answers for (at least one). */
  readonly phoneNumbers: EndUserMessagingPhoneNumber[];

  /**
   * The standard SNS topic that is (or will be) the WhatsApp Business Account's event destination.
   * A topic you pass must already allow `social-messaging.amazonaws.com` to publish to it.
   *
   * @default - a new standard topic that allows End User Messaging Social of this account to
   * publish (encrypted with `encryptionKey` when one is given); its ARN is a stack output to paste
   * as the event destination
   */
  readonly eventTopic?: sns.ITopic;

  /**
   * The Meta API version End User Messaging Social passes the messages through.
   *
   * @default 'v20.0'
   */
  readonly metaApiVersion?: string;
}

/**
 * How the pipeline talks to WhatsApp: Meta's Cloud API directly (a webhook URL, an app secret and an
 * access token), or AWS End User Messaging Social (events on an SNS topic, replies through an
 * IAM-authorised API — no public URL and no Meta credentials).
 */
export class WhatsAppChannel {
  /** Meta's WhatsApp Cloud API: Meta calls the webhook Function URL; replies use the Graph API with the secret's access token. */
  public static cloudApi(): WhatsAppChannel {
    return new WhatsAppChannel(undefined);
  }

  /**
   * AWS End User Messaging Social, for a WhatsApp Business Account linked to this AWS account:
   * inbound events arrive on the account's event-destination SNS topic, replies go out through
   * `SendWhatsAppMessage` with the functions' IAM roles.
   */
  public static endUserMessaging(options: EndUserMessagingChannelOptions): WhatsAppChannel {
    return new WhatsAppChannel(options);
  }

  /**
   * The End User Messaging settings.
   *
   * @default - undefined for the Cloud API
   */
  public readonly endUserMessagingOptions?: EndUserMessagingChannelOptions;

  private constructor(endUserMessagingOptions: EndUserMessagingChannelOptions | undefined) {
    this.endUserMessagingOptions = endUserMessagingOptions;
  }
}
