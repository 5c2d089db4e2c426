// Run in a process of its own on another aws-cdk-lib release (on-cdk-release.cjs preloaded): the
// AWS Solutions and Serverless packs, cdk-nag 3 and 2, over the reference stacks and the API Gateway
// front door, and what the release offers as its newest Node.js runtime. Prints one JSON report.
import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AgentBackend, AgentPipeline, WebhookFrontDoor } from '../../../lib';
import { NAG_PACKS, nagV2Findings, nagV3Findings } from '../nag-packs';
import { referenceStacks } from '../reference-stacks';

/** The apps checked: the four reference stacks, and a pipeline behind the API Gateway front door. */
function apps(): { app: App; stacks: Stack[] }[] {
  const reference = referenceStacks();
  const frontDoor = new App();
  const stack = new Stack(frontDoor, 'FrontDoor');
  new AgentPipeline(stack, 'Pipeline', { environment: 'front-door', agentBackend: AgentBackend.scripted(), webhookFrontDoor: WebhookFrontDoor.apiGateway() });
  return [
    { app: reference.app, stacks: Object.values(reference.stacks) },
    { app: frontDoor, stacks: [stack] },
  ];
}

const findings: Record<string, string[]> = {};
for (const name of ['AWS Solutions', 'Serverless']) {
  const pack = NAG_PACKS[name];
  findings[`${name}, cdk-nag 3`] = apps().flatMap(({ app }) => nagV3Findings(app, pack)).map(({ rule, path }) => `${rule} at ${path}`);
  findings[`${name}, cdk-nag 2`] = apps().flatMap(({ app, stacks }) => nagV2Findings(app, stacks, pack)).map(({ rule, path }) => `${rule} at ${path}`);
}

// Each function of the reference stacks, with the latest-runtime rules its cdk-nag 2 metadata acknowledges.
const functions = apps().flatMap(({ stacks }) =>
  stacks.flatMap((stack) => stack.node.findAll().filter((construct): construct is lambda.CfnFunction => construct instanceof lambda.CfnFunction && construct.runtime !== undefined)),
);
const acknowledged = (fn: lambda.CfnFunction) =>
  ((fn.getMetadata('cdk_nag')?.rules_to_suppress ?? []) as { id: string }[]).map((rule) => rule.id).filter((id) => ['AwsSolutions-L1', 'Serverless-LambdaLatestVersion'].includes(id));

process.stdout.write(
  JSON.stringify({
    awsCdkLib: require('aws-cdk-lib/package.json').version,
    nodeRuntimes: lambda.Runtime.ALL.filter((runtime) => runtime.family === lambda.RuntimeFamily.NODEJS).map((runtime) => runtime.name),
    functionRuntimes: [...new Set(functions.map((fn) => fn.runtime))],
    runtimeAcknowledgements: [...new Set(functions.map((fn) => acknowledged(fn).join(' + ')))],
    findings,
  }),
);
