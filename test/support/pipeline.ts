import { randomBytes } from 'node:crypto';
import { startLocalPipeline, type LocalChannel, type LocalPipeline, type LocalPipelineOptions } from '../../local/runtime/local-pipeline';
import { permissionCheck, suiteSessionToken } from './permissions/function-principals';

/**
 * A pipeline on the run's shared DynamoDB Local and SQS emulator (started by jest's global setup),
 * with its own table and queues: every call gets a fresh environment name. Its functions sign as
 * themselves, naming the suite, and every request they make is checked against their roles.
 * Turns answer at once (`burstSettleMs: 0`) unless a suite sets the burst settle wait.
 */
export function startTestPipeline(options: Omit<LocalPipelineOptions, 'dynamoDbEndpoint' | 'sqsEndpoint' | 'environment'> = {}): Promise<LocalPipeline> {
  const dynamoDbEndpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  const sqsEndpoint = process.env.AWS_ENDPOINT_URL_SQS;
  if (!dynamoDbEndpoint || !sqsEndpoint) throw new Error('The jest global setup did not start the local servers');
  return startLocalPipeline({
    dynamoDbEndpoint,
    sqsEndpoint,
    environment: `e2e${randomBytes(4).toString('hex')}`,
    logLevel: 'SILENT',
    permissions: permissionCheck(),
    functionSessionToken: suiteSessionToken(),
    burstSettleMs: 0,
    ...options,
  });
}

/** Every channel the end-to-end suites run over: one parameterised suite, never a copy per channel. */
export const CHANNELS: readonly LocalChannel[] = ['cloud-api', 'end-user-messaging'];

/** The parts of a scripted-agent reply: the customer messages it answered and its message count. */
export function parseScriptedReply(text: string): { readonly answered: string[]; readonly count: number } {
  const match = /^Olá! Recebi: ([\s\S]*) \(mensagem (\d+)\)$/.exec(text);
  if (!match) throw new Error(`Not a scripted-agent reply: ${text}`);
  return { answered: match[1].split(' | '), count: Number(match[2]) };
}

/** A pipeline whose operator plane serves these admins (they sign in over WhatsApp). */
export function startOperatorPipeline(adminPhoneNumbers: readonly string[], options: Omit<LocalPipelineOptions, 'dynamoDbEndpoint' | 'sqsEndpoint' | 'environment' | 'adminPhoneNumbers'> = {}): Promise<LocalPipeline> {
  return startTestPipeline({ adminPhoneNumbers, ...options });
}
