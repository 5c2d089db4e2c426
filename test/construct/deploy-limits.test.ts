// The deploy-limit check (lib/private/deploy-limits.ts): synth refuses what AWS or CloudFormation
// would refuse at deploy, and the message names what to change. The configurations the construct
// accepts are proven within the limits by deploy-limits-readme and deploy-limits-maximal.
import { App, CfnOutput, Lazy, Stack, type StackProps } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AgentBackend, AgentPipeline, type AgentPipelineProps, AgentTool, CrmTarget, WhatsAppChannel } from '../../lib';
import { AGENT_TOOL_LIMITS } from '../../lib/contract';
import { resourceSchemas } from '../support/resource-schemas';
import { consumerCrmFunction, pipelineProps } from '../support/synthesized-pipeline';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

/** Synthesizes one pipeline with `props` (made in its stack, or given) and what `extend` adds to its stack; the error synth throws, or '' when it passes. */
function synthError(props: Partial<AgentPipelineProps> | ((stack: Stack) => Partial<AgentPipelineProps>), extend?: (stack: Stack, pipeline: AgentPipeline) => void, stackProps?: StackProps): string {
  const app = new App();
  const stack = new Stack(app, 'Shop', stackProps);
  const pipeline = new AgentPipeline(stack, 'Agent', pipelineProps(typeof props === 'function' ? props(stack) : props));
  extend?.(stack, pipeline);
  try {
    app.synth();
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('synth refuses what would fail at deploy, naming what to change', () => {
  test("a prop that fills an environment variable is named when the environment overflows; a prompt is not in the environment at all", () => {
    const phoneNumberIds = Array.from({ length: 300 }, (_, index) => `1065403522${String(index).padStart(5, '0')}`);
    expect(synthError({ phoneNumberIds })).toMatch(
      /\[Shop\/Agent\] WebhookFunction's environment would be up to [\d,]+ bytes as Lambda measures it .*; Lambda allows 4,096\. Its largest variables: WHATSAPP_PHONE_NUMBER_IDS \(4,8\d\d bytes, from phoneNumberIds: shorten it\)/,
    );
    // A prompt built with Lazy, longer than the whole environment, is resolved at synth into the settings document.
    const systemPrompt = Lazy.string({ produce: () => 'Answer as the bakery would. '.repeat(180) });
    expect(synthError({ agentBackend: AgentBackend.bedrock({ modelId: MODEL, systemPrompt }) })).toBe('');
  });

  test("the tools' functions are measured in the orchestrator's environment: twenty deploy, stages full of them are refused naming the tools", () => {
    const toolsOf = (stack: Stack, prefix: string) =>
      Array.from({ length: AGENT_TOOL_LIMITS.maxTools }, (_, index) => {
        const name = `${prefix}_${'lookup_the_customers_order_'.repeat(2)}${index}`.slice(0, 64);
        const fn = new lambda.Function(stack, `${prefix}${index}`, { runtime: lambda.Runtime.NODEJS_24_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => ({})') });
        return AgentTool.fromFunction(fn, { name, description: 'Looks an order up.', inputSchema: { type: 'object' } });
      });
    const withTools = (build: (stack: Stack) => AgentBackend) => synthError((stack) => ({ agentBackend: build(stack) }));
    expect(withTools((stack) => AgentBackend.bedrock({ modelId: MODEL, tools: toolsOf(stack, 'a') }))).toBe('');
    const stages = (stack: Stack) => AgentBackend.stages({ entry: 's0', agents: Object.fromEntries(['s0', 's1', 's2'].map((stage) => [stage, AgentBackend.bedrock({ modelId: MODEL, tools: toolsOf(stack, stage) })])) });
    expect(withTools(stages)).toMatch(/OrchestratorFunction's environment would be up to [\d,]+ bytes .* AGENT_STAGE_VARIABLES \([\d,]+ bytes, from agentBackend's stages \(AgentBackend\.stages\(\): their names, models, guardrails, functions and tools\): shorten it\)/);
  });

  test("a variable added to a pipeline's function is measured with the rest, and named", () => {
    const error = synthError({}, (_, pipeline) => pipeline.webhookFunction.addEnvironment('ALLOWED_SENDERS', '5511900000000,'.repeat(300)));
    expect(error).toMatch(/WebhookFunction's environment would be up to [\d,]+ bytes .* ALLOWED_SENDERS \(4,2\d\d bytes, set on the function\)/);
  });

  test('a dead-letter queue name SQS would refuse is refused, naming the prop', () => {
    const queueName = `${'orders-failed-turns-'.repeat(5)}.fifo`;
    expect(synthError({ deadLetterQueueProps: { queueName } })).toMatch(
      /DeadLetterQueue's QueueName is 105 characters; SQS takes at most 80\. Change resourceNames \(turnQueueName, deadLetterQueueName\) or deadLetterQueueProps\.queueName\./,
    );
    expect(synthError({ deadLetterQueueProps: { queueName: 'failed turns.fifo' } })).toMatch(/DeadLetterQueue's QueueName 'failed turns\.fifo' has characters SQS does not take there/);
  });

  test('a grant too large for any policy is refused: CDK moves it whole into a managed policy, which IAM would refuse', () => {
    const phoneNumbers = Array.from({ length: 150 }, (_, index) => ({ id: `phone-number-id-976c72a700aac43eaf573ae05${String(index).padStart(7, '0')}`, metaPhoneNumberId: `1065403522${String(index).padStart(5, '0')}` }));
    expect(synthError({ channel: WhatsAppChannel.endUserMessaging({ phoneNumbers }) })).toMatch(
      /OrchestratorRole's managed policy AgentOrchestratorRoleOverflowPolicy\w+ would be up to [\d,]+ characters \(whitespace not counted\); IAM allows 6,144 for a managed policy\. Its largest statements: social-messaging:\w+ on 150 resources/,
    );
  });

  test('more managed policies on a role than IAM attaches are refused', () => {
    const error = synthError({}, (_, pipeline) => {
      for (const name of ['AmazonS3ReadOnlyAccess', 'AmazonSQSReadOnlyAccess', 'AmazonSNSReadOnlyAccess', 'AmazonDynamoDBReadOnlyAccess', 'AWSLambda_ReadOnlyAccess', 'CloudWatchReadOnlyAccess']) {
        for (const role of [pipeline.orchestratorFunction.role!, pipeline.webhookFunction.role!]) role.addManagedPolicy(iam.ManagedPolicy.fromAwsManagedPolicyName(name));
      }
      for (const name of ['AWSXrayReadOnlyAccess', 'AmazonKinesisReadOnlyAccess', 'AmazonEventBridgeReadOnlyAccess', 'AWSStepFunctionsReadOnlyAccess', 'AmazonAthenaFullAccess']) {
        pipeline.orchestratorFunction.role!.addManagedPolicy(iam.ManagedPolicy.fromAwsManagedPolicyName(name));
      }
    });
    expect(error).toMatch(/OrchestratorRole would have 11 managed policies attached .* IAM attaches at most 10 to a role unless the account's quota was raised/);
    expect(error).not.toMatch(/WebhookRole would have/);
  });

  test('a value imported from another stack of the app counts as what that stack exports, not as an unbounded value', () => {
    const notes = 'x'.repeat(2800);
    const error = synthError({}, (stack) => {
      const crm = consumerCrmFunction(new Stack(stack.node.root as App, 'Crm'));
      new AgentPipeline(stack, 'Imported', pipelineProps({ crmSync: CrmTarget.fromFunction(crm) })).crmSyncFunction!.addEnvironment('NOTES', notes);
    });
    // Measured as an unknown value (2,048 characters), the imported function name would push the CRM worker's environment over 4 KB.
    expect(error).toBe('');
  });

  test("the stack's own limits: outputs and the template's size, told once per stack", () => {
    const manyOutputs = synthError({}, (stack) => Array.from({ length: 200 }, (_, index) => new CfnOutput(stack, `Report${index}`, { value: String(index) })));
    expect(manyOutputs).toMatch(/Stack 'Shop' would declare 206 outputs; CloudFormation takes at most 200 in one template/);
    const largeTemplate = synthError({}, (stack) => {
      stack.templateOptions.metadata = { notes: 'x'.repeat(1_000_000) };
      new AgentPipeline(stack, 'Second', pipelineProps());
    });
    expect(largeTemplate.match(/The template of stack 'Shop' would be [\d,]+ bytes; CloudFormation takes at most 1,000,000/g)).toHaveLength(1);
  });

  test('an explicit dashboardName shared by two Regions of one account is refused: dashboards are named once per account', () => {
    const app = new App();
    const inRegion = (region: string) => new Stack(app, `Shop-${region}`, { stackName: 'Shop', env: { account: '123456789012', region } });
    new AgentPipeline(inRegion('sa-east-1'), 'Agent', pipelineProps({ dashboardName: 'shop-prod' }));
    expect(() => new AgentPipeline(inRegion('us-east-1'), 'Agent', pipelineProps({ dashboardName: 'shop-prod' }))).toThrow(
      /AgentPipeline at 'Shop-us-east-1\/Agent': its dashboard 'shop-prod' is already the dashboard of the pipeline at 'Shop-sa-east-1\/Agent' in the same account .* Give each pipeline its own dashboardName, or leave dashboardName out/,
    );
    // In another account the name is free, and by default each Region's dashboard has its own.
    expect(() => new AgentPipeline(new Stack(app, 'Elsewhere', { env: { account: '210987654321', region: 'us-east-1' } }), 'Agent', pipelineProps({ dashboardName: 'shop-prod' }))).not.toThrow();
  });
});

describe('names a service takes once per account carry the Region', () => {
  test("the console's origin access control: the stack, the path and the Region, within CloudFront's 64 characters, long paths kept apart", () => {
    const stack = new Stack(new App(), 'Shop', { env: { account: '123456789012', region: 'sa-east-1' } });
    const accessControlName = (id: string) => {
      const pipeline = new AgentPipeline(stack, id, pipelineProps({ adminPhoneNumbers: ['5511912345678'], consoleFrontDoor: {} }));
      const [accessControl] = pipeline.node.findAll().filter((construct): construct is cloudfront.CfnOriginAccessControl => construct instanceof cloudfront.CfnOriginAccessControl);
      return stack.resolve(accessControl.originAccessControlConfig).name as string;
    };
    expect(accessControlName('Agent')).toBe('Shop-Agent-console-sa-east-1');
    const long = ['Sales', 'Support'].map((team) => accessControlName(`CustomerServicePipelineFor${team}InPadariaSolPorto`));
    expect(long.map((name) => name.length)).toEqual([64, 64]);
    expect(long[0]).not.toBe(long[1]);
    expect(long[0]).toMatch(/^Shop-CustomerServicePipelineFor[A-Za-z-]*-[0-9A-F]{8}-sa-east-1$/);
  });
});

describe('the resource schemas', () => {
  test("come with aws-cdk-lib; its lowest supported release has none, which the suites say rather than passing", () => {
    expect(() => resourceSchemas('aws-cdk-lib-min')).toThrow(/aws-cdk-lib-min 2\.224\.0 comes without @aws\/cloudformation-validate: the templates cannot be validated/);
  });
});
