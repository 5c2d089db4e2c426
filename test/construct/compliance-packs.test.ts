// Every rule pack cdk-nag ships, on a full pipeline of each channel and the example app's two
// stacks: no finding is left unacknowledged, with cdk-nag 3 and with cdk-nag 2; what was fixed
// rather than acknowledged stays fixed. docs/COMPLIANCE.md has the counts and every reason.
import { App, Stack } from 'aws-cdk-lib';
import * as backup from 'aws-cdk-lib/aws-backup';
import { AgentBackend, AgentPipeline, WebhookFrontDoor, WhatsAppChannel } from '../../lib';
import { NAG_PACKS, nagV2Findings, nagV3Findings } from '../support/nag-packs';
import { referenceStacks } from '../support/reference-stacks';

describe.each(Object.entries(NAG_PACKS))('cdk-nag pack %s', (_name, pack) => {
  test('cdk-nag 3: no unacknowledged finding on the four stacks', () => {
    const { app } = referenceStacks();
    expect(nagV3Findings(app, pack)).toEqual([]);
  });

  test('cdk-nag 2: no unsuppressed error or warning on the four stacks', () => {
    const { app, stacks } = referenceStacks();
    expect(nagV2Findings(app, Object.values(stacks), pack)).toEqual([]);
  });
});

/** A pipeline whose webhook is behind the API Gateway front door with its own web ACL. */
function frontDoorApp(): { app: App; stack: Stack } {
  const app = new App();
  const stack = new Stack(app, 'FrontDoor');
  new AgentPipeline(stack, 'Pipeline', { environment: 'front-door', agentBackend: AgentBackend.scripted(), webhookFrontDoor: WebhookFrontDoor.apiGateway() });
  return { app, stack };
}

describe.each(Object.entries(NAG_PACKS))('cdk-nag pack %s on the API Gateway front door', (_name, pack) => {
  test('cdk-nag 3: no unacknowledged finding', () => {
    expect(nagV3Findings(frontDoorApp().app, pack)).toEqual([]);
  });

  test('cdk-nag 2: no unsuppressed error or warning', () => {
    const { app, stack } = frontDoorApp();
    expect(nagV2Findings(app, [stack], pack)).toEqual([]);
  });
});

describe('what was fixed, not acknowledged', () => {
  const reported = (app: App, prefix: string) => nagV3Findings(app, { ...Object.values(NAG_PACKS).find((pack) => pack.prefix === prefix)! }, { ignoringAcknowledgements: true });

  test('the operator function has reserved concurrency: no pack reports it', () => {
    const { app } = referenceStacks();
    for (const prefix of ['NIST.800.53.R5', 'HIPAA.Security']) {
      expect(reported(app, prefix).filter((finding) => finding.rule.endsWith('LambdaConcurrency') && finding.path.includes('/OperatorFunction/'))).toEqual([]);
    }
  });

  test('with backupPlan the table is in an AWS Backup plan; without, the finding is acknowledged, not hidden', () => {
    const app = new App();
    const withPlan = new Stack(app, 'WithPlan');
    new AgentPipeline(withPlan, 'Pipeline', { environment: 'with-plan', agentBackend: AgentBackend.scripted(), backupPlan: backup.BackupPlan.daily35DayRetention(withPlan, 'Plan') });
    new AgentPipeline(new Stack(app, 'WithoutPlan'), 'Pipeline', { environment: 'without-plan', agentBackend: AgentBackend.scripted() });
    expect(reported(app, 'NIST.800.53.R5').filter((finding) => finding.rule.endsWith('DynamoDBInBackupPlan')).map((finding) => finding.path)).toEqual(['WithoutPlan/Pipeline/Table/Resource']);
  });

  test('the End User Messaging subscription parks what SNS cannot deliver: no redrive finding on it', () => {
    const app = new App();
    new AgentPipeline(new Stack(app, 'Eum'), 'Pipeline', {
      environment: 'eum',
      agentBackend: AgentBackend.scripted(),
      channel: WhatsAppChannel.endUserMessaging({ phoneNumbers: [{ id: 'phone-number-id-976c72a700aac43eaf573ae050example', metaPhoneNumberId: '106540352242922' }] }),
    });
    expect(reported(app, 'Serverless').filter((finding) => finding.rule === 'Serverless-SNSRedrivePolicy')).toEqual([]);
  });

  test('a finding the consumer can fix with a prop is acknowledged only while it is unset', () => {
    const app = new App();
    const stack = new Stack(app, 'Capped');
    new AgentPipeline(stack, 'Pipeline', { environment: 'capped', agentBackend: AgentBackend.scripted(), webhookReservedConcurrency: 20 });
    const webhook = reported(app, 'NIST.800.53.R5').filter((finding) => finding.path.startsWith('Capped/Pipeline/WebhookFunction/'));
    expect(webhook.map((finding) => finding.rule)).not.toContain('NIST.800.53.R5-LambdaConcurrency');
  });
});

test('the front door is associated with a web ACL and has no Function URL: no pack reports a missing WAF or a public function', () => {
  const { app } = frontDoorApp();
  const reported = Object.values(NAG_PACKS).flatMap((pack) => nagV3Findings(app, pack, { ignoringAcknowledgements: true }));
  expect(reported.filter((finding) => /APIG3|APIGWAssociatedWithWAF|LambdaFunctionPublicAccessProhibited|LambdaFunctionUrlAuth/.test(finding.rule))).toEqual([]);
});
