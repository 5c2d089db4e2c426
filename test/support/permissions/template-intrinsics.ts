import type { CloudFormationTemplate } from './deployment-variants';

/** Where the template is taken to be deployed: the values of the pseudo parameters. */
export interface DeploymentPlace {
  readonly account: string;
  readonly region: string;
  readonly stackName: string;
}

type Resource = CloudFormationTemplate['Resources'][string];

/**
 * A template's values with every intrinsic CloudFormation would resolve at deployment (`Ref`,
 * `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, `Fn::Select`, `Fn::Split`, pseudo parameters) turned into
 * the concrete names and ARNs a deployment at `place` gets: physical names from the resources'
 * properties, the logical id where CloudFormation would generate one. An attribute or a function
 * this does not know is an error naming it, never a silent placeholder.
 */
export class TemplateIntrinsics {
  constructor(
    private readonly template: CloudFormationTemplate,
    private readonly place: DeploymentPlace,
  ) {}

  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item)).filter((item) => item !== NO_VALUE);
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 1 && (entries[0][0] === 'Ref' || entries[0][0].startsWith('Fn::'))) return this.intrinsic(entries[0][0], entries[0][1]);
    return Object.fromEntries(entries.map(([key, item]) => [key, this.resolve(item)]).filter(([, item]) => item !== NO_VALUE));
  }

  /** `resolve`, for a value that must come out as text. */
  text(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string') throw new Error(`Expected text, got ${JSON.stringify(resolved)}`);
    return resolved;
  }

  private intrinsic(name: string, argument: unknown): unknown {
    switch (name) {
      case 'Ref':
        return this.ref(String(argument));
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(argument) ? argument.map(String) : String(argument).split(/\.(.*)/);
        return this.attribute(logicalId, attribute);
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown[]];
        return (this.resolve(parts) as unknown[]).map(String).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [unknown, unknown];
        return (this.resolve(list) as unknown[])[Number(this.resolve(index))];
      }
      case 'Fn::Split': {
        const [separator, source] = argument as [string, unknown];
        return this.text(source).split(separator);
      }
      case 'Fn::Sub': {
        const [pattern, variables = {}] = Array.isArray(argument) ? (argument as [string, Record<string, unknown>]) : [String(argument)];
        return pattern.replace(/\$\{(!?)([^}]+)\}/g, (_, literal: string, reference: string) => {
          if (literal) return `\${${reference}}`;
          if (reference in variables) return String(this.resolve(variables[reference]));
          const [logicalId, attribute] = reference.split(/\.(.*)/);
          return String(attribute === undefined ? this.ref(logicalId) : this.attribute(logicalId, attribute));
        });
      }
      default:
        throw new Error(`The template uses ${name}, which the intrinsic resolver does not evaluate`);
    }
  }

  private ref(logicalId: string): unknown {
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
      case 'AWS::NoValue':
        return NO_VALUE;
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
        return `${this.attribute(this.text(resource.Properties?.FunctionName).split(':').pop()!, 'Arn')}:${this.text(resource.Properties?.Name)}`;
      default:
        return name;
    }
  }

  private attribute(logicalId: string, attribute: string): unknown {
    const { account, region } = this.place;
    const resource = this.resource(logicalId);
    const name = this.physicalName(logicalId, resource);
    const arns: Record<string, Record<string, () => string>> = {
      'AWS::DynamoDB::Table': { Arn: () => `arn:aws:dynamodb:${region}:${account}:table/${name}`, StreamArn: () => `arn:aws:dynamodb:${region}:${account}:table/${name}/stream/1970-01-01T00:00:00.000` },
      'AWS::SQS::Queue': { Arn: () => `arn:aws:sqs:${region}:${account}:${name}`, QueueName: () => name, QueueUrl: () => String(this.ref(logicalId)) },
      'AWS::KMS::Key': { Arn: () => `arn:aws:kms:${region}:${account}:key/${name}`, KeyId: () => name },
      'AWS::IAM::Role': { Arn: () => `arn:aws:iam::${account}:role/${name}`, RoleId: () => `AROA${name}` },
      'AWS::Lambda::Function': { Arn: () => `arn:aws:lambda:${region}:${account}:function:${name}` },
      'AWS::Lambda::Url': { FunctionUrl: () => `https://${logicalId.toLowerCase()}.lambda-url.${region}.on.aws/`, FunctionArn: () => this.text(resource.Properties?.TargetFunctionArn) },
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
    if (resource.Type === 'AWS::S3::Bucket') return logicalId.toLowerCase();
    return resource.Type === 'AWS::SQS::Queue' && resource.Properties?.FifoQueue === true ? `${logicalId}.fifo` : logicalId;
  }

  private resource(logicalId: string): Resource {
    const resource = this.template.Resources[logicalId];
    if (resource === undefined) throw new Error(`The template has no resource ${logicalId}`);
    return resource;
  }
}

/** `AWS::NoValue`: the property or list item is left out. */
const NO_VALUE = Symbol('AWS::NoValue');
