import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Locale } from '../../lib/contract';
import { composeEvaluation } from '../../lambda/composition/evaluation';
import { SETTINGS_READERS } from '../../lambda/composition/read-settings';
import type { ConverseCall } from '../../lambda/core/adapters/agent/bedrock-converse-agent';
import type { RunScenarios } from '../../lambda/core/application/evaluation/run-scenarios';
import { FakeBedrockRuntime } from '../fake-bedrock/fake-bedrock-runtime';
import { FakeConverseModel } from '../fake-bedrock/fake-converse-model';
import { instructedToolCall } from '../fake-bedrock/instructed-tool-calls';
import { createAgentTable } from '../servers/local-resources';
import { startDynamoDbLocal } from '../servers/local-servers';
import { Cleanup } from './cleanup';
import type { LocalAgentTool } from './local-pipeline-options';
import { startLocalJudge } from './local-evaluator';
import { localPlan } from './local-plan';

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

export interface LocalEvaluationOptions {
  /** A DynamoDB Local already running. Default: `AWS_ENDPOINT_URL_DYNAMODB`, else one started for the run. */
  readonly dynamoDbEndpoint?: string;
  /** The agent's model. Default: the fake Converse model following its prompt (instructed-tool-calls.ts). */
  readonly converse?: ConverseCall;
  /** The judge's model. Default: the deterministic fake judge (fake-judge-model.ts). */
  readonly judge?: ConverseCall;
  /** The consumer's tools the agent is offered, as `npm start` declares them; in a run their recordings answer, never their handlers. */
  readonly tools?: readonly LocalAgentTool[];
  readonly locale?: Locale;
  /** The system prompt to evaluate, as the construct would set it. Default: the embedded one. */
  readonly systemPrompt?: string;
  /**
   * The agent as `npm start` selects it from its environment (`AGENT_BACKEND=stages`,
   * `AGENT_STAGES`…), instead of the Bedrock agent on the fake model. Default: none.
   */
  readonly agentEnvironment?: NodeJS.ProcessEnv;
  /** Runs before the first scenario, on the run's table: e.g. saves a prompt version, as an admin would in the console. */
  readonly prepare?: (tableName: string, dynamoDbEndpoint: string) => Promise<void>;
}

/** The runner of a local evaluation, and how to stop what it started. */
export interface LocalEvaluation {
  readonly runner: RunScenarios;
  readonly tableName: string;
  readonly dynamoDbEndpoint: string;
  close(): Promise<void>;
}

/**
 * A deployment on this machine to evaluate against, as `npm start` runs one: the construct's own
 * plan of a Bedrock agent with the embedded defaults, on a fresh table of DynamoDB Local, its model
 * (and the judge's) behind the fake Bedrock Runtime over HTTP, called by the functions' own signed
 * clients. Nothing of the run outlives `close()`: the table is dropped.
 */
export async function startLocalEvaluation(options: LocalEvaluationOptions = {}): Promise<LocalEvaluation> {
  const cleanup = new Cleanup();
  try {
    cleanup.env.setIfAbsent({ AWS_REGION: 'us-east-1', POWERTOOLS_METRICS_DISABLED: 'true', POWERTOOLS_LOG_LEVEL: 'ERROR' });
    const dynamoDbEndpoint = options.dynamoDbEndpoint ?? process.env.AWS_ENDPOINT_URL_DYNAMODB ?? (await cleanup.server(startDynamoDbLocal()));
    const client = new DynamoDBClient({ endpoint: dynamoDbEndpoint, region: process.env.AWS_REGION, credentials: LOCAL_CREDENTIALS });
    const tableName = `evaluation-${randomUUID().slice(0, 8)}`;
    await createAgentTable(client, tableName);
    cleanup.add(async () => {
      await client.send(new DeleteTableCommand({ TableName: tableName }));
      client.destroy();
    });
    const converse = options.converse ?? new FakeConverseModel({ toolCall: instructedToolCall }).converse;
    const model = await FakeBedrockRuntime.start({ converse });
    cleanup.add(() => model.close());
    const judge = await startLocalJudge(LOCAL_CREDENTIALS, cleanup, options.judge);
    const bedrockAgent = options.agentEnvironment === undefined ? { converse, tools: options.tools, systemPrompt: options.systemPrompt } : undefined;
    const plan = localPlan({ bedrockAgent, locale: options.locale }, options.agentEnvironment ?? {}, {
      tableName,
      // The runner queues nothing and sends nothing: these name no server.
      turnQueueUrl: 'http://127.0.0.1:9/evaluation.fifo',
      deadLetterQueueUrl: 'http://127.0.0.1:9/evaluation-dlq.fifo',
      whatsAppApiBaseUrl: 'http://127.0.0.1:9',
      whatsAppBusinessAccountId: '0',
    });
    await options.prepare?.(tableName, dynamoDbEndpoint);
    const runner = composeEvaluation(SETTINGS_READERS.orchestrator(plan.orchestrator!), {
      dynamoDbEndpoint,
      awsCredentials: LOCAL_CREDENTIALS,
      bedrockEndpoint: model.endpoint,
      judge,
      turnSettings: { promptCacheMs: 0 },
    });
    return { runner, tableName, dynamoDbEndpoint, close: () => cleanup.run() };
  } catch (error) {
    await cleanup.run();
    throw error;
  }
}
