// The configuration conformance, the counterpart of the permission conformance: for every deployment
// variant the permission check synthesizes, what each synthesized function is told — the variables
// of its template resource and the settings document staged in its asset — is what the deployment
// plan gives it (lib/contract/deployment-plan.ts), its own reader accepts it with the variables as
// CloudFormation would resolve them, and the local runtime's plan for the same options tells it the
// same, names aside.
import { type DeploymentPlan, documentSettingsOf, FUNCTION_VARIABLES, type PipelineFunction, PIPELINE_FUNCTIONS, RUNTIME_ENV } from '../../lib/contract';
import { KeyLayout } from '../../lib/contract/key-layout';
import { SETTINGS_READERS } from '../../lambda/composition/read-settings';
import type { DeploymentVariant } from '../../local/runtime/function-principals';
import type { LocalPipelineOptions } from '../../local/runtime/local-pipeline-options';
import { LOCAL_ENV, localPlan } from '../../local/runtime/local-plan';
import { CONFORMANCE_LOCAL_AGENT } from '../support/permissions/conformance-agent';
import { CONFORMANCE_PLACE } from '../support/permissions/deployment-permissions';
import { type FunctionsTold, type SynthesizedDeployment, VARIANTS } from '../support/permissions/deployment-variants';
import { synthesizeDeployment, VARIANT_ADMIN, VARIANT_AGENT, VARIANT_REENGAGEMENT } from '../support/permissions/synthesize-deployment';
import { TemplateIntrinsics } from '../support/permissions/template-intrinsics';
import { variantName } from '../../local/runtime/function-principals';

/** Locally nothing traces (there is no X-Ray daemon), where the construct traces by default: the one variable that differs by design. */
const TRACING_ONLY = [RUNTIME_ENV.traceEnabled];

/** The options the local runtime plays the variant with: what synthesize-deployment.ts gives the construct. */
function localOptionsOf(variant: DeploymentVariant): LocalPipelineOptions {
  return {
    channel: variant.channel,
    ...(variant.operatorPlane && {
      adminPhoneNumbers: [VARIANT_ADMIN],
      idleSweep: { reengagement: { template: { ...VARIANT_REENGAGEMENT.template }, afterMs: VARIANT_REENGAGEMENT.after.toMilliseconds() } },
    }),
    // The local runtime has a CRM webhook only: a variant with the CRM function is compared without its worker.
    ...(variant.crmSync !== 'off' && { crmSync: {} }),
    ...(variant.keyLayoutMigration && { keyLayout: KeyLayout.MIGRATING }),
    ...(variant.pipelineBudget && { pipelineBudget: { agentTokensPerDay: 1_000_000 } }),
    transcription: { languageCode: 'pt-BR', transcripts: new Map() },
    bedrockAgent: CONFORMANCE_LOCAL_AGENT,
  };
}

/** The local runtime's plan for the variant, on local names. */
function localPlanOf(variant: DeploymentVariant): DeploymentPlan {
  const agent = { [LOCAL_ENV.agentBackend]: 'bedrock', [LOCAL_ENV.bedrockModelId]: VARIANT_AGENT.modelId, [LOCAL_ENV.bedrockKnowledgeBaseId]: VARIANT_AGENT.knowledgeBaseId };
  return localPlan(localOptionsOf(variant), agent, {
    tableName: 'local-table',
    turnQueueUrl: 'http://127.0.0.1:9/000000000000/turns.fifo',
    deadLetterQueueUrl: 'http://127.0.0.1:9/000000000000/dead-letters.fifo',
    whatsAppApiBaseUrl: 'http://127.0.0.1:9/v23.0',
    whatsAppBusinessAccountId: '100000000000001',
    crmWebhookUrl: 'http://127.0.0.1:9/crm',
    mediaBucketName: 'local-media',
    consoleUrl: 'http://127.0.0.1:9',
  });
}

/**
 * Where what the synthesized functions are told departs from the plan, from what their readers take,
 * or from what the local runtime tells its functions for the same options; empty when it conforms.
 */
function conformanceProblems(variant: DeploymentVariant, deployment: Pick<SynthesizedDeployment, 'template' | 'stackName'>, told: FunctionsTold): string[] {
  const problems: string[] = [];
  const intrinsics = new TemplateIntrinsics(deployment.template, { ...CONFORMANCE_PLACE, stackName: deployment.stackName });
  const local = localPlanOf(variant);
  const expected = PIPELINE_FUNCTIONS.filter((fn) => local[fn] !== undefined);
  if (JSON.stringify(Object.keys(told).sort()) !== JSON.stringify([...expected].sort())) problems.push(`functions: ${Object.keys(told).sort().join(', ')}; the plan has ${[...expected].sort().join(', ')}`);
  for (const fn of expected) {
    const synthesized = told[fn];
    if (synthesized === undefined) continue;
    const document = synthesized.document as Record<string, unknown>;
    const settings: readonly string[] = documentSettingsOf(fn);
    const missing = settings.filter((name) => !(name in document));
    const strangers = Object.keys(document).filter((name) => !settings.includes(name));
    if (missing.length + strangers.length > 0) problems.push(`${fn}: its document lacks ${missing.join(', ') || 'nothing'} and holds ${strangers.join(', ') || 'nothing'} besides its settings`);
    const strangeVariables = Object.keys(synthesized.environment).filter((name) => !FUNCTION_VARIABLES[fn].includes(name));
    if (strangeVariables.length > 0) problems.push(`${fn}: its environment holds ${strangeVariables.join(', ')}, which the plan never gives it`);
    try {
      SETTINGS_READERS[fn]({ environment: intrinsics.resolve(synthesized.environment) as Record<string, string>, document });
    } catch (error) {
      problems.push(`${fn}: its reader refuses what it is told: ${(error as Error).message}`);
    }
    // The local runtime plays the CRM webhook only: the worker of a variant with the CRM function has nothing to compare with.
    const localTold = fn === 'crm-sync' && variant.crmSync === 'function' ? undefined : local[fn];
    if (localTold === undefined) continue;
    if (JSON.stringify(document) !== JSON.stringify(localTold.document)) problems.push(`${fn}: its settings differ from the local runtime's: ${JSON.stringify(document)} against ${JSON.stringify(localTold.document)}`);
    const variables = (environment: Readonly<Record<string, unknown>>) => Object.keys(environment).filter((name) => !TRACING_ONLY.includes(name as never)).sort().join(', ');
    if (variables(synthesized.environment) !== variables(localTold.environment)) problems.push(`${fn}: its variables are ${variables(synthesized.environment)}; the local runtime's are ${variables(localTold.environment)}`);
  }
  return problems;
}

describe.each(VARIANTS.map((variant) => [variantName(variant), variant] as const))('%s', (_name, variant) => {
  test('every function is told what the plan gives it, its reader takes it, and the local runtime tells its function the same', () => {
    const deployment = synthesizeDeployment(variant);
    expect(conformanceProblems(variant, deployment, deployment.told)).toEqual([]);
  }, 120_000);
});

describe('the check itself', () => {
  const variant: DeploymentVariant = { channel: 'cloud-api', operatorPlane: true, crmSync: 'webhook' };
  let deployment: ReturnType<typeof synthesizeDeployment>;
  beforeAll(() => {
    deployment = synthesizeDeployment(variant);
  }, 120_000);

  /** What the functions are told with one setting taken from one function. */
  function dropped(fn: PipelineFunction, from: 'environment' | 'document', setting: string): FunctionsTold {
    const { [setting]: _dropped, ...rest } = deployment.told[fn][from] as Record<string, unknown>;
    return { ...deployment.told, [fn]: { ...deployment.told[fn], [from]: rest } };
  }

  test.each([
    ['orchestrator', 'document', 'fallbackText'],
    ['handoff-sweeper', 'document', 'handoffs'],
    ['webhook', 'document', 'keyLayout'],
    ['orchestrator', 'environment', RUNTIME_ENV.consoleUrl],
    ['crm-sync', 'environment', RUNTIME_ENV.crmWebhookSecretArn],
    ['evaluator', 'document', 'agent'],
    ['operator', 'environment', RUNTIME_ENV.evaluatorFunctionName],
  ] as const)('fails when the %s is not told its %s setting %s, naming it', (fn, from, setting) => {
    const problems = conformanceProblems(variant, deployment, dropped(fn, from, setting));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((problem) => problem.startsWith(`${fn}: `))).toBe(true);
    expect(problems.join('\n')).toContain(setting);
    process.stdout.write(`${fn} without ${setting}:\n  ${problems.join('\n  ')}\n`);
  });

  test('fails when a function is told a variable the plan never gives it', () => {
    const told = { ...deployment.told, 'idle-sweeper': { ...deployment.told['idle-sweeper'], environment: { ...deployment.told['idle-sweeper'].environment, AGENT_SYSTEM_PROMPT: 'x' } } };
    expect(conformanceProblems(variant, deployment, told)).toContain('idle-sweeper: its environment holds AGENT_SYSTEM_PROMPT, which the plan never gives it');
  });
});
