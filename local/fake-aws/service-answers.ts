// The answers of AWS APIs as the local stand-ins send them, one per protocol, so each stand-in
// speaks its service's wire format without a copy of it.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** An AWS JSON 1.1 answer (Secrets Manager, Transcribe): its body, with a request id as the service sends one. */
export function sendAwsJson(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() });
  response.end(JSON.stringify(body));
}

/** A REST-JSON service's error (Bedrock Runtime, End User Messaging): named by `x-amzn-errortype`, its message in the body. */
export function sendRestJsonError(response: ServerResponse, status: number, type: string, message: string): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type });
  response.end(JSON.stringify({ message }));
}
