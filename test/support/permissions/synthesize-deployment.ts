// Run as a child process of the permission check (tsx): reads one deployment variant name per line
// on stdin, synthesizes that pipeline and writes one JSON line per variant on stdout. A process of
// its own, so synthesizing never stalls the proxy that the running suites talk to.
import { createInterface } from 'node:readline';
import { App, type CfnElement, Duration, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { IConstruct } from 'constructs';
import { AgentBackend, AgentPipeline, CrmTarget, KeyLayout, WhatsAppChannel } from '../../../lib';
import { LOCAL_LINKED_BUSINESS_ACCOUNT_ID } from '../../../local/fake-whatsapp/fake-end-user-messaging';
import { LOCAL_ORIGINATION_PHONE_NUMBER_ID } from '../../../local/runtime/end-user-messaging-event';
import { type DeploymentVariant, type PipelinePrincipal, variantName } from '../../../local/runtime/function-principals';
import { LOCAL_BUSINESS } from '../../../local/runtime/meta-notification';
import { consumerCrmFunction } from '../synthesized-pipeline';
import { CONFORMANCE_ENVIRONMENT, type SynthesizedDeployment, VARIANTS } from './deployment-variants';

/** The pipeline of `variant`, always with a customer managed key, and the roles of the operator tools beside it. */
export function synthesizeDeployment(variant: DeploymentVariant): SynthesizedDeployment {
  const stack = new Stack(new App(), 'Conformance');
  const encryptionKey = new kms.Key(stack, 'DataKey', { enableKeyRotation: true });
  const crmWebhookSecret = variant.crmSync === 'webhook' ? new secretsmanager.Secret(stack, 'CrmWebhookSecret') : undefined;
  const pipeline = new AgentPipeline(stack, 'Pipeline', {
    environment: CONFORMANCE_ENVIRONMENT,
    agentBackend: AgentBackend.scripted(),
    encryptionKey,
    ...(variant.channel === 'end-user-messaging'
      ? { channel: WhatsAppChannel.endUserMessaging({ phoneNumbers: [{ id: LOCAL_ORIGINATION_PHONE_NUMBER_ID, metaPhoneNumberId: LOCAL_BUSINESS.businessPhoneNumberId }] }) }
      : { phoneNumberIds: [LOCAL_BUSINESS.businessPhoneNumberId] }),
    // The plane's variants re-engage customers who went quiet (the idle sweeper's widest role) and, as the
    // local runtime syncs, read the linked account's templates on End User Messaging (the Graph API's sync needs no grant).
    ...(variant.operatorPlane
      ? {
          adminPhoneNumbers: ['5511900000000'],
          messageTemplates: {
            reengagement: { template: { name: 'retomar_conversa', language: 'pt_BR' }, after: Duration.hours(4) },
            ...(variant.channel === 'end-user-messaging' ? { businessAccountId: LOCAL_LINKED_BUSINESS_ACCOUNT_ID } : {}),
          },
        }
      : {}),
    ...(crmWebhookSecret ? { crmSync: CrmTarget.webhook({ url: 'https://crm.example.com/pipeline', secret: crmWebhookSecret }) } : {}),
    ...(variant.crmSync === 'function' ? { crmSync: CrmTarget.fromFunction(consumerCrmFunction(stack)) } : {}),
    ...(variant.keyLayoutMigration ? { keyLayout: KeyLayout.MIGRATING } : {}),
    ...(variant.pipelineBudget ? { pipelineBudget: { agentTokensPerDay: 1_000_000 } } : {}),
    // Every variant transcribes voice notes, the orchestrator's widest role: off, it has fewer grants and makes no such call.
    media: { transcription: { languageCode: 'pt-BR' } },
  });
  const redriveRole = new iam.Role(stack, 'RedriveRole', { assumedBy: new iam.AccountRootPrincipal() });
  pipeline.grantRedrive(redriveRole);
  // The erase and export commands' role, once the construct offers a grant for it.
  const dataRights = (pipeline as unknown as { grantCustomerDataRights?: (grantee: iam.IGrantable) => unknown }).grantCustomerDataRights;
  const customerDataRole = dataRights ? new iam.Role(stack, 'CustomerDataRole', { assumedBy: new iam.AccountRootPrincipal() }) : undefined;
  if (customerDataRole) dataRights!.call(pipeline, customerDataRole);

  const logicalId = (construct: IConstruct | undefined) => (construct === undefined ? undefined : stack.getLogicalId(construct.node.defaultChild as CfnElement));
  const roles: Partial<Record<PipelinePrincipal, string | undefined>> = {
    [variant.channel === 'end-user-messaging' ? 'eum-inbound' : 'webhook']: logicalId(pipeline.webhookFunction.role),
    'orchestrator': logicalId(pipeline.orchestratorFunction.role),
    'operator': logicalId(pipeline.operatorFunction?.role),
    'handoff-sweeper': logicalId(pipeline.handoffSweeperFunction?.role),
    'idle-sweeper': logicalId(pipeline.idleSweeperFunction.role),
    'crm-sync': logicalId(pipeline.crmSyncFunction?.role),
    'redrive': stack.getLogicalId(redriveRole.node.defaultChild as CfnElement),
    'customer-data': customerDataRole && stack.getLogicalId(customerDataRole.node.defaultChild as CfnElement),
  };
  return {
    variant: variantName(variant),
    stackName: stack.stackName,
    template: Template.fromStack(stack).toJSON() as SynthesizedDeployment['template'],
    roles: Object.fromEntries(Object.entries(roles).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    resources: {
      table: logicalId(pipeline.table)!,
      turnQueue: logicalId(pipeline.queue)!,
      deadLetterQueue: logicalId(pipeline.deadLetterQueue)!,
      inboundDeadLetterQueue: logicalId(pipeline.inboundDeadLetterQueue),
      whatsAppSecret: pipeline.whatsAppSecret && logicalId(pipeline.whatsAppSecret),
      crmWebhookSecret: logicalId(crmWebhookSecret),
      mediaBucket: logicalId(pipeline.mediaBucket),
    },
  };
}

if (require.main === module) {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (name) => {
    const variant = VARIANTS.find((candidate) => variantName(candidate) === name.trim());
    try {
      if (variant === undefined) throw new Error(`No deployment variant named ${name}`);
      process.stdout.write(`${JSON.stringify(synthesizeDeployment(variant))}\n`);
    } catch (error) {
      process.stdout.write(`${JSON.stringify({ variant: name.trim(), error: (error as Error).stack ?? String(error) })}\n`);
    }
  });
}
