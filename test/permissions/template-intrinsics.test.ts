// The permission check's intrinsic resolver: a template's references become the names and ARNs a
// deployment gets, from the resources' properties.
import { TemplateIntrinsics } from '../support/permissions/template-intrinsics';

const template = {
  Resources: {
    Table: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 'agent-prod' } },
    Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: 'agent-debounce-prod.fifo', FifoQueue: true } },
    Unnamed: { Type: 'AWS::SQS::Queue', Properties: { FifoQueue: true } },
    Key: { Type: 'AWS::KMS::Key', Properties: {} },
    Role: { Type: 'AWS::IAM::Role', Properties: {} },
    Secret: { Type: 'AWS::SecretsManager::Secret', Properties: {} },
  },
};
const intrinsics = new TemplateIntrinsics(template, { account: '123456789012', region: 'sa-east-1', stackName: 'Prod' });

test('Ref and Fn::GetAtt give the physical name, URL or ARN of the resource type', () => {
  expect(intrinsics.resolve({ Ref: 'Table' })).toBe('agent-prod');
  expect(intrinsics.resolve({ 'Fn::GetAtt': ['Table', 'Arn'] })).toBe('arn:aws:dynamodb:sa-east-1:123456789012:table/agent-prod');
  expect(intrinsics.resolve({ Ref: 'Queue' })).toBe('https://sqs.sa-east-1.amazonaws.com/123456789012/agent-debounce-prod.fifo');
  expect(intrinsics.resolve({ 'Fn::GetAtt': 'Unnamed.Arn' })).toBe('arn:aws:sqs:sa-east-1:123456789012:Unnamed.fifo');
  expect(intrinsics.resolve({ 'Fn::GetAtt': ['Key', 'Arn'] })).toBe('arn:aws:kms:sa-east-1:123456789012:key/Key');
  expect(intrinsics.resolve({ 'Fn::GetAtt': ['Role', 'Arn'] })).toBe('arn:aws:iam::123456789012:role/Role');
  expect(intrinsics.resolve({ Ref: 'Secret' })).toBe('arn:aws:secretsmanager:sa-east-1:123456789012:secret:Secret-AbCdEf');
});

test('Fn::Join, Fn::Sub, Fn::Select, Fn::Split and the pseudo parameters, nested, inside policy documents', () => {
  const statement = {
    Resource: [
      { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Table', 'Arn'] }, '/index/GSI1']] },
      { 'Fn::Sub': 'arn:${AWS::Partition}:social-messaging:${AWS::Region}:${AWS::AccountId}:phone-number-id/${Id}' },
      { 'Fn::Sub': ['${Queue.Arn}-${Suffix}', { Suffix: { 'Fn::Select': [1, { 'Fn::Split': ['-', 'a-b-c'] }] } }] },
      { 'Fn::Sub': '${!Literal} of ${AWS::StackName}' },
    ],
    Condition: { StringEquals: { 'kms:ViaService': { 'Fn::Join': ['', ['dynamodb.', { Ref: 'AWS::Region' }, '.amazonaws.com']] } } },
    Sid: { Ref: 'AWS::NoValue' },
  };
  expect(intrinsics.resolve({ ...statement, Resource: statement.Resource.slice(0, 1).concat(statement.Resource.slice(2)) })).toEqual({
    Resource: ['arn:aws:dynamodb:sa-east-1:123456789012:table/agent-prod/index/GSI1', 'arn:aws:sqs:sa-east-1:123456789012:agent-debounce-prod.fifo-b', '${Literal} of Prod'],
    Condition: { StringEquals: { 'kms:ViaService': 'dynamodb.sa-east-1.amazonaws.com' } },
  });
  // `${Id}` names no resource: an error that says so, never a silent placeholder.
  expect(() => intrinsics.resolve(statement.Resource[1])).toThrow('The template has no resource Id');
  expect(() => intrinsics.resolve({ 'Fn::GetAtt': ['Table', 'LatestStreamLabel'] })).toThrow('does not know the attribute LatestStreamLabel of AWS::DynamoDB::Table');
  expect(() => intrinsics.resolve({ 'Fn::If': ['IsProd', 'a', 'b'] })).toThrow('Fn::If');
});
