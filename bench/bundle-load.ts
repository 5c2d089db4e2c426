/**
 * Size of the pre-bundled Lambda assets and what loading them costs: the median wall time and RSS of
 * `node` requiring the bundle, against an empty `node` process, measured in the same run; and a cold
 * start: from spawning `node` to the handler's answer to a first event that needs no remote call
 * (the webhook: a method it refuses; the orchestrator: a record without a customer; the operator: an
 * API call without a session; the evaluator: a suite whose scenario breaks the format), which includes composing the function (clients, repositories,
 * Powertools) as Lambda's first invocation does — once with tracing off, once as Lambda traces (the
 * tracer and the X-Ray SDK, `tracer.js` beside the handler, loaded; segments go to a closed port on
 * 127.0.0.1), and, for the functions with a media file, once with media on (the deployment's bucket
 * set: the first event still loads no `media.js`) and once loading `media.js` too, as the first
 * attachment does; and, for the operator, once loading `scenario-format.js` too (the scenario format's
 * checker: Ajv and the schema, compiled), as the first scenario an admin saves does. The handler's
 * size is `index.js` and the parts it requires at its top.
 *
 *   npm run bundle && npx tsx bench/bundle-load.ts [runs=21]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { AGENT_BACKEND_KINDS, type DeploymentOptions, type FunctionSettings, PIPELINE_DEFAULTS, WHATSAPP_CHANNEL_KINDS, writeDeploymentPlan } from '../lib/contract';
import { stagedFunctionAsset } from '../lib/private/function-assets';

const FUNCTIONS = ['webhook', 'orchestrator', 'operator', 'evaluator'] as const;

/** The deployment played, with placeholder names: nothing here is reached by the first events below. */
const DEPLOYMENT: DeploymentOptions = {
  resources: {
    tableName: 'bench-table',
    turnQueueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench.fifo',
    deadLetterQueueUrl: 'https://sqs.us-east-1.amazonaws.com/000000000000/bench-dlq.fifo',
  },
  observability: { serviceName: 'bench-table', metricsNamespace: PIPELINE_DEFAULTS.serviceName, logLevel: 'SILENT', tracing: true },
  channel: { kind: WHATSAPP_CHANNEL_KINDS.cloudApi, whatsAppSecretArn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:bench' },
  agent: { backend: AGENT_BACKEND_KINDS.bedrock, modelId: 'amazon.nova-micro-v1:0' },
  operatorPlane: { adminPhoneNumbers: ['5511999990000'], consoleUrl: 'https://console.example.com', evaluatorFunctionName: 'bench-evaluator' },
};

/** What the construct stages and sets for each function, without media and with it (`media` on). */
const told = { off: writeDeploymentPlan(DEPLOYMENT), on: writeDeploymentPlan({ ...DEPLOYMENT, media: { bucketName: 'bench-media' } }) };
const settingsOf = (name: (typeof FUNCTIONS)[number], media: keyof typeof told) => told[media][name] as FunctionSettings;
/** The folders the construct deploys: each handler with the shared tracer beside it, and its settings. */
const assets = new Map(FUNCTIONS.map((name) => [name, stagedFunctionAsset(name, settingsOf(name, 'off').document)]));
const mediaAssets = new Map(FUNCTIONS.map((name) => [name, stagedFunctionAsset(name, settingsOf(name, 'on').document)]));

interface LoadSample {
  readonly ms: number;
  readonly rssMb: number;
}

/** What Lambda gives every function besides the construct's variables. */
const LAMBDA_ENV = { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'bench', AWS_SECRET_ACCESS_KEY: 'bench', POWERTOOLS_METRICS_DISABLED: 'true' };
const functionEnv = (name: (typeof FUNCTIONS)[number], media: keyof typeof told) => ({ ...LAMBDA_ENV, ...settingsOf(name, media).environment });

const MEDIA_FILE = 'media.js';
const SCENARIO_FORMAT_FILE = 'scenario-format.js';

/** What Lambda sets when it traces the function: the X-Ray SDK's Lambda mode with a sampled trace. */
const LAMBDA_TRACING_ENV = {
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  _X_AMZN_TRACE_ID: 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
  AWS_XRAY_DAEMON_ADDRESS: '127.0.0.1:2000',
};

const FIRST_EVENTS: Record<string, string> = {
  webhook: `{ version: '2.0', rawPath: '/', headers: {}, requestContext: { http: { method: 'PUT' } } }`,
  orchestrator: `{ Records: [{ messageId: 'cold', body: '{}', attributes: { ApproximateReceiveCount: '1' } }] }`,
  operator: `{ version: '2.0', rawPath: '/api/conversations', headers: {}, requestContext: { http: { method: 'GET' } } }`,
  // A suite whose scenario breaks the format: answered with its problems, before the table or the model.
  evaluator: `{ suite: { scenarios: [{}] } }`,
};

/** The cold start of the asset in `folder`; with `onDemandFile` (`media.js`, `scenario-format.js`): then that file too, as the first event that needs it requires it. */
function coldStartScript(name: string, folder: string, onDemandFile?: string): string {
  const context = `{ getRemainingTimeInMillis: () => 90000, functionName: '${name}', awsRequestId: 'cold' }`;
  const onDemand = onDemandFile === undefined ? '' : `.then(() => require(${JSON.stringify(join(folder, onDemandFile))}))`;
  return `require(${JSON.stringify(join(folder, 'index.js'))}).handler(${FIRST_EVENTS[name]}, ${context})${onDemand}.then(() => 0)`;
}

/** `index.js` and the parts it requires at its top (the bundle's metafile): what every cold start loads. */
function handlerFiles(name: string): string[] {
  const metafile = JSON.parse(readFileSync(join(__dirname, '..', '.bundles', `${name}.meta.json`), 'utf8')) as { outputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[] }> };
  const outputs = new Map(Object.entries(metafile.outputs).map(([file, output]) => [basename(file), output]));
  const files = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const imported of outputs.get(file)!.imports) if (imported.kind === 'import-statement' && !imported.external) visit(basename(imported.path));
  };
  visit('index.js');
  return [...files];
}

const hasFile = (name: (typeof FUNCTIONS)[number], file: string) => existsSync(join(assets.get(name)!, file));

function measure(script: string, env: Record<string, string> = {}): LoadSample {
  const started = performance.now();
  const child = spawnSync(process.execPath, ['-e', `Promise.resolve(${script}).then(() => process.stdout.write(String(process.memoryUsage().rss)))`], {
    encoding: 'utf8',
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
  });
  const ms = performance.now() - started;
  if (child.status !== 0) throw new Error(`node failed: ${child.stderr}`);
  return { ms, rssMb: Number(child.stdout) / (1024 * 1024) };
}

const fileSize = (file: string): [number, number] => [statSync(file).size, gzipSync(readFileSync(file)).length];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function main(): void {
  const runs = Number(process.argv[2] ?? 21);
  // Interleave the variants so machine noise hits them alike.
  const samples = new Map<string, LoadSample[]>([
    ['empty', []],
    ...FUNCTIONS.flatMap((name): [string, LoadSample[]][] => [[name, []], [`${name} cold`, []], [`${name} cold traced`, []], [`${name} cold media on`, []], [`${name} cold media loaded`, []], [`${name} cold scenario format loaded`, []]]),
  ]);
  for (let run = 0; run < runs; run++) {
    samples.get('empty')!.push(measure('0'));
    for (const name of FUNCTIONS) {
      samples.get(name)!.push(measure(`require(${JSON.stringify(join(assets.get(name)!, 'index.js'))})`));
      const folder = assets.get(name)!;
      samples.get(`${name} cold`)!.push(measure(coldStartScript(name, folder), functionEnv(name, 'off')));
      samples.get(`${name} cold traced`)!.push(measure(coldStartScript(name, folder), { ...functionEnv(name, 'off'), ...LAMBDA_TRACING_ENV, LAMBDA_TASK_ROOT: folder }));
      if (hasFile(name, SCENARIO_FORMAT_FILE)) samples.get(`${name} cold scenario format loaded`)!.push(measure(coldStartScript(name, folder, SCENARIO_FORMAT_FILE), functionEnv(name, 'off')));
      if (!hasFile(name, MEDIA_FILE)) continue;
      const mediaFolder = mediaAssets.get(name)!;
      samples.get(`${name} cold media on`)!.push(measure(coldStartScript(name, mediaFolder), functionEnv(name, 'on')));
      samples.get(`${name} cold media loaded`)!.push(measure(coldStartScript(name, mediaFolder, MEDIA_FILE), functionEnv(name, 'on')));
    }
  }
  const empty = samples.get('empty')!;
  const emptyMs = median(empty.map((s) => s.ms));
  const emptyRss = median(empty.map((s) => s.rssMb));
  console.log(`node ${process.version}, ${runs} runs each, medians`);
  console.log(`empty node process          ${emptyMs.toFixed(1)} ms, RSS ${emptyRss.toFixed(1)} MB`);
  for (const name of FUNCTIONS) {
    const files = handlerFiles(name);
    const [size, gzip] = files.map((file) => fileSize(join(assets.get(name)!, file))).reduce(([a, b], [c, d]) => [a + c, b + d]);
    const [tracerSize, tracerGzip] = fileSize(join(assets.get(name)!, 'tracer.js'));
    const loaded = samples.get(name)!;
    const ms = median(loaded.map((s) => s.ms));
    const rss = median(loaded.map((s) => s.rssMb));
    console.log(
      `${name.padEnd(12)} ${(size / 1024).toFixed(1)} KiB (${(gzip / 1024).toFixed(0)} KiB gzip; ${files.join(' + ')})  load +${(ms - emptyMs).toFixed(1)} ms (${(ms / emptyMs).toFixed(2)}× empty), RSS +${(rss - emptyRss).toFixed(1)} MB`,
    );
    const cold = median(samples.get(`${name} cold`)!.map((s) => s.ms));
    console.log(`${''.padEnd(12)} cold start to a handled first event ${cold.toFixed(1)} ms (+${(cold - emptyMs).toFixed(1)} ms over an empty process)`);
    const traced = median(samples.get(`${name} cold traced`)!.map((s) => s.ms));
    console.log(
      `${''.padEnd(12)} traced as in Lambda (tracer.js ${(tracerSize / 1024).toFixed(0)} KiB, ${(tracerGzip / 1024).toFixed(0)} KiB gzip, loaded): ${traced.toFixed(1)} ms (+${(traced - emptyMs).toFixed(1)} ms)`,
    );
    if (hasFile(name, SCENARIO_FORMAT_FILE)) {
      const [checkerSize, checkerGzip] = fileSize(join(assets.get(name)!, SCENARIO_FORMAT_FILE));
      const checkerLoaded = median(samples.get(`${name} cold scenario format loaded`)!.map((s) => s.ms));
      console.log(
        `${''.padEnd(12)} with ${SCENARIO_FORMAT_FILE} (${(checkerSize / 1024).toFixed(1)} KiB, ${(checkerGzip / 1024).toFixed(1)} KiB gzip) loaded too, as a first scenario save: ${checkerLoaded.toFixed(1)} ms (+${(checkerLoaded - emptyMs).toFixed(1)} ms)`,
      );
    }
    if (!hasFile(name, MEDIA_FILE)) continue;
    const [mediaSize, mediaGzip] = fileSize(join(assets.get(name)!, MEDIA_FILE));
    const mediaOn = median(samples.get(`${name} cold media on`)!.map((s) => s.ms));
    const mediaLoaded = median(samples.get(`${name} cold media loaded`)!.map((s) => s.ms));
    console.log(
      `${''.padEnd(12)} media on, first event without media: ${mediaOn.toFixed(1)} ms (+${(mediaOn - emptyMs).toFixed(1)} ms); with ${MEDIA_FILE} (${(mediaSize / 1024).toFixed(1)} KiB, ${(mediaGzip / 1024).toFixed(1)} KiB gzip) loaded: ${mediaLoaded.toFixed(1)} ms (+${(mediaLoaded - emptyMs).toFixed(1)} ms)`,
    );
  }
}

main();
