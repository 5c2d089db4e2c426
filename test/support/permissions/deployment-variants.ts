import { type CrmSyncKind, type DeploymentVariant } from '../../../local/runtime/function-principals';

/** The stage every variant is synthesized as. */
export const CONFORMANCE_ENVIRONMENT = 'conformance';

/** Every deployment whose roles differ: channel × operator plane × CRM sync × the key layout's migration × the pipeline budget. */
export const VARIANTS: readonly DeploymentVariant[] = (['cloud-api', 'end-user-messaging'] as const).flatMap((channel) =>
  [false, true].flatMap((operatorPlane) =>
    (['off', 'webhook', 'function'] as readonly CrmSyncKind[]).flatMap((crmSync) =>
      [false, true].flatMap((keyLayoutMigration) => [false, true].map((pipelineBudget) => ({ channel, operatorPlane, crmSync, keyLayoutMigration, pipelineBudget }))),
    ),
  ),
);

/** A synthesized variant: its template, which role each principal has, and the logical ids of the resources the requests name. */
export interface SynthesizedDeployment {
  readonly variant: string;
  readonly stackName: string;
  readonly template: CloudFormationTemplate;
  /** Principal → logical id of its role. */
  readonly roles: Readonly<Record<string, string>>;
  readonly resources: {
    readonly table: string;
    readonly turnQueue: string;
    readonly deadLetterQueue: string;
    readonly inboundDeadLetterQueue?: string;
    readonly whatsAppSecret?: string;
    readonly crmWebhookSecret?: string;
    readonly mediaBucket?: string;
  };
}

export interface CloudFormationTemplate {
  readonly Resources: Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }>;
  readonly [section: string]: unknown;
}

/** Function principal → what it is told: its variables as the template has them, and its staged settings document. */
export type FunctionsTold = Readonly<Record<string, { readonly environment: Readonly<Record<string, unknown>>; readonly document: unknown }>>;
