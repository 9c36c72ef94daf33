import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newConfigDir, runCli } from '../support/cli.ts';

// Issue 26, item 1: a credential goes only to the API it was made for. The real binary talks to
// two stand-in deployments on loopback that record every request: "home" is the configured one
// (HUSHLINK_API), "stranger" is any other host a link may name. No runtime is needed: what is
// checked is what the CLI sends, not what a service does with it.

interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  deleteToken: string | undefined;
}

interface StandIn {
  url: string;
  seen: Seen[];
  server: Server;
}

const secretId = 'sec_AAAAAAAAAAAAAAAAAAAAAA';
const requestId = 'rql_AAAAAAAAAAAAAAAAAAAAAA';
const apiKey = 'hlk_test_the_victims_key_0123456789';
const accessToken = 'eyJ.home-session.token';

/** Answers as a deployment would: the secret's metadata says it is owned, to tempt the receipts call. */
async function standIn(): Promise<StandIn> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(',') : value;
    };
    const path = (request.url ?? '').split('?')[0]!;
    seen.push({ method: request.method ?? '', path, authorization: header('authorization'), deleteToken: header('x-delete-token') });
    request.resume();
    const json = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.method === 'GET' && path === `/v1/secrets/${secretId}`) {
      return json(200, {
        id: secretId,
        kind: 'text',
        state: 'active',
        views_left: 1,
        max_views: 1,
        created_at: '2026-11-28T00:00:00.000Z',
        expires_at: '2026-11-29T00:00:00.000Z',
        passphrase: false,
        salt: 'AAAAAAAAAAAAAAAAAAAAAA',
        size_bytes: 5,
        owned: header('authorization') !== undefined,
      });
    }
    if (request.method === 'GET' && path === `/v1/secrets/${secretId}/receipts`) return json(200, { items: [], next_cursor: null });
    if (request.method === 'DELETE' && path.startsWith(`/v1/secrets/${secretId}`)) return void response.writeHead(204).end();
    json(404, { type: 'about:blank', title: 'Not Found', status: 404, code: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

let home: StandIn;
let stranger: StandIn;
beforeAll(async () => {
  [home, stranger] = await Promise.all([standIn(), standIn()]);
});
afterAll(async () => {
  await Promise.all([home, stranger].map((each) => each && new Promise((resolve) => each.server.close(resolve))));
});
beforeEach(() => {
  home.seen.length = 0;
  stranger.seen.length = 0;
});

/** A config folder holding a live session for the home deployment. */
function signedInAtHome(): string {
  const configDir = newConfigDir();
  const session = {
    email: 'me@example.com',
    user_id: 'usr_me',
    access_token: accessToken,
    access_expires_at: '2099-01-01T00:00:00.000Z',
    refresh_token: 'rt_home',
  };
  writeFileSync(join(configDir, 'credentials.json'), JSON.stringify({ [home.url]: session }), { mode: 0o600 });
  return configDir;
}

const cli = (args: string[], env: Record<string, string | undefined> = {}, configDir?: string) =>
  runCli(args, { api: home.url, env, timeoutMs: 30_000, ...(configDir ? { configDir } : {}) });
const secretLink = (origin: string) => `${origin}/s/${secretId}`;
const openLink = (origin: string) => `${origin}/s/${secretId}#${'A'.repeat(43)}`;
const credentialsSent = (standIn: StandIn) =>
  standIn.seen.filter((request) => request.authorization !== undefined || request.deleteToken !== undefined);

describe('status', () => {
  it('sends the API key to the configured deployment, for a link on it or a bare id', async () => {
    for (const target of [secretLink(home.url), secretId]) {
      home.seen.length = 0;
      const result = await cli(['status', target], { HUSHLINK_API_KEY: apiKey });
      expect(result.code, result.stderr).toBe(0);
      expect(home.seen.map((request) => [request.method, request.path, request.authorization])).toEqual([
        ['GET', `/v1/secrets/${secretId}`, `Bearer ${apiKey}`],
        ['GET', `/v1/secrets/${secretId}/receipts`, `Bearer ${apiKey}`],
      ]);
    }
  });

  it('reads a link on another host without the API key, and says why its receipts are not shown', async () => {
    const result = await cli(['status', secretLink(stranger.url)], { HUSHLINK_API_KEY: apiKey });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`${secretId}: active`);
    expect(stranger.seen.map((request) => [request.method, request.path])).toEqual([['GET', `/v1/secrets/${secretId}`]]);
    expect(credentialsSent(stranger)).toEqual([]);
    expect(result.stderr).toContain('HUSHLINK_API_KEY was not sent there');
    expect(result.stderr).toContain(`hushlink status ${secretId}`);
    expect(home.seen).toEqual([]);
  });

  it('never sends the home session to another host', async () => {
    const result = await cli(['status', secretLink(stranger.url), '--json'], {}, signedInAtHome());
    expect(result.code, result.stderr).toBe(0);
    expect(credentialsSent(stranger)).toEqual([]);
  });

  it('sends the key where --api names, since the person chose that deployment', async () => {
    const result = await cli(['status', secretLink(stranger.url), '--api', home.url], { HUSHLINK_API_KEY: apiKey });
    expect(result.code, result.stderr).toBe(0);
    expect(stranger.seen).toEqual([]);
    expect(home.seen.every((request) => request.authorization === `Bearer ${apiKey}`)).toBe(true);
  });
});

describe('revoke', () => {
  it('refuses a link on another host without a delete token, sending nothing', async () => {
    for (const link of [secretLink(stranger.url), `${secretLink(stranger.url)}/r/rcp_AAAAAAAAAAAAAAAAAAAAAA`]) {
      const result = await cli(['revoke', link], { HUSHLINK_API_KEY: apiKey }, signedInAtHome());
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('[other_deployment]');
      expect(result.stderr).toContain(`hushlink revoke ${secretId}`);
    }
    expect(stranger.seen).toEqual([]);
    expect(home.seen).toEqual([]);
  });

  it('does not send HUSHLINK_DELETE_TOKEN to another host: it is for the configured deployment', async () => {
    const result = await cli(['revoke', secretLink(stranger.url)], { HUSHLINK_DELETE_TOKEN: 'dt_for_a_home_secret' });
    expect(result.code).toBe(2);
    expect(stranger.seen).toEqual([]);
  });

  it('revokes a link on another host with the --token given for it, and nothing else', async () => {
    const result = await cli(
      ['revoke', secretLink(stranger.url), '--token', 'dt_given_for_it'],
      { HUSHLINK_API_KEY: apiKey },
      signedInAtHome(),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(stranger.seen).toEqual([
      { method: 'DELETE', path: `/v1/secrets/${secretId}`, authorization: undefined, deleteToken: 'dt_given_for_it' },
    ]);
  });

  it('revokes on the configured deployment as its owner, with the key', async () => {
    const result = await cli(['revoke', secretLink(home.url)], { HUSHLINK_API_KEY: apiKey });
    expect(result.code, result.stderr).toBe(0);
    expect(home.seen).toEqual([
      { method: 'DELETE', path: `/v1/secrets/${secretId}`, authorization: `Bearer ${apiKey}`, deleteToken: undefined },
    ]);
  });
});

describe('every other command that follows a link', () => {
  it('open, respond and inbox send no credential of the configured deployment to the host a link names', async () => {
    const env = { HUSHLINK_API_KEY: apiKey, HUSHLINK_DELETE_TOKEN: 'dt_home' };
    const configDir = signedInAtHome();
    await cli(['open', openLink(stranger.url)], env, configDir);
    await cli(['respond', `${stranger.url}/q/${requestId}#${'A'.repeat(43)}.${'A'.repeat(43)}`], env, configDir);
    await cli(['inbox', `${stranger.url}/q/${requestId}`], env, configDir);
    expect(stranger.seen.length).toBeGreaterThan(0);
    expect(credentialsSent(stranger)).toEqual([]);
    expect(home.seen).toEqual([]);
  });
});
