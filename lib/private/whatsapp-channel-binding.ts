import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { ChannelOptions, FunctionSettings, WHATSAPP_CHANNEL_KINDS } from '../contract';
import type { WebhookFrontDoorBinding } from './webhook-front-door-binding';

/**
 * What a `WhatsAppChannel` binds with and returns (`WhatsAppChannel._bind`). Internal: not part of
 * the jsii API. CDK types only, so the public channel module can import it without importing the
 * pipeline's props.
 */

/** The Cloud API channel with its props validated. */
export interface CloudApiSettings {
  readonly kind: typeof WHATSAPP_CHANNEL_KINDS.cloudApi;
  /** Undefined: the channel creates the secret. */
  readonly whatsAppSecret?: secretsmanager.ISecret;
  /** Undefined: every number of the Meta app. */
  readonly phoneNumberIds?: readonly string[];
  /** Without a trailing slash: the sender appends `/{phone_number_id}/messages`. */
  readonly apiBaseUrl: string;
}

/** The End User Messaging channel with its options validated. */
export interface EndUserMessagingSettings {
  readonly kind: typeof WHATSAPP_CHANNEL_KINDS.endUserMessaging;
  /** Meta phone number id → End User Messaging id, in the order given. */
  readonly phoneNumbers: ReadonlyArray<{ readonly id: string; readonly resourceName: string; readonly metaPhoneNumberId: string }>;
  readonly eventTopic?: sns.ITopic;
  /** Undefined: any WABA of the account. */
  readonly wabaIds?: readonly string[];
  readonly metaApiVersion: string;
}

/** The `channel` prop and the Cloud API props, validated. */
export type ChannelSettings = CloudApiSettings | EndUserMessagingSettings;

/** The function that receives WhatsApp's events, and the alias invoked instead with `functionAlias`. */
export interface InboundFunction {
  readonly webhookFunction: lambda.Function;
  readonly webhookAlias?: lambda.Alias;
}

/** What the channel says about its inbound function; the pipeline adds what every inbound function has. */
export interface InboundFunctionOptions {
  readonly description: string;
  /** What the plan tells the function. */
  readonly settings: FunctionSettings;
  /** Where Lambda parks asynchronous events that failed every retry. */
  readonly deadLetterQueue?: sqs.IQueue;
}

/** What the pipeline gives its channel to bind to. */
export interface WhatsAppChannelContext {
  readonly settings: ChannelSettings;
  /** The table's name, which the channel's resources carry in their descriptions. */
  readonly tableName: string;
  readonly removalPolicy: RemovalPolicy;
  /** How long the channel's own dead-letter queue keeps an event. */
  readonly deadLetterQueueRetentionPeriod: Duration;
  readonly encryptionKey?: kms.IKey;
  /**
   * Creates the inbound function with the webhook's memory, timeout and reserved concurrency, the
   * table and the turn queue, and its alias with `functionAlias`.
   */
  createInboundFunction(id: 'Webhook' | 'EumInbound', options: InboundFunctionOptions): InboundFunction;
  /** Opens the webhook's front door (`webhookFrontDoor`) to `target` (Cloud API only). */
  exposeWebhook(scope: Construct, target: lambda.Function | lambda.Alias): WebhookFrontDoorBinding;
}

/** What the channel created before the pipeline's functions, and what the pipeline wires with it. */
export interface WhatsAppChannelBinding {
  /** What the functions are told about the channel: their share of the deployment plan. */
  readonly channel: ChannelOptions;
  /** Cloud API: the secret with the WhatsApp credentials. */
  readonly whatsAppSecret?: secretsmanager.ISecret;
  /** End User Messaging: the topic the inbound function is subscribed to. */
  readonly eventTopic?: sns.ITopic;
  /** End User Messaging: events the inbound function failed on every retry. */
  readonly inboundDeadLetterQueue?: sqs.Queue;
  /** Creates the inbound function as the plan tells it (`settings`), and opens WhatsApp's way to it. */
  createInbound(settings: FunctionSettings): InboundBinding;
  /** Lets the inbound function read what it authenticates WhatsApp's requests with. */
  grantReceive(inboundFunction: lambda.IFunction): void;
  /** Lets `fn` send WhatsApp messages on this channel. */
  grantSend(fn: lambda.IFunction): void;
  /** Lets `fn` download the attachments customers send on this channel (into the media bucket, whose grant is the pipeline's). */
  grantMediaDownload(fn: lambda.IFunction): void;
  /** Lets `fn`, which may send, also upload the attachments it sends from the media bucket (which it reads already). */
  grantSendMedia(fn: lambda.IFunction): void;
}

/** The inbound function and the way WhatsApp reaches it. */
export interface InboundBinding extends InboundFunction {
  /** Cloud API with the Function URL front door: the webhook URL Meta calls. */
  readonly webhookFunctionUrl?: lambda.FunctionUrl;
  /** Cloud API with the API Gateway front door: the REST API Meta calls, and its web ACL. */
  readonly webhookApi?: apigateway.RestApi;
  readonly webhookWebAclArn?: string;
  /** The channel's stack outputs. */
  readonly outputs: { readonly webhookUrl?: string; readonly whatsAppSecretArn?: string; readonly eventTopicArn?: string };
}
