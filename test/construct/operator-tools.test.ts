// What the package's operator tools rely on: the stack outputs under their documented keys, and
// grantRedrive giving an operator's role exactly what the redrive command calls.
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { AgentPipeline, type AgentPipelineProps } from '../../lib';
import { OPERATOR_DEAD_LETTER_ACTIONS, OPERATOR_QUERY_ACTIONS, OPERATOR_TABLE_ACTIONS, TABLE_KEY_ACTIONS } from '../../lib/private/permissions';
import { expectExactStatements, pipelineProps, roleStatements, type SynthesizedPipeline, statement, synthPipeline } from '../support/synthesized-pipeline';

describe('stack outputs', () => {
  test('every pipeline writes its table, queues, webhook URL and secret under <construct id><name>', () => {
    const { template, stack, pipeline } = synthPipeline();
    const outputs = template.toJSON().Outputs;
    expect(Object.keys(outputs).sort()).toEqual(
      ['PipelineDeadLetterQueueUrl', 'PipelineTableName', 'PipelineTurnQueueUrl', 'PipelineWebhookUrl', 'PipelineWhatsAppSecretArn'],
    );
    expect(outputs.PipelineTableName.Value).toEqual(stack.resolve(pipeline.table.tableName));
    expect(outputs.PipelineTurnQueueUrl.Value).toEqual(stack.resolve(pipeline.queue.queueUrl));
    expect(outputs.PipelineDeadLetterQueueUrl.Value).toEqual(stack.resolve(pipeline.deadLetterQueue.queueUrl));
    expect(outputs.PipelineWebhookUrl.Value).toEqual(stack.resolve(pipeline.webhookUrl));
    expect(outputs.PipelineWhatsAppSecretArn.Value).toEqual(stack.resolve(pipeline.whatsAppSecret!.secretArn));
  });

  test('with the operator plane, also the console URL', () => {
    const { template, stack, pipeline } = synthPipeline({ adminPhoneNumbers: ['5511912345678'] });
    expect(template.toJSON().Outputs.PipelineConsoleUrl.Value).toEqual(stack.resolve(pipeline.consoleUrl));
  });

  test('two pipelines of one stack whose ids reduce to the same key are refused with the fix', () => {
    const stack = new Stack(new App(), 'Shared');
    new AgentPipeline(stack, 'Agent-1', pipelineProps({ environment: 'one' }));
    expect(() => new AgentPipeline(stack, 'Agent1', pipelineProps({ environment: 'two' }))).toThrow(
      "AgentPipeline at 'Shared/Agent1': its stack output 'Agent1TableName' is already written by the pipeline at 'Shared/Agent-1'. " +
        'Give the two pipelines construct ids that differ in their letters and digits',
    );
  });
});

describe('grantRedrive', () => {
  /** A pipeline and an on-call role granted the redrive, synthesized after the grant. */
  function grantedRedrive(extend: (stack: Stack) => Partial<AgentPipelineProps> = () => ({})): SynthesizedPipeline & { operator: iam.Role } {
    const app = new App();
    const stack = new Stack(app, 'TestStack');
    const pipeline = new AgentPipeline(stack, 'Pipeline', pipelineProps(extend(stack)));
    const operator = new iam.Role(stack, 'OnCall', { assumedBy: new iam.AccountRootPrincipal() });
    pipeline.grantRedrive(operator);
    return { app, stack, pipeline, operator, template: Template.fromStack(stack) };
  }

  test('grants the stack outputs, the dead-letter records, sending back to the turn queue, and the table as the operator function has it', () => {
    const synth = grantedRedrive();
    const { pipeline, stack } = synth;
    expectExactStatements(roleStatements(synth, synth.operator), [
      statement(synth, ['cloudformation:DescribeStacks'], [stack.stackId]),
      statement(synth, OPERATOR_DEAD_LETTER_ACTIONS, [pipeline.deadLetterQueue.queueArn]),
      statement(synth, ['sqs:SendMessage'], [pipeline.queue.queueArn]),
      statement(synth, OPERATOR_TABLE_ACTIONS, [pipeline.table.tableArn]),
      statement(synth, OPERATOR_QUERY_ACTIONS, [pipeline.table.tableArn, `${pipeline.table.tableArn}/index/GSI1`]),
    ]);
  });

  test('with a customer managed key, also the key actions of table and queue data', () => {
    let key: kms.Key | undefined;
    const synth = grantedRedrive((stack) => {
      key = new kms.Key(stack, 'Key', { enableKeyRotation: true });
      return { encryptionKey: key };
    });
    const statements = roleStatements(synth, synth.operator);
    expect(statements).toContainEqual(statement(synth, TABLE_KEY_ACTIONS, [key!.keyArn]));
    expect(statements).toHaveLength(6);
  });
});
