import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '@jest/types';
import { LocalServer, startDynamoDbLocal, startSqsEmulator } from '../../local/servers/local-servers';
import { DeploymentSource } from './permissions/deployment-source';
import { type EnforcingProxy, startEnforcingProxy } from './permissions/enforcing-proxy';
import { LOCAL_SERVER_ENDPOINT_VARIABLES, PERMISSION_CHECK_URL_VARIABLE } from './permissions/function-principals';
import { PermissionEvaluator } from './permissions/permission-evaluator';

/** What the global teardown stops and reports on. */
export interface RunServers {
  readonly servers: LocalServer[];
  readonly proxy: EnforcingProxy;
  readonly deployments: DeploymentSource;
  readonly evaluator: PermissionEvaluator;
  /** No test path or name filter: every suite ran, so every coverage requirement applies. */
  readonly wholeRun: boolean;
  /** The run's temporary directory, removed after it. */
  readonly temporaryDirectory: string;
}

declare global {
  // eslint-disable-next-line no-var
  var __runServers: RunServers | undefined;
}

/**
 * Starts the shared DynamoDB Local and SQS emulator once per jest run, behind the proxy that checks
 * every request of a pipeline principal against its role in the synthesized stack; workers inherit
 * the env, which points the SDK at the proxy.
 */
export default async function globalSetup(globalConfig: Config.GlobalConfig): Promise<void> {
  // Every synthesis without an outdir stages the functions' assets in a new `cdk.out*` of the
  // temporary directory and never removes it (about 12 MB each, a thousand per run): the workers
  // inherit a directory of the run's own, which the teardown removes.
  const temporaryDirectory = mkdtempSync(join(tmpdir(), 'agent-pipeline-tests-'));
  process.env.TMPDIR = temporaryDirectory;
  const [dynamodb, sqs] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
  const deployments = new DeploymentSource();
  const evaluator = new PermissionEvaluator((variant) => deployments.get(variant));
  const proxy = await startEnforcingProxy({ dynamoDb: dynamodb.endpoint, sqs: sqs.endpoint }, evaluator);
  // The variant most suites run, synthesized while the workers start.
  void deployments.get('cloud-api-noplane-crm-off').catch(() => undefined);
  globalThis.__runServers = {
    servers: [dynamodb, sqs],
    proxy,
    deployments,
    evaluator,
    temporaryDirectory,
    wholeRun: !globalConfig.testPathPatterns.isSet() && globalConfig.testNamePattern === undefined && !globalConfig.onlyChanged && !globalConfig.findRelatedTests,
  };
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: proxy.dynamoDbEndpoint,
    AWS_ENDPOINT_URL_SQS: proxy.sqsEndpoint,
    // The SQS emulator (fauxqs) serves S3 on the same port: the media bucket's stand-in, behind the
    // proxy like its queues. Suites isolate themselves by bucket.
    AWS_ENDPOINT_URL_S3: proxy.s3Endpoint,
    [PERMISSION_CHECK_URL_VARIABLE]: proxy.checkEndpoint,
    // The servers behind the proxy, for the suites that test the servers themselves.
    [LOCAL_SERVER_ENDPOINT_VARIABLES.dynamoDb]: dynamodb.endpoint,
    [LOCAL_SERVER_ENDPOINT_VARIABLES.sqs]: sqs.endpoint,
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  });
}
