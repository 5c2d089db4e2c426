import { Annotations, ArnFormat, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import { LambdaSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { WHATSAPP_CHANNEL_KINDS, WHATSAPP_SECRET_FIELDS, WHATSAPP_SECRET_PLACEHOLDER } from './contract';
import { acknowledgeFinding } from './private/nag-acknowledgements';
import { END_USER_MESSAGING_MEDIA_ACTIONS, END_USER_MESSAGING_MEDIA_UPLOAD_ACTIONS, END_USER_MESSAGING_SEND_ACTIONS } from './private/permissions';
import { acceptFinding } from './private/accepted-findings';
import { queueEncryption } from './private/queue-encryption';
import type { CloudApiSettings, EndUserMessagingSettings, WhatsAppChannelBinding, WhatsAppChannelContext } from './private/whatsapp-channel-binding';

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
   * Meta's ids of the WhatsApp Business Accounts whose events the pipeline takes (`wabaId` in the
   * service's events, digits). Events of any other WABA are refused and counted
   * (`InboundEnvelopeRefused`).
   *
   * @default - any WhatsApp Business Account linked to this AWS account: the events must still
   * come from this account and name the linked numbers by their own resources
   */
  readonly wabaIds?: string[];

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
  /** Meta's WhatsApp Cloud API: Meta calls the webhook (its Function URL, or `webhookFrontDoor`); replies use the Graph API with the secret's access token. */
  public static cloudApi(): WhatsAppChannel {
    return new WhatsAppChannel(undefined);
  }

  /**
   * AWS End User Messaging Social, for a WhatsApp Business Account linked to this AWS account:
   * inbound events arrive on the account's event-destination SNS topic, replies go out through
   * `SendWhatsAppMessage` with the functions' IAM roles.
   *
   * @param options the linked phone numbers, and optionally the event topic, the WABAs events may come from and the Graph API version
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

  /**
   * Creates what the channel needs in the pipeline and returns what the pipeline wires with it:
   * what the functions are told about the channel, the permissions of the functions that send, and
   * the inbound function once the plan says what it is told (the webhook behind its Function URL,
   * with the WhatsApp secret, for the Cloud API; the function subscribed to the event topic, with
   * its dead-letter queue, for End User Messaging) with the outputs.
   *
   * @param scope the pipeline that owns the channel's resources
   * @param context the channel's validated settings and what the pipeline builds the inbound function with
   * @internal
   */
  public _bind(scope: Construct, context: WhatsAppChannelContext): WhatsAppChannelBinding {
    const { settings } = context;
    return settings.kind === WHATSAPP_CHANNEL_KINDS.endUserMessaging ? bindEndUserMessaging(scope, context, settings) : bindCloudApi(scope, context, settings);
  }
}

/** Meta calls the webhook through its front door; the functions send through the Graph API with the secret's access token. */
function bindCloudApi(scope: Construct, context: WhatsAppChannelContext, settings: CloudApiSettings): WhatsAppChannelBinding {
  if (!settings.phoneNumberIds) {
    Annotations.of(scope).addWarningV2(
      'cdk-whatsapp-agent-pipeline:phoneNumberIdsUnset',
      'phoneNumberIds is not set: the webhook serves every business number subscribed to the Meta app, and two numbers would share ' +
        'sessions and reply from whichever wrote last. Set phoneNumberIds to the numbers this pipeline answers for.',
    );
  }
  const whatsAppSecret = settings.whatsAppSecret ?? createWhatsAppSecret(scope, context);
  return {
    channel: { kind: settings.kind, whatsAppSecretArn: whatsAppSecret.secretArn, apiBaseUrl: settings.apiBaseUrl, ...(settings.phoneNumberIds && { phoneNumberIds: settings.phoneNumberIds }) },
    whatsAppSecret,
    createInbound: (told) => {
      const inbound = context.createInboundFunction('Webhook', {
        description: `WhatsApp webhook of ${context.tableName}: verifies Meta's signature, records and dispatches each message`,
        settings: told,
      });
      const frontDoor = context.exposeWebhook(scope, inbound.webhookAlias ?? inbound.webhookFunction);
      return {
        ...inbound,
        webhookFunctionUrl: frontDoor.functionUrl,
        webhookApi: frontDoor.restApi,
        webhookWebAclArn: frontDoor.webAclArn,
        outputs: { webhookUrl: frontDoor.url, whatsAppSecretArn: whatsAppSecret.secretArn },
      };
    },
    // The webhook checks signatures with the app secret and answers Meta's verification with the verify token.
    grantReceive: (inboundFunction) => whatsAppSecret.grantRead(inboundFunction),
    grantSend: (fn) => whatsAppSecret.grantRead(fn),
    // The Graph API's media endpoints take the same access token as its messages.
    grantMediaDownload: (fn) => whatsAppSecret.grantRead(fn),
    // The upload is a Graph API call with the same token.
    grantSendMedia: () => undefined,
  };
}

function createWhatsAppSecret(scope: Construct, context: WhatsAppChannelContext): secretsmanager.ISecret {
  const secret = new secretsmanager.Secret(scope, 'WhatsAppSecret', {
    description:
      `WhatsApp Cloud API credentials of ${context.tableName}. Replace the ${WHATSAPP_SECRET_PLACEHOLDER} values of ` +
      `${WHATSAPP_SECRET_FIELDS.appSecret} and ${WHATSAPP_SECRET_FIELDS.accessToken}; give ${WHATSAPP_SECRET_FIELDS.verifyToken} to Meta.`,
    encryptionKey: context.encryptionKey,
    removalPolicy: context.removalPolicy,
    generateSecretString: {
      secretStringTemplate: JSON.stringify({
        [WHATSAPP_SECRET_FIELDS.appSecret]: WHATSAPP_SECRET_PLACEHOLDER,
        [WHATSAPP_SECRET_FIELDS.accessToken]: WHATSAPP_SECRET_PLACEHOLDER,
      }),
      generateStringKey: WHATSAPP_SECRET_FIELDS.verifyToken,
      // Pasted into Meta's webhook form and compared verbatim: keep it to letters and digits.
      excludePunctuation: true,
      passwordLength: 48,
    },
  });
  const notRotated = 'Meta issues the app secret and the WhatsApp access token; Secrets Manager cannot rotate them. Operators rotate them in the Meta app and update the secret value.';
  acknowledgeFinding(secret, { id: 'AwsSolutions-SMG4', reason: notRotated });
  acceptFinding(secret, 'SecretsManagerRotationEnabled', notRotated);
  if (context.encryptionKey === undefined) {
    acceptFinding(secret, 'SecretsManagerUsingKMSKey', "Without encryptionKey the secret uses Secrets Manager's AWS managed key; pass encryptionKey to encrypt it with your key.");
  }
  return secret;
}

/**
 * End User Messaging Social publishes the events to the topic, which invokes the inbound function
 * (Lambda retries a failed event twice, then parks it); the functions send with
 * `SendWhatsAppMessage` from the linked numbers only.
 */
function bindEndUserMessaging(scope: Construct, context: WhatsAppChannelContext, settings: EndUserMessagingSettings): WhatsAppChannelBinding {
  const inboundDeadLetterQueue = createInboundDeadLetterQueue(scope, context);
  const eventTopic = settings.eventTopic ?? createEventTopic(scope, context);
  const stack = Stack.of(scope);
  context.encryptionKey?.addToResourcePolicy(
    new iam.PolicyStatement({
      principals: [new iam.ServicePrincipal('sns.amazonaws.com')],
      actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
      resources: ['*'],
      // SNS parks an undelivered event in the encrypted dead-letter queue, for this account's topics
      // (the topic's own ARN would make the key and the topic it encrypts depend on each other).
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'sns', resource: '*', arnFormat: ArnFormat.NO_RESOURCE_NAME }) },
      },
    }),
  );
  const phoneNumberArns = settings.phoneNumbers.map(({ resourceName }) =>
    stack.formatArn({ service: 'social-messaging', resource: 'phone-number-id', resourceName, arnFormat: ArnFormat.SLASH_RESOURCE_NAME }),
  );
  return {
    channel: {
      kind: settings.kind,
      phoneNumbers: settings.phoneNumbers.map(({ id, metaPhoneNumberId }) => ({ metaPhoneNumberId, originationPhoneNumberId: id })),
      metaApiVersion: settings.metaApiVersion,
      ...(settings.wabaIds && { wabaIds: settings.wabaIds }),
      // Events from another topic, account, WABA or number are refused (lambda/eum-inbound/sns-events.ts).
      eventTopicArn: eventTopic.topicArn,
      accountId: stack.account,
    },
    eventTopic,
    inboundDeadLetterQueue,
    createInbound: (told) => {
      const inbound = context.createInboundFunction('EumInbound', {
        description: `WhatsApp events of ${context.tableName} from End User Messaging Social: records and dispatches each message`,
        settings: told,
        deadLetterQueue: inboundDeadLetterQueue,
      });
      // What SNS could not deliver (the function throttled or gone) is parked next to what the function failed on.
      eventTopic.addSubscription(new LambdaSubscription(inbound.webhookAlias ?? inbound.webhookFunction, { deadLetterQueue: inboundDeadLetterQueue }));
      return { ...inbound, outputs: { eventTopicArn: eventTopic.topicArn } };
    },
    // SNS invokes the inbound function with IAM: there is no request of WhatsApp's to authenticate.
    grantReceive: () => undefined,
    grantSend: (fn) => fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...END_USER_MESSAGING_SEND_ACTIONS], resources: phoneNumberArns })),
    grantMediaDownload: (fn) => fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...END_USER_MESSAGING_MEDIA_ACTIONS], resources: phoneNumberArns })),
    // The service reads the object from the bucket as the caller: the caller's own read of the media prefix (and of its key, through S3) is what it uses.
    grantSendMedia: (fn) => fn.addToRolePolicy(new iam.PolicyStatement({ actions: [...END_USER_MESSAGING_MEDIA_UPLOAD_ACTIONS], resources: phoneNumberArns })),
  };
}

function createInboundDeadLetterQueue(scope: Construct, context: WhatsAppChannelContext): sqs.Queue {
  const queue = new sqs.Queue(scope, 'InboundDeadLetterQueue', {
    retentionPeriod: context.deadLetterQueueRetentionPeriod,
    enforceSSL: true,
    removalPolicy: context.removalPolicy,
    ...queueEncryption(context.encryptionKey),
  });
  acknowledgeFinding(queue, { id: 'AwsSolutions-SQS3', reason: 'This queue is itself the dead-letter queue of the End User Messaging inbound function.' });
  acceptFinding(queue, 'SQSRedrivePolicy', 'This queue is itself the dead-letter queue of the End User Messaging inbound function and of its subscription: nothing is redriven from it but by a person.');
  return queue;
}

/**
 * Standard (End User Messaging does not publish to FIFO topics), publishable by the service for this
 * account only. Every other publisher is denied, whatever its own policies allow: an event on this
 * topic is believed as the customer's own message, so a role with `sns:Publish` on `*` must not be
 * able to write as any customer.
 */
function createEventTopic(scope: Construct, context: WhatsAppChannelContext): sns.Topic {
  const { encryptionKey } = context;
  const topic = new sns.Topic(scope, 'EventTopic', {
    displayName: `WhatsApp events of ${context.tableName}`,
    masterKey: encryptionKey,
    enforceSSL: true,
  });
  const service = new iam.ServicePrincipal('social-messaging.amazonaws.com');
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      principals: [service],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(scope).account } },
    }),
  );
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: { Bool: { 'aws:PrincipalIsAWSService': 'false' } },
    }),
  );
  if (encryptionKey) {
    // The key also encrypts the table and the queues: the service may use it only for this account's
    // End User Messaging resources (the confused deputy guard its documentation asks for).
    const stack = Stack.of(scope);
    encryptionKey.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [service],
        actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
        resources: ['*'],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'social-messaging', resource: '*', arnFormat: ArnFormat.NO_RESOURCE_NAME }) },
        },
      }),
    );
  } else {
    acknowledgeFinding(topic, {
      id: 'AwsSolutions-SNS2',
      reason:
        'End User Messaging Social cannot publish to a topic encrypted with the AWS managed SNS key, and no encryptionKey was given; ' +
        'pass encryptionKey to encrypt the topic with a customer managed key the service may use.',
    });
  }
  return topic;
}
