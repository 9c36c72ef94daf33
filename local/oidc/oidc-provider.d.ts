/**
 * The parts of oidc-provider (9.13, a devDependency: the local identity provider only) that
 * local/oidc/ uses. The package ships no types; these follow its lib/ sources (provider.js,
 * helpers/defaults.js, helpers/interaction_policy/, models/grant.js).
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** A stored model's payload, as the provider hands it to the adapter. */
  export interface AdapterPayload {
    [key: string]: unknown;
    grantId?: string;
    uid?: string;
    userCode?: string;
    consumed?: number;
  }

  /** What the provider keeps per model (`Session`, `Interaction`, `AuthorizationCode`, `Grant`, `Client`, …). */
  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  /** A client's registered metadata (OpenID Connect Dynamic Client Registration names). */
  export interface ClientMetadata {
    client_id: string;
    client_secret?: string;
    client_name?: string;
    redirect_uris?: string[];
    token_endpoint_auth_method?: string;
    id_token_signed_response_alg?: string;
    grant_types?: string[];
    response_types?: string[];
    [key: string]: unknown;
  }

  export interface Account {
    accountId: string;
    claims(use: string, scope: string, claims: unknown, rejected: string[]): Promise<Record<string, unknown>> | Record<string, unknown>;
  }

  export interface Grant {
    jti: string;
    accountId?: string;
    clientId?: string;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(indicator: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface GrantConstructor {
    new (properties: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  }

  export interface Client {
    clientId: string;
    clientName?: string;
  }

  /** `ctx.oidc`: the request's OpenID Connect context, as the configuration's functions see it. */
  export interface OIDCContext {
    readonly provider: Provider;
    readonly client?: Client;
    readonly session?: { accountId?: string; grantIdFor(clientId: string): string | undefined };
    readonly result?: { login?: { accountId: string }; consent?: { grantId?: string } };
    readonly account?: { accountId: string };
    readonly requestParamOIDCScopes: Set<string>;
    readonly requestParamClaims: Set<string>;
    readonly params?: Record<string, unknown>;
  }

  export interface KoaContextWithOIDC {
    oidc: OIDCContext;
  }

  /** A sign-in under way at the provider's interaction URL (lib/models/interaction.js). */
  export interface Interaction {
    uid: string;
    returnTo: string;
    prompt: {
      name: string;
      reasons: string[];
      details: {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
        login_hint?: string;
        [key: string]: unknown;
      };
    };
    params: Record<string, unknown> & { client_id?: string; login_hint?: string };
    session?: { accountId?: string; uid?: string };
    grantId?: string;
  }

  export interface InteractionResults {
    login?: { accountId: string; remember?: boolean; amr?: string[]; acr?: string };
    consent?: { grantId?: string };
    error?: string;
    error_description?: string;
  }

  /** helpers/interaction_policy/check.js: `check` answers `Check.REQUEST_PROMPT` (true) or `Check.NO_NEED_TO_PROMPT` (false). */
  export class Check {
    static readonly REQUEST_PROMPT: true;
    static readonly NO_NEED_TO_PROMPT: false;
    constructor(reason: string, description: string, check: (ctx: KoaContextWithOIDC) => boolean | Promise<boolean>);
    constructor(reason: string, description: string, error: string, check: (ctx: KoaContextWithOIDC) => boolean | Promise<boolean>);
  }

  export interface Prompt {
    name: string;
    checks: { add(check: Check, index?: number): void };
  }

  /** The default prompts (`login`, then `consent`), each with its checks. */
  export interface Policy extends Array<Prompt> {
    get(name: string): Prompt | undefined;
  }

  export const interactionPolicy: { base(): Policy; Check: typeof Check };

  export const errors: {
    SessionNotFound: new (description?: string) => Error;
    InvalidClientMetadata: new (description?: string) => Error;
  };

  /** The configuration this project sets; the provider has many more settings (helpers/defaults.js). */
  export interface Configuration {
    adapter?: (name: string) => Adapter;
    clients?: ClientMetadata[];
    clientDefaults?: Partial<ClientMetadata>;
    claims?: Record<string, string[] | null>;
    scopes?: string[];
    conformIdTokenClaims?: boolean;
    cookies?: { keys?: string[]; names?: Record<string, string> };
    enabledJWA?: Record<string, string[]>;
    features?: Record<string, { enabled: boolean; [key: string]: unknown }>;
    findAccount?: (ctx: KoaContextWithOIDC, id: string, token?: unknown) => Promise<Account | undefined> | Account | undefined;
    interactions?: {
      policy?: Policy;
      url?: (ctx: KoaContextWithOIDC, interaction: Interaction) => string | Promise<string>;
    };
    jwks?: { keys: Array<Record<string, unknown>> };
    loadExistingGrant?: (ctx: KoaContextWithOIDC) => Promise<Grant | undefined>;
    pkce?: { required?: (ctx: KoaContextWithOIDC, client: Client) => boolean };
    responseTypes?: string[];
    renderError?: (ctx: { type: string; body: unknown }, out: Record<string, string>, error: Error) => void | Promise<void>;
    ttl?: Record<string, number | ((...args: unknown[]) => number)>;
  }

  /** A Koa application: `callback()` is its `node:http` listener. */
  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly issuer: string;
    readonly Grant: GrantConstructor;
    readonly Client: {
      find(id: string): Promise<Client | undefined>;
      /** Throws `InvalidClientMetadata` (its `error_description` says why) when the provider would refuse the metadata. */
      validate(metadata: ClientMetadata): Promise<void>;
    };
    callback(): (request: IncomingMessage, response: ServerResponse) => Promise<void>;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<Interaction>;
    /** Saves the result and answers 303 to the authorization endpoint's resume URL. */
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: InteractionResults,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }
}
