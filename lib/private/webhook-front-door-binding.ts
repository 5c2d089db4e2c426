import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';

/**
 * What a `WebhookFrontDoor` binds with and returns (`WebhookFrontDoor._bind`). Internal: not part of
 * the jsii API.
 */

/** What the pipeline gives the front door to bind to. */
export interface WebhookFrontDoorContext {
  /** What the API and the web ACL are described and named after. */
  readonly deploymentName: string;
  /** The API stage's name: the pipeline's `environment`. */
  readonly stageName: string;
  readonly tracing: boolean;
}

/** What the front door created. */
export interface WebhookFrontDoorBinding {
  /** The callback URL to register with Meta. */
  readonly url: string;
  readonly functionUrl?: lambda.FunctionUrl;
  readonly restApi?: apigateway.RestApi;
  readonly webAclArn?: string;
}

