/**
 * The few API calls the pages make, on the same origin (`connect-src 'self'`). Requests carry
 * ciphertext, public parameters and tokens only; never the link key, the passphrase or the text.
 */

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
  not_before?: string;
}

export interface CreatedSecret {
  id: string;
  url_base: string;
  delete_token: string;
  expires_at: string;
  not_before?: string | null;
  max_views: number;
  views_left: number;
}

export type SecretState = 'pending' | 'active' | 'burned' | 'expired' | 'revoked' | 'locked';

export interface SecretMetadata {
  id: string;
  state: SecretState | string;
  kind: string;
  salt: string;
  max_views: number;
  views_left: number;
  expires_at: string;
  not_before: string | null;
  requires_proof?: boolean;
  /** Whether the envelope needs a passphrase; null (or absent) when the server cannot tell. */
  passphrase?: boolean | null;
  /** PBKDF2 iterations of the passphrase: 0 or null without one. */
  kdf_iterations?: number | null;
}

export interface ClaimedSecret {
  id: string;
  envelope: string;
  salt: string;
  views_left: number;
  expires_at?: string;
}

async function call<T>(method: string, path: string, init: { json?: unknown; headers?: Record<string, string> } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
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

const secretPath = (id: string) => `/v1/secrets/${encodeURIComponent(id)}`;

export const api = {
  createSecret: (body: CreateSecretBody) => call<CreatedSecret>('POST', '/v1/secrets', { json: body }),
  readSecret: (id: string) => call<SecretMetadata>('GET', secretPath(id)),
  claimSecret: (id: string, claimToken: string) => call<ClaimedSecret>('POST', `${secretPath(id)}/claim`, { json: { claim_token: claimToken } }),
  revokeSecret: (id: string, deleteToken: string) => call<void>('DELETE', secretPath(id), { headers: { 'x-delete-token': deleteToken } }),
};

/** Human sentences for a refused request: `errors[].message` (with the field) or `detail`. */
export function problemMessages(error: ApiError): string[] {
  const fields = (error.problem.errors ?? [])
    .filter((entry): entry is FieldProblem => isObject(entry) && typeof entry.message === 'string')
    .map((entry) => (entry.path ? `${fieldLabel(entry.path)}: ${entry.message}` : entry.message));
  if (fields.length > 0) return fields;
  return [error.problem.detail ?? error.problem.title ?? `The server refused the request (${error.status}).`];
}

/** API field paths (`body.max_views`) in the words of the form. */
function fieldLabel(path: string): string {
  const field = path.replace(/^body\./, '');
  const labels: Record<string, string> = {
    envelope: 'Secret',
    size_bytes: 'Secret',
    expires_in: 'Expires after',
    max_views: 'Views allowed',
    not_before: 'Not before',
    claim_verifier: 'Link proof',
    salt: 'Encryption',
  };
  return labels[field] ?? field;
}
