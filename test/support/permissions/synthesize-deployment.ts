// Run as a child process of the permission check (tsx): reads one deployment variant name per line
// on stdin, synthesizes that pipeline and writes one JSON line per variant on stdout. A process of
// its own, so synthesizing never stalls the proxy that the running suites talk to.
import { createInterface } from 'node:readline';
import { App, type CfnElement, Duration, Stack, Stage } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type { IConstruct } from 'constructs';
import { AgentPipeline, CrmTarget, KeyLayout, WhatsAppChannel } from '../../../lib';
import { LOCAL_KNOWLEDGE_BASE_ID } from '../../../local/fake-bedrock/fake-knowledge-base';
import { LOCAL_LINKED_BUSINESS_ACCOUNT_ID } from '../../../local/fake-whatsapp/fake-end-user-messaging';
import { DEFAULT_BUSINESS } from '../../../local/fake-whatsapp/fake-graph-api';
import { LOCAL_ORIGINATION_PHONE_NUMBER_ID } from '../../../local/runtime/end-user-messaging-event';
import { type DeploymentVariant, type PipelinePrincipal, variantName } from '../../../local/runtime/function-principals';
import { LOCAL_BUSINESS } from '../../../local/runtime/meta-notification';
import { consumerCrmFunction, stagedDocument } from '../synthesized-pipeline';
import { conformanceAgent } from './conformance-agent';
import { CONFORMANCE_ENVIRONMENT, type FunctionsTold, type SynthesizedDeployment, VARIANTS } from './deployment-variants';

/** Every variant's agent: a Bedrock model searching the local knowledge base, the orchestrator's widest role (the scripted agent makes no AWS call). */
export const VARIANT_AGENT = { modelId: 'us.anthropic.claude-sonnet-4-20250514-v1:0', knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID } as const;

/** The admin every variant with the operator plane names. */
export const VARIANT_ADMIN = '5511900000000';
/** The re-engagement every variant with the operator plane turns on: the idle sweeper's widest role. */
export const VARIANT_REENGAGEMENT = { template: { name: 'retomar_conversa', language: 'pt_BR' }, after: Duration.hours(4) } as const;

/** The pipeline of `variant`, always with a customer managed key, the roles of the operator tools beside it, and what each of its functions is told. */
export function synthesizeDeployment(variant: DeploymentVariant): SynthesizedDeployment & { readonly told: FunctionsTold } {
  const stack = new Stack(new App(), 'Conformance');
  const encryptionKey = new kms.Key(stack, 'DataKey', { enableKeyRotation: true });
  const crmWebhookSecret = variant.crmSync === 'webhook' ? new secretsmanager.Secret(stack, 'CrmWebhookSecret') : undefined;
  const pipeline = new AgentPipeline(stack, 'Pipeline', {
    environment: CONFORMANCE_ENVIRONMENT,
    // The Bedrock agent with its knowledge base and tools, the orchestrator's widest role: the model's, the searches' and the tools' requests are checked too.
    agentBackend: conformanceAgent(stack, VARIANT_AGENT),
    encryptionKey,
    ...(variant.channel === 'end-user-messaging'
      ? { channel: WhatsAppChannel.endUserMessaging({ phoneNumbers: [{ id: LOCAL_ORIGINATION_PHONE_NUMBER_ID, metaPhoneNumberId: LOCAL_BUSINESS.businessPhoneNumberId }] }) }
      : { phoneNumberIds: [LOCAL_BUSINESS.businessPhoneNumberId] }),
    // The plane's variants re-engage customers who went quiet (the idle sweeper's widest role) and, as the
    // local runtime does, sync the templates of the fake Meta's account (End User Messaging's linked one grants the reads).
    ...(variant.operatorPlane
      ? {
          adminPhoneNumbers: [VARIANT_ADMIN],
          messageTemplates: {
            reengagement: VARIANT_REENGAGEMENT,
            businessAccountId: variant.channel === 'end-user-messaging' ? LOCAL_LINKED_BUSINESS_ACCOUNT_ID : DEFAULT_BUSINESS.businessAccountId,
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
  const template = Template.fromStack(stack).toJSON() as SynthesizedDeployment['template'];
  const functions: Partial<Record<PipelinePrincipal, lambda.IFunction>> = {
    [variant.channel === 'end-user-messaging' ? 'eum-inbound' : 'webhook']: pipeline.webhookFunction,
    'orchestrator': pipeline.orchestratorFunction,
    'operator': pipeline.operatorFunction,
    'handoff-sweeper': pipeline.handoffSweeperFunction,
    'idle-sweeper': pipeline.idleSweeperFunction,
    'crm-sync': pipeline.crmSyncFunction,
    'evaluator': pipeline.evaluatorFunction,
  };
  // What each function is told: its template resource's variables, and the settings document staged in its asset.
  const told = Object.fromEntries(
    Object.entries(functions).flatMap(([principal, fn]) => {
      if (fn === undefined) return [];
      const properties = template.Resources[logicalId(fn)!].Properties ?? {};
      const environment = (properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      return [[principal, { environment, document: stagedDocument(Stage.of(stack)!.outdir, properties.Code as { S3Key: string }) }]];
    }),
  );
  const roles: Partial<Record<PipelinePrincipal, string | undefined>> = {
    [variant.channel === 'end-user-messaging' ? 'eum-inbound' : 'webhook']: logicalId(pipeline.webhookFunction.role),
    'orchestrator': logicalId(pipeline.orchestratorFunction.role),
    'operator': logicalId(pipeline.operatorFunction?.role),
    'handoff-sweeper': logicalId(pipeline.handoffSweeperFunction?.role),
    'idle-sweeper': logicalId(pipeline.idleSweeperFunction.role),
    'crm-sync': logicalId(pipeline.crmSyncFunction?.role),
    'evaluator': logicalId(pipeline.evaluatorFunction?.role),
    'redrive': stack.getLogicalId(redriveRole.node.defaultChild as CfnElement),
    'customer-data': customerDataRole && stack.getLogicalId(customerDataRole.node.defaultChild as CfnElement),
  };
  return {
    variant: variantName(variant),
    stackName: stack.stackName,
    template,
    told,
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
