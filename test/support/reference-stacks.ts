// The stacks the compliance checks and the generated security docs are made from: a full pipeline
// on each channel — operator plane, CRM sync, a customer managed key, alarms to an encrypted topic —
// and the example app's dev and prod stacks (bin/example-stacks.ts). Environment-agnostic, so
// synthesizing them needs no AWS credentials.
import { App, Stack } from 'aws-cdk-lib';
import * as backup from 'aws-cdk-lib/aws-backup';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import { addExampleStacks } from '../../bin/example-stacks';
import { AgentBackend, AgentPipeline, type AgentPipelineProps, CrmTarget, WhatsAppChannel } from '../../lib';

export interface ReferenceStacks {
  readonly app: App;
  /** By the name the docs use. */
  readonly stacks: Readonly<Record<'cloudApi' | 'endUserMessaging' | 'dev' | 'prod', Stack>>;
  /** The full pipelines, whose roles the README's security table lists. */
  readonly cloudApi: AgentPipeline;
  readonly endUserMessaging: AgentPipeline;
}

/** A full pipeline (the four stacks' first two): everything on (a knowledge base and a cheaper memory model too), its data under a customer managed key, its alarms to an encrypted topic. */
export function fullPipeline(app: App, id: string, environment: string, props: Pick<AgentPipelineProps, 'channel' | 'phoneNumberIds' | 'keyLayout'> & { readonly crmSync: (stack: Stack) => CrmTarget }): { stack: Stack; pipeline: AgentPipeline } {
  const stack = new Stack(app, id);
  const encryptionKey = new kms.Key(stack, 'DataKey', { enableKeyRotation: true });
  const alarmKey = new kms.Key(stack, 'AlarmTopicKey', { enableKeyRotation: true });
  alarmKey.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey');
  const pipeline = new AgentPipeline(stack, 'Pipeline', {
    environment,
    agentBackend: AgentBackend.bedrock({
      modelId: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
      knowledgeBase: { knowledgeBaseId: 'KBPADARIA1' },
      memory: { modelId: 'us.anthropic.claude-3-5-haiku-20241022-v1:0' },
    }),
    adminPhoneNumbers: ['5511912345678'],
    encryptionKey,
    alarmTopic: new sns.Topic(stack, 'AlarmTopic', { masterKey: alarmKey, enforceSSL: true }),
    channel: props.channel,
    phoneNumberIds: props.phoneNumberIds,
    keyLayout: props.keyLayout,
    crmSync: props.crmSync(stack),
    backupPlan: backup.BackupPlan.daily35DayRetention(stack, 'Backup'),
    media: { transcription: { languageCode: 'pt-BR' } },
  });
  return { stack, pipeline };
}

export function referenceStacks(): ReferenceStacks {
  const app = new App();
  const cloudApi = fullPipeline(app, 'FullPipeline-CloudApi', 'cloud-api', {
    phoneNumberIds: ['106540352242922'],
    crmSync: (stack) =>
      CrmTarget.webhook({
        url: 'https://crm.example.com/hooks/whatsapp',
        secret: secretsmanager.Secret.fromSecretCompleteArn(stack, 'CrmSecret', 'arn:aws:secretsmanager:us-east-1:123456789012:secret:crm-signing-AbCdEf'),
      }),
  });
  const endUserMessaging = fullPipeline(app, 'FullPipeline-EndUserMessaging', 'end-user-messaging', {
    channel: WhatsAppChannel.endUserMessaging({ phoneNumbers: [{ id: 'phone-number-id-976c72a700aac43eaf573ae050example', metaPhoneNumberId: '106540352242922' }] }),
    crmSync: (stack) => CrmTarget.fromFunction(lambda.Function.fromFunctionName(stack, 'CrmWriter', 'crm-writer')),
  });
  const { dev, prod } = addExampleStacks(app);
  return {
    app,
    stacks: { cloudApi: cloudApi.stack, endUserMessaging: endUserMessaging.stack, dev, prod },
    cloudApi: cloudApi.pipeline,
    endUserMessaging: endUserMessaging.pipeline,
  };
}
