import { createHash, timingSafeEqual } from 'node:crypto';
import { failure, type Answer, type ApiContext, type Args, type RecordedCall } from './context.ts';
import type { GrantedToken } from './workspaces.ts';

/** Slack's OAuth method (`oauth.v2.access`) in the emulator: installs by code, and with token rotation on, renewals. */

const sameSecret = (given: string, expected: string) => {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
};

/** `oauth.v2.access`: client id and secret by HTTP Basic (what Slack recommends) or as form fields (what its SDKs send). */
export function oauthAccess(context: ApiContext, args: Args, authorization: string | undefined, recorded: RecordedCall): Answer {
  const basic = /^Basic (.+)$/i.exec(authorization ?? '')?.[1];
  const decoded = basic ? Buffer.from(basic, 'base64').toString('utf8') : null;
  const clientId = decoded !== null ? decoded.slice(0, Math.max(0, decoded.indexOf(':'))) : String(args.client_id ?? '');
  const clientSecret = decoded !== null ? decoded.slice(decoded.indexOf(':') + 1) : String(args.client_secret ?? '');
  const secretMatches = sameSecret(clientSecret, context.clientSecret);
  recorded.credential = { kind: 'client', via: decoded !== null ? 'basic' : 'form', clientId, secretMatches };
  if (clientId !== context.clientId) return failure('invalid_client_id');
  if (!secretMatches) return failure('bad_client_secret');
  if (args.grant_type === 'refresh_token') return refreshAccess(context, args);
  if (args.grant_type !== undefined && args.grant_type !== 'authorization_code') return failure('invalid_grant_type');
  const code = typeof args.code === 'string' ? args.code : '';
  const redirectUri = typeof args.redirect_uri === 'string' ? args.redirect_uri : undefined;
  if (!context.workspaces.redirectMatches(code, redirectUri)) return failure('bad_redirect_uri');
  const grant = context.workspaces.redeem(code);
  if (!grant) return failure('invalid_code');
  const { team, ...granted } = context.workspaces.install(grant);
  return {
    body: {
      ok: true,
      app_id: context.workspaces.appId,
      authed_user: { id: grant.userId },
      scope: grant.scopes.join(','),
      token_type: 'bot',
      ...tokenFields(granted),
      bot_user_id: team.botUserId,
      team: grant.enterprise ? null : { id: team.id, name: team.name },
      enterprise: grant.enterprise ?? null,
      is_enterprise_install: grant.enterprise !== undefined,
    },
  };
}

/** A grant's token fields as Slack names them: `access_token`, and with rotation `refresh_token` and `expires_in`. */
const tokenFields = ({ token, rotation }: GrantedToken) => ({
  access_token: token,
  ...(rotation ? { refresh_token: rotation.refreshToken, expires_in: rotation.expiresInSeconds } : {}),
});

/** The refresh grant (token rotation): Slack's answer has the install's shape, less `authed_user`. */
function refreshAccess(context: ApiContext, args: Args): Answer {
  const renewed = typeof args.refresh_token === 'string' ? context.workspaces.renew(args.refresh_token) : null;
  if (!renewed) return failure('invalid_refresh_token');
  return {
    body: {
      ok: true,
      app_id: context.workspaces.appId,
      scope: renewed.scopes.join(','),
      token_type: 'bot',
      ...tokenFields(renewed.granted),
      bot_user_id: renewed.team.botUserId,
      team: { id: renewed.team.id, name: renewed.team.name },
      enterprise: null,
      is_enterprise_install: false,
    },
  };
}
