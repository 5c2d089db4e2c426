import { Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { CRM_FUNCTION_INVOKE_ACTIONS } from './private/permissions';
import { CRM_TARGET_KINDS, type CrmSyncOptions } from './contract';

/** Properties of `CrmTarget.webhook()`. */
export interface CrmWebhookProps {
  /**
   * The HTTPS endpoint that receives one `POST` per new revision of a conversation's commercial
   * projection (JSON, contract version "1"; see docs/CRM.md). Must start with `https://`.
   */
  readonly url: string;

  /**
   * The secret whose whole text value is the HMAC-SHA256 key. Each request carries
   * `X-CRM-Signature: t={unix seconds},v2={hex HMAC of "v2\n{t}\n{Idempotency-Key}\n{raw body}"}`,
   * so the idempotency key a receiver keys on is signed with the body; the receiver recomputes it
   * and compares in constant time (docs/CRM.md shows how). The worker is granted read access.
   */
  readonly secret: secretsmanager.ISecret;
}

/** What a CRM target contributes to the CRM sync worker. */
export interface CrmTargetConfig {
  /**
   * What the worker is told about its target: its share of the deployment plan.
   *
   * @internal
   */
  readonly _crmSync: CrmSyncOptions;
}

/**
 * Where the CRM sync worker publishes each conversation's commercial projection (contact, deal,
 * stage). Choose one with a static factory: `CrmTarget.fromFunction()` or `CrmTarget.webhook()`.
 */
export abstract class CrmTarget {
  /**
   * A Lambda function you own that writes to your CRM. The worker invokes it synchronously
   * (`lambda:InvokeFunction` on that function only) once per new revision, with version "1" of a
   * JSON contract: the event is `{version: "1", idempotencyKey, sessionId, customerId, revision,
   * contactId?, dealId?, contact, deal}`, where `idempotencyKey` is `{sessionId}:{revision}`,
   * `deal.stage` is one of `qualifying`, `handoff`, `in_service`, `closed`, and `contactId`/`dealId`
   * are present once your function returned them (update those records instead of creating). The
   * function returns `{status: "accepted", contactId, dealId}`, `{status: "retry", reason}` (tried
   * again later with backoff) or `{status: "refused", reason}` (the row is BLOCKED for a person).
   * A thrown error, a timeout or any other answer leaves the outcome unknown: a create becomes
   * UNCERTAIN and is never repeated blindly. docs/CRM.md has a complete example.
   *
   * @param crmFunction the function that writes each projection to the CRM
   */
  public static fromFunction(crmFunction: lambda.IFunction): CrmTarget {
    return new FunctionCrmTarget(crmFunction);
  }

  /**
   * An HTTPS endpoint: the same JSON body as `fromFunction()`, `POST`ed and signed with
   * HMAC-SHA256, with the header `Idempotency-Key: {sessionId}:{revision}`. A 2xx answer must be
   * `{contactId, dealId}`; 408, 409, 425, 429 and 5xx are retried with backoff; any other status is
   * a refusal. Validated when called: the URL must be `https://`.
   *
   * @param props the endpoint's `https://` URL and the secret the requests are signed with
   */
  public static webhook(props: CrmWebhookProps): CrmTarget {
    return new WebhookCrmTarget(props);
  }

  /**
   * Grants the worker what this target needs and returns what the worker is told about it. Bound
   * to the worker's role before the function is created, since what it is told is written into its asset.
   *
   * @param scope the construct that owns the worker
   * @param worker the CRM sync worker's role (or anything that grants to it)
   */
  public abstract bind(scope: Construct, worker: iam.IGrantable): CrmTargetConfig;
}

class FunctionCrmTarget extends CrmTarget {
  constructor(private readonly crmFunction: lambda.IFunction) {
    super();
  }

  public bind(_scope: Construct, worker: iam.IGrantable): CrmTargetConfig {
    iam.Grant.addToPrincipal({ grantee: worker, actions: [...CRM_FUNCTION_INVOKE_ACTIONS], resourceArns: [this.crmFunction.functionArn] });
    return { _crmSync: { kind: CRM_TARGET_KINDS.function, functionName: this.crmFunction.functionName } };
  }
}

class WebhookCrmTarget extends CrmTarget {
  constructor(private readonly props: CrmWebhookProps) {
    super();
    checkWebhookUrl(props.url);
  }

  public bind(_scope: Construct, worker: iam.IGrantable): CrmTargetConfig {
    this.props.secret.grantRead(worker);
    return { _crmSync: { kind: CRM_TARGET_KINDS.webhook, url: this.props.url, secretArn: this.props.secret.secretArn } };
  }
}

function checkWebhookUrl(url: string): void {
  if (Token.isUnresolved(url)) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`CrmTarget.webhook: url '${url}' is not a URL; give the https:// address of your CRM endpoint.`);
  }
  if (parsed.protocol !== 'https:') throw new Error(`CrmTarget.webhook: url must start with https:// (got ${parsed.protocol}//); the projection carries customer data.`);
  if (parsed.username !== '' || parsed.password !== '') throw new Error('CrmTarget.webhook: url must not carry credentials; requests are signed with the secret instead.');
}
