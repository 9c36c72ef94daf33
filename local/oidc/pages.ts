import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { Interaction } from 'oidc-provider';
import { escapeHtml, readBody, sendPage } from '../loopbackServer.ts';
import { addressProblem, type LocalAccounts } from './accounts.ts';

/** The interaction pages' paths: the provider sends the browser to `/interaction/<uid>` (its `interactions.url`). */
export const interactionPath = /^\/interaction\/([\w-]{1,64})(\/login|\/abort)?$/;

function page(response: ServerResponse, status: number, title: string, body: string): void {
  sendPage(response, status, {
    title,
    banner: 'Local identity provider: no real account is involved, and any address signs in.',
    style: 'label{display:block;margin:.5rem 0}input[type=email]{min-width:20rem}.problem{color:#a00}',
    body,
  });
}

/**
 * The sign-in at `/interaction/<uid>` (instead of the provider's devInteractions):
 * - `GET`: the login page, one field, `email` (filled from the request's `login_hint`); or, when
 *   the provider asks for consent, the consent given at once (every client here is registered
 *   by whoever runs it), 303 back to the authorization endpoint;
 * - `POST …/login` (form: `email`): that address signs in, its subject is `sub`, 303 back to the
 *   authorization endpoint, which redirects to the client with the code; an address the page
 *   refuses shows the page again (400);
 * - `POST …/abort`: 303 back, and the client gets `error=access_denied`.
 * True when the request was one of these.
 */
export async function handleInteraction(
  provider: Provider,
  accounts: LocalAccounts,
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
): Promise<boolean> {
  const match = interactionPath.exec(path);
  if (!match) return false;
  const [, uid, action] = match;
  const method = request.method ?? 'GET';
  if ((action === undefined && method !== 'GET') || (action !== undefined && method !== 'POST')) {
    response.writeHead(405, { allow: action === undefined ? 'GET' : 'POST' }).end();
    return true;
  }
  let interaction: Interaction;
  try {
    interaction = await provider.interactionDetails(request, response);
    if (interaction.uid !== uid) throw new Error('another sign-in');
  } catch {
    page(
      response,
      400,
      'This sign-in has ended',
      '<p>It expired, was finished already, or was started in another browser. Go back to the application and sign in again.</p>',
    );
    return true;
  }
  const client = await provider.Client.find(String(interaction.params.client_id ?? ''));
  const clientName = client?.clientName ?? client?.clientId ?? 'An application';

  if (action === '/abort') {
    await provider.interactionFinished(
      request,
      response,
      { error: 'access_denied', error_description: 'The person cancelled the sign-in.' },
      { mergeWithLastSubmission: false },
    );
    return true;
  }
  if (action === '/login') {
    const body = await readBody(request);
    if (body === undefined) return (response.writeHead(413).end(), true);
    const email = (new URLSearchParams(body).get('email') ?? '').trim();
    const problem = addressProblem(email);
    if (problem) return (loginPage(response, 400, uid!, clientName, email, problem), true);
    const accountId = accounts.signIn(email);
    await provider.interactionFinished(request, response, { login: { accountId, remember: false } }, { mergeWithLastSubmission: false });
    return true;
  }
  if (interaction.prompt.name === 'login') {
    const hint = typeof interaction.params.login_hint === 'string' ? interaction.params.login_hint : '';
    loginPage(response, 200, uid!, clientName, hint, null);
    return true;
  }
  if (interaction.prompt.name === 'consent' && interaction.session?.accountId) {
    await provider.interactionFinished(request, response, { consent: { grantId: await consent(provider, interaction) } });
    return true;
  }
  page(response, 501, 'Not supported here', `<p>The local identity provider cannot ask for ${escapeHtml(interaction.prompt.name)}.</p>`);
  return true;
}

/**
 * The provider's `renderError`: what the browser sees when a request cannot go back to the client
 * (an unknown client, a redirect URI it did not register, a sign-in that expired), in the login
 * page's look. The provider has set the status.
 */
export function renderError(ctx: { type: string; body: unknown }, out: Record<string, string>): void {
  ctx.type = 'html';
  ctx.body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a2e}.test{background:#fff3cd;padding:.25rem .5rem;border-radius:4px}</style>
</head><body><p class="test">Local identity provider: no real account is involved, and any address signs in.</p>
<h1>Sign-in failed</h1>
<p><code>${escapeHtml(out.error ?? 'server_error')}</code>: ${escapeHtml(out.error_description ?? '')}</p>
</body></html>`;
}

function loginPage(response: ServerResponse, status: number, uid: string, clientName: string, email: string, problem: string | null): void {
  page(
    response,
    status,
    'Sign in',
    `<p>${escapeHtml(clientName)} asks who you are. Type any address: it signs in as that person.</p>
${problem ? `<p class="problem" role="alert">${escapeHtml(problem)}</p>` : ''}
<form method="post" action="/interaction/${uid}/login">
<label>Email address <input type="email" name="email" value="${escapeHtml(email)}" autocomplete="email" required autofocus></label>
<button>Sign in</button></form>
<form method="post" action="/interaction/${uid}/abort"><button>Cancel</button></form>`,
  );
}

/** The grant a consent page would give: the interaction's missing scopes and claims, on the existing grant when there is one. */
async function consent(provider: Provider, interaction: Interaction): Promise<string> {
  const { details } = interaction.prompt;
  const clientId = String(interaction.params.client_id);
  const grant =
    (interaction.grantId ? await provider.Grant.find(interaction.grantId) : undefined) ??
    new provider.Grant({ accountId: interaction.session!.accountId!, clientId });
  if (details.missingOIDCScope) grant.addOIDCScope(details.missingOIDCScope.join(' '));
  if (details.missingOIDCClaims) grant.addOIDCClaims(details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(details.missingResourceScopes ?? {}))
    grant.addResourceScope(indicator, scopes.join(' '));
  return grant.save();
}
