// Entry point of the webhook function. Its behaviour (Meta verification handshake, signed POSTs,
// durable receipts and FIFO dispatch) is delivered by the inbound path; until then it refuses work
// with a 503 so Meta keeps retrying instead of losing messages.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export async function handler(_event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  return { statusCode: 503, body: 'webhook not yet implemented' };
}
