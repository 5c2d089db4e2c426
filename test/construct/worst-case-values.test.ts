// The deploy-limit check's bound on a token: the longest value it can resolve to, as
// docs/DEPLOY-LIMITS.md documents it. (The deploy-limit suites prove the bound over real templates.)
import { UNBOUNDED_VALUE_LENGTH, WorstCaseValues } from '../../lib/private/worst-case-values';

const STACK = 'Shop-prod';
const template = {
  Resources: {
    Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
    Named: { Type: 'AWS::DynamoDB::Table', Properties: { TableName: 'orders' } },
    Turns: { Type: 'AWS::SQS::Queue', Properties: { FifoQueue: true } },
    Fn: { Type: 'AWS::Lambda::Function', Properties: {} },
    Url: { Type: 'AWS::Lambda::Url', Properties: {} },
    Widget: { Type: 'AWS::Custom::Widget', Properties: {} },
  },
};
const values = new WorstCaseValues(template, STACK, (exportName) => (exportName === 'Other:TableName' ? 'x'.repeat(40) : undefined));
const length = (value: unknown) => values.text(value).length;
/** A name CloudFormation generates: the stack name, the logical id and 13 random characters, joined by '-'. */
const generated = (logicalId: string) => STACK.length + logicalId.length + 2 + 13;

test("a resource's name is the one its template gives, else the one CloudFormation generates, cut to the service's longest", () => {
  expect(values.text({ Ref: 'Named' })).toBe('orders');
  expect(length({ Ref: 'Table' })).toBe(generated('Table'));
  expect(values.resourceName('Fn').length).toBe(generated('Fn'));
  expect(new WorstCaseValues(template, 'S'.repeat(128)).resourceName('Fn')).toHaveLength(64);
});

test('Ref and Fn::GetAtt give the URL or ARN as the service builds it, with the pseudo parameters at their longest', () => {
  // https://sqs.{Region 20}.{URL suffix 20}/{account 12}/{name}
  expect(length({ Ref: 'Turns' })).toBe('https://sqs.'.length + 20 + 1 + 20 + 1 + 12 + 1 + generated('Turns'));
  // arn:{partition 10}:lambda:{Region 20}:{account 12}:function:{name}
  expect(length({ 'Fn::GetAtt': ['Fn', 'Arn'] })).toBe('arn:'.length + 10 + ':lambda:'.length + 20 + 1 + 12 + ':function:'.length + generated('Fn'));
  expect(values.text({ 'Fn::GetAtt': ['Named', 'Arn'] })).toMatch(/^arn:x{10}:dynamodb:x{20}:x{12}:table\/orders$/);
});

test('the structural functions work on the worst case: a split keeps the literal parts apart', () => {
  const host = { 'Fn::Select': [2, { 'Fn::Split': ['/', { 'Fn::GetAtt': ['Url', 'FunctionUrl'] }] }] };
  expect(values.text(host)).toMatch(/^x{32}\.lambda-url\.x{20}\.on\.aws$/);
  expect(values.text({ 'Fn::Sub': ['${Named}-${Suffix}', { Suffix: 'dlq' }] })).toBe('orders-dlq');
  expect(values.resolve({ 'Fn::If': ['IsProd', 'short', { Ref: 'Named' }] })).toBe('orders');
});

test('a value exported by another stack of the app counts as that value; anything else unbounded as the longest ARN', () => {
  expect(length({ 'Fn::ImportValue': 'Other:TableName' })).toBe(40);
  expect(length({ 'Fn::ImportValue': 'Elsewhere:TableName' })).toBe(UNBOUNDED_VALUE_LENGTH);
  expect(length({ 'Fn::GetAtt': ['Widget', 'Arn'] })).toBe(UNBOUNDED_VALUE_LENGTH);
  expect(length({ 'Fn::GetAtt': ['Table', 'LatestStreamLabel'] })).toBe(UNBOUNDED_VALUE_LENGTH);
});
