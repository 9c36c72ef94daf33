import type { ServerResponse } from 'node:http';

/** A client to register: its redirect URIs exactly as its authorization requests will send them. */
export interface ClientRegistration {
  client_id: string;
  /** Required unless `token_endpoint_auth_method` is `none`. */
  client_secret?: string;
  redirect_uris: string[];
  /** `client_secret_basic` (the default), `client_secret_post`, `client_secret_jwt` or `none`. */
  token_endpoint_auth_method?: string;
  /** `RS256` (the default) or `ES256`. */
  id_token_signed_response_alg?: string;
  client_name?: string;
}

/** A registered client as the controls show it: never its secret. */
export interface ClientView {
  client_id: string;
  client_name: string | null;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  id_token_signed_response_alg: string;
}

/** A person as the ID token will describe them. */
export interface UserView {
  sub: string;
  email: string;
  email_verified: boolean;
}

/**
 * What scripts and tests may do that the provider's own endpoints do not offer: the same actions
 * as the provider's methods (local/oidc/provider.ts), over HTTP under `/_emulator/`, JSON in and out.
 */
export interface OidcControls {
  /** Registers a client, or replaces the one with its `client_id`; throws (400 over HTTP) when the provider would refuse its metadata. */
  registerClient(client: ClientRegistration): Promise<ClientView>;
  clients(): ClientView[];
  /** Whether the ID token says this address is verified (it is unless set false here); its `sub` and address either way. */
  setUser(email: string, settings: { email_verified?: boolean }): UserView;
}

const json = (response: ServerResponse, status: number, body: unknown) => {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(JSON.stringify(body, null, 2));
};

const strings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');

/**
 * - `GET /_emulator/clients`; `POST /_emulator/clients` `{client_id, client_secret?, redirect_uris,
 *   token_endpoint_auth_method?, id_token_signed_response_alg?, client_name?}` → 201 the client
 *   (without its secret), 400 `{error, error_description}` when refused;
 * - `POST /_emulator/users` `{email, email_verified?}` → `{sub, email, email_verified}`.
 * True when the request was one of these.
 */
export async function handleControl(
  controls: OidcControls,
  method: string,
  path: string,
  rawBody: string,
  response: ServerResponse,
): Promise<boolean> {
  const route = path.slice('/_emulator/'.length);
  if (method === 'GET' && route === 'clients') return (json(response, 200, controls.clients()), true);
  if (method !== 'POST' || (route !== 'clients' && route !== 'users')) return false;
  let body: Record<string, unknown>;
  try {
    const parsed = rawBody ? (JSON.parse(rawBody) as unknown) : {};
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error();
    body = parsed as Record<string, unknown>;
  } catch {
    return (json(response, 400, { error: 'invalid_request', error_description: 'The body must be a JSON object.' }), true);
  }
  const optional = (name: string) => (typeof body[name] === 'string' ? { [name]: body[name] as string } : {});
  if (route === 'clients') {
    if (typeof body.client_id !== 'string' || !strings(body.redirect_uris)) {
      return (
        json(response, 400, {
          error: 'invalid_client_metadata',
          error_description: 'client_id must be a string and redirect_uris a list of URLs.',
        }),
        true
      );
    }
    try {
      const client = await controls.registerClient({
        client_id: body.client_id,
        redirect_uris: body.redirect_uris,
        ...optional('client_secret'),
        ...optional('token_endpoint_auth_method'),
        ...optional('id_token_signed_response_alg'),
        ...optional('client_name'),
      });
      return (json(response, 201, client), true);
    } catch (error) {
      const refusal = error as { error?: string; error_description?: string; message: string };
      json(response, 400, {
        error: refusal.error ?? 'invalid_client_metadata',
        error_description: refusal.error_description ?? refusal.message,
      });
      return true;
    }
  }
  if (typeof body.email !== 'string' || (body.email_verified !== undefined && typeof body.email_verified !== 'boolean')) {
    return (
      json(response, 400, { error: 'invalid_request', error_description: 'email must be a string and email_verified true or false.' }), true
    );
  }
  try {
    const settings = typeof body.email_verified === 'boolean' ? { email_verified: body.email_verified } : {};
    return (json(response, 200, controls.setUser(body.email, settings)), true);
  } catch (error) {
    return (json(response, 400, { error: 'invalid_request', error_description: (error as Error).message }), true);
  }
}
