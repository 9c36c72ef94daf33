/**
 * Signing in through the organization's single sign-on (issue 29, ADR 0172), as a native client
 * does (RFC 8252): a PKCE verifier made here (32 random bytes) whose S256 challenge goes with the
 * start, a loopback redirect on 127.0.0.1 for the browser to come back to, the browser sent to the
 * organization's sign-in (and the address printed, always), then the one-time code the browser
 * brings back exchanged with the verifier. The service gives that code only to the holder of the
 * verifier, so one seen on its way (another program on this machine, a browser extension, the
 * history) is of no use to anyone else. Neither the code nor the tokens are ever printed.
 */
import { nodeCrypto } from './nodeCrypto.ts';
import type * as z from 'zod/mini';
import type { domainsReplies } from '../../shared/api/domains.ts';
import { ApiError, clientHeaders } from '../transfer/index.ts';
import { answerOf } from '../transfer/api.ts';
import type { ApiClient } from './api.ts';
import { openInBrowser } from './browser.ts';
import { flag, type Context } from './command.ts';
import { cliDeviceName, type IssuedTokens, type StoredSession } from './credentials.ts';
import { CliError, exitCodes } from './errors.ts';
import { t } from './i18n.ts';
import { listenOnLoopback } from './loopback.ts';

export type SsoDiscovery = z.output<typeof domainsReplies.SsoDiscovery>;
export type SsoFound = Extract<SsoDiscovery, { sso: true }>;

/** How long the browser has to come back: then the command ends, and nothing is kept. */
export const ssoWaitMs = 5 * 60_000;

/** RFC 7636: a verifier of 32 random bytes (43 base64url characters) and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = nodeCrypto().randomBytes(32).toString('base64url');
  return { verifier, challenge: nodeCrypto().createHash('sha256').update(verifier).digest('base64url') };
}

/** Whether a workspace's single sign-on speaks for `email` (a public route; it tells nothing else). */
export const discoverSso = (api: ApiClient, email: string, signal: AbortSignal): Promise<SsoDiscovery> =>
  api.call<SsoDiscovery>('GET', `/v1/workspaces/sso/discover?${new URLSearchParams({ email }).toString()}`, { signal });

/** Whether the browser is to be left alone: `--no-browser` or HUSHLINK_NO_BROWSER (any value but empty, 0 or false). */
export const browserDisabled = (context: Pick<Context, 'values' | 'env'>): boolean => {
  const env = context.env.HUSHLINK_NO_BROWSER;
  return flag(context.values, 'no-browser') || (env !== undefined && !['', '0', 'false'].includes(env.toLowerCase()));
};

/**
 * Signs `email` in through its organization's sign-in in the browser. `found` is what discovery
 * said (asked here when not given); `keep` stores the tokens, before the browser's page is told.
 */
export async function signInWithSso(
  context: Context,
  api: ApiClient,
  email: string,
  found: SsoFound | undefined,
  keep: (tokens: IssuedTokens) => Promise<StoredSession>,
): Promise<StoredSession> {
  const directory = found ?? (await discovered(context, api, email));
  const { verifier, challenge } = pkcePair();
  const loopback = await listenOnLoopback();
  try {
    const authorization = await start(context, api, { email, loopback: loopback.url, client_challenge: challenge });
    const issuer = hostOf(directory.issuer);
    const workspace = directory.workspace.name;
    context.stderr.write(
      `${issuer ? t('cli.sso.signingInIssuer', { email, workspace, issuer }) : t('cli.sso.signingIn', { email, workspace })}\n`,
    );
    const opened = !browserDisabled(context) && (await openInBrowser(authorization, context.env));
    context.stderr.write(`${opened ? t('cli.sso.browserOpened') : t('cli.sso.openAddress')}\n  ${authorization}\n`);
    context.stderr.write(`${t('cli.sso.waiting', { minutes: ssoWaitMs / 60_000 })}\n`);
    const code = await loopback.code({ signal: context.signal, timeoutMs: ssoWaitMs });
    let session: StoredSession;
    try {
      const tokens = await exchange(context, api, code, verifier);
      session = await keep(tokens);
    } catch (error) {
      await loopback.finish({ ok: false, message: t('cli.sso.pageFailed') });
      throw error;
    }
    await loopback.finish({ ok: true, message: t('cli.sso.pageSignedIn', { email: session.email }) });
    return session;
  } finally {
    await loopback.close();
  }
}

async function discovered(context: Context, api: ApiClient, email: string): Promise<SsoFound> {
  const answer = await discoverSso(api, email, context.signal);
  if (!answer.sso) throw new CliError(exitCodes.refused, 'no_sso', t('cli.sso.none', { email }));
  return answer;
}

/** `GET /v1/auth/sso/start`, not followed: its redirect is the provider's address for the browser; a refusal is said here. */
async function start(context: Context, api: ApiClient, query: Record<string, string>): Promise<string> {
  const path = `/v1/auth/sso/start?${new URLSearchParams(query).toString()}`;
  const response = await fetch(`${api.base}${path}`, {
    redirect: 'manual',
    headers: { ...clientHeaders, accept: 'application/json' },
    signal: context.signal,
  });
  const location = response.headers.get('location');
  if (response.status === 302 && location) {
    await response.body?.cancel();
    const url = new URL(location, api.base);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CliError(exitCodes.refused, 'sso_start', t('cli.sso.badAddress'));
    return url.toString();
  }
  try {
    await answerOf(response, 'GET /v1/auth/sso/start');
  } catch (error) {
    if (error instanceof ApiError && error.status === 429) {
      throw new CliError(exitCodes.refused, error.code, t('cli.sso.tooManyStarted', { wait: waitOf(error) }), { cause: error });
    }
    throw error;
  }
  throw new CliError(exitCodes.network, 'sso_start', t('cli.sso.startAnswered', { status: response.status }));
}

async function exchange(context: Context, api: ApiClient, code: string, verifier: string): Promise<IssuedTokens> {
  try {
    return await api.call<IssuedTokens>('POST', '/v1/auth/sso/exchange', {
      json: { code, code_verifier: verifier, device_name: cliDeviceName() },
      signal: context.signal,
    });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      throw new CliError(exitCodes.refused, error.code, t('cli.sso.exchangeRefused'), { cause: error });
    }
    if (error instanceof ApiError && error.status === 429)
      throw new CliError(exitCodes.refused, error.code, t('cli.sso.tooManyTried', { wait: waitOf(error) }), { cause: error });
    throw error;
  }
}

const hostOf = (issuer: string): string | undefined => (URL.canParse(issuer) ? new URL(issuer).host : undefined);

export const waitOf = (error: ApiError): string => {
  const seconds = typeof error.problem.retry_after === 'number' ? error.problem.retry_after : 60;
  return seconds < 90 ? t('cli.common.waitSeconds', { seconds }) : t('cli.common.waitMinutes', { minutes: Math.ceil(seconds / 60) });
};
