// The webhook's front door: its own Function URL by default, or an API Gateway REST API behind a
// regional WAF web ACL, with no Function URL.
import { Match } from 'aws-cdk-lib/assertions';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import { WebhookFrontDoor, WhatsAppChannel } from '../../lib';
import { STACK_OUTPUTS, stackOutputKey } from '../../lib/contract';
import { synthPipeline } from '../support/synthesized-pipeline';

const WEB_ACL_ARN = 'arn:aws:wafv2:us-east-1:123456789012:regional/webacl/team/0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d';
const webhookUrlOutput = stackOutputKey('Pipeline', STACK_OUTPUTS.webhookUrl);

describe('WebhookFrontDoor.functionUrl(), the default', () => {
  test('the webhook has a public Function URL, which is the callback URL; no API, no web ACL', () => {
    const synth = synthPipeline();
    synth.template.resourceCountIs('AWS::Lambda::Url', 1);
    synth.template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE' });
    synth.template.resourceCountIs('AWS::ApiGateway::RestApi', 0);
    synth.template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
    expect(synth.pipeline.webhookUrl).toBe(synth.pipeline.webhookFunctionUrl!.url);
  });
});

describe('WebhookFrontDoor.apiGateway()', () => {
  const synth = synthPipeline({ webhookFrontDoor: WebhookFrontDoor.apiGateway({ throttlingRateLimit: 50, throttlingBurstLimit: 80 }) });
  const { template, stack, pipeline } = synth;

  test('no Function URL for the webhook: the REST API is the only door', () => {
    template.resourceCountIs('AWS::Lambda::Url', 0);
    expect(pipeline.webhookFunctionUrl).toBeUndefined();
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] }, BinaryMediaTypes: ['*/*'] });
  });

  test('GET and POST on the root proxy to the webhook function, so the body reaches it byte for byte', () => {
    for (const method of ['GET', 'POST']) {
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        HttpMethod: method,
        AuthorizationType: 'NONE',
        Integration: { Type: 'AWS_PROXY', Uri: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([stack.resolve(pipeline.webhookFunction.functionArn)])]) }) },
      });
    }
  });

  test('the stage is throttled and traced, and a regional web ACL with AWS managed rule groups is associated with it', () => {
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      TracingEnabled: true,
      MethodSettings: Match.arrayWith([Match.objectLike({ ThrottlingRateLimit: 50, ThrottlingBurstLimit: 80 })]),
    });
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      Rules: [
        Match.objectLike({ Name: 'AWSManagedRulesAmazonIpReputationList', Statement: { ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesAmazonIpReputationList' } } }),
        Match.objectLike({ Name: 'AWSManagedRulesKnownBadInputsRuleSet', Statement: { ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesKnownBadInputsRuleSet' } } }),
      ],
    });
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
    template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', { ResourceArn: stack.resolve(pipeline.webhookApi!.deploymentStage.stageArn), WebACLArn: stack.resolve(pipeline.webhookWebAclArn) });
  });

  test('the callback URL, in webhookUrl and the stack output, is the stage URL', () => {
    expect(pipeline.webhookUrl).toBe(pipeline.webhookApi!.url);
    template.hasOutput(webhookUrlOutput, { Value: stack.resolve(pipeline.webhookApi!.url) });
  });

  test('the stage is named after the environment, so a staging pipeline is not served from /prod/', () => {
    const staging = synthPipeline({ environment: 'staging', webhookFrontDoor: WebhookFrontDoor.apiGateway() });
    staging.template.resourceCountIs('AWS::ApiGateway::Stage', 1);
    staging.template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'staging' });
    // The callback URL ends in the stage's name (its Ref): …/staging/.
    const [stageId] = Object.keys(staging.template.findResources('AWS::ApiGateway::Stage'));
    expect(JSON.stringify(staging.stack.resolve(staging.pipeline.webhookUrl))).toMatch(new RegExp(`"/",\\{"Ref":"${stageId}"\\},"/"\\]\\]\\}$`));
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'test' });
  });
});

describe('WebhookFrontDoor.apiGateway() options', () => {
  test('a custom domain turns the execute-api endpoint off and is the callback URL', () => {
    const synth = synthPipeline({}, (stack) => ({
      webhookFrontDoor: WebhookFrontDoor.apiGateway({
        domainName: 'whatsapp.example.com',
        certificate: acm.Certificate.fromCertificateArn(stack, 'Certificate', 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d'),
      }),
    }));
    synth.template.hasResourceProperties('AWS::ApiGateway::RestApi', { DisableExecuteApiEndpoint: true });
    synth.template.hasResourceProperties('AWS::ApiGateway::DomainName', { DomainName: 'whatsapp.example.com', SecurityPolicy: 'TLS_1_2', EndpointConfiguration: { Types: ['REGIONAL'] } });
    synth.template.hasOutput(webhookUrlOutput, { Value: 'https://whatsapp.example.com/' });
  });

  test('a web ACL of yours is associated instead of a new one', () => {
    const synth = synthPipeline({ webhookFrontDoor: WebhookFrontDoor.apiGateway({ webAclArn: WEB_ACL_ARN }) });
    synth.template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    synth.template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', { WebACLArn: WEB_ACL_ARN });
  });

  test('wafRules replace the managed rule groups', () => {
    const rule = { name: 'OnlyBrazil', priority: 0, action: { block: {} }, statement: { notStatement: { statement: { geoMatchStatement: { countryCodes: ['BR', 'US'] } } } }, visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled: true, metricName: 'only-brazil' } };
    const synth = synthPipeline({ webhookFrontDoor: WebhookFrontDoor.apiGateway({ wafRules: [rule] }) });
    synth.template.hasResourceProperties('AWS::WAFv2::WebACL', { Rules: [Match.objectLike({ Name: 'OnlyBrazil' })] });
  });

  test.each([
    ['a domain without certificate', { webhookFrontDoor: WebhookFrontDoor.apiGateway({ domainName: 'whatsapp.example.com' }) }, /takes domainName and certificate together/],
    ['webAclArn with wafRules', { webhookFrontDoor: WebhookFrontDoor.apiGateway({ webAclArn: WEB_ACL_ARN, wafRules: [] }) }, /takes webAclArn or wafRules, not both/],
    ['a throttling rate of 0', { webhookFrontDoor: WebhookFrontDoor.apiGateway({ throttlingRateLimit: 0 }) }, /throttlingRateLimit must be a whole number from 1/],
    [
      'End User Messaging',
      {
        webhookFrontDoor: WebhookFrontDoor.apiGateway(),
        channel: WhatsAppChannel.endUserMessaging({ phoneNumbers: [{ id: 'phone-number-id-976c72a700aac43eaf573ae050example', metaPhoneNumberId: '106540352242922' }] }),
      },
      /webhookFrontDoor belongs to the Cloud API channel/,
    ],
  ])('%s is refused', (_name, props, message) => {
    expect(() => synthPipeline(props)).toThrow(message);
  });
});
