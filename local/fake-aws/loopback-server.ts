import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local stand-in's HTTP server, listening on 127.0.0.1. */
export interface LoopbackServer {
  /** The endpoint to give the SDK client, e.g. `http://127.0.0.1:43210`. */
  readonly endpoint: string;
  close(): Promise<void>;
}

/** Serves `handle` on 127.0.0.1 (`port`, default a free one); a request it fails on is answered by `onFailure`. */
export async function serveOnLoopback(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  onFailure: (response: ServerResponse, error: unknown) => void,
  port = 0,
): Promise<LoopbackServer> {
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) onFailure(response, error);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
