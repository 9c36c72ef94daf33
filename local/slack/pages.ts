import type { ServerResponse } from 'node:http';
import { defaultAuthorize, type SlackWorkspaces } from './workspaces.ts';
import { escapeHtml, sendPage } from '../loopbackServer.ts';

function page(response: ServerResponse, status: number, title: string, body: string): void {
  sendPage(response, status, {
    title,
    banner: 'Local Slack emulator: no real workspace is involved.',
    style: 'label{display:block;margin:.5rem 0}',
    body,
  });
}

const hidden = (name: string, value: string) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`;

/**
 * The page Slack shows at `/oauth/v2/authorize` (an "Add to Slack" link): the workspace and user
 * are fields here, since there is no sign-in. Allow redirects (302) to `redirect_uri` with a code
 * and the `state`, Cancel with `error=access_denied` and the `state`, as Slack does. True when the
 * request was this page's.
 */
export function handleAuthorizePage(
  workspaces: SlackWorkspaces,
  clientId: string,
  method: string,
  path: string,
  params: URLSearchParams,
  response: ServerResponse,
): boolean {
  if (path !== '/oauth/v2/authorize' || (method !== 'GET' && method !== 'POST')) return false;
  const redirectUri = params.get('redirect_uri') ?? '';
  const state = params.get('state') ?? '';
  const scopes = (params.get('scope') ?? '').split(',').filter(Boolean);
  if (params.get('client_id') !== clientId)
    return (
      page(response, 400, 'Invalid client_id parameter', '<p>The app asking to be installed is not the one this emulator knows.</p>'), true
    );
  if (!/^https?:\/\//.test(redirectUri))
    return (page(response, 400, 'Invalid redirect_uri parameter', '<p>The install names no redirect URL to come back to.</p>'), true);
  if (method === 'GET') {
    const carried =
      hidden('client_id', clientId) + hidden('redirect_uri', redirectUri) + hidden('state', state) + hidden('scope', scopes.join(','));
    page(
      response,
      200,
      'Hushlink is requesting permission to access a Slack workspace',
      `<p>Scopes: ${escapeHtml(scopes.join(', ') || '(none)')}</p>
<form method="post" action="/oauth/v2/authorize">${carried}
<label>Workspace id <input name="team_id" value="${escapeHtml(params.get('team') ?? defaultAuthorize.teamId)}" pattern="T[A-Z0-9]{2,20}" required></label>
<label>Workspace name <input name="team_name" value="${escapeHtml(defaultAuthorize.teamName)}" required></label>
<label>Your Slack user id <input name="user_id" value="${escapeHtml(defaultAuthorize.userId)}" pattern="[UW][A-Z0-9]{2,20}" required></label>
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
