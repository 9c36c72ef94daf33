import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oidcRelyingParty } from '../../shared/adapters/oidcRelyingParty.ts';
import type { CodeRedemption, RelyingParty, SsoClient } from '../../shared/domain/sso/signInPorts.ts';

// The relying party of single sign-on (shared/adapters/oidcRelyingParty.ts) against a hand-made
// identity provider on 127.0.0.1: discovery, the authorization URL, the token endpoint's client
// authentication and PKCE, and each way an ID token or an authorization response must be refused.
// No browser: each case builds the callback URL the provider would have redirected to.

const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url');
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const random = () => randomBytes(24).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** What the token endpoint answers for one code: a status and a JSON body, after an optional delay. */
interface Grant {
  challenge: string;
  redirectUri: string;
  delayMs?: number;
  reply: () => Promise<{ status: number; body: Record<string, unknown> }>;
}

/** One token request as the fake provider received it. */
interface TokenRequest {
  authorization: string | undefined;
  form: URLSearchParams;
  /** How the client authenticated, as the provider judged it, or the error it answered. */
  judged: 'client_secret_basic' | 'client_secret_post' | 'invalid_client' | 'invalid_request';
}

const clientId = 'hushlink-client';
// Characters RFC 6749 §2.3.1 makes the client form-urlencode before Base64 in the Basic header.
const clientSecret = 'sec ret:with/special+chars=and-more-than-32-bytes';

/** Body of an HTTP Basic header, decoded as RFC 6749 §2.3.1 says. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  if (!header?.startsWith('Basic ')) return null;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const unform = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
  return { id: unform(decoded.slice(0, colon)), secret: unform(decoded.slice(colon + 1)) };
}

async function startIdp(options: { authMethods: string[] }) {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const kid = 'idp-key-1';
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const counts = { discovery: 0, jwks: 0, token: 0 };
  /** How many discovery requests to answer 503 before answering again. */
  const faults = { discovery: 0 };
  const tokenRequests: TokenRequest[] = [];
  const grants = new Map<string, Grant>();
  const timers = new Set<NodeJS.Timeout>();
  let issuer = '';

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  };
  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });

  async function token(req: IncomingMessage, res: ServerResponse) {
    counts.token++;
    const form = new URLSearchParams(await readBody(req));
    const basic = basicCredentials(req.headers.authorization);
    const posted = form.has('client_secret');
    const record: TokenRequest = { authorization: req.headers.authorization, form, judged: 'invalid_client' };
    tokenRequests.push(record);
    if (basic && posted) return ((record.judged = 'invalid_request'), json(res, 400, { error: 'invalid_request' }));
    if (basic && options.authMethods.includes('client_secret_basic') && basic.id === clientId && basic.secret === clientSecret) {
      record.judged = 'client_secret_basic';
    } else if (
      !basic &&
      posted &&
      options.authMethods.includes('client_secret_post') &&
      form.get('client_id') === clientId &&
      form.get('client_secret') === clientSecret
    ) {
      record.judged = 'client_secret_post';
    } else {
      return json(res, 401, { error: 'invalid_client' });
    }
    const code = form.get('code') ?? '';
    const grant = grants.get(code);
    // Single use: a replayed code is unknown.
    grants.delete(code);
    if (form.get('grant_type') !== 'authorization_code' || !grant) return json(res, 400, { error: 'invalid_grant' });
    if (form.get('redirect_uri') !== grant.redirectUri)
      return json(res, 400, { error: 'invalid_grant', error_description: 'redirect_uri' });
    if (s256(form.get('code_verifier') ?? '') !== grant.challenge)
      return json(res, 400, { error: 'invalid_grant', error_description: 'pkce' });
    const { status, body } = await grant.reply();
    if (!grant.delayMs) return json(res, status, body);
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed) json(res, status, body);
    }, grant.delayMs);
    timers.add(timer);
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (req.method === 'GET' && path === '/.well-known/openid-configuration') {
      counts.discovery++;
      if (faults.discovery > 0) return (faults.discovery--, json(res, 503, { error: 'temporarily_unavailable' }));
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        token_endpoint_auth_methods_supported: options.authMethods,
        scopes_supported: ['openid', 'email'],
      });
    }
    if (req.method === 'GET' && path === '/jwks') return (counts.jwks++, json(res, 200, { keys: [jwk] }));
    if (req.method === 'POST' && path === '/token') return void token(req, res).catch(() => json(res, 500, { error: 'server_error' }));
    json(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    issuer,
    kid,
    privateKey,
    counts,
    faults,
    tokenRequests,
    grants,
    client: (secret = clientSecret): SsoClient => ({
      workspaceId: 'ws-1',
      workspaceName: 'Acme',
      issuer,
      emailDomain: 'acme.example',
      clientId,
      clientSecret: secret,
      jit: false,
    }),
    stop: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

type Idp = Awaited<ReturnType<typeof startIdp>>;

let idp: Idp;
let postOnly: Idp;
let rp: RelyingParty;
let otherKey: CryptoKey;

beforeAll(async () => {
  [idp, postOnly, { privateKey: otherKey }] = await Promise.all([
    startIdp({ authMethods: ['client_secret_basic', 'client_secret_post'] }),
    startIdp({ authMethods: ['client_secret_post'] }),
    generateKeyPair('RS256'),
  ]);
  rp = oidcRelyingParty({ allowHttp: true });
});
afterAll(async () => {
  await Promise.all([idp?.stop(), postOnly?.stop()]);
});

const redirectUri = 'https://app.hushlink.example/v1/auth/sso/callback';

/** The ID token's claims as a good provider would send them for this sign-in. */
const goodClaims = (provider: Idp, nonce: string): JWTPayload => ({
  iss: provider.issuer,
  aud: clientId,
  sub: 'user-42',
  email: 'ada@acme.example',
  email_verified: true,
  nonce,
  iat: now(),
  exp: now() + 300,
});

const signed = (provider: Idp, claims: JWTPayload, key: CryptoKey = provider.privateKey, kid = provider.kid) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(key);

interface Case {
  rp?: RelyingParty;
  idp?: Idp;
  /** The claims of the ID token, from the good ones. */
  claims?: (good: JWTPayload) => JWTPayload;
  /** The ID token itself, from its claims (default: RS256 with the provider's key). */
  idToken?: (claims: JWTPayload) => Promise<string> | string;
  /** The whole token response, from the ID token (default: a bearer access token with it). */
  tokenBody?: (idToken: string) => { status: number; body: Record<string, unknown> };
  delayMs?: number;
  /** Changes to the callback's query, as an attacker or a broken provider would make them. */
  callback?: (query: URLSearchParams) => void;
  /** The checks the service kept, changed. */
  checks?: (checks: { redirectUri: string; state: string; nonce: string; codeVerifier: string }) => void;
  /** Redeems the same callback twice (a replayed code): the second answer is returned. */
  replay?: boolean;
}

/** One sign-in through the relying party: the authorization URL (checked), the callback, the redemption. */
async function signIn(c: Case = {}): Promise<{ redemption: CodeRedemption; first?: CodeRedemption; request?: TokenRequest }> {
  const provider = c.idp ?? idp;
  const party = c.rp ?? rp;
  const state = random();
  const nonce = random();
  const codeVerifier = random() + random();
  const url = await party.authorizationUrl(provider.client(), { redirectUri, state, nonce, codeChallenge: s256(codeVerifier) });
  expect(url).not.toBeNull();
  const query = url!.searchParams;
  expect(`${url!.origin}${url!.pathname}`).toBe(`${provider.issuer}/authorize`);
  expect(Object.fromEntries(query)).toEqual({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email',
    code_challenge: s256(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });

  // The provider's side: a code bound to the challenge and redirect URI it was given.
  const code = random();
  const claims = (c.claims ?? ((good) => good))(goodClaims(provider, query.get('nonce')!));
  provider.grants.set(code, {
    challenge: query.get('code_challenge')!,
    redirectUri: query.get('redirect_uri')!,
    delayMs: c.delayMs,
    reply: async () => {
      const idToken = await (c.idToken ?? ((claims) => signed(provider, claims)))(claims);
      return (
        c.tokenBody?.(idToken) ?? {
          status: 200,
          body: { access_token: random(), token_type: 'Bearer', expires_in: 300, id_token: idToken },
        }
      );
    },
  });
  const callbackQuery = new URLSearchParams({ code, state: query.get('state')!, iss: provider.issuer });
  c.callback?.(callbackQuery);
  const callback = new URL(`${redirectUri}?${callbackQuery}`);
  const checks = { redirectUri, state, nonce, codeVerifier };
  c.checks?.(checks);

  const before = provider.tokenRequests.length;
  const first = await party.redeem(provider.client(), callback, checks);
  const redemption = c.replay ? await party.redeem(provider.client(), callback, checks) : first;
  return { redemption, first: c.replay ? first : undefined, request: provider.tokenRequests[before] };
}

/** `refused`, with the reason the adapter logs (openid-client's error code, or the provider's OAuth error). */
const refused = (reason: string) => ({ outcome: 'refused', reason });

describe('oidcRelyingParty', () => {
  it('signs in with a good ID token: client_secret_basic, the PKCE verifier and the redirect URI at the token endpoint', async () => {
    const jwksBefore = idp.counts.jwks;
    const { redemption, request } = await signIn();
    // The signature was checked against the issuer's keys (fetched once, then cached).
    expect(idp.counts.jwks - jwksBefore).toBe(1);
    expect(redemption).toEqual({
      outcome: 'identity',
      identity: { subject: 'user-42', email: 'ada@acme.example', emailVerified: true },
    });
    expect(request?.judged).toBe('client_secret_basic');
    expect(basicCredentials(request?.authorization)).toEqual({ id: clientId, secret: clientSecret });
    expect(request?.form.has('client_secret')).toBe(false);
    expect(request?.form.get('grant_type')).toBe('authorization_code');
    expect(request?.form.get('redirect_uri')).toBe(redirectUri);
    // The fake provider answered only because s256(code_verifier) matched the URL's code_challenge.
    expect(request?.form.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{64}$/);
  });

  it('reads email and email_verified only when the provider says them', async () => {
    const { redemption } = await signIn({
      claims: ({ email: _email, email_verified: _verified, ...rest }) => ({ ...rest, email_verified: 'true' }),
    });
    expect(redemption).toEqual({ outcome: 'identity', identity: { subject: 'user-42', email: null, emailVerified: undefined } });
  });

  it('authenticates in the form when discovery allows client_secret_post only', async () => {
    const { redemption, request } = await signIn({ idp: postOnly });
    expect(redemption).toMatchObject({ outcome: 'identity', identity: { subject: 'user-42' } });
    expect(request?.judged).toBe('client_secret_post');
    expect(request?.authorization).toBeUndefined();
    expect(request?.form.get('client_id')).toBe(clientId);
    expect(request?.form.get('client_secret')).toBe(clientSecret);
  });

  describe('refuses an ID token', () => {
    const cases: Array<[string, Case, ReturnType<typeof refused>]> = [
      ['from another issuer', { claims: (good) => ({ ...good, iss: 'http://127.0.0.1:1' }) }, refused('OAUTH_JWT_CLAIM_COMPARISON_FAILED')],
      ['for another audience', { claims: (good) => ({ ...good, aud: 'someone-else' }) }, refused('OAUTH_JWT_CLAIM_COMPARISON_FAILED')],
      [
        'for several audiences without azp',
        { claims: (good) => ({ ...good, aud: [clientId, 'someone-else'] }) },
        refused('OAUTH_JWT_CLAIM_COMPARISON_FAILED'),
      ],
      ['expired', { claims: (good) => ({ ...good, exp: now() - 120 }) }, refused('OAUTH_JWT_TIMESTAMP_CHECK_FAILED')],
      ['not valid yet (nbf)', { claims: (good) => ({ ...good, nbf: now() + 3600 }) }, refused('OAUTH_JWT_TIMESTAMP_CHECK_FAILED')],
      ['with another nonce', { claims: (good) => ({ ...good, nonce: random() }) }, refused('OAUTH_JWT_CLAIM_COMPARISON_FAILED')],
      ['without its nonce', { claims: ({ nonce: _nonce, ...rest }) => rest }, refused('OAUTH_INVALID_RESPONSE')],
      ['without sub', { claims: ({ sub: _sub, ...rest }) => rest }, refused('OAUTH_INVALID_RESPONSE')],
      [
        'signed by a key not in the JWKS, under its kid',
        { idToken: (claims) => signed(idp, claims, otherKey) },
        refused('OAUTH_INVALID_RESPONSE'),
      ],
      [
        'signed by a key not in the JWKS, under another kid',
        { idToken: (claims) => signed(idp, claims, otherKey, 'not-a-key') },
        refused('OAUTH_KEY_SELECTION_FAILED'),
      ],
      [
        'unsecured (alg none)',
        { idToken: (claims) => `${b64u(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${b64u(JSON.stringify(claims))}.` },
        refused('OAUTH_INVALID_RESPONSE'),
      ],
      [
        'signed HS256 with the client secret (not advertised)',
        {
          idToken: (claims) =>
            new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(clientSecret)),
        },
        refused('OAUTH_INVALID_RESPONSE'),
      ],
      [
        'whose signature was cut off',
        { idToken: async (claims) => (await signed(idp, claims)).replace(/\.[^.]+$/, '.') },
        refused('OAUTH_INVALID_RESPONSE'),
      ],
      [
        'whose claims were changed after signing',
        {
          idToken: async (claims) => {
            const [header, , signature] = (await signed(idp, claims)).split('.');
            return `${header}.${b64u(JSON.stringify({ ...claims, sub: 'admin' }))}.${signature}`;
          },
        },
        refused('OAUTH_INVALID_RESPONSE'),
      ],
      [
        'missing from the token response',
        { tokenBody: () => ({ status: 200, body: { access_token: random(), token_type: 'Bearer' } }) },
        refused('OAUTH_INVALID_RESPONSE'),
      ],
    ];
    it.each(cases)('%s', async (_name, c, expected) => {
      const { redemption } = await signIn(c);
      expect(redemption.outcome).toBe('refused');
      expect(redemption).toEqual(expected);
    });
  });

  it('refuses an issue time in the future past five minutes of skew; an old one is bounded by exp and the single-use nonce', async () => {
    // OpenID Connect Core §3.1.3.7 (10) leaves the acceptable range to the client: openid-client checks none in the code flow.
    expect((await signIn({ claims: (good) => ({ ...good, iat: now() + 86_400 }) })).redemption).toEqual(refused('iat'));
    expect((await signIn({ claims: (good) => ({ ...good, iat: now() + 60 }) })).redemption.outcome).toBe('identity');
    expect((await signIn({ claims: (good) => ({ ...good, iat: now() - 86_400 }) })).redemption.outcome).toBe('identity');
    const notANumber = (good: JWTPayload) => ({ ...good, iat: 'yesterday' }) as unknown as JWTPayload;
    expect((await signIn({ claims: notANumber })).redemption).toEqual(refused('OAUTH_INVALID_RESPONSE'));
  });

  describe('refuses an authorization response', () => {
    it('whose iss is another issuer (mix-up, RFC 9207), before the code is sent anywhere', async () => {
      const { redemption, request } = await signIn({ callback: (query) => query.set('iss', postOnly.issuer) });
      expect(redemption).toEqual(refused('OAUTH_INVALID_RESPONSE'));
      expect(request).toBeUndefined();
    });

    it('without iss, which this issuer says it sends', async () => {
      const { redemption, request } = await signIn({ callback: (query) => query.delete('iss') });
      expect(redemption).toEqual(refused('OAUTH_INVALID_RESPONSE'));
      expect(request).toBeUndefined();
    });

    it('whose state is not the one kept for the sign-in', async () => {
      const { redemption, request } = await signIn({ callback: (query) => query.set('state', random()) });
      expect(redemption).toEqual(refused('OAUTH_INVALID_RESPONSE'));
      expect(request).toBeUndefined();
    });

    it('with a PKCE verifier other than the one of the challenge', async () => {
      const { redemption } = await signIn({ checks: (checks) => (checks.codeVerifier = random() + random()) });
      expect(redemption).toEqual(refused('invalid_grant'));
    });

    it('carrying an error instead of a code', async () => {
      const { redemption } = await signIn({
        callback: (query) => (query.delete('code'), query.set('error', 'access_denied')),
      });
      expect(redemption).toEqual(refused('access_denied'));
    });
  });

  it('answers invalid_grant for a replayed code', async () => {
    const { first, redemption } = await signIn({ replay: true });
    expect(first?.outcome).toBe('identity');
    expect(redemption).toEqual(refused('invalid_grant'));
  });

  it('answers invalid_client when the provider refuses the client', async () => {
    const { redemption } = await signIn({ tokenBody: () => ({ status: 401, body: { error: 'invalid_client' } }) });
    expect(redemption).toEqual(refused('invalid_client'));
  });

  describe('an unavailable provider', () => {
    it('has no authorization URL, and redeems nothing, when its discovery cannot be had', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const issuer = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const client = { ...idp.client(), issuer };
      const party = oidcRelyingParty({ allowHttp: true, timeoutSeconds: 1 });
      expect(await party.authorizationUrl(client, { redirectUri, state: 's', nonce: 'n', codeChallenge: s256('v') })).toBeNull();
      const callback = new URL(`${redirectUri}?code=c&state=s&iss=${encodeURIComponent(issuer)}`);
      expect(await party.redeem(client, callback, { redirectUri, state: 's', nonce: 'n', codeVerifier: 'v' })).toEqual({
        outcome: 'unavailable',
        reason: 'network',
      });
    });

    it('is unavailable when its token endpoint answers after timeoutSeconds', async () => {
      const party = oidcRelyingParty({ allowHttp: true, timeoutSeconds: 1 });
      const started = performance.now();
      const { redemption } = await signIn({ rp: party, delayMs: 2_500 });
      expect(redemption).toEqual({ outcome: 'unavailable', reason: 'timeout' });
      expect(performance.now() - started).toBeLessThan(2_400);
    });
  });

  it('discovers a client once, and again for another secret or after a failed discovery', async () => {
    const party = oidcRelyingParty({ allowHttp: true });
    const request = { redirectUri, state: 's', nonce: 'n', codeChallenge: s256('v') };
    const before = idp.counts.discovery;
    expect(await party.authorizationUrl(idp.client(), request)).not.toBeNull();
    expect(await party.authorizationUrl(idp.client(), request)).not.toBeNull();
    await Promise.all([party.authorizationUrl(idp.client(), request), party.authorizationUrl(idp.client(), request)]);
    expect(idp.counts.discovery - before).toBe(1);
    // A rotated secret is another configuration (its own client authentication).
    expect(await party.authorizationUrl(idp.client(`${clientSecret}-rotated`), request)).not.toBeNull();
    expect(idp.counts.discovery - before).toBe(2);
    // A failed discovery is not kept: the next sign-in discovers again.
    const fresh = oidcRelyingParty({ allowHttp: true });
    idp.faults.discovery = 1;
    expect(await fresh.authorizationUrl(idp.client(), request)).toBeNull();
    expect(await fresh.authorizationUrl(idp.client(), request)).not.toBeNull();
    expect(await fresh.authorizationUrl(idp.client(), request)).not.toBeNull();
    expect(idp.counts.discovery - before).toBe(4);
  });
});
