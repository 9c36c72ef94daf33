import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import type { ClientMetadata, Grant, KoaContextWithOIDC } from 'oidc-provider';
import { listenOnLoopback, readBody } from '../loopbackServer.ts';
import { addressProblem, LocalAccounts, normalizeAddress } from './accounts.ts';
import { memoryAdapter } from './adapter.ts';
import { handleControl, type ClientRegistration, type ClientView, type OidcControls } from './controls.ts';
import { handleInteraction, renderError } from './pages.ts';

export { signInAt } from './signIn.ts';
export { subjectOf } from './accounts.ts';
export type { ClientRegistration, ClientView, OidcControls, UserView } from './controls.ts';

export interface OidcProviderOptions {
  /** 0 or absent picks a free port. */
  port?: number;
  /** Clients registered from the start (`registerClient` adds more at any time). */
  clients?: ClientRegistration[];
}

export interface LocalOidc extends OidcControls {
  /** `http://127.0.0.1:<port>`: what a workspace's single sign-on names, and every token's `iss`. */
  issuer: string;
  /** The same origin: the provider's endpoints, its login page at `/interaction/<uid>`, the controls under `/_emulator/`. */
  origin: string;
  /** `<issuer>/.well-known/openid-configuration` */
  discoveryUrl: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

/**
 * An OpenID Provider on this machine (issue 29): oidc-provider, the certified implementation,
 * on its own loopback port. Authorization code flow only, PKCE (S256) required of every client,
 * `nonce` carried into the ID token, RFC 9207's `iss` in every authorization response; scopes
 * `openid` and `email`, claims `sub`, `email`, `email_verified` in the ID token itself (as most
 * providers put them, not only at userinfo); ID tokens signed RS256 (a client may register
 * ES256) with keys made at start; clients authenticate with `client_secret_basic` unless
 * registered otherwise. Its login page asks for an address at every sign-in and anyone signs
 * in: the address is `email`, its `sub` is derived from it (accounts.ts). Clients are
 * registered through `registerClient` or `/_emulator/clients`. Nothing is kept across runs:
 * clients, sessions, codes and keys are gone at a restart.
 *
 * oidc-provider serves plain-http issuers as it does https ones (it checks only that the issuer
 * is a URL with a host and no query or fragment, and sets no `secure` cookie over http); it is
 * the relying party that must allow http (openid-client: `execute: [allowInsecureRequests]`).
 */
export async function startOidcProvider(options: OidcProviderOptions = {}): Promise<LocalOidc> {
  const [{ default: Provider, interactionPolicy }, keys] = await Promise.all([loadOidcProvider(), signingKeys()]);
  const loopback = await listenOnLoopback(options.port);
  const issuer = loopback.origin;
  const clients = new Map<string, ClientMetadata>();
  const accounts = new LocalAccounts();

  // Every sign-in asks for an address, so a browser can sign in as someone else next time
  // (the provider would otherwise reuse its session's person without asking).
  const policy = interactionPolicy.base();
  const { Check } = interactionPolicy;
  policy
    .get('login')
    ?.checks.add(
      new Check('every_sign_in', 'the local provider asks who signs in every time', (ctx) =>
        ctx.oidc.result?.login ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT,
      ),
    );

  const provider = new Provider(issuer, {
    adapter: memoryAdapter(clients),
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      id_token_signed_response_alg: 'RS256',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    scopes: ['openid', 'email'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    conformIdTokenClaims: false,
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    enabledJWA: { idTokenSigningAlgValues: ['RS256', 'ES256'], userinfoSigningAlgValues: ['RS256', 'ES256'] },
    features: { devInteractions: { enabled: false } },
    findAccount: (_ctx, id) => accounts.find(id),
    interactions: { policy, url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    jwks: { keys },
    loadExistingGrant: grantEverything,
    pkce: { required: () => true },
    renderError,
    responseTypes: ['code'],
    // Everything but the code lives an hour (the code a minute): a local sign-in is over in seconds.
    ttl: { AccessToken: 3600, AuthorizationCode: 60, Grant: 3600, IdToken: 3600, Interaction: 3600, Session: 3600 },
  });
  const callback = provider.callback();

  const view = (client: ClientMetadata): ClientView => ({
    client_id: client.client_id,
    client_name: client.client_name ?? null,
    redirect_uris: [...(client.redirect_uris ?? [])],
    token_endpoint_auth_method: client.token_endpoint_auth_method ?? 'client_secret_basic',
    id_token_signed_response_alg: client.id_token_signed_response_alg ?? 'RS256',
  });
  const controls: OidcControls = {
    async registerClient(registration) {
      const metadata: ClientMetadata = {
        client_id: registration.client_id,
        redirect_uris: [...registration.redirect_uris],
        token_endpoint_auth_method: registration.token_endpoint_auth_method ?? 'client_secret_basic',
        ...(registration.client_secret === undefined ? {} : { client_secret: registration.client_secret }),
        ...(registration.id_token_signed_response_alg === undefined
          ? {}
          : { id_token_signed_response_alg: registration.id_token_signed_response_alg }),
        ...(registration.client_name === undefined ? {} : { client_name: registration.client_name }),
      };
      // The provider's own checks (a secret for secret-based methods, redirect URIs, algorithms): an `InvalidClientMetadata`.
      await provider.Client.validate(metadata);
      clients.set(metadata.client_id, metadata);
      return view(metadata);
    },
    clients: () => [...clients.values()].map(view),
    setUser(email, settings) {
      const problem = addressProblem(normalizeAddress(email));
      if (problem) throw new Error(problem);
      return accounts.setUser(email, settings);
    },
  };
  try {
    for (const client of options.clients ?? []) await controls.registerClient(client);
  } catch (error) {
    await loopback.close();
    throw error;
  }

  loopback.serve((request, response) => {
    serve(request, response).catch((error: unknown) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
      response.end(
        JSON.stringify({ error: 'server_error', error_description: `The local identity provider failed: ${(error as Error).message}` }),
      );
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/_emulator/')) {
      const body = await readBody(request);
      if (body === undefined) return void response.writeHead(413).end();
      if (await handleControl(controls, request.method ?? 'GET', url.pathname, body, response)) return;
      return void response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
    }
    if (await handleInteraction(provider, accounts, request, response, url.pathname)) return;
    // Everything else is the provider's: discovery, /auth, /token, /jwks, /me, /session/end…
    await callback(request, response);
  }

  return {
    ...controls,
    issuer,
    origin: issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    host: '127.0.0.1',
    port: loopback.port,
    close: () => loopback.close(),
  };
}

/**
 * Consent is automatic: every client here was registered by whoever runs the provider, so the
 * grant covers whatever `openid`/`email` scopes and claims the request asks (the provider's
 * consent prompt then never shows; pages.ts still answers one, should a client send
 * `prompt=consent`).
 */
async function grantEverything(ctx: KoaContextWithOIDC): Promise<Grant | undefined> {
  const { oidc } = ctx;
  if (!oidc.client || !oidc.account || !oidc.session) return undefined;
  const grantId = oidc.result?.consent?.grantId ?? oidc.session.grantIdFor(oidc.client.clientId);
  const grant =
    (grantId ? await oidc.provider.Grant.find(grantId) : undefined) ??
    new oidc.provider.Grant({ accountId: oidc.account.accountId, clientId: oidc.client.clientId });
  if (oidc.requestParamOIDCScopes.size > 0) grant.addOIDCScope([...oidc.requestParamOIDCScopes].join(' '));
  if (oidc.requestParamClaims.size > 0) grant.addOIDCClaims([...oidc.requestParamClaims]);
  await grant.save();
  return grant;
}

/** The ID token signing keys, made at each start: RS256 (every client's default) and ES256, private JWKs with their `kid`. */
async function signingKeys(): Promise<Array<Record<string, unknown>>> {
  const jwk = async (alg: 'RS256' | 'ES256') => {
    const { privateKey } = await generateKeyPair(alg, { extractable: true });
    return { ...(await exportJWK(privateKey)), alg, use: 'sig', kid: `${alg.toLowerCase()}-${randomBytes(9).toString('base64url')}` };
  };
  return Promise.all([jwk('RS256'), jwk('ES256')]);
}

let loading: Promise<typeof import('oidc-provider')> | undefined;

/**
 * oidc-provider, imported when a provider first starts (not when the runtime's modules load).
 * Its import prints "Unsupported runtime. Use Node.js v22.x LTS" on Node 20, which this
 * project supports (`engines`); test/integration/oidc-provider.test.ts passes on it, so that one
 * notice is left out of `npm start`'s output. Any other warning of the import is printed.
 */
function loadOidcProvider(): Promise<typeof import('oidc-provider')> {
  loading ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('oidc-provider WARNING: Unsupported runtime')) return;
      warn.apply(console, args);
    };
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = warn;
    }
  })();
  return loading;
}
