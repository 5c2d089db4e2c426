import { AmazonTranscribe } from '../core/adapters/aws/amazon-transcribe';
import { credentialProvider } from '../core/adapters/aws/aws-identity';
import type { FunctionPorts } from './compose-function';

/** What the functions that reach Amazon Transcribe may be handed instead of what they build. */
export interface TranscribePorts {
  /** Amazon Transcribe endpoint to call instead (the local fake). Default: `AWS_ENDPOINT_URL_TRANSCRIBE`, else AWS. */
  readonly transcribeEndpoint?: string;
}

/**
 * Amazon Transcribe as the function's role reaches it: the orchestrator's voice notes, the idle
 * sweep of ended jobs, the erasure of a customer's (the local fake with `transcribeEndpoint`).
 */
export function composeTranscriber(ports: FunctionPorts & TranscribePorts): AmazonTranscribe {
  return new AmazonTranscribe({ endpoint: ports.transcribeEndpoint, credentials: credentialProvider(ports.awsCredentials) });
}
