/**
 * The API calls the pages make, on the same origin (`connect-src 'self'`; a file's bytes alone
 * go to the files bucket, by presigned URLs). Requests carry ciphertext, public parameters and
 * tokens only; never the link key, the passphrase or the text.
 * Account calls take the access token as an argument: `session.ts` owns it.
 */
import type { ClaimedFile } from './filesApi.ts';

export interface FieldProblem {
  path: string;
  message: string;
}

export interface Problem {
  status: number;
  code?: string;
  title?: string;
  detail?: string;
  errors?: FieldProblem[];
  /** 410: which terminal state. */
  state?: string;
  /** 403 proof_refused. */
  attempts_left?: number;
  /** 425. */
  not_before?: string;
  [member: string]: unknown;
}

/** A refused request (problem+json), or status 0 when the server could not be reached. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: Problem,
    /** Seconds from `retry-after`, when the server sent it. */
    readonly retryAfter: number | null,
  ) {
    super(problem.detail ?? problem.title ?? `request failed (${status})`);
    this.name = 'ApiError';
  }
  get code(): string | undefined {
    return this.problem.code;
  }
}

export interface CreateSecretBody {
  kind: 'text';
  envelope: string;
  salt: string;
  size_bytes: number;
  expires_in: number;
  max_views: number;
  claim_verifier: string;
  link_verifier: string;
  not_before?: string;
  /** Per-recipient links (1-20): each opens the secret up to `max_views` times. */
  recipients?: RecipientRequest[];
  /** Sent inside this workspace (the caller is a member): its policy must allow the secret. */
  workspace_id?: string;
}

export interface RecipientRequest {
  label?: string;
  email?: string;
  /** Only `email` can open it, after confirming the address with an emailed code. */
  restricted?: boolean;
}

/** A per-recipient link as creation answers it: append `#` and the key to `url_base`. */
export interface CreatedLink {
  recipient_id: string;
  label: string | null;
  email: string | null;
  restricted: boolean;
  url_base: string;
}

export type LinkState = 'active' | 'revoked' | 'used';

export interface CreatedSecret {
  id: string;
  url_base: string;
  delete_token: string;
  expires_at: string;
  not_before?: string | null;
  max_views: number;
  views_left: number;
  recipients?: CreatedLink[];
}

export type SecretState = 'pending' | 'active' | 'burned' | 'expired' | 'revoked' | 'locked';

export interface SecretMetadata {
  id: string;
  state: SecretState | string;
  kind: string;
  /** The envelope's length: a file's is its size and a little more. */
  size_bytes?: number;
  salt: string;
  max_views: number;
  views_left: number;
  expires_at: string;
  not_before: string | null;
  /** When it entered a terminal state. */
  ended_at?: string | null;
  requires_proof?: boolean;
  /** Whether the envelope needs a passphrase; null (or absent) when the server cannot tell. */
  passphrase?: boolean | null;
  /** PBKDF2 iterations of the passphrase: 0 or null without one. */
  kdf_iterations?: number | null;
  /** It opens only through per-recipient links. */
  has_recipients?: boolean;
  /** The link asked about with `?recipient_id=`. */
  recipient?: { recipient_id: string; restricted: boolean; state: LinkState | string; views_left: number };
  /** Sent inside a Team workspace with branding: display only (`revealBranding.ts`). */
  branding?: { display_name: string; logo: string | null; accent: string | null };
}

/** A claim's answer: a text's envelope, or a file's presigned download (`filesApi.ts`). */
export type ClaimedSecret = { kind: 'text'; id: string; envelope: string; salt: string; views_left: number; expires_at?: string } | ClaimedFile;

export async function call<T>(method: string, path: string, init: { json?: unknown; headers?: Record<string, string>; token?: string | undefined } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.token) headers['authorization'] = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
      cache: 'no-store',
      credentials: 'same-origin',
      referrerPolicy: 'no-referrer',
      // Secret routes never redirect; following one could only send things somewhere else.
      redirect: 'error',
    });
  } catch {
    throw new ApiError(0, { status: 0, code: 'network', detail: 'The server could not be reached. Check your connection and try again.' }, null);
  }
  const text = await response.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!response.ok) {
    const problem: Problem = isObject(parsed) ? ({ ...parsed, status: response.status } as Problem) : { status: response.status };
    const retryAfter = Number.parseInt(response.headers.get('retry-after') ?? '', 10);
    throw new ApiError(response.status, problem, Number.isFinite(retryAfter) ? retryAfter : null);
  }
  return parsed as T;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const secretPath = (id: string) => `/v1/secrets/${encodeURIComponent(id)}`;

export const api = {
  /** With an access token the caller becomes the secret's owner; without, it is anonymous. */
  createSecret: (body: CreateSecretBody, token?: string) => call<CreatedSecret>('POST', '/v1/secrets', { json: body, token }),
  /** With `recipientId`, also that link's state (404 for a link the secret does not have). */
  readSecret: (id: string, recipientId?: string) =>
    call<SecretMetadata>('GET', `${secretPath(id)}${recipientId ? `?${new URLSearchParams({ recipient_id: recipientId }).toString()}` : ''}`),
  /** Through a per-recipient link, with its gate session when the link is restricted. The header names the channel on the receipt. */
  claimSecret: (id: string, claimToken: string, linkToken: string, link?: { recipientId: string; gateToken?: string }) =>
    call<ClaimedSecret>('POST', `${secretPath(id)}/claim`, {
      json: {
        claim_token: claimToken,
        link_token: linkToken,
        ...(link ? { recipient_id: link.recipientId } : {}),
        ...(link?.gateToken ? { gate_token: link.gateToken } : {}),
      },
      headers: { 'x-hushlink-client': 'web' },
    }),
  revokeSecret: (id: string, deleteToken: string) => call<void>('DELETE', secretPath(id), { headers: { 'x-delete-token': deleteToken } }),
};

export interface AccountUser {
  id: string;
  email: string;
}

/** What sign-in and refresh answer. */
export interface IssuedTokens {
  access_token: string;
  refresh_token: string;
  token_type: 'Bearer';
  expires_in: number;
  user: AccountUser;
}

/** A secret of the signed-in user, as `GET /v1/secrets` lists it (metadata only). */
export interface OwnedSecret {
  id: string;
  state: SecretState | string;
  kind: string;
  max_views: number;
  views_left: number;
  created_at: string | null;
  expires_at: string;
  not_before: string | null;
  ended_at: string | null;
  passphrase?: boolean | null;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

export type ApiKeyScope = 'secrets:write' | 'secrets:read' | 'receipts:read';

export interface ApiKeyInfo {
  id: string;
  name: string;
  prefix: string;
  scopes: ApiKeyScope[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

export interface CreatedApiKey extends ApiKeyInfo {
  /** The key itself: in this answer only. */
  key: string;
}

export interface DeviceSession {
  id: string;
  device_name: string;
  created_at: string;
  last_used_at: string;
  current: boolean;
}

export interface UnattachedSecret {
  id: string;
  delete_token: string;
}

export type AdoptionResult = { id: string; adopted: true } | { id: string; adopted: false; reason?: string };

/** Sign-in, sessions, the owner's secrets and API keys. */
export const accountApi = {
  startSignIn: (email: string) => call<{ sent: true }>('POST', '/v1/auth/otp/start', { json: { email } }),
  resendCode: (email: string) => call<{ sent: true }>('POST', '/v1/auth/otp/resend', { json: { email } }),
  verifyCode: (email: string, code: string) => call<IssuedTokens>('POST', '/v1/auth/otp/verify', { json: { email, code } }),
  refresh: (refreshToken: string) => call<IssuedTokens>('POST', '/v1/auth/refresh', { json: { refresh_token: refreshToken } }),
  logout: (refreshToken: string | null, token: string | undefined) =>
    call<unknown>('POST', '/v1/auth/logout', { json: refreshToken ? { refresh_token: refreshToken } : {}, token }),
  logoutEverywhere: (token: string) => call<unknown>('POST', '/v1/auth/logout-all', { token }),
  sessions: (token: string) => call<Page<DeviceSession>>('GET', '/v1/auth/sessions', { token }),
  secrets: (token: string, limit: number, cursor: string | null) =>
    call<Page<OwnedSecret>>('GET', `/v1/secrets?${new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) }).toString()}`, { token }),
  revokeOwnedSecret: (token: string, id: string) => call<void>('DELETE', secretPath(id), { token }),
  adoptSecrets: (token: string, secrets: UnattachedSecret[]) => call<{ items: AdoptionResult[] }>('POST', '/v1/auth/adopt-secrets', { json: { secrets }, token }),
  apiKeys: (token: string) => call<Page<ApiKeyInfo>>('GET', '/v1/api-keys', { token }),
  createApiKey: (token: string, body: { name: string; scopes: ApiKeyScope[]; expires_in?: number }) => call<CreatedApiKey>('POST', '/v1/api-keys', { json: body, token }),
  revokeApiKey: (token: string, id: string) => call<unknown>('DELETE', `/v1/api-keys/${encodeURIComponent(id)}`, { token }),
};

/** Human sentences for a refused request: `errors[].message` (with the field) or `detail`. */
export function problemMessages(error: ApiError): string[] {
  const fields = (error.problem.errors ?? [])
    .filter((entry): entry is FieldProblem => isObject(entry) && typeof entry.message === 'string')
    .map((entry) => (entry.path ? `${fieldLabel(entry.path)}: ${entry.message}` : entry.message));
  if (fields.length > 0) return fields;
  return [error.problem.detail ?? error.problem.title ?? `The server refused the request (${error.status}).`];
}

const recipientFields: Record<string, string> = { label: 'name', email: 'email address', restricted: 'only this address' };

/** API field paths (`body.max_views`, `body.recipients.0.email`) in the words of the form. */
function fieldLabel(path: string): string {
  const field = path.replace(/^body\./, '');
  const recipient = /^recipients\.(\d+)\.(\w+)$/.exec(field);
  if (recipient) return `Recipient ${Number(recipient[1]) + 1}, ${recipientFields[recipient[2]!] ?? recipient[2]}`;
  const labels: Record<string, string> = {
    envelope: 'Secret',
    size_bytes: 'Secret',
    expires_in: 'Expires after',
    max_views: 'Views allowed',
    not_before: 'Not before',
    recipients: 'Personal links',
    claim_verifier: 'Link proof',
    link_verifier: 'Link proof',
    salt: 'Encryption',
    email: 'Email address',
    code: 'Code',
    name: 'Name',
    scopes: 'Permissions',
    url: 'URL',
    events: 'Events',
    prompt_envelope: 'What you are asking for',
    max_responses: 'Responses allowed',
  };
  return labels[field] ?? field;
}

/**
 * The chat integration (Slack): installing it from the account page, and the composer asking
 * that the chat user be told when the secret it made is opened. Nothing sent here is a link.
 */
export const chatApi = {
  /** Slack's authorize page, with a state naming this user (10 minutes, once); 403 `chat_not_configured` without a chat app. */
  startInstall: (token: string) => call<{ authorize_url: string }>('POST', '/v1/chat/install', { token }),
  /** The chat token from the chat link, and the delete token proving this page made the secret. */
  subscribe: (body: { secret_id: string; delete_token: string; chat_token: string }) => call<{ subscribed: true }>('POST', '/v1/chat/subscribe', { json: body }),
};
