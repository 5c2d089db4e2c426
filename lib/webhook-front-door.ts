import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { acceptApiGatewayFrontDoor, acceptPublicUrl } from './private/accepted-findings';
import type { WebhookFrontDoorBinding, WebhookFrontDoorContext } from './private/webhook-front-door-binding';

/** Settings of the API Gateway front door of the webhook (`WebhookFrontDoor.apiGateway`). */
export interface ApiGatewayWebhookFrontDoorOptions {
  /**
   * Your domain for the callback URL (e.g. `whatsapp.example.com`): a regional custom domain, and
   * the API's own `execute-api` endpoint is turned off so that the domain is the only way in.
   * Requires `certificate`. Point the name's DNS record at the domain's regional name
   * (`webhookApi.domainName`).
   *
   * @default - the API's `execute-api` URL
   */
  readonly domainName?: string;

  /**
   * The certificate for `domainName`, in the stack's Region (regional endpoints do not use
   * us-east-1's). The domain takes TLS 1.2 or later.
   *
   * @default - none; required with `domainName`
   */
  readonly certificate?: acm.ICertificate;

  /**
   * ARN of a regional AWS WAF web ACL of yours (scope REGIONAL, in the stack's Region) to associate
   * with the API's stage instead of the one the construct creates.
   *
   * @default - a web ACL the construct creates with `wafRules`
   */
  readonly webAclArn?: string;

  /**
   * The rules of the web ACL the construct creates. Not with `webAclArn`.
   *
   * @default - AWS managed rule groups `AWSManagedRulesAmazonIpReputationList` and
   * `AWSManagedRulesKnownBadInputsRuleSet`. Not the common rule set: its body rules (size, XSS,
   * SQL-like text) would block notifications whose customer text trips them, and Meta drops a
   * notification after its retries.
   */
  readonly wafRules?: wafv2.CfnWebACL.RuleProperty[];

  /**
   * Steady requests per second the stage takes before answering 429 (Meta retries those).
   *
   * @default 100
   */
  readonly throttlingRateLimit?: number;

  /**
   * Requests the stage takes at once above the steady rate.
   *
   * @default 200
   */
  readonly throttlingBurstLimit?: number;
}

const DEFAULT_THROTTLING = { rateLimit: 100, burstLimit: 200 } as const;

/** The default web ACL's rule groups, in evaluation order. */
const DEFAULT_MANAGED_RULE_GROUPS = ['AWSManagedRulesAmazonIpReputationList', 'AWSManagedRulesKnownBadInputsRuleSet'] as const;

/**
 * Where Meta's webhook requests come in (`webhookFrontDoor`): the webhook function's own public
 * Function URL, or an Amazon API Gateway REST API with a regional AWS WAF web ACL, stage throttling
 * and optionally a custom domain (REST rather than HTTP API: WAF protects REST APIs only). Either
 * way the handler authenticates every POST by its `X-Hub-Signature-256` HMAC over the exact bytes
 * Meta sent.
 */
export class WebhookFrontDoor {
  /** The webhook function's public Function URL (auth NONE: Meta cannot sign with AWS credentials). */
  public static functionUrl(): WebhookFrontDoor {
    return new WebhookFrontDoor(undefined);
  }

  /**
   * An API Gateway REST API with a regional WAF web ACL in front of the webhook; no Function URL is created.
   *
   * Its stage is named after the pipeline's `environment`, so without a domain the callback URL ends
   * in `/{environment}/`.
   */
  public static apiGateway(options: ApiGatewayWebhookFrontDoorOptions = {}): WebhookFrontDoor {
    return new WebhookFrontDoor(options);
  }

  /**
   * The API Gateway settings.
   *
   * @default - undefined for the Function URL
   */
  public readonly apiGatewayOptions?: ApiGatewayWebhookFrontDoorOptions;

  private constructor(apiGatewayOptions: ApiGatewayWebhookFrontDoorOptions | undefined) {
    this.apiGatewayOptions = apiGatewayOptions;
  }

  /**
   * Opens the door to `target` (the webhook function, or its alias).
   *
   * @internal
   */
  public _bind(scope: Construct, target: lambda.Function | lambda.Alias, context: WebhookFrontDoorContext): WebhookFrontDoorBinding {
    const options = this.apiGatewayOptions;
    if (options === undefined) {
      // Meta cannot sign requests with AWS credentials, so the URL is public and the handler
      // authenticates each POST by its X-Hub-Signature-256 HMAC before touching any data.
      const functionUrl = target.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
      acceptPublicUrl(
        target,
        'Meta cannot sign requests with AWS credentials: the webhook authenticates every POST by its X-Hub-Signature-256 HMAC before reading anything, and webhookReservedConcurrency caps what a flood can cost.',
      );
      return { url: functionUrl.url, functionUrl };
    }
    return bindApiGateway(scope, target, context, options);
  }
}

function bindApiGateway(scope: Construct, target: lambda.Function | lambda.Alias, context: WebhookFrontDoorContext, options: ApiGatewayWebhookFrontDoorOptions): WebhookFrontDoorBinding {
  const { domainName, certificate } = options;
  const restApi = new apigateway.RestApi(scope, 'WebhookApi', {
    description: `WhatsApp webhook of ${context.deploymentName}: Meta's callback URL`,
    endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
    // Every body reaches the function base64-encoded, byte for byte: the signature is over those bytes.
    binaryMediaTypes: ['*/*'],
    // API Gateway's logs need the account-wide CloudWatch role; a construct must not set it for the whole account.
    cloudWatchRole: false,
    deployOptions: {
      // A staging pipeline's callback URL ends in /staging/, not aws-cdk-lib's default /prod/.
      stageName: context.stageName,
      throttlingRateLimit: options.throttlingRateLimit ?? DEFAULT_THROTTLING.rateLimit,
      throttlingBurstLimit: options.throttlingBurstLimit ?? DEFAULT_THROTTLING.burstLimit,
      tracingEnabled: context.tracing,
    },
    domainName: domainName === undefined ? undefined : { domainName, certificate: certificate!, endpointType: apigateway.EndpointType.REGIONAL, securityPolicy: apigateway.SecurityPolicy.TLS_1_2 },
    // One door: with a domain, the execute-api URL would be a second way around it.
    disableExecuteApiEndpoint: domainName !== undefined,
  });
  const integration = new apigateway.LambdaIntegration(target, { proxy: true, allowTestInvoke: false });
  // GET answers Meta's verification handshake, POST carries the notifications.
  for (const method of ['GET', 'POST']) restApi.root.addMethod(method, integration);

  const webAcl = options.webAclArn === undefined ? createWebAcl(scope, context, options.wafRules) : undefined;
  const webAclArn = options.webAclArn ?? webAcl!.attrArn;
  new wafv2.CfnWebACLAssociation(scope, 'WebhookWebAclAssociation', { resourceArn: restApi.deploymentStage.stageArn, webAclArn });
  acceptApiGatewayFrontDoor(restApi, webAcl);
  return { url: domainName === undefined ? restApi.url : `https://${domainName}/`, restApi, webAclArn };
}

function createWebAcl(scope: Construct, context: WebhookFrontDoorContext, rules: wafv2.CfnWebACL.RuleProperty[] | undefined): wafv2.CfnWebACL {
  const metricName = (name: string) => `${context.deploymentName}-${name}`.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 128);
  return new wafv2.CfnWebACL(scope, 'WebhookWebAcl', {
    description: `Filters the Meta webhook requests to ${context.deploymentName} before they reach API Gateway`,
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: metricName('webhook') },
    rules:
      rules ??
      DEFAULT_MANAGED_RULE_GROUPS.map((name, priority) => ({
        name,
        priority,
        statement: { managedRuleGroupStatement: { vendorName: 'AWS', name } },
        overrideAction: { none: {} },
        visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: metricName(name) },
      })),
  });
}
