/**
 * Who the CLI is signed in as, per deployment: the session `hushlink login` made (access and
 * refresh tokens, in credentials.json, mode 0600), or HUSHLINK_API_KEY, which overrides it.
 */
import { ConfigFile, configDir } from './config.ts';

export interface StoredSession {
  email: string;
  user_id: string;
  access_token: string;
  /** When the access token ends (ISO); it is refreshed a little before. */
  access_expires_at: string;
  /** Rotated on every refresh: the old one presented again signs the session out. */
  refresh_token: string;
}

/** Sessions by API URL, so one config folder serves several deployments. */
export type CredentialsFile = Record<string, StoredSession>;

export const credentialsFile = (env: NodeJS.ProcessEnv) => new ConfigFile<CredentialsFile>(configDir(env), 'credentials.json');

export type Credential = { kind: 'api_key'; key: string } | { kind: 'session'; session: StoredSession } | { kind: 'none' };

export async function currentCredential(env: NodeJS.ProcessEnv, api: string): Promise<Credential> {
  if (env.HUSHLINK_API_KEY) return { kind: 'api_key', key: env.HUSHLINK_API_KEY };
  const session = (await credentialsFile(env).read())?.[api];
  return session ? { kind: 'session', session } : { kind: 'none' };
}
