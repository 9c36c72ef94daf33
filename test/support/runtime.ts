import { createHash, randomBytes } from 'node:crypto';
import { startRuntime, type Runtime, type RuntimeOptions } from '../../local/runtime.ts';
import { defaultRateLimits, type RateLimits } from '../../shared/limits.ts';
import type { IssuerDiscovery } from '../../shared/domain/sso/issuer.ts';
import { dropTable, sharedDynamoEndpoint, uniqueTableName } from './dynamo.ts';

/** Rate limits high enough that only tests about rate limiting meet them. */
export const generousRateLimits: RateLimits = Object.fromEntries(
  Object.keys(defaultRateLimits).map((rate) => [rate, { perIp: { limit: 1_000_000, windowSeconds: 60 } }]),
) as RateLimits;

/**
 * Every issuer's discovery document names it: the tests whose SSO issuers are made up
 * (`https://acme.okta.com`) save directories without a network. The SSO settings' own tests pass
 * the real reading (`oidcDiscovery`) against a server of theirs.
 */
export const acceptingIssuers: IssuerDiscovery = { check: async () => ({ outcome: 'matches' }) };

/**
 * The local runtime on a free port, data in memory; one per test file. Its table is its own, on
 * the worker's DynamoDB Local (test/support/sharedDynamo.ts), and is dropped at `stop()`; a test
 * that brings its own emulator or data folder, or runs outside `npm test`, gets its own Java.
 */
export async function startTestRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const endpoint = options.dynamo === undefined && options.dataDir === undefined ? await sharedDynamoEndpoint() : undefined;
  if (endpoint === undefined) {
    return startRuntime({
      port: 0,
      rateLimits: generousRateLimits,
      issuerDiscovery: acceptingIssuers,
      identityProvider: false,
      ...options,
    });
  }
  const table = uniqueTableName();
  const runtime = await startRuntime({
    port: 0,
    rateLimits: generousRateLimits,
    issuerDiscovery: acceptingIssuers,
    // Only the files that sign in through it start the local identity provider (its import and keys cost a second).
    identityProvider: false,
    ...options,
    dynamo: { endpoint, stop: async () => undefined },
    env: { ...options.env, TABLE_NAME: table },
  });
  const stop = runtime.stop.bind(runtime);
  runtime.stop = async () => {
    await stop();
    await dropTable(endpoint, table);
  };
  return runtime;
}

/**
 * Moves the clock to the start of a fresh rate-limit window (`windowSeconds` long). The runtime's
 * clock follows real time, so a test counting its way to a 429 would otherwise see the window
 * roll over midway once in a while, and its count start again.
 */
export function toFreshWindow(clock: Pick<Runtime['clock'], 'now' | 'advance'>, windowSeconds: number): void {
  const nowSeconds = clock.now() / 1000;
  clock.advance(windowSeconds - (nowSeconds % windowSeconds) + 0.001);
}

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** A thin HTTP client for the runtime: JSON in, parsed JSON (or text) out. */
export function apiClient(runtime: Pick<Runtime, 'url'>) {
  async function call<T = any>(
    method: string,
    path: string,
    init: { json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
  ): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...init.headers };
    let body = init.body;
    if (init.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(init.json);
    }
    const response = await fetch(`${runtime.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    let parsed: unknown = text;
    if (text && /json/.test(response.headers.get('content-type') ?? '')) parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }
  return {
    call,
    get: <T = any>(path: string, headers?: Record<string, string>) => call<T>('GET', path, headers ? { headers } : {}),
    post: <T = any>(path: string, json?: unknown, headers?: Record<string, string>) =>
      call<T>('POST', path, { ...(json === undefined ? {} : { json }), ...(headers ? { headers } : {}) }),
    delete: <T = any>(path: string, headers?: Record<string, string>) => call<T>('DELETE', path, headers ? { headers } : {}),
  };
}

export const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** A valid creation body with a random "envelope" of `size` bytes; fields can be overridden. */
export function textSecretBody(overrides: Record<string, unknown> = {}, size = 64) {
  const envelope = randomBytes(size);
  return {
    kind: 'text',
    envelope: envelope.toString('base64'),
    salt: randomBytes(16).toString('base64url'),
    size_bytes: size,
    ...overrides,
  };
}

/** A link token and its verifier, as for a claim token (docs/envelope.md, "Link token"). */
export const linkPair = () => claimPair();

/** A claim token and the verifier the creator sends for it: SHA-256 of the token's 32 bytes. */
export function claimPair() {
  const token = randomBytes(32).toString('base64url');
  return { token, verifier: createHash('sha256').update(Buffer.from(token, 'base64url')).digest('base64url') };
}
