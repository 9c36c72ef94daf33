import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInAt, startOidcProvider, subjectOf, type LocalOidc } from '../../local/oidc/provider.ts';

/**
 * The local OpenID Provider (issue 29, local/oidc/) on its own, with openid-client (the
 * service's relying-party library) as the client: discovery, the whole authorization code flow
 * with PKCE, nonce and state through the login page, and the ID token's claims.
 */
const redirectUri = 'http://localhost:3000/v1/auth/sso/callback';
const clientId = 'hushlink-local';
const clientSecret = 'a-local-client-secret-0123456789';

let oidc: LocalOidc;
beforeAll(async () => {
  oidc = await startOidcProvider();
  await oidc.registerClient({ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri] });
});
afterAll(() => oidc?.close());

/** openid-client's configuration for a client of the local provider (an http issuer: allowed explicitly). */
const relyingParty = (id = clientId, secret = clientSecret) =>
  client.discovery(new URL(oidc.issuer), id, secret, undefined, { execute: [client.allowInsecureRequests] });

/** One sign-in of `email` as the service will do it: the authorization URL, the browser's part, the code's exchange. */
async function signIn(email: string, options: { id?: string; secret?: string } = {}) {
  const config = await relyingParty(options.id, options.secret);
  const codeVerifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const state = client.randomState();
  const authorizationUrl = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid email',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    nonce,
    state,
  });
  const callback = await signInAt(oidc, authorizationUrl, email);
  const tokens = await client.authorizationCodeGrant(config, callback, {
    pkceCodeVerifier: codeVerifier,
    expectedNonce: nonce,
    expectedState: state,
    idTokenExpected: true,
  });
  return { callback, state, nonce, tokens, claims: tokens.claims()! };
}

describe('the local OpenID Provider', () => {
  it('publishes a discovery document: issuer, endpoints, PKCE S256, iss in the authorization response', async () => {
    const response = await fetch(oidc.discoveryUrl);
    expect(response.status).toBe(200);
    const discovery = (await response.json()) as Record<string, unknown>;
    expect(oidc.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(discovery).toMatchObject({
      issuer: oidc.issuer,
      authorization_endpoint: `${oidc.issuer}/auth`,
      token_endpoint: `${oidc.issuer}/token`,
      jwks_uri: `${oidc.issuer}/jwks`,
      authorization_response_iss_parameter_supported: true,
      response_types_supported: ['code'],
    });
    expect(discovery.code_challenge_methods_supported).toContain('S256');
    expect(discovery.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email']));
    expect(discovery.claims_supported).toEqual(expect.arrayContaining(['sub', 'email', 'email_verified']));
    expect(discovery.id_token_signing_alg_values_supported).toEqual(expect.arrayContaining(['RS256', 'ES256']));
    expect(discovery.token_endpoint_auth_methods_supported).toContain('client_secret_basic');
    const jwks = (await (await fetch(String(discovery.jwks_uri))).json()) as { keys: Array<Record<string, unknown>> };
    expect(jwks.keys.map((key) => key.alg).sort()).toEqual(['ES256', 'RS256']);
    expect(jwks.keys.every((key) => key.d === undefined && typeof key.kid === 'string')).toBe(true);
  });

  it('signs in any address through the login page; the ID token carries iss, aud, sub, email, email_verified and the nonce', async () => {
    const { callback, state, nonce, claims, tokens } = await signIn('  Ana.Maria@Example.ORG ');
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(oidc.issuer);
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(claims).toMatchObject({
      iss: oidc.issuer,
      aud: clientId,
      sub: subjectOf('ana.maria@example.org'),
      email: 'ana.maria@example.org',
      email_verified: true,
      nonce,
    });
    expect(claims.sub).toMatch(/^idp_[\w-]{22}$/);
    const header = JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString()) as { alg: string };
    expect(header.alg).toBe('RS256');
    // Any domain; the same address is the same subject every time.
    const other = await signIn('bob@some-company.test');
    expect(other.claims).toMatchObject({ email: 'bob@some-company.test', email_verified: true });
    expect((await signIn('ANA.MARIA@example.org')).claims.sub).toBe(claims.sub);
  });

  it('shows a login page with one email field, and refuses what is not an address', async () => {
    const config = await relyingParty();
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      login_hint: 'hint@example.com',
    });
    const first = await fetch(url, { redirect: 'manual' });
    expect(first.status).toBe(303);
    const loginPage = new URL(first.headers.get('location')!, url);
    expect(loginPage.pathname).toMatch(/^\/interaction\/[\w-]+$/);
    const cookie = first.headers
      .getSetCookie()
      .map((header) => header.split(';')[0])
      .join('; ');
    const page = await fetch(loginPage, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`<form method="post" action="${loginPage.pathname}/login">`);
    expect(html).toContain('name="email" value="hint@example.com"');
    const refused = await fetch(new URL(`${loginPage.pathname}/login`, loginPage), {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=not-an-address',
      redirect: 'manual',
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('role="alert"');
    // Without the provider's cookie the page is no one's sign-in.
    expect((await fetch(loginPage)).status).toBe(400);
  });

  it('gives consent by itself, even when the client asks for the consent prompt; Cancel sends access_denied', async () => {
    const config = await relyingParty();
    const verifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const parameters = {
      redirect_uri: redirectUri,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
    };
    const consented = await signInAt(oidc, client.buildAuthorizationUrl(config, { ...parameters, prompt: 'consent' }), 'eve@example.com');
    const tokens = await client.authorizationCodeGrant(config, consented, { pkceCodeVerifier: verifier, expectedNonce: nonce });
    expect(tokens.claims()).toMatchObject({ email: 'eve@example.com', email_verified: true });

    const url = client.buildAuthorizationUrl(config, { ...parameters, state: 'cancelled' });
    const first = await fetch(url, { redirect: 'manual' });
    const loginPage = new URL(first.headers.get('location')!, url);
    const cookie = first.headers
      .getSetCookie()
      .map((header) => header.split(';')[0])
      .join('; ');
    const cancel = await fetch(new URL(`${loginPage.pathname}/abort`, loginPage), {
      method: 'POST',
      headers: { cookie },
      redirect: 'manual',
    });
    expect(cancel.status).toBe(303);
    const resume = await fetch(new URL(cancel.headers.get('location')!, loginPage), { headers: { cookie }, redirect: 'manual' });
    const callback = new URL(resume.headers.get('location')!);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe('cancelled');
  });

  it('refuses an authorization request without PKCE (error at the redirect URI, no code)', async () => {
    const config = await relyingParty();
    const url = client.buildAuthorizationUrl(config, { redirect_uri: redirectUri, scope: 'openid email', state: 'no-pkce' });
    const callback = await signInAt(oidc, url, 'ana@example.org');
    expect(callback.searchParams.get('code')).toBeNull();
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('error_description')).toMatch(/PKCE/i);
    expect(callback.searchParams.get('state')).toBe('no-pkce');
    expect(callback.searchParams.get('iss')).toBe(oidc.issuer);
  });

  it('says email_verified false for an address set so, over the controls too', async () => {
    expect(oidc.setUser('Unverified@Example.org', { email_verified: false })).toEqual({
      sub: subjectOf('unverified@example.org'),
      email: 'unverified@example.org',
      email_verified: false,
    });
    expect((await signIn('unverified@example.org')).claims).toMatchObject({ email: 'unverified@example.org', email_verified: false });

    const set = await fetch(`${oidc.origin}/_emulator/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'carol@example.net', email_verified: false }),
    });
    expect(set.status).toBe(200);
    expect(await set.json()).toMatchObject({ email: 'carol@example.net', email_verified: false });
    expect((await signIn('carol@example.net')).claims.email_verified).toBe(false);
    oidc.setUser('carol@example.net', { email_verified: true });
    expect((await signIn('carol@example.net')).claims.email_verified).toBe(true);
  });

  it('registers and lists clients over /_emulator/clients (never their secrets); a client may take ES256 and client_secret_post', async () => {
    const registered = await fetch(`${oidc.origin}/_emulator/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: 'es256-client',
        client_secret: 'another-local-secret-0123456789ab',
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'client_secret_post',
        id_token_signed_response_alg: 'ES256',
      }),
    });
    expect(registered.status).toBe(201);
    expect(await registered.json()).toEqual({
      client_id: 'es256-client',
      client_name: null,
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'client_secret_post',
      id_token_signed_response_alg: 'ES256',
    });
    const listed = await (await fetch(`${oidc.origin}/_emulator/clients`)).json();
    expect(listed).toEqual(
      expect.arrayContaining([expect.objectContaining({ client_id: clientId }), expect.objectContaining({ client_id: 'es256-client' })]),
    );
    expect(JSON.stringify(listed)).not.toContain('secret-0123');

    const config = await client.discovery(
      new URL(oidc.issuer),
      'es256-client',
      { id_token_signed_response_alg: 'ES256' },
      client.ClientSecretPost('another-local-secret-0123456789ab'),
      { execute: [client.allowInsecureRequests] },
    );
    const verifier = client.randomPKCECodeVerifier();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      nonce,
    });
    const tokens = await client.authorizationCodeGrant(config, await signInAt(oidc, url, 'dee@example.com'), {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
    });
    expect(tokens.claims()).toMatchObject({ aud: 'es256-client', email: 'dee@example.com' });
    expect(JSON.parse(Buffer.from(tokens.id_token!.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'ES256' });

    // The provider's own checks: a secret-based method without a secret is refused.
    const refused = await fetch(`${oidc.origin}/_emulator/clients`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: 'no-secret', redirect_uris: [redirectUri] }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('refuses a wrong client secret at the token endpoint, and an unregistered client at the authorization endpoint', async () => {
    await expect(signIn('ana@example.org', { secret: 'not-the-secret' })).rejects.toMatchObject({ error: 'invalid_client' });
    const config = await relyingParty('nobody-registered-me', 'whatever');
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
    });
    await expect(signInAt(oidc, url, 'ana@example.org')).rejects.toThrow(/answered 400/);
  });
});
