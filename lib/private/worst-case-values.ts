import { LONGEST_REGION } from './account-unique-names';
import { NO_VALUE, TemplateValues } from './template-values';

/**
 * What a synthesized template's values come to once CloudFormation deploys it, at their longest:
 * every intrinsic (`Ref`, `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`…) becomes a text as long as the
 * longest value it can resolve to, so that a limit AWS applies to the deployed value (a function's
 * environment, a role's policies, a name) can be checked at synth. Internal.
 *
 * The bounds, documented in docs/DEPLOY-LIMITS.md:
 * - pseudo parameters: a partition of 10 characters (`aws-us-gov`), a Region of 20 (above every
 *   Region code), an account of 12, a URL suffix of 20 (`amazonaws.com.cn` is 16), the stack's name;
 * - a resource's name: the one its template gives, else the name CloudFormation generates,
 *   `{stack name}-{logical id}-{13 characters}` cut to the longest name the service takes;
 * - what `Ref` and `Fn::GetAtt` return (a table name, a queue URL, an ARN…): built from that name
 *   as the service builds it; a value this module cannot bound otherwise (an attribute it does not
 *   know, a parameter, a value imported from a stack outside the app) counts as 2,048 characters,
 *   the longest ARN.
 */

/** A template as `Stack` renders it: sections of plain JSON, intrinsics included. */
export interface RenderedTemplate {
  readonly Resources?: { readonly [logicalId: string]: RenderedResource };
  readonly Outputs?: { readonly [logicalId: string]: { readonly Value?: unknown; readonly Export?: { readonly Name?: unknown } } };
  readonly Parameters?: { readonly [logicalId: string]: unknown };
  readonly Mappings?: { readonly [logicalId: string]: { readonly [key: string]: { readonly [key: string]: unknown } } };
}

export interface RenderedResource {
  readonly Type: string;
  readonly Properties?: { readonly [name: string]: unknown };
}

/** Where a template is deployed, as far as a value's length goes. */
interface Place {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
  readonly urlSuffix: string;
}

/** A value this module cannot bound otherwise: the longest ARN. */
export const UNBOUNDED_VALUE_LENGTH = 2048;
/** The random part of a name CloudFormation generates. */
const GENERATED_SUFFIX_LENGTH = 13;
const PLACEHOLDER = 'x';
const placeholder = (length: number): string => PLACEHOLDER.repeat(length);

type Build = (name: string, place: Place) => string;

/** How a resource type is named, and what `Ref` and its attributes return. */
interface NamedType {
  /** The property that names it, when the template sets one. */
  readonly nameProperty?: string;
  /** The longest name the service takes: a generated one is cut to it. */
  readonly maxName: number;
  /** Identifiers the service makes up (a key id, a distribution id) have their own length, whatever the stack. */
  readonly fixedLength?: boolean;
  /** What `Ref` returns; undefined: the name. */
  readonly ref?: Build;
  readonly attributes?: { readonly [attribute: string]: Build };
}

const name: Build = (resourceName) => resourceName;
const fixed = (length: number): Build => () => placeholder(length);
const arn = (service: string, resource: string, region = true, account = true): Build =>
  (resourceName, p) => `arn:${p.partition}:${service}:${region ? p.region : ''}:${account ? p.account : ''}:${resource}${resourceName}`;
const queueUrl: Build = (queueName, p) => `https://sqs.${p.region}.${p.urlSuffix}/${p.account}/${queueName}`;
const functionArn = arn('lambda', 'function:');
const secretArn: Build = (secretName, p) => `${arn('secretsmanager', 'secret:')(secretName, p)}-${placeholder(6)}`;

const TYPES: { readonly [type: string]: NamedType } = {
  'AWS::DynamoDB::Table': {
    nameProperty: 'TableName',
    maxName: 255,
    attributes: { Arn: arn('dynamodb', 'table/'), StreamArn: (table, p) => `${arn('dynamodb', 'table/')(table, p)}/stream/${placeholder(23)}` },
  },
  'AWS::SQS::Queue': { nameProperty: 'QueueName', maxName: 80, ref: queueUrl, attributes: { Arn: arn('sqs', ''), QueueName: name, QueueUrl: queueUrl } },
  'AWS::Lambda::Function': { nameProperty: 'FunctionName', maxName: 64, attributes: { Arn: functionArn } },
  'AWS::Lambda::Alias': { nameProperty: 'Name', maxName: 128, ref: (alias, p) => `${functionArn(placeholder(64), p)}:${alias}`, attributes: { AliasArn: (alias, p) => `${functionArn(placeholder(64), p)}:${alias}` } },
  'AWS::Lambda::Version': { maxName: 10, fixedLength: true, ref: (version, p) => `${functionArn(placeholder(64), p)}:${version}`, attributes: { Version: name } },
  'AWS::Lambda::Url': { maxName: 32, fixedLength: true, attributes: { FunctionUrl: (id, p) => `https://${id}.lambda-url.${p.region}.on.aws/`, FunctionArn: (_, p) => functionArn(placeholder(64), p) } },
  'AWS::IAM::Role': { nameProperty: 'RoleName', maxName: 64, attributes: { Arn: arn('iam', 'role/', false), RoleId: fixed(128) } },
  'AWS::IAM::ManagedPolicy': { nameProperty: 'ManagedPolicyName', maxName: 128, ref: arn('iam', 'policy/', false), attributes: { PolicyArn: arn('iam', 'policy/', false) } },
  'AWS::SNS::Topic': { nameProperty: 'TopicName', maxName: 256, ref: arn('sns', ''), attributes: { TopicArn: arn('sns', ''), TopicName: name } },
  'AWS::SecretsManager::Secret': { nameProperty: 'Name', maxName: 512, ref: secretArn, attributes: { Id: secretArn } },
  'AWS::KMS::Key': { maxName: 36, fixedLength: true, attributes: { Arn: arn('kms', 'key/'), KeyId: name } },
  'AWS::S3::Bucket': {
    nameProperty: 'BucketName',
    maxName: 63,
    attributes: {
      Arn: arn('s3', '', false, false),
      DomainName: (bucket, p) => `${bucket}.s3.${p.urlSuffix}`,
      RegionalDomainName: (bucket, p) => `${bucket}.s3.${p.region}.${p.urlSuffix}`,
    },
  },
  'AWS::Logs::LogGroup': { nameProperty: 'LogGroupName', maxName: 512, attributes: { Arn: (group, p) => `${arn('logs', 'log-group:')(group, p)}:*` } },
  'AWS::Events::Rule': { nameProperty: 'Name', maxName: 64, attributes: { Arn: arn('events', 'rule/') } },
  'AWS::CloudWatch::Alarm': { nameProperty: 'AlarmName', maxName: 255, attributes: { Arn: arn('cloudwatch', 'alarm:') } },
  'AWS::CloudWatch::Dashboard': { nameProperty: 'DashboardName', maxName: 255 },
  'AWS::CloudFront::Distribution': { maxName: 14, fixedLength: true, attributes: { DomainName: (id) => `${id}.cloudfront.net`, Id: name } },
  'AWS::CloudFront::OriginAccessControl': { maxName: 14, fixedLength: true, attributes: { Id: name } },
  'AWS::ApiGateway::RestApi': { maxName: 10, fixedLength: true, attributes: { RootResourceId: fixed(10), RestApiId: name } },
  'AWS::ApiGateway::Stage': { nameProperty: 'StageName', maxName: 128 },
  'AWS::ApiGateway::Deployment': { maxName: 10, fixedLength: true },
  'AWS::WAFv2::WebACL': {
    nameProperty: 'Name',
    maxName: 128,
    ref: (acl) => `${acl}|${placeholder(36)}|REGIONAL`,
    attributes: { Arn: (acl, p) => `${arn('wafv2', 'regional/webacl/')(acl, p)}/${placeholder(36)}`, Id: fixed(36) },
  },
  'AWS::EC2::SecurityGroup': { maxName: 20, fixedLength: true, attributes: { GroupId: name } },
};

/**
 * How long the name of a resource of `type` is, for the suites to name resources as CloudFormation
 * does: the longest name the service takes (a generated name is cut to it), or the length of the
 * identifier the service makes up; undefined for a type not listed.
 */
export function nameLength(type: string): { readonly longest: number; readonly identifier: boolean } | undefined {
  const named = TYPES[type];
  return named && { longest: named.maxName, identifier: named.fixedLength === true };
}

/**
 * The worst case of a template's values for one stack: `resolve()` replaces every intrinsic by a
 * placeholder text of its longest resolution, which the limits then measure as they would the
 * deployed value.
 */
export class WorstCaseValues extends TemplateValues {
  private readonly place: Place = { partition: placeholder(10), region: placeholder(LONGEST_REGION), account: placeholder(12), urlSuffix: placeholder(20) };

  /**
   * @param template the stack's template
   * @param stackName the stack's name (what CloudFormation's generated names start with)
   * @param importedValue the worst case of a value another stack of the app exports under the name given; undefined when none does
   */
  constructor(
    private readonly template: RenderedTemplate,
    private readonly stackName: string,
    private readonly importedValue: (exportName: string) => string | undefined = () => undefined,
  ) {
    super();
  }

  public text(value: unknown): string {
    const worst = this.resolve(value);
    return typeof worst === 'string' ? worst : Array.isArray(worst) ? worst.join(',') : JSON.stringify(worst);
  }

  /** The name a resource of the template gets: the one it is given, else the one CloudFormation generates. */
  public resourceName(logicalId: string): string {
    const resource = this.template.Resources?.[logicalId];
    const type = resource && TYPES[resource.Type];
    if (type === undefined) return placeholder(UNBOUNDED_VALUE_LENGTH);
    const given = type.nameProperty === undefined ? undefined : resource!.Properties?.[type.nameProperty];
    if (given !== undefined) return this.text(given);
    if (type.fixedLength) return placeholder(type.maxName);
    return placeholder(Math.min(type.maxName, this.stackName.length + logicalId.length + 2 + GENERATED_SUFFIX_LENGTH));
  }

  protected ref(logicalId: string): string {
    const pseudo = {
      'AWS::AccountId': this.place.account,
      'AWS::Region': this.place.region,
      'AWS::Partition': this.place.partition,
      'AWS::URLSuffix': this.place.urlSuffix,
      'AWS::StackName': this.stackName,
      'AWS::StackId': `${arn('cloudformation', 'stack/')(this.stackName, this.place)}/${placeholder(36)}`,
    }[logicalId];
    if (pseudo !== undefined) return pseudo;
    const resource = this.template.Resources?.[logicalId];
    const type = resource && TYPES[resource.Type];
    if (type === undefined) return placeholder(UNBOUNDED_VALUE_LENGTH);
    return (type.ref ?? name)(this.resourceName(logicalId), this.place);
  }

  protected attribute(logicalId: string, attribute: string): string {
    const resource = this.template.Resources?.[logicalId];
    const build = resource && TYPES[resource.Type]?.attributes?.[attribute];
    return build ? build(this.resourceName(logicalId), this.place) : placeholder(UNBOUNDED_VALUE_LENGTH);
  }

  protected otherFunction(fn: string, argument: unknown): unknown {
    switch (fn) {
      case 'Fn::If': {
        const [, whenTrue, whenFalse] = argument as [unknown, unknown, unknown];
        const branches = [this.resolve(whenTrue), this.resolve(whenFalse)].filter((branch) => branch !== NO_VALUE);
        return branches.length === 0 ? NO_VALUE : branches.reduce((a, b) => (JSON.stringify(a).length >= JSON.stringify(b).length ? a : b));
      }
      case 'Fn::ImportValue':
        return this.importedValue(this.text(argument)) ?? placeholder(UNBOUNDED_VALUE_LENGTH);
      case 'Fn::GetAZs':
        return [placeholder(this.place.region.length + 1)];
      case 'Fn::Base64':
        return placeholder(Math.ceil(this.text(argument).length / 3) * 4);
      case 'Fn::FindInMap': {
        const [map, first, second] = (argument as unknown[]).map((part) => this.text(part));
        const values = this.template.Mappings?.[map]?.[first]?.[second];
        return values === undefined ? placeholder(UNBOUNDED_VALUE_LENGTH) : this.resolve(values);
      }
      default:
        return placeholder(UNBOUNDED_VALUE_LENGTH);
    }
  }

  /** A list of unknown length (the split of a value imported whole) is bounded by its longest item. */
  protected missingItem(items: unknown[]): unknown {
    return items.reduce((a, b) => (String(a).length >= String(b).length ? a : b), '');
  }
}
