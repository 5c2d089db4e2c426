import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { AgentBackend } from '../../lib';
import { RUNTIME_ENV } from '../../lib/private/pipeline-contract';
import { synthPipeline } from './support';

const PHONE_NUMBER_ID = '106540352242922';

function webhookEnvironment(synth: ReturnType<typeof synthPipeline>): Record<string, unknown> {
  const resource = synth.template.findResources('AWS::Lambda::Function')[synth.stack.getLogicalId(synth.pipeline.webhookFunction.node.defaultChild as never)];
  return resource.Properties.Environment.Variables as Record<string, unknown>;
}

function warnings(synth: ReturnType<typeof synthPipeline>, text: string) {
  return Annotations.fromStack(synth.stack).findWarning('*', Match.stringLikeRegexp(text));
}

describe('business numbers', () => {
  test('phoneNumberIds reach the webhook, without a warning', () => {
    const synth = synthPipeline({ phoneNumberIds: [PHONE_NUMBER_ID, '1', PHONE_NUMBER_ID] });

    expect(webhookEnvironment(synth)[RUNTIME_ENV.businessPhoneNumberIds]).toBe(`${PHONE_NUMBER_ID},1`);
    expect(warnings(synth, 'phoneNumberIds is not set')).toHaveLength(0);
  });

  test('without phoneNumberIds every number is served, and synth warns about it', () => {
    const synth = synthPipeline();

    expect(webhookEnvironment(synth)[RUNTIME_ENV.businessPhoneNumberIds]).toBeUndefined();
    expect(warnings(synth, 'phoneNumberIds is not set')).toHaveLength(1);
  });

  test.each([['+5511987654321'], ['../me'], ['']])('refuses the id %p, which is not a Meta phone number id', (id) => {
    expect(() => synthPipeline({ phoneNumberIds: [id] })).toThrow('is not a Meta phone number id');
  });

  test('refuses an empty list', () => {
    expect(() => synthPipeline({ phoneNumberIds: [] })).toThrow('phoneNumberIds is empty');
  });
});

describe('webhook concurrency', () => {
  test('webhookReservedConcurrency reserves concurrency for the webhook only', () => {
    const synth = synthPipeline({ webhookReservedConcurrency: 20 });

    synth.template.hasResourceProperties('AWS::Lambda::Function', { Description: Match.stringLikeRegexp('^WhatsApp webhook'), ReservedConcurrentExecutions: 20 });
    synth.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('^Turn orchestrator'),
      ReservedConcurrentExecutions: Match.absent(),
    });
  });

  test.each([0, 1.5, 1001])('refuses webhookReservedConcurrency %p', (webhookReservedConcurrency) => {
    expect(() => synthPipeline({ webhookReservedConcurrency })).toThrow('webhookReservedConcurrency must be a whole number from 1 to 1000');
  });
});

describe('the scripted agent in production', () => {
  test.each(['prod', 'production', 'prd', 'live', 'prod-eu', 'eu-prod'])('warns when the stage %p uses it', (environment) => {
    expect(warnings(synthPipeline({ environment, agentBackend: AgentBackend.scripted() }), 'looks like production')).toHaveLength(1);
  });

  test.each(['dev', 'staging', 'product-demo', 'test'])('stays quiet for the stage %p', (environment) => {
    expect(warnings(synthPipeline({ environment, agentBackend: AgentBackend.scripted() }), 'looks like production')).toHaveLength(0);
  });
});
