/**
 * The names and descriptions the services take, for the resource types a pipeline creates: each
 * property's longest value and, where the service restricts them, its characters, from the
 * services' API references (docs/DEPLOY-LIMITS.md lists them). The deploy-limits check measures
 * the deployed value against these at synth; the suite also validates every template against
 * CloudFormation's resource schemas, which cover some of them and miss others (a dashboard's or a
 * queue's name, an origin access control's). Internal.
 */

export interface NameLimit {
  /** The property, dotted into nested objects (`OriginAccessControlConfig.Name`). */
  readonly property: string;
  readonly maxLength: number;
  readonly minLength?: number;
  /** The characters the service takes, checked where the value has no token in it. */
  readonly pattern?: RegExp;
  /** Which service refuses it, for the message. */
  readonly service: string;
  /** The props whose value makes it up, for the message. */
  readonly props: string;
}

const DEPLOYMENT_NAME = 'serviceName and environment (descriptions name the deployment by them)';
const CONSTRUCT_PATH = 'the stack name and the construct ids (the name is made from them)';

const description = (service: string, maxLength: number, pattern?: RegExp): NameLimit => ({ property: 'Description', maxLength, pattern, service, props: DEPLOYMENT_NAME });

/** By resource type. */
export const NAME_LIMITS: { readonly [type: string]: readonly NameLimit[] } = {
  'AWS::Lambda::Function': [
    { property: 'FunctionName', maxLength: 64, pattern: /^[a-zA-Z0-9_-]+$/, service: 'Lambda', props: CONSTRUCT_PATH },
    description('Lambda', 256),
  ],
  'AWS::Lambda::Alias': [
    { property: 'Name', maxLength: 128, pattern: /^(?!^[0-9]+$)[a-zA-Z0-9_-]+$/, service: 'Lambda', props: 'functionAlias.aliasName' },
    description('Lambda', 256),
  ],
  'AWS::Lambda::Version': [description('Lambda', 256)],
  'AWS::IAM::Role': [
    { property: 'RoleName', maxLength: 64, pattern: /^[\w+=,.@-]+$/, service: 'IAM', props: CONSTRUCT_PATH },
    // IAM takes tab, line breaks and Latin-1 printable characters only in a role's description.
    description('IAM', 1000, /^[\u0009\u000A\u000D\u0020-\u007E\u00A1-\u00FF]*$/),
  ],
  'AWS::IAM::Policy': [{ property: 'PolicyName', maxLength: 128, pattern: /^[\w+=,.@-]+$/, service: 'IAM', props: CONSTRUCT_PATH }],
  'AWS::IAM::ManagedPolicy': [
    { property: 'ManagedPolicyName', maxLength: 128, pattern: /^[\w+=,.@-]+$/, service: 'IAM', props: CONSTRUCT_PATH },
    { ...description('IAM', 1000), props: CONSTRUCT_PATH },
  ],
  'AWS::SQS::Queue': [
    { property: 'QueueName', maxLength: 80, pattern: /^[A-Za-z0-9_-]+(\.fifo)?$/, service: 'SQS', props: 'resourceNames (turnQueueName, deadLetterQueueName) or deadLetterQueueProps.queueName' },
  ],
  'AWS::DynamoDB::Table': [{ property: 'TableName', minLength: 3, maxLength: 255, pattern: /^[a-zA-Z0-9_.-]+$/, service: 'DynamoDB', props: 'resourceNames.tableName' }],
  'AWS::CloudWatch::Alarm': [
    { property: 'AlarmName', maxLength: 255, service: 'CloudWatch', props: 'alarms.alarmNamePrefix' },
    { property: 'AlarmDescription', maxLength: 1024, service: 'CloudWatch', props: `${DEPLOYMENT_NAME}, resourceNames` },
  ],
  'AWS::CloudWatch::Dashboard': [{ property: 'DashboardName', maxLength: 255, pattern: /^[A-Za-z0-9_-]+$/, service: 'CloudWatch', props: 'dashboardName (its default follows alarms.alarmNamePrefix)' }],
  'AWS::Logs::LogGroup': [{ property: 'LogGroupName', maxLength: 512, pattern: /^[.\-_/#A-Za-z0-9]+$/, service: 'CloudWatch Logs', props: CONSTRUCT_PATH }],
  'AWS::S3::Bucket': [{ property: 'BucketName', minLength: 3, maxLength: 63, pattern: /^[a-z0-9][a-z0-9.-]*[a-z0-9]$/, service: 'S3', props: CONSTRUCT_PATH }],
  'AWS::SNS::Topic': [
    { property: 'TopicName', maxLength: 256, pattern: /^[A-Za-z0-9_-]+(\.fifo)?$/, service: 'SNS', props: CONSTRUCT_PATH },
    { property: 'DisplayName', maxLength: 100, service: 'SNS', props: DEPLOYMENT_NAME },
  ],
  'AWS::Events::Rule': [
    { property: 'Name', maxLength: 64, pattern: /^[.\-_A-Za-z0-9]+$/, service: 'EventBridge', props: CONSTRUCT_PATH },
    description('EventBridge', 512),
  ],
  'AWS::SecretsManager::Secret': [
    { property: 'Name', maxLength: 512, service: 'Secrets Manager', props: CONSTRUCT_PATH },
    description('Secrets Manager', 2048),
  ],
  'AWS::KMS::Key': [description('KMS', 8192)],
  'AWS::CloudFront::Distribution': [{ property: 'DistributionConfig.Comment', maxLength: 128, service: 'CloudFront', props: DEPLOYMENT_NAME }],
  'AWS::CloudFront::OriginAccessControl': [
    { property: 'OriginAccessControlConfig.Name', maxLength: 64, service: 'CloudFront', props: CONSTRUCT_PATH },
    { property: 'OriginAccessControlConfig.Description', maxLength: 256, service: 'CloudFront', props: DEPLOYMENT_NAME },
  ],
  'AWS::WAFv2::WebACL': [
    { property: 'Name', maxLength: 128, pattern: /^[\w-]+$/, service: 'WAF', props: CONSTRUCT_PATH },
    description('WAF', 256, /^[\w+=:#@/\-,.][\w+=:#@/\-,.\s]+[\w+=:#@/\-,.]$/),
    { property: 'VisibilityConfig.MetricName', maxLength: 255, pattern: /^[\w#:.\-/]+$/, service: 'WAF', props: DEPLOYMENT_NAME },
  ],
  'AWS::Backup::BackupSelection': [{ property: 'BackupSelection.SelectionName', maxLength: 50, pattern: /^[a-zA-Z0-9\-_.]{1,50}$/, service: 'AWS Backup', props: CONSTRUCT_PATH }],
};
