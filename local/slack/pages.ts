import type { ServerResponse } from 'node:http';
import { defaultAuthorize, type SlackWorkspaces } from './workspaces.ts';

const escape = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function page(response: ServerResponse, status: number, title: string, body: string): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  });
  response.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a2e}label{display:block;margin:.5rem 0}form{display:inline-block;margin:.25rem .5rem .25rem 0}.test{background:#fff3cd;padding:.25rem .5rem;border-radius:4px}</style>
</head><body><p class="test">Local Slack emulator: no real workspace is involved.</p>
<h1>${escape(title)}</h1>
${body}
</body></html>`);
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escape(value)}">`;

/**
 * The page Slack shows at `/oauth/v2/authorize` (an "Add to Slack" link): the workspace and user
 * are fields here, since there is no sign-in. Allow redirects (302) to `redirect_uri` with a code
 * and the `state`, Cancel with `error=access_denied` and the `state`, as Slack does. True when the
 * request was this page's.
 */
export function handleAuthorizePage(workspaces: SlackWorkspaces, clientId: string, method: string, path: string, params: URLSearchParams, response: ServerResponse): boolean {
  if (path !== '/oauth/v2/authorize' || (method !== 'GET' && method !== 'POST')) return false;
  const redirectUri = params.get('redirect_uri') ?? '';
  const state = params.get('state') ?? '';
  const scopes = (params.get('scope') ?? '').split(',').filter(Boolean);
  if (params.get('client_id') !== clientId) return (page(response, 400, 'Invalid client_id parameter', '<p>The app asking to be installed is not the one this emulator knows.</p>'), true);
  if (!/^https?:\/\//.test(redirectUri)) return (page(response, 400, 'Invalid redirect_uri parameter', '<p>The install names no redirect URL to come back to.</p>'), true);
  if (method === 'GET') {
    const carried = hidden('client_id', clientId) + hidden('redirect_uri', redirectUri) + hidden('state', state) + hidden('scope', scopes.join(','));
    page(
      response,
      200,
      'Hushlink is requesting permission to access a Slack workspace',
      `<p>Scopes: ${escape(scopes.join(', ') || '(none)')}</p>
<form method="post" action="/oauth/v2/authorize">${carried}
<label>Workspace id <input name="team_id" value="${escape(params.get('team') ?? defaultAuthorize.teamId)}" pattern="T[A-Z0-9]{2,20}" required></label>
<label>Workspace name <input name="team_name" value="${escape(defaultAuthorize.teamName)}" required></label>
<label>Your Slack user id <input name="user_id" value="${escape(defaultAuthorize.userId)}" pattern="[UW][A-Z0-9]{2,20}" required></label>
<button name="decision" value="allow">Allow</button></form>
<form method="post" action="/oauth/v2/authorize">${carried}<button name="decision" value="cancel">Cancel</button></form>`,
    );
    return true;
  }
  const target = new URL(redirectUri);
  if (params.get('decision') === 'allow') {
    const code = workspaces.authorize({
      teamId: params.get('team_id') || defaultAuthorize.teamId,
      teamName: params.get('team_name') || defaultAuthorize.teamName,
      userId: params.get('user_id') || defaultAuthorize.userId,
      scopes,
      redirectUri,
    });
    target.searchParams.set('code', code);
  } else {
    target.searchParams.set('error', 'access_denied');
  }
  target.searchParams.set('state', state);
  response.writeHead(302, { location: target.toString(), 'cache-control': 'no-store' }).end();
  return true;
}
