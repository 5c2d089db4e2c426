// Production knobs: an alias (with provisioned concurrency) that the Function URL and the queue's
// event source invoke, VPC placement that stays cdk-nag clean, and the synth error that stops two
// pipelines of one app from claiming the same table and queue names in one account and Region.
import { App, Aspects, CfnResource, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { AwsSolutionsChecks } from 'cdk-nag';
import { AwsSolutionsChecks as AwsSolutionsChecksV2 } from 'cdk-nag-v2';
import { AgentPipeline, type AgentPipelineProps, ResourceNames } from '../../lib';
import { VPC_NETWORK_INTERFACE_ACTIONS } from '../../lib/private/production-placement';
import { pipelineProps, synthPipeline } from '../support/synthesized-pipeline';

describe('functionAlias', () => {
  test('without it there is no version or alias: the URL and the event source invoke the function itself', () => {
    const { template, stack, pipeline } = synthPipeline();
    template.resourceCountIs('AWS::Lambda::Alias', 0);
    template.resourceCountIs('AWS::Lambda::Version', 0);
    expect(pipeline.webhookAlias).toBeUndefined();
    expect(pipeline.orchestratorAlias).toBeUndefined();
    template.hasResourceProperties('AWS::Lambda::Url', { TargetFunctionArn: stack.resolve(pipeline.webhookFunction.functionArn), Qualifier: Match.absent() });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { FunctionName: stack.resolve(pipeline.orchestratorFunction.functionName) });
  });

  test('with it, the Function URL and the event source mapping target aliases on published versions, with provisioned concurrency', () => {
    const { template, stack, pipeline } = synthPipeline({
      functionAlias: { webhookProvisionedConcurrency: 2, orchestratorProvisionedConcurrency: 3 },
      webhookReservedConcurrency: 10,
      orchestratorMaxConcurrency: 5,
    });
    template.resourceCountIs('AWS::Lambda::Alias', 2);
    template.resourceCountIs('AWS::Lambda::Version', 2);
    template.hasResourceProperties('AWS::Lambda::Alias', {
      Name: 'live',
      FunctionName: stack.resolve(pipeline.webhookFunction.functionName),
      ProvisionedConcurrencyConfig: { ProvisionedConcurrentExecutions: 2 },
    });
    template.hasResourceProperties('AWS::Lambda::Alias', {
      Name: 'live',
      FunctionName: stack.resolve(pipeline.orchestratorFunction.functionName),
      ProvisionedConcurrencyConfig: { ProvisionedConcurrentExecutions: 3 },
    });
    template.hasResourceProperties('AWS::Lambda::Url', { TargetFunctionArn: stack.resolve(pipeline.webhookFunction.functionArn), Qualifier: 'live' });
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { FunctionName: stack.resolve(pipeline.orchestratorAlias!.functionName) });
    // Meta's unauthenticated calls may invoke the alias's URL, and only that.
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunctionUrl',
      FunctionName: stack.resolve(pipeline.webhookAlias!.functionArn),
      FunctionUrlAuthType: 'NONE',
    });
  });

  test('the alias name is a prop, and provisioned concurrency is optional', () => {
    const { template } = synthPipeline({ functionAlias: { aliasName: 'prod_2' } });
    const aliases = Object.values(template.findResources('AWS::Lambda::Alias'));
    expect(aliases.map((alias) => [alias.Properties.Name, alias.Properties.ProvisionedConcurrencyConfig])).toEqual([
      ['prod_2', undefined],
      ['prod_2', undefined],
    ]);
  });

  test.each<[string, Partial<AgentPipelineProps>, RegExp]>([
    ['an alias name Lambda refuses', { functionAlias: { aliasName: 'live.v2' } }, /functionAlias\.aliasName 'live\.v2' is not a Lambda alias name/],
    ['an all-digit alias name', { functionAlias: { aliasName: '42' } }, /functionAlias\.aliasName '42'/],
    ['zero provisioned environments', { functionAlias: { webhookProvisionedConcurrency: 0 } }, /webhookProvisionedConcurrency must be a whole number from 1/],
    [
      'more provisioned than reserved webhook concurrency',
      { functionAlias: { webhookProvisionedConcurrency: 20 }, webhookReservedConcurrency: 10 },
      /webhookProvisionedConcurrency \(20\) is above webhookReservedConcurrency \(10\)/,
    ],
    [
      'more provisioned orchestrators than the event source would ever run',
      { functionAlias: { orchestratorProvisionedConcurrency: 8 }, orchestratorMaxConcurrency: 4 },
      /orchestratorProvisionedConcurrency \(8\) is above orchestratorMaxConcurrency \(4\)/,
    ],
  ])('refuses %s, naming what to change, before creating anything', (_case, props, message) => {
    const stack = new Stack(new App(), 'Refused');
    expect(() => new AgentPipeline(stack, 'Pipeline', pipelineProps(props))).toThrow(message);
    expect(stack.node.findAll().filter((construct) => construct instanceof CfnResource)).toEqual([]);
  });
});

describe('VPC placement', () => {
  function vpcApp(placement: (stack: Stack, vpc: ec2.Vpc) => Partial<AgentPipelineProps>) {
    const app = new App();
    const stack = new Stack(app, 'InVpc');
    const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1, flowLogs: { all: {} } });
    const pipeline = new AgentPipeline(stack, 'Pipeline', pipelineProps({ adminPhoneNumbers: ['5511912345678'], ...placement(stack, vpc) }));
    return { app, stack, vpc, pipeline };
  }

  test('every function runs in the private subnets, and its role may manage the network interfaces', () => {
    const { stack, vpc } = vpcApp((_stack, vpc) => ({ vpc }));
    const template = Template.fromStack(stack);
    const functions = Object.values(template.findResources('AWS::Lambda::Function'));
    // Webhook, orchestrator, operator function, handoff sweeper, evaluator and idle sweeper.
    expect(functions).toHaveLength(6);
    const privateSubnets = stack.resolve(vpc.privateSubnets.map((subnet) => subnet.subnetId));
    for (const fn of functions) {
      expect(fn.Properties.VpcConfig.SubnetIds).toEqual(privateSubnets);
      expect(fn.Properties.VpcConfig.SecurityGroupIds).toHaveLength(1);
    }
    const roles = Object.values(template.findResources('AWS::IAM::Role'));
    for (const role of roles.filter((r) => r.Properties.AssumeRolePolicyDocument.Statement[0].Principal.Service === 'lambda.amazonaws.com')) {
      expect(role.Properties.Policies).toEqual([
        { PolicyName: 'VpcNetworking', PolicyDocument: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: [...VPC_NETWORK_INTERFACE_ACTIONS], Resource: '*' }] } },
      ]);
    }
  });

  test('given subnets and security groups are used as they are', () => {
    let group: ec2.SecurityGroup | undefined;
    const { stack, vpc } = vpcApp((scope, vpc) => {
      group = new ec2.SecurityGroup(scope, 'Functions', { vpc, description: 'Pipeline functions' });
      return { vpc, vpcSubnets: { subnets: [vpc.privateSubnets[1]] }, securityGroups: [group] };
    });
    const template = Template.fromStack(stack);
    const chosenSubnet = stack.resolve(vpc.privateSubnets[1].subnetId);
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(fn.Properties.VpcConfig).toEqual({ SubnetIds: [chosenSubnet], SecurityGroupIds: [stack.resolve(group!.securityGroupId)] });
    }
  });

  test('outside a VPC the roles carry no network permissions', () => {
    const { template } = synthPipeline();
    expect(JSON.stringify(template.toJSON())).not.toContain('ec2:CreateNetworkInterface');
    for (const fn of Object.values(template.findResources('AWS::Lambda::Function'))) expect(fn.Properties.VpcConfig).toBeUndefined();
  });

  test('stays clean under cdk-nag 3 and cdk-nag 2, with an alias on top', () => {
    const v3 = vpcApp((_stack, vpc) => ({ vpc, functionAlias: { webhookProvisionedConcurrency: 1 } }));
    expect(new AwsSolutionsChecks(v3.app).validateScope(v3.app).violations.map((violation) => violation.ruleName)).toEqual([]);

    const v2 = vpcApp((_stack, vpc) => ({ vpc, functionAlias: { webhookProvisionedConcurrency: 1 } }));
    Aspects.of(v2.app).add(new AwsSolutionsChecksV2({ reports: false }));
    v2.app.synth();
    const annotations = Annotations.fromStack(v2.stack);
    const nagMessage = Match.stringLikeRegexp('AwsSolutions-');
    expect([...annotations.findError('*', nagMessage), ...annotations.findWarning('*', nagMessage)].map((message) => `${message.id}: ${message.entry.data}`)).toEqual([]);
  });

  test.each<[string, (stack: Stack) => Partial<AgentPipelineProps>, RegExp]>([
    ['subnets without a VPC', () => ({ vpcSubnets: { subnetType: ec2.SubnetType.PRIVATE_WITH_EGRESS } }), /vpcSubnets only apply inside a VPC; set vpc as well/],
    [
      'security groups without a VPC',
      (stack) => ({ securityGroups: [ec2.SecurityGroup.fromSecurityGroupId(stack, 'Group', 'sg-12345678')] }),
      /securityGroups only apply inside a VPC/,
    ],
    ['an empty security group list', (stack) => ({ vpc: new ec2.Vpc(stack, 'Vpc'), securityGroups: [] }), /securityGroups is empty/],
  ])('refuses %s', (_case, props, message) => {
    const stack = new Stack(new App(), 'Refused');
    expect(() => new AgentPipeline(stack, 'Pipeline', pipelineProps(props(stack)))).toThrow(message);
  });
});

describe('physical names', () => {
  /** The seed system's explicit names: generated names never collide. */
  const seedNamedProps = (overrides: Partial<AgentPipelineProps> = {}) => pipelineProps({ serviceName: 'gogenetic-agent', resourceNames: ResourceNames.seed(), ...overrides });

  test('generated names, the default, never collide: two pipelines of one stack, and two stacks in one place', () => {
    const app = new App();
    const env = { account: '111111111111', region: 'sa-east-1' };
    const stack = new Stack(app, 'Blue', { env });
    new AgentPipeline(stack, 'First', pipelineProps({ environment: 'prod' }));
    new AgentPipeline(stack, 'Second', pipelineProps({ environment: 'prod' }));
    new AgentPipeline(new Stack(app, 'Green', { env }), 'Pipeline', pipelineProps({ environment: 'prod' }));
    expect(() => app.synth()).not.toThrow();
  });

  test('explicit names given to ResourceNames.of are claimed like the seed names', () => {
    const stack = new Stack(new App(), 'Explicit');
    const names = ResourceNames.of({ tableName: 'team-whatsapp-prod', turnQueueName: 'team-whatsapp-turns-prod.fifo' });
    new AgentPipeline(stack, 'First', pipelineProps({ resourceNames: names }));
    expect(() => new AgentPipeline(stack, 'Second', pipelineProps({ resourceNames: names }))).toThrow(/the names 'team-whatsapp-prod', 'team-whatsapp-turns-prod.fifo' are already used/);
  });

  test('two pipelines with the same names in one stack fail at synth, naming both and what to change', () => {
    const stack = new Stack(new App(), 'Twice');
    new AgentPipeline(stack, 'First', seedNamedProps({ environment: 'prod' }));
    expect(() => new AgentPipeline(stack, 'Second', seedNamedProps({ environment: 'prod' }))).toThrow(
      "AgentPipeline at 'Twice/Second': the names 'gogenetic-agent-prod', 'gogenetic-agent-debounce-prod.fifo', 'gogenetic-agent-debounce-dlq-prod.fifo' " +
        "are already used by the pipeline at 'Twice/First' in the same account and Region",
    );
  });

  test('so do two environment-agnostic stacks, which deploy wherever the credentials point', () => {
    const app = new App();
    new AgentPipeline(new Stack(app, 'Blue'), 'Pipeline', seedNamedProps());
    expect(() => new AgentPipeline(new Stack(app, 'Green'), 'Pipeline', seedNamedProps())).toThrow(/another environment or serviceName/);
  });

  test('and two stacks pinned to the same account and Region', () => {
    const app = new App();
    const env = { account: '111111111111', region: 'sa-east-1' };
    new AgentPipeline(new Stack(app, 'Blue', { env }), 'Pipeline', seedNamedProps());
    expect(() => new AgentPipeline(new Stack(app, 'Green', { env }), 'Pipeline', seedNamedProps())).toThrow(
      /already used by the pipeline at 'Blue\/Pipeline' in the same account and Region \(account 111111111111, Region sa-east-1\)/,
    );
  });

  test('the same names are fine in another Region or account, and other environments or service names never clash', () => {
    const app = new App();
    new AgentPipeline(new Stack(app, 'SaoPaulo', { env: { account: '111111111111', region: 'sa-east-1' } }), 'Pipeline', seedNamedProps());
    new AgentPipeline(new Stack(app, 'Virginia', { env: { account: '111111111111', region: 'us-east-1' } }), 'Pipeline', seedNamedProps());
    new AgentPipeline(new Stack(app, 'OtherAccount', { env: { account: '222222222222', region: 'sa-east-1' } }), 'Pipeline', seedNamedProps());
    const shared = new Stack(app, 'Shared');
    new AgentPipeline(shared, 'Staging', seedNamedProps({ environment: 'staging' }));
    new AgentPipeline(shared, 'Prod', seedNamedProps({ environment: 'prod' }));
    new AgentPipeline(shared, 'OtherService', seedNamedProps({ environment: 'prod', serviceName: 'clinic-agent' }));
    expect(() => app.synth()).not.toThrow();
  });

  test('separate apps (e.g. separate test cases) never see each other', () => {
    expect(() => [synthPipeline(), synthPipeline()]).not.toThrow();
  });
});
