import type { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { FunctionSettings } from '../contract';
import { logGroupEncryptionKey } from './log-encryption';
import { acceptFunctionFindings } from './accepted-findings';
import { stagedFunctionAsset } from './function-assets';
import type { PipelineFunctionId } from './function-ids';
import { acknowledgeFinding } from './nag-acknowledgements';
import { LOG_WRITE_ACTIONS } from './permissions';
import type { PipelineSettings } from './pipeline-settings';
import { type ProductionPlacement, vpcNetworkingPolicy } from './production-placement';
import { plainSettingsDocument } from './settings-document';


/** What differs from one function of the pipeline to the next. */
export interface PipelineFunctionOptions {
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  /** What the plan tells the function: its environment, and the settings document staged beside its handler. */
  readonly settings: FunctionSettings;
  /** Undefined: no reservation. */
  readonly reservedConcurrentExecutions?: number;
  /** Where Lambda parks asynchronous events that failed every retry. */
  readonly deadLetterQueue?: sqs.IQueue;
}

/**
 * Builds every function of one pipeline alike: its own log group and role, Node.js on ARM, the
 * bundled handler, JSON logs, X-Ray tracing and VPC placement as configured, with the cdk-nag
 * acknowledgements these need; and, with `functionAlias`, the aliases that are invoked instead.
 */
export class PipelineFunctionFactory {
  private readonly roles = new Map<PipelineFunctionId, { readonly role: iam.Role; readonly logGroup: logs.LogGroup }>();

  constructor(
    private readonly scope: Construct,
    private readonly settings: PipelineSettings,
    private readonly placement: ProductionPlacement,
    private readonly encryptionKey: kms.IKey | undefined,
  ) {}

  /**
   * The function's own role (and log group), before the function exists: what is granted to it may
   * then shape what the function is told (the agent backend, the CRM target).
   */
  public createRole(id: PipelineFunctionId): iam.Role {
    const { settings, scope } = this;
    const logGroup = new logs.LogGroup(scope, `${id}LogGroup`, {
      retention: settings.logRetention,
      removalPolicy: settings.removalPolicy,
      encryptionKey: logGroupEncryptionKey(scope, this.encryptionKey),
    });
    // An own role instead of the AWSLambdaBasicExecutionRole managed policy, which allows writing
    // to every log group of the account.
    const { vpcPlacement } = this.placement;
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the ${id.toLowerCase()} function of ${settings.names.table}`,
      // Inline, so Lambda finds the network interface permissions when it creates the function.
      inlinePolicies: vpcPlacement && { VpcNetworking: vpcNetworkingPolicy() },
    });
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...LOG_WRITE_ACTIONS], resources: [logGroup.logGroupArn] }));
    const wildcardReasons = [
      ...(settings.tracing ? ['Active X-Ray tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions.'] : []),
      ...(vpcPlacement ? ['In a VPC, Lambda manages the network interfaces (ec2:*NetworkInterface*, ec2:DescribeSubnets), which do not exist before it creates them.'] : []),
    ];
    if (wildcardReasons.length > 0) acknowledgeFinding(role, { id: 'AwsSolutions-IAM5', appliesTo: 'Resource::*', reason: wildcardReasons.join(' ') });
    this.roles.set(id, { role, logGroup });
    return role;
  }

  public createFunction(id: PipelineFunctionId, options: PipelineFunctionOptions): lambda.Function {
    const { settings, scope } = this;
    if (!this.roles.has(id)) this.createRole(id);
    const { role, logGroup } = this.roles.get(id)!;
    const { vpcPlacement } = this.placement;
    const { settings: told, ...functionOptions } = options;
    // The bundle's folder is the id in kebab case (HandoffSweeper → handoff-sweeper), as the plan names the function.
    const name = id.replace(/(?<=[a-z])(?=[A-Z])/g, '-').toLowerCase();
    const fn = new lambda.Function(scope, `${id}Function`, {
      ...functionOptions,
      environment: { ...told.environment },
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      code: lambda.Code.fromAsset(stagedFunctionAsset(name, plainSettingsDocument(scope, name, told.document))),
      role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      tracing: settings.tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
      ...vpcPlacement,
    });
    acceptFunctionFindings(
      id,
      { fn, role, logGroup },
      { inVpc: vpcPlacement !== undefined, reservedConcurrency: options.reservedConcurrentExecutions, deadLetterQueue: options.deadLetterQueue !== undefined, logKey: this.encryptionKey !== undefined },
    );
    return fn;
  }

  /**
   * With `functionAlias`, the alias of the webhook (or End User Messaging inbound) function or of
   * the orchestrator, on the version published from the function's current configuration. The
   * version's logical id follows the code and configuration, so every change publishes a new
   * version and moves the alias.
   */
  public createAlias(fn: lambda.Function, role: 'Webhook' | 'Orchestrator'): lambda.Alias | undefined {
    const alias = this.placement.alias;
    if (alias === undefined) return undefined;
    const provisionedConcurrentExecutions = role === 'Webhook' ? alias.webhookProvisionedConcurrency : alias.orchestratorProvisionedConcurrency;
    return new lambda.Alias(this.scope, `${role}Alias`, { aliasName: alias.aliasName, version: fn.currentVersion, provisionedConcurrentExecutions });
  }
}
