import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { signInAt } from '../../local/oidc/provider.ts';
import { bearer, latestCode, newEmail } from '../support/accounts.ts';
import { newConfigDir, PipedRun, runCli, TerminalRun } from '../support/cli.ts';
import { expectProblem } from '../support/problem.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { ssoDirectory } from '../support/sso.ts';
import { teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';

// `hushlink login --sso` (issue 29): the real binary against the local runtime and its OpenID
// Provider (local/oidc/). The test plays the browser: it reads the address the CLI prints (with
// --no-browser nothing is opened), signs in at the provider, follows the service's callback to
// the CLI's loopback address, loads the page there and posts the code from the fragment as the
// page's script does. The code seen on its way is tried at the service without the CLI's
// verifier (refused, and not used up), and posted to the loopback by others than its page.

let runtime: Runtime;
let workspace: TeamWorkspace;
let domain: string;
const clientId = 'hushlink-cli-sso';
const clientSecret = randomBytes(24).toString('base64url');
const waiting = 'Waiting for the browser';

beforeAll(async () => {
  runtime = await startTestRuntime({ identityProvider: true });
  workspace = await teamWorkspace(runtime);
  domain = `cli-sso-${process.pid}.example`;
  await ssoDirectory(runtime, workspace, { domain, clientId, clientSecret });
});
afterAll(() => runtime?.stop());

const credentialsPath = (configDir: string) => join(configDir, 'credentials.json');
const storedSessions = (configDir: string) =>
  JSON.parse(readFileSync(credentialsPath(configDir), 'utf8')) as Record<string, Record<string, string>>;

/** The address the CLI printed for the browser (the provider's sign-in page). */
function printedAddress(output: string): URL {
  const match = /^ {2}(https?:\/\/\S+)$/m.exec(output);
  expect(match, output).not.toBeNull();
  return new URL(match![1]!);
}

/** The browser's part up to the loopback: signs in at the provider, answers the service's callback; the loopback URL with its fragment. */
async function throughProvider(authorization: URL, email: string): Promise<URL> {
  expect(authorization.origin).toBe(runtime.oidc.origin);
  const redirect = await signInAt(runtime.oidc, authorization, email);
  const answered = await fetch(new URL(`${redirect.pathname}${redirect.search}`, runtime.url), { redirect: 'manual' });
  expect(answered.status, await answered.clone().text()).toBe(302);
  return new URL(answered.headers.get('location')!);
}

/** The loopback page as the browser gets it (the fragment is never sent), and the token its script posts with. */
async function loadPage(loopback: URL): Promise<{ response: Response; html: string; token: string }> {
  const response = await fetch(`${loopback.origin}${loopback.pathname}`);
  const html = await response.text();
  const token = /token: "([A-Za-z0-9_-]+)"/.exec(html)?.[1];
  expect(token, html).toBeDefined();
  return { response, html, token: token! };
}

/** What the page's script sends; `headers` overrides what a browser would put. */
const post = (loopback: URL, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${loopback.origin}${loopback.pathname}`, {
    method: 'POST',
    headers: { origin: loopback.origin, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** A post as no browser sends it (fetch fills some headers itself): its status. */
const rawPost = (loopback: URL, headers: Record<string, string>, body: string) =>
  new Promise<number>((resolve, reject) => {
    const sent = httpRequest(
      { host: '127.0.0.1', port: Number(loopback.port), path: loopback.pathname, method: 'POST', headers },
      (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });

describe('hushlink login --sso', () => {
  it('signs in through the loopback redirect; the code intercepted on its way is refused without the verifier, and not used up', async () => {
    const configDir = newConfigDir();
    const email = newEmail('cli-sso', domain);
    const run = new PipedRun(['login', '--sso', '--email', email, '--no-browser'], { api: runtime.url, configDir });
    await run.waitFor(waiting);
    expect(run.stderr).toContain(`through ${await workspaceName()}'s single sign-on (${new URL(runtime.oidc.issuer).host})`);
    expect(run.stderr).toContain('Open this address in a browser on this computer to sign in:');
    const authorization = printedAddress(run.stderr);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');

    const loopback = await throughProvider(authorization, email);
    expect(loopback.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(loopback.pathname).toBe('/callback');
    expect(loopback.search).toBe('');
    const code = new URLSearchParams(loopback.hash.slice(1)).get('code')!;
    expect(code).toMatch(/^hlx_[A-Za-z0-9_-]{43}$/);

    // Intercepted: without the CLI's verifier, or with another, the service refuses it.
    const api = apiClient(runtime);
    expectProblem(await api.post('/v1/auth/sso/exchange', { code }), 401, 'unauthorized');
    expectProblem(
      await api.post('/v1/auth/sso/exchange', { code, code_verifier: randomBytes(32).toString('base64url') }),
      401,
      'unauthorized',
    );

    // The page: no code in it (the fragment stays in the browser), a script allowed by nonce alone.
    const { response, html, token } = await loadPage(loopback);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'nonce-[A-Za-z0-9_-]+'/);
    expect(html).toContain('location.hash');
    expect(html).toContain('history.replaceState');
    expect(html).not.toContain(code);

    // Only the page's own post is taken: not another site's, not a form's, not without its token, not a malformed code.
    const json = JSON.stringify({ code, token });
    const otherToken = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    const refusals: Array<[string, number, number]> = [
      ['another site', (await post(loopback, { code, token }, { origin: 'https://evil.example' })).status, 403],
      ['no origin', await rawPost(loopback, { 'content-type': 'application/json' }, json), 403],
      [
        'another host name',
        await rawPost(loopback, { host: 'localhost', origin: loopback.origin, 'content-type': 'application/json' }, json),
        400,
      ],
      ['a form', (await post(loopback, `code=${code}`, { 'content-type': 'application/x-www-form-urlencoded' })).status, 415],
      ['no token', (await post(loopback, { code })).status, 403],
      ['another token', (await post(loopback, { code, token: otherToken })).status, 403],
      ['a malformed code', (await post(loopback, { code: 'hlx_short', token })).status, 400],
    ];
    for (const [what, status, expected] of refusals) expect(status, what).toBe(expected);
    expect((await fetch(`${loopback.origin}/elsewhere`)).status).toBe(404);
    expect(run.stderr).not.toContain('Signed in');

    // The page's post: the CLI exchanges the code with its verifier, keeps the session, and the page says so.
    const handed = await post(loopback, { code, token });
    expect(handed.status).toBe(200);
    expect(await handed.json()).toEqual({
      ok: true,
      message: `Signed in as ${email}. You can close this tab and go back to the terminal.`,
    });
    const result = await run.exit();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`Signed in to ${runtime.url} as ${email}.`);

    const session = storedSessions(configDir)[runtime.url]!;
    expect(session).toMatchObject({ email, user_id: expect.stringMatching(/^usr_/), refresh_token: expect.stringMatching(/^hlr_ses_/) });
    for (const secret of [code, session.access_token!, session.refresh_token!]) expect(result.stderr).not.toContain(secret);
    // A session of this workspace's single sign-on, which the other commands use.
    const [listed] = await runtime.functions.account.sessions.listForUser(session.user_id!);
    expect((await runtime.functions.account.sessions.get(listed!.id))?.sso).toEqual({ workspaceId: workspace.id });
    expect((await api.get('/v1/auth/sessions', bearer(session.access_token!))).status).toBe(200);
    const keys = await runCli(['keys', 'list'], { api: runtime.url, configDir });
    expect(keys.code, keys.stderr).toBe(0);

    // Used now, and the loopback is gone with the command.
    expectProblem(await api.post('/v1/auth/sso/exchange', { code }), 401, 'unauthorized');
    await expect(fetch(`${loopback.origin}${loopback.pathname}`)).rejects.toThrow();
  });

  it('piped, plain login tells an address with single sign-on to use --sso, and goes on with the emailed code', async () => {
    const configDir = newConfigDir();
    const email = newEmail('cli-sso-piped', domain);
    const run = new PipedRun(['login', '--email', email], { api: runtime.url, configDir });
    await run.waitFor('Code from the email');
    expect(run.stderr).toContain(
      `${email} can sign in through ${await workspaceName()}'s single sign-on: run \`hushlink login --sso\` to use it. Going on with an emailed code.`,
    );
    run.write(`${latestCode(runtime, email)}\n`);
    const result = await run.exit();
    expect(result.code, result.stderr).toBe(0);
    expect(storedSessions(configDir)[runtime.url]!.email).toBe(email);
  });

  it('on a terminal, plain login offers single sign-on; Ctrl-C while waiting for the browser ends it (130), nothing kept', async () => {
    const configDir = newConfigDir();
    const email = newEmail('cli-sso-tty', domain);
    const run = new TerminalRun(['login', '--email', email, '--no-browser'], { api: runtime.url, configDir });
    await run.waitFor('Use it? [Y/n] ');
    run.type('\r');
    await run.waitFor(waiting);
    const authorization = printedAddress(run.shown);
    expect(authorization.origin).toBe(runtime.oidc.origin);
    run.type('\x03');
    const { code, output } = await run.exit();
    expect(code, output).toBe(130);
    expect(output).toContain('Interrupted: nothing was kept. [interrupted]');
    expect(existsSync(credentialsPath(configDir))).toBe(false);
  });

  it('refuses --sso for an address no single sign-on speaks for (exit 2), before listening or opening anything', async () => {
    const configDir = newConfigDir();
    const result = await runCli(['login', '--sso', '--email', newEmail('cli-sso-none')], { api: runtime.url, configDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/No organization's single sign-on speaks for .*: sign in with an emailed code .* \[no_sso\]\n$/);
    expect(result.stderr).not.toContain(waiting);
    expect(existsSync(credentialsPath(configDir))).toBe(false);
  });

  it('a code that expired before the page handed it over: the page and the command say so (exit 2), nothing kept', async () => {
    const configDir = newConfigDir();
    const email = newEmail('cli-sso-late', domain);
    const run = new PipedRun(['login', '--sso', '--email', email], { api: runtime.url, configDir, env: { HUSHLINK_NO_BROWSER: '1' } });
    await run.waitFor(waiting);
    const loopback = await throughProvider(printedAddress(run.stderr), email);
    const code = new URLSearchParams(loopback.hash.slice(1)).get('code')!;
    const { token } = await loadPage(loopback);
    // The code works for 60 s.
    runtime.clock.advance(61);
    const handed = await post(loopback, { code, token });
    expect(handed.status).toBe(401);
    expect(await handed.json()).toEqual({ ok: false, message: 'The sign-in did not complete: the terminal says why.' });
    const result = await run.exit();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/The service refused the sign-in the browser brought back .* \[unauthorized\]\n$/);
    expect(result.stderr).not.toContain(code);
    expect(existsSync(credentialsPath(configDir))).toBe(false);
  });

  // Last: it turns enforcement on for the file's workspace.
  it('under enforcement, piped plain login says the code is only the owners’ and a member’s code is refused (exit 2, nothing kept)', async () => {
    await ssoDirectory(runtime, workspace, { domain, verified: true, clientId, clientSecret, enforce: true });
    const name = await workspaceName();
    const configDir = newConfigDir();
    const email = newEmail('cli-sso-enforced', domain);
    const run = new PipedRun(['login', '--email', email], { api: runtime.url, configDir });
    await run.waitFor('Code from the email');
    expect(run.stderr).toContain(
      `${name} requires its single sign-on for ${email}: run \`hushlink login --sso\`. Going on with an emailed code, which only its owners get (break-glass).`,
    );
    expect(run.stderr).toContain(
      `If you are an owner of ${name}, a break-glass code was emailed to ${email}; anyone else was emailed a link to its single sign-on instead, and no code.`,
    );
    expect(run.stderr).not.toContain('A sign-in code was emailed');
    run.write('12345678\n');
    const result = await run.exit();
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "signs in through its organization's single sign-on, not with an emailed code (none was sent): run `hushlink login --sso`. [sso_required]",
    );
    expect(existsSync(credentialsPath(configDir))).toBe(false);
  });
});

async function workspaceName(): Promise<string> {
  const discovered = await apiClient(runtime).get(`/v1/workspaces/sso/discover?email=${encodeURIComponent(`x@${domain}`)}`);
  expect(discovered.body.sso).toBe(true);
  return discovered.body.workspace.name as string;
}
