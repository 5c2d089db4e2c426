// The construct on the newest aws-cdk-lib a consumer installs today, not only on the release this
// repository pins: cdk-nag's AWS Solutions and Serverless packs (3 and 2) leave nothing on the
// reference stacks and the API Gateway front door, in a process of its own where every aws-cdk-lib,
// constructs and cdk-nag import is that release's. The functions keep the Node.js runtime their
// bundles are tested on; where the release offers a newer one, the latest-runtime rules are
// acknowledged with the reason, and only there. Needs `npm run build` first (the compiled lib/).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { describeOnNewest } from '../support/newest-aws-cdk-lib';
import { repoRoot } from '../support/packed-package';
import { synthPipeline } from '../support/synthesized-pipeline';

jest.setTimeout(600_000);

/** The functions' runtime: the Node.js release CI runs the suite on (.ci/run). */
const FUNCTIONS_RUNTIME = 'nodejs24.x';
const LATEST_RUNTIME_RULES = 'AwsSolutions-L1 + Serverless-LambdaLatestVersion';

interface NagReport {
  readonly awsCdkLib: string;
  readonly nodeRuntimes: string[];
  readonly functionRuntimes: string[];
  readonly runtimeAcknowledgements: string[];
  readonly findings: Record<string, string[]>;
}

/** The newest Node.js runtime of a release's list, ordered as cdk-nag orders them. */
const newestOf = (runtimes: readonly string[]) => [...runtimes].sort((a, b) => a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' })).pop();

describeOnNewest('the construct on the newest aws-cdk-lib', (release) => {
  let report: NagReport;

  beforeAll(async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [path.join(repoRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs'), '--require', path.join(repoRoot, 'test', 'support', 'cdk-release', 'on-cdk-release.cjs'), path.join(repoRoot, 'test', 'support', 'cdk-release', 'nag-report.ts')],
      { cwd: repoRoot, env: { ...process.env, CDK_RELEASE_NODE_MODULES: release.nodeModules }, maxBuffer: 64 * 1024 * 1024 },
    );
    report = JSON.parse(stdout);
  });

  test('runs on that release, and the functions keep the runtime their bundles are tested on', () => {
    expect(report.awsCdkLib).toBe(release.version);
    expect(report.functionRuntimes).toEqual([FUNCTIONS_RUNTIME]);
  });

  test('AWS Solutions and Serverless, cdk-nag 3 and 2: no finding left', () => {
    expect(report.findings).toEqual({
      'AWS Solutions, cdk-nag 3': [],
      'AWS Solutions, cdk-nag 2': [],
      'Serverless, cdk-nag 3': [],
      'Serverless, cdk-nag 2': [],
    });
  });

  test('the latest-runtime rules are acknowledged on every function exactly when the release offers a newer Node.js runtime', () => {
    const offersNewer = newestOf(report.nodeRuntimes) !== FUNCTIONS_RUNTIME;
    expect(report.runtimeAcknowledgements).toEqual([offersNewer ? LATEST_RUNTIME_RULES : '']);
  });
});

test('on the pinned aws-cdk-lib, whose newest Node.js runtime the functions run, nothing about the runtime is acknowledged', () => {
  expect(newestOf(lambda.Runtime.ALL.filter((runtime) => runtime.family === lambda.RuntimeFamily.NODEJS).map((runtime) => runtime.name))).toBe(FUNCTIONS_RUNTIME);
  const { template } = synthPipeline();
  const suppressed = Object.values(template.findResources('AWS::Lambda::Function')).flatMap((fn) => (fn.Metadata?.cdk_nag?.rules_to_suppress ?? []).map((rule: { id: string }) => rule.id));
  expect(suppressed.length).toBeGreaterThan(0);
  expect(suppressed.filter((id: string) => /L1|LambdaLatestVersion/.test(id))).toEqual([]);
});
