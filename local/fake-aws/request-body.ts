import type { IncomingMessage } from 'node:http';

/** The whole body of a request the local stand-ins received, as text. */
export async function readBody(request: IncomingMessage): Promise<string> {
  return (await readBodyBytes(request)).toString('utf8');
}

/** The whole body as received, for a request forwarded byte for byte (an S3 object). */
export async function readBodyBytes(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
