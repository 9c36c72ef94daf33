/**
 * The API calls the pages make, on the same origin (`connect-src 'self'`; a file's bytes alone
 * go to the files bucket, by presigned URLs). Requests carry ciphertext, public parameters and
 * tokens only; never the link key, the passphrase or the text.
 * Account calls take the access token as an argument: `session.ts` owns it.
 */
import type * as z from 'zod/mini';
import type { accountRequests } from '../../shared/api/account.ts';
import type { accountReplies } from '../../shared/api/accountReplies.ts';
import type { chatReplies, chatRequests } from '../../shared/api/chat.ts';
import type { Problem as ProblemSchema } from '../../shared/api/output.ts';
import type { recipientRequest, secretsRequests } from '../../shared/api/secrets.ts';
import type { secretsReplies } from '../../shared/api/secretsReplies.ts';
import { hasMessage, language, locale, t } from './i18n.ts';

// The API's types are its contract's (shared/api): what the OpenAPI document says and the
// contract test holds the server to. Imported as types only, so nothing of zod is bundled.
type AccountReply<K extends keyof typeof accountReplies> = z.output<(typeof accountReplies)[K]>;
type SecretsReply<K extends keyof typeof secretsReplies> = z.output<(typeof secretsReplies)[K]>;

/** One entry of a 400's `errors`. */
export type FieldProblem = NonNullable<z.output<typeof ProblemSchema>['errors']>[number];

/**
 * A refusal as the page reads it: the problem+json body when there was one (only `status` is
 * sure: an answer that is not problem+json, or none at all, gives that alone), or the page's own
 * for a server it could not reach (`code: 'network'`, which no server answers). So it is looser
 * than the contract's `Problem`, and its own.
 */
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

type CreateSecretRequest = z.input<typeof secretsRequests.CreateSecretRequest>;
/** The page always sends both verifiers (a claim must prove the link), which the contract leaves optional. */
export type CreateSecretBody = CreateSecretRequest & Required<Pick<CreateSecretRequest, 'claim_verifier' | 'link_verifier'>>;
export type RecipientRequest = z.input<typeof recipientRequest>;
export type CreatedSecret = SecretsReply<'SecretCreated'>;
/** A per-recipient link as creation answers it: append `#` and the key to `url_base`. */
export type CreatedLink = NonNullable<CreatedSecret['recipients']>[number];
export type SecretMetadata = SecretsReply<'SecretMetadata'>;
export type SecretState = SecretMetadata['state'];
export type LinkState = NonNullable<SecretMetadata['recipient']>['state'];
/** A claim's answer: a text's envelope, or a file's presigned download (`filesApi.ts`). */
export type ClaimedSecret = SecretsReply<'ClaimedSecret'>;

export async function call<T>(
  method: string,
  path: string,
  init: { json?: unknown; headers?: Record<string, string>; token?: string | undefined; withoutCookie?: boolean; keepalive?: boolean } = {},
): Promise<T> {
  // The page's language, so the emails a request causes (a sign-in code, a gate code) are in it (ADR 0183).
  const headers: Record<string, string> = { accept: 'application/json', 'accept-language': locale, ...init.headers };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
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
      // Only the sign-in routes read a cookie (the browser's refresh token, ADR 0178); signing an
      // earlier session out after a new sign-in must not send the new session's.
      credentials: init.withoutCookie ? 'omit' : 'same-origin',
      ...(init.keepalive ? { keepalive: true } : {}),
      referrerPolicy: 'no-referrer',
      // Secret routes never redirect; following one could only send things somewhere else.
      redirect: 'error',
    });
  } catch {
    throw new ApiError(0, { status: 0, code: 'network', detail: t('problem.network') }, null);
  }
  const text = await response.text();
  let parsed: unknown;
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

/** A listing's page: `limit=…`, and `cursor=…` after the first. */
export const pageQuery = (limit: number, cursor: string | null) =>
  new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) }).toString();

export const api = {
  /** With an access token the caller becomes the secret's owner; without, it is anonymous. */
  createSecret: (body: CreateSecretBody, token?: string) => call<CreatedSecret>('POST', '/v1/secrets', { json: body, token }),
  /** With `recipientId`, also that link's state (404 for a link the secret does not have). */
  readSecret: (id: string, recipientId?: string) =>
    call<SecretMetadata>(
      'GET',
      `${secretPath(id)}${recipientId ? `?${new URLSearchParams({ recipient_id: recipientId }).toString()}` : ''}`,
    ),
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

/** How a sign-in asks for its refresh token (`session.ts`'s `signInMode`). */
export type SignInMode = { session_cookie?: true };
/** What sign-in and refresh answer. */
export type IssuedTokens = AccountReply<'IssuedTokens'>;
export type AccountUser = IssuedTokens['user'];
/** A secret of the signed-in user, as `GET /v1/secrets` lists it (metadata only). */
export type OwnedSecret = SecretsReply<'SecretList'>['items'][number];
export type ApiKeyInfo = AccountReply<'ApiKeyList'>['items'][number];
export type ApiKeyScope = ApiKeyInfo['scopes'][number];
/** `key` is the key itself: in this answer only. */
export type CreatedApiKey = AccountReply<'CreatedApiKey'>;
export type DeviceSession = AccountReply<'SessionList'>['items'][number];
export type UnattachedSecret = z.input<typeof accountRequests.AdoptSecretsRequest>['secrets'][number];
export type AdoptionResult = AccountReply<'AdoptionResult'>['items'][number];

/**
 * Where the browser goes (a navigation, never a fetch) to sign in through the address's
 * workspace's identity provider (ADR 0172): the API answers 302 to the provider, which comes back
 * to the API, which sends the browser to `/signin/sso` with a one-time code in the fragment.
 */
export const ssoStartPath = (email: string, returnTo: string) =>
  `/v1/auth/sso/start?${new URLSearchParams({ email, return_to: returnTo } satisfies z.input<typeof accountRequests.SsoStartQuery>).toString()}`;

/** Sign-in, sessions, the owner's secrets and API keys. */
export const accountApi = {
  startSignIn: (email: string) => call<AccountReply<'CodeSent'>>('POST', '/v1/auth/otp/start', { json: { email } }),
  resendCode: (email: string) => call<AccountReply<'CodeSent'>>('POST', '/v1/auth/otp/resend', { json: { email } }),
  /** `mode` from `session.ts`'s `signInMode`: the refresh token as a cookie, unless on a shared computer. */
  verifyCode: (email: string, code: string, mode: SignInMode) =>
    call<IssuedTokens>('POST', '/v1/auth/otp/verify', {
      json: { email, code, ...mode } satisfies z.input<typeof accountRequests.VerifyCodeRequest>,
    }),
  /** A sign-in link's address and token (ADR 0167): the same session a code opens. */
  signInWithLink: (email: string, token: string, mode: SignInMode) =>
    call<IssuedTokens>('POST', '/v1/auth/otp/link', {
      json: { email, token, ...mode } satisfies z.input<typeof accountRequests.SignInLinkRequest>,
    }),
  /** The one-time code single sign-on hands `/signin/sso` in the fragment (ADR 0172): the same session a code opens. */
  exchangeSsoCode: (code: string, mode: SignInMode) =>
    call<IssuedTokens>('POST', '/v1/auth/sso/exchange', {
      json: { code, ...mode } satisfies z.input<typeof accountRequests.SsoExchangeRequest>,
    }),
  /** Null: the browser's cookie carries it (ADR 0178). */
  refresh: (refreshToken: string | null) =>
    call<IssuedTokens>('POST', '/v1/auth/refresh', { json: refreshToken ? { refresh_token: refreshToken } : {} }),
  /** `withoutCookie`: a session named by its own tokens alone, not the browser's cookie; `keepalive`: outlives the page. */
  logout: (refreshToken: string | null, token: string | undefined, options: { withoutCookie?: boolean; keepalive?: boolean } = {}) =>
    call<AccountReply<'SignedOut'>>('POST', '/v1/auth/logout', {
      json: refreshToken ? { refresh_token: refreshToken } : {},
      token,
      ...options,
    }),
  logoutEverywhere: (token: string) => call<AccountReply<'SignedOutEverywhere'>>('POST', '/v1/auth/logout-all', { token }),
  sessions: (token: string) => call<AccountReply<'SessionList'>>('GET', '/v1/auth/sessions', { token }),
  secrets: (token: string, limit: number, cursor: string | null) =>
    call<SecretsReply<'SecretList'>>('GET', `/v1/secrets?${pageQuery(limit, cursor)}`, { token }),
  revokeOwnedSecret: (token: string, id: string) => call<void>('DELETE', secretPath(id), { token }),
  adoptSecrets: (token: string, secrets: UnattachedSecret[]) =>
    call<AccountReply<'AdoptionResult'>>('POST', '/v1/auth/adopt-secrets', { json: { secrets }, token }),
  apiKeys: (token: string) => call<AccountReply<'ApiKeyList'>>('GET', '/v1/api-keys', { token }),
  createApiKey: (token: string, body: z.input<typeof accountRequests.CreateApiKeyRequest>) =>
    call<CreatedApiKey>('POST', '/v1/api-keys', { json: body, token }),
  revokeApiKey: (token: string, id: string) =>
    call<AccountReply<'ApiKeyRevoked'>>('DELETE', `/v1/api-keys/${encodeURIComponent(id)}`, { token }),
};

/**
 * Human sentences for a refused request. In English, the server's own: `errors[].message` (with
 * the field) or `detail`. In every other language the server's English is not shown: a refused
 * field is named with "not accepted", anything else is said by the problem's `code` (area
 * `problem`, one message per code of shared/http/errors.ts, and `network` for a server not
 * reached), and a code the catalogue lacks by its HTTP status.
 */
export function problemMessages(error: ApiError): string[] {
  const entries = (error.problem.errors ?? []).filter(
    (entry): entry is FieldProblem => isObject(entry) && typeof entry.message === 'string',
  );
  if (language === 'en') {
    const fields = entries.map((entry) => (entry.path ? `${fieldLabel(entry.path)}: ${entry.message}` : entry.message));
    if (fields.length > 0) return fields;
    return [error.problem.detail ?? error.problem.title ?? t('problem.otherStatus', { status: String(error.status) })];
  }
  const refused = entries.flatMap((entry) => (entry.path ? [t('problem.fieldRefused', { field: fieldLabel(entry.path) })] : []));
  // One sentence a field: two refusals of one field would otherwise read the same twice.
  if (refused.length > 0) return [...new Set(refused)];
  return [problemSentence(error)];
}

/** One refused field's sentence, as `problemMessages` says it (for a form that puts each beside its field). */
export function fieldProblemMessage(error: ApiError, entry: { path?: unknown; message?: unknown }): string {
  const path = typeof entry.path === 'string' ? entry.path : '';
  if (language === 'en') return path ? `${fieldLabel(path)}: ${String(entry.message)}` : String(entry.message);
  return path ? t('problem.fieldRefused', { field: fieldLabel(path) }) : problemSentence(error);
}

/** `problemMessages` as one text: sentences apart by a space, or none in Japanese and Chinese (whose full stops end them). */
export function problemText(error: ApiError): string {
  return problemMessages(error).join(/^(?:ja|zh)\b/.test(language) ? '' : ' ');
}

/** The sentence for a problem's `code` (snake_case, as errorCodes spells them), else for its status. */
function problemSentence(error: ApiError): string {
  const code = error.problem.code;
  if (typeof code === 'string' && /^[a-z]+(?:_[a-z]+)*$/.test(code) && hasMessage(`problem.${code}`)) return t(`problem.${code}`);
  return t('problem.otherStatus', { status: String(error.status) });
}

/** A recipient's fields (`body.recipients.0.email`): each one's message, with the recipient's number. */
const recipientFields: Record<string, string> = {
  label: 'problem.field.recipientName',
  email: 'problem.field.recipientEmail',
  restricted: 'problem.field.recipientRestricted',
};

/** The form's fields by their API names: each one's message. */
const fieldLabels: Record<string, string> = {
  envelope: 'problem.field.secret',
  size_bytes: 'problem.field.secret',
  expires_in: 'problem.field.expiresIn',
  max_views: 'problem.field.maxViews',
  not_before: 'problem.field.notBefore',
  recipients: 'problem.field.recipients',
  claim_verifier: 'problem.field.linkProof',
  link_verifier: 'problem.field.linkProof',
  salt: 'problem.field.salt',
  email: 'problem.field.email',
  code: 'problem.field.code',
  name: 'problem.field.name',
  scopes: 'problem.field.scopes',
  url: 'problem.field.url',
  events: 'problem.field.events',
  prompt_envelope: 'problem.field.prompt',
  max_responses: 'problem.field.maxResponses',
};

/** API field paths (`body.max_views`, `body.recipients.0.email`) in the words of the form (a path it does not know as it is). */
export function fieldLabel(path: string): string {
  const field = path.replace(/^body\./, '');
  const recipient = /^recipients\.(\d+)\.(\w+)$/.exec(field);
  if (recipient) {
    const number = Number(recipient[1]) + 1;
    const part = recipient[2]!;
    return Object.hasOwn(recipientFields, part)
      ? t(recipientFields[part]!, { number })
      : t('problem.field.recipientOther', { number, field: part });
  }
  return Object.hasOwn(fieldLabels, field) ? t(fieldLabels[field]!) : field;
}

/**
 * The chat integration (Slack): installing it from the account page, and the composer asking
 * that the chat user be told when the secret it made is opened. Nothing sent here is a link.
 */
export const chatApi = {
  /** Slack's authorize page, with a state naming this user (10 minutes, once); 403 `chat_not_configured` without a chat app. */
  startInstall: (token: string) => call<z.output<typeof chatReplies.ChatInstallStarted>>('POST', '/v1/chat/install', { token }),
  /** The chat token from the chat link, and the delete token proving this page made the secret. */
  subscribe: (body: z.input<typeof chatRequests.ChatSubscribeRequest>) =>
    call<z.output<typeof chatReplies.ChatSubscribed>>('POST', '/v1/chat/subscribe', { json: body }),
};
