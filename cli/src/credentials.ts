/**
 * Who the CLI is signed in as, per deployment: the session `hushlink login` made (access and
 * refresh tokens, in credentials.json, mode 0600), or HUSHLINK_API_KEY, which overrides it on the
 * deployment it is for. Each is only ever sent to the API it was made for: a session to the URL it
 * was saved under, the key to the configured deployment (`--api`, else HUSHLINK_API, else the
 * local runtime), never to a host a link names.
 */
import { hostname } from 'node:os';
import type * as z from 'zod/mini';
import type { accountReplies } from '../../shared/api/accountReplies.ts';
import { ConfigFile, configDir } from './config.ts';
import { t } from './i18n.ts';

export interface StoredSession {
  email: string;
  user_id: string;
  access_token: string;
  /** When the access token ends (ISO); it is refreshed a little before. */
  access_expires_at: string;
  /** Rotated on every refresh: the old one presented again signs the session out. */
  refresh_token: string;
}

/** What otp/verify and refresh answer. */
export type IssuedTokens = z.output<typeof accountReplies.IssuedTokens>;

/** Sessions by API URL, so one config folder serves several deployments. */
export type CredentialsFile = Record<string, StoredSession>;

export const credentialsFile = (env: NodeJS.ProcessEnv) => new ConfigFile<CredentialsFile>(configDir(env), 'credentials.json');

export type Credential = { kind: 'api_key'; key: string } | { kind: 'session'; session: StoredSession } | { kind: 'none' };

/**
 * The credential for calls to `api`. `home` is the configured deployment, the only one the
 * environment's API key is for: a link that names another host gets at most that host's own
 * saved session.
 */
export async function currentCredential(env: NodeJS.ProcessEnv, api: string, home: string): Promise<Credential> {
  if (env.HUSHLINK_API_KEY && api === home) return { kind: 'api_key', key: env.HUSHLINK_API_KEY };
  const session = (await credentialsFile(env).read())?.[api];
  return session ? { kind: 'session', session } : { kind: 'none' };
}

/**
 * The session to keep for tokens just issued; the access token's end by this machine's clock.
 * The CLI never asks for the browser's cookie, so the body always carries the refresh token.
 */
export function storedSession(tokens: IssuedTokens, now = Date.now()): StoredSession {
  if (tokens.refresh_token === undefined) throw new Error(t('cli.credentials.noRefreshToken'));
  return {
    email: tokens.user.email,
    user_id: tokens.user.id,
    access_token: tokens.access_token,
    access_expires_at: new Date(now + tokens.expires_in * 1000).toISOString(),
    refresh_token: tokens.refresh_token,
  };
}

/** The service's limit for `device_name`. */
const deviceNameLength = 100;

/** How a session of this CLI is named in the account's list of sessions. */
export const cliDeviceName = (): string => `hushlink CLI on ${hostname()}`.slice(0, deviceNameLength).trim();

/** The file without `api`'s session: undefined (the file removed) when it held no other. */
export function withoutSession(sessions: CredentialsFile | undefined, api: string): CredentialsFile | undefined {
  const { [api]: _removed, ...others } = sessions ?? {};
  return Object.keys(others).length ? others : undefined;
}
