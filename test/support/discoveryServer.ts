import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Identity providers' discovery documents on loopback, one issuer per first path segment
 * (`issuer(name)` is `http://127.0.0.1:<port>/<name>`), for the SSO settings' check at save:
 * any name serves a document naming itself, except `elsewhere` (names another issuer), `nameless`
 * (names none), `broken` (500), `slow` (never answers), `html` (not JSON), `huge` (100 KiB),
 * `away` (redirects to another origin), `moved` (redirects within its own, to its document).
 */
export async function startDiscoveryServer() {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push(path);
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const document = (issuer: string) => ({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
    });
    if (path === '/documents/moved') return json(200, document(`${base}/moved`));
    const name = /^\/([\w-]+)\/\.well-known\/openid-configuration$/.exec(path)?.[1];
    if (name === undefined) return json(404, { error: 'not_found' });
    switch (name) {
      case 'elsewhere':
        return json(200, document('https://idp.elsewhere.example/elsewhere'));
      case 'nameless':
        return json(200, { authorization_endpoint: `${base}/nameless/authorize` });
      case 'broken':
        return json(500, { error: 'server_error' });
      case 'slow':
        return; // never answers; stop() closes it
      case 'html':
        response.writeHead(200, { 'content-type': 'text/html' });
        return response.end('<!doctype html><title>Sign in</title>');
      case 'huge':
        return json(200, { ...document(`${base}/huge`), padding: 'x'.repeat(100 * 1024) });
      case 'away':
        response.writeHead(302, { location: `http://localhost:${port}/away/.well-known/openid-configuration` });
        return response.end();
      case 'moved':
        response.writeHead(301, { location: '/documents/moved' });
        return response.end();
      default:
        return json(200, document(`${base}/${name}`));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    base,
    issuer: (name: string) => `${base}/${name}`,
    requests,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
