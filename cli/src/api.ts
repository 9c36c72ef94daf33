/**
 * The CLI's calls to the API: JSON in and out, `x-hushlink-client: cli` on every request, the
 * credential each route takes, and a session's access token refreshed (under the config lock,
 * since a refresh token works once) when it is about to end or was refused as expired.
 */
import { answerOf } from '../transfer/api.ts';
import { clientHeaders } from '../transfer/index.ts';
import { CliError, exitCodes } from './errors.ts';
import { currentLanguage, t } from './i18n.ts';
import {
  credentialsFile,
  currentCredential,
  storedSession,
  withoutSession,
  type Credential,
  type IssuedTokens,
  type StoredSession,
} from './credentials.ts';

/**
 * What a call sends: `none` nothing; `optional` the key or session when there is one (the
 * secret gets an owner); `session` a signed-in session (an API key is refused by those routes);
 * `user` a session or a key.
 */
export type CallAuth = 'none' | 'optional' | 'session' | 'user';

export interface CallOptions {
  auth?: CallAuth;
  json?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** How long a call made while holding the config lock may take (the lock is taken over after 30 s). */
export const lockedCallMs = 10_000;

/** Refreshed this long before the access token's end, so a call does not meet it expiring. */
const refreshMarginMs = 30_000;

export interface ApiClient {
  readonly base: string;
  call<T>(method: string, path: string, options?: CallOptions): Promise<T>;
  /** The bearer token a route with `auth` would get (for the transfer code's own calls). */
  bearer(auth: CallAuth): Promise<string | undefined>;
}

/**
 * A client of the API at `base`. `home` is the configured deployment (`--api`, HUSHLINK_API or
 * the default): the environment's API key goes to it alone (see currentCredential).
 */
export function apiClient(base: string, { env, api: home }: { env: NodeJS.ProcessEnv; api: string }): ApiClient {
  let credential: Promise<Credential> | undefined;
  const loaded = () => (credential ??= currentCredential(env, base, home));

  async function send(method: string, path: string, options: CallOptions, token: string | undefined): Promise<Response> {
    // The terminal's language, so a code this command asks for is mailed in it (ADR 0183).
    const headers: Record<string, string> = {
      ...clientHeaders,
      accept: 'application/json',
      'accept-language': currentLanguage(),
      ...options.headers,
    };
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.json !== undefined) headers['content-type'] = 'application/json';
    return fetch(`${base}${path}`, {
      method,
      headers,
      ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  async function bearer(auth: CallAuth): Promise<string | undefined> {
    if (auth === 'none') return undefined;
    const current = await loaded();
    if (current.kind === 'none') {
      if (auth === 'optional') return undefined;
      throw new CliError(exitCodes.refused, 'unauthorized', auth === 'user' ? t('cli.api.signInOrKey') : t('cli.api.signIn'));
    }
    if (current.kind === 'api_key') {
      if (auth === 'session') {
        throw new CliError(exitCodes.refused, 'session_required', t('cli.api.sessionRequired'));
      }
      return current.key;
    }
    if (Date.parse(current.session.access_expires_at) - Date.now() < refreshMarginMs) {
      const next = await refresh(current.session);
      credential = Promise.resolve({ kind: 'session', session: next });
      return next.access_token;
    }
    return current.session.access_token;
  }

  async function refresh(stale: StoredSession): Promise<StoredSession> {
    const next = await credentialsFile(env).update<StoredSession | null>(async (sessions) => {
      const now = sessions?.[base];
      if (!now) throw signedOut();
      // Another command refreshed it meanwhile: its tokens are the ones to use.
      if (now.refresh_token !== stale.refresh_token) return { value: sessions, result: now };
      // Bounded well inside the lock's 30 s: a stalled refresh must not outlive the lock and let another command present the same token.
      const response = await send(
        'POST',
        '/v1/auth/refresh',
        { json: { refresh_token: now.refresh_token }, signal: AbortSignal.timeout(lockedCallMs) },
        undefined,
      );
      if (response.status === 401) {
        // Ended (signed out elsewhere, expired, or its reuse detected): forget it here too.
        await response.body?.cancel();
        return { value: withoutSession(sessions, base), result: null };
      }
      const renewed = storedSession(await answerOf<IssuedTokens>(response, 'POST /v1/auth/refresh'));
      return { value: { ...sessions, [base]: renewed }, result: renewed };
    });
    if (!next) throw signedOut();
    return next;
  }

  async function call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const auth = options.auth ?? 'none';
    const token = await bearer(auth);
    let response = await send(method, path, options, token);
    const current = await loaded();
    if (response.status === 401 && token && current.kind === 'session') {
      // Refused as expired before its time (a clock behind, a key rotated): one refresh, one retry.
      await response.body?.cancel();
      const next = await refresh(current.session);
      credential = Promise.resolve({ kind: 'session', session: next });
      response = await send(method, path, options, next.access_token);
    }
    if (response.status === 403 && auth === 'session' && current.kind === 'api_key') {
      throw new CliError(exitCodes.refused, 'session_required', t('cli.api.sessionRequired'));
    }
    return answerOf<T>(response, `${method} ${path}`);
  }

  return { base, call, bearer };
}

const signedOut = () => new CliError(exitCodes.refused, 'unauthorized', t('cli.api.signedOut'));
