import { TemplateValues } from '../../../lib/private/template-values';
import type { CloudFormationTemplate } from './deployment-variants';

/** Where the template is taken to be deployed: the values of the pseudo parameters. */
export interface DeploymentPlace {
  readonly account: string;
  readonly region: string;
  readonly stackName: string;
}

/**
 * The name CloudFormation gives a resource the template does not name. By default its logical id,
 * which keeps the names readable in a denial; the deploy-limit suites pass the name as CloudFormation
 * makes it, to measure what a deployment holds.
 */
export type GeneratedName = (logicalId: string, type: string) => string;

type Resource = CloudFormationTemplate['Resources'][string];

/**
 * A template's values with every intrinsic CloudFormation would resolve at deployment (`Ref`,
 * `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, `Fn::Select`, `Fn::Split`, pseudo parameters) turned into
 * the concrete names and ARNs a deployment at `place` gets: physical names from the resources'
 * properties, else `generatedName` (the logical id by default) where CloudFormation would generate one. An attribute or a function
 * this does not know is an error naming it, never a silent placeholder.
 */
export class TemplateIntrinsics extends TemplateValues {
  constructor(
    private readonly template: CloudFormationTemplate,
    private readonly place: DeploymentPlace,
    private readonly generatedName: GeneratedName = (logicalId) => logicalId,
  ) {
    super();
  }

  /** `resolve`, for a value that must come out as text. */
  text(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string') throw new Error(`Expected text, got ${JSON.stringify(resolved)}`);
    return resolved;
  }

  protected otherFunction(name: string): never {
    throw new Error(`The template uses ${name}, which the intrinsic resolver does not evaluate`);
  }

  protected ref(logicalId: string): unknown {
    const { account, region, stackName } = this.place;
    switch (logicalId) {
      case 'AWS::AccountId':
        return account;
      case 'AWS::Region':
        return region;
      case 'AWS::Partition':
        return 'aws';
      case 'AWS::URLSuffix':
        return 'amazonaws.com';
      case 'AWS::StackName':
        return stackName;
      case 'AWS::StackId':
        return `arn:aws:cloudformation:${region}:${account}:stack/${stackName}/00000000-0000-0000-0000-000000000000`;
    }
    const resource = this.resource(logicalId);
    const name = this.physicalName(logicalId, resource);
    switch (resource.Type) {
      case 'AWS::SQS::Queue':
        return `https://sqs.${region}.amazonaws.com/${account}/${name}`;
      case 'AWS::SecretsManager::Secret':
        return this.attribute(logicalId, 'Id');
      case 'AWS::SNS::Topic':
        return this.attribute(logicalId, 'TopicArn');
      case 'AWS::Lambda::Alias':
        return `${this.attribute(this.targetFunction(resource), 'Arn')}:${this.text(resource.Properties?.Name)}`;
      case 'AWS::Lambda::Version':
        return `${this.attribute(this.targetFunction(resource), 'Arn')}:1`;
      default:
        return name;
    }
  }

  protected attribute(logicalId: string, attribute: string): unknown {
    const { account, region } = this.place;
    const resource = this.resource(logicalId);
    const name = this.physicalName(logicalId, resource);
    const arns: Record<string, Record<string, () => string>> = {
      'AWS::DynamoDB::Table': { Arn: () => `arn:aws:dynamodb:${region}:${account}:table/${name}`, StreamArn: () => `arn:aws:dynamodb:${region}:${account}:table/${name}/stream/1970-01-01T00:00:00.000` },
      'AWS::SQS::Queue': { Arn: () => `arn:aws:sqs:${region}:${account}:${name}`, QueueName: () => name, QueueUrl: () => String(this.ref(logicalId)) },
      'AWS::KMS::Key': { Arn: () => `arn:aws:kms:${region}:${account}:key/${name}`, KeyId: () => name },
      'AWS::IAM::Role': { Arn: () => `arn:aws:iam::${account}:role/${name}`, RoleId: () => `AROA${name}` },
      'AWS::Lambda::Function': { Arn: () => `arn:aws:lambda:${region}:${account}:function:${name}` },
      'AWS::Lambda::Url': { FunctionUrl: () => `https://${name.toLowerCase()}.lambda-url.${region}.on.aws/`, FunctionArn: () => this.text(resource.Properties?.TargetFunctionArn) },
      'AWS::Lambda::Version': { Version: () => '1' },
      'AWS::CloudFront::Distribution': { DomainName: () => `${name.toLowerCase()}.cloudfront.net`, Id: () => name },
      'AWS::ApiGateway::RestApi': { RootResourceId: () => `${name}-root`, RestApiId: () => name },
      'AWS::WAFv2::WebACL': { Arn: () => `arn:aws:wafv2:${region}:${account}:regional/webacl/${name}/00000000-0000-0000-0000-000000000000` },
      'AWS::SecretsManager::Secret': { Id: () => `arn:aws:secretsmanager:${region}:${account}:secret:${name}-AbCdEf` },
      'AWS::SNS::Topic': { TopicArn: () => `arn:aws:sns:${region}:${account}:${name}`, TopicName: () => name },
      'AWS::Logs::LogGroup': { Arn: () => `arn:aws:logs:${region}:${account}:log-group:${name}:*` },
      'AWS::Events::Rule': { Arn: () => `arn:aws:events:${region}:${account}:rule/${name}` },
      'AWS::S3::Bucket': { Arn: () => `arn:aws:s3:::${name}` },
    };
    const compute = arns[resource.Type]?.[attribute];
    if (compute === undefined) throw new Error(`The intrinsic resolver does not know the attribute ${attribute} of ${resource.Type} (${logicalId})`);
    return compute();
  }

  /** The name CloudFormation gives the resource: its name property, else (as for a generated name) its logical id. */
  private physicalName(logicalId: string, resource: Resource): string {
    const property = { 'AWS::DynamoDB::Table': 'TableName', 'AWS::SQS::Queue': 'QueueName', 'AWS::IAM::Role': 'RoleName', 'AWS::Lambda::Function': 'FunctionName', 'AWS::SecretsManager::Secret': 'Name', 'AWS::SNS::Topic': 'TopicName', 'AWS::Logs::LogGroup': 'LogGroupName', 'AWS::Events::Rule': 'Name', 'AWS::S3::Bucket': 'BucketName' }[resource.Type];
    const given = property === undefined ? undefined : resource.Properties?.[property];
    if (given !== undefined) return this.text(given);
    const generated = this.generatedName(logicalId, resource.Type);
    if (resource.Type === 'AWS::S3::Bucket') return generated.toLowerCase();
    return resource.Type === 'AWS::SQS::Queue' && resource.Properties?.FifoQueue === true ? `${generated}.fifo` : generated;
  }

  /** The logical id of the function an alias or a version belongs to (`FunctionName` is a `Ref` to it, or its name). */
  private targetFunction(resource: Resource): string {
    const target = resource.Properties?.FunctionName as { Ref?: string } | string | undefined;
    return typeof target === 'object' && target.Ref !== undefined ? target.Ref : this.text(target).split(':').pop()!;
  }

  private resource(logicalId: string): Resource {
    const resource = this.template.Resources[logicalId];
    if (resource === undefined) throw new Error(`The template has no resource ${logicalId}`);
    return resource;
  }
}
