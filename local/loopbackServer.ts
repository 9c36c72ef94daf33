import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * An emulator's HTTP server on 127.0.0.1 (the Stripe and Slack emulators): bound first, its port
 * known before the emulator's state is built (its pages and events need their own address), 503
 * until `serve` names the listener; `close` drops kept-alive connections so a stop never waits.
 */
export async function listenOnLoopback(port = 0): Promise<{ port: number; origin: string; serve(listener: Listener): void; close(): Promise<void> }> {
  const host = '127.0.0.1';
  let listener: Listener = (_request, response) => {
    response.writeHead(503).end();
  };
  const server = createServer((request, response) => listener(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    origin: `http://${host}:${bound}`,
    serve: (next) => {
      listener = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
