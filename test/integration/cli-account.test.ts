import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { bearer, createKey, latestCode, mailsTo, newEmail, signIn } from '../support/accounts.ts';
import { newConfigDir, PipedRun, runCli, TerminalRun, type CliOptions } from '../support/cli.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';

// `hushlink login`, `logout` and `keys`, and the session the other commands use: the real
// binary against the local runtime, through a recording proxy that sees every request the CLI
// makes (its path and its x-hushlink-client header) and passes it on untouched.

interface Recorded {
  method: string;
  path: string;
  client: string | undefined;
}

/** A pass-through HTTP proxy in front of the runtime, recording each request. */
async function recordingProxy(target: string): Promise<{ url: string; requests: Recorded[]; server: Server }> {
  const requests: Recorded[] = [];
  const upstream = new URL(target);
  const server = createServer((incoming, outgoing) => {
    const client = incoming.headers['x-hushlink-client'];
    requests.push({
      method: incoming.method ?? '',
      path: (incoming.url ?? '').split('?')[0]!,
      client: Array.isArray(client) ? client.join(',') : client,
    });
    const forwarded = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, server };
}

let runtime: Runtime;
let proxy: Awaited<ReturnType<typeof recordingProxy>>;
beforeAll(async () => {
  runtime = await startTestRuntime();
  proxy = await recordingProxy(runtime.url);
});
afterAll(async () => {
  await new Promise((resolve) => proxy?.server.close(resolve));
  await runtime?.stop();
});

const api = () => apiClient(runtime);
const cli = (args: string[], options: Partial<CliOptions> = {}) => runCli(args, { api: proxy.url, ...options });
const codePrompt = 'Code from the email';
const credentialsPath = (configDir: string) => join(configDir, 'credentials.json');
const storedSessions = (configDir: string) =>
  JSON.parse(readFileSync(credentialsPath(configDir), 'utf8')) as Record<string, Record<string, string>>;
const refreshes = () => proxy.requests.filter((request) => request.method === 'POST' && request.path === '/v1/auth/refresh').length;
/** A code of the right form that is not `code`. */
const otherThan = (code: string) => `${code.slice(0, -1)}${(Number(code.at(-1)) + 1) % 10}`;

/** `hushlink login --email` piped: the code is written once the CLI asks for it (the mail is sent by then). */
async function login(
  configDir: string,
  email = newEmail('cli'),
  more: string[] = [],
): Promise<{ email: string; code: number; stdout: string; stderr: string }> {
  const run = new PipedRun(['login', '--email', email, ...more], { api: proxy.url, configDir });
  await run.waitFor(codePrompt);
  const code = latestCode(runtime, email);
  expect(code).not.toBeNull();
  run.write(`${code}\n`);
  const result = await run.exit();
  return { email, code: result.code, stdout: result.stdout, stderr: result.stderr };
}

/** The access token's end moved into the past on this machine's clock, so the next command refreshes. */
function expireAccessToken(configDir: string): void {
  const sessions = storedSessions(configDir);
  sessions[proxy.url]!.access_expires_at = new Date(Date.now() - 60_000).toISOString();
  writeFileSync(credentialsPath(configDir), JSON.stringify(sessions));
}

describe('hushlink login', () => {
  it('piped: reads the address and the code from stdin, keeps the session in credentials.json (0600, folder 0700)', async () => {
    const configDir = join(newConfigDir(), 'hushlink');
    const email = newEmail('cli-piped');
    const run = new PipedRun(['login'], { api: proxy.url, configDir });
    await run.waitFor('Email address: ');
    run.write(`${email}\n`);
    await run.waitFor(codePrompt);
    expect(mailsTo(runtime, email)).toHaveLength(1);
    run.write(`${latestCode(runtime, email)}\n`);
    const result = await run.exit();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`Signed in to ${proxy.url} as ${email}.`);

    expect(statSync(configDir).mode & 0o777).toBe(0o700);
    expect(statSync(credentialsPath(configDir)).mode & 0o777).toBe(0o600);
    const sessions = storedSessions(configDir);
    expect(Object.keys(sessions)).toEqual([proxy.url]);
    const session = sessions[proxy.url]!;
    expect(Object.keys(session).sort()).toEqual(['access_expires_at', 'access_token', 'email', 'refresh_token', 'user_id']);
    expect(session).toMatchObject({ email, user_id: expect.stringMatching(/^usr_/), refresh_token: expect.stringMatching(/^hlr_ses_/) });
    const lifetime = Date.parse(session.access_expires_at!) - Date.now();
    expect(lifetime).toBeGreaterThan(14 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(15 * 60_000);
    // The tokens are the service's: the session is listed under the CLI's device name.
    const listed = await api().get('/v1/auth/sessions', bearer(session.access_token!));
    expect(listed.status).toBe(200);
    expect(listed.body.items).toEqual([
      expect.objectContaining({ device_name: `hushlink CLI on ${hostname()}`.slice(0, 100), current: true }),
    ]);
  });

  it('piped: a wrong code ends it with exit 2 and the attempts left; nothing is kept', async () => {
    const configDir = newConfigDir();
    const email = newEmail('cli-wrong');
    const run = new PipedRun(['login', '--email', email], { api: proxy.url, configDir });
    await run.waitFor(codePrompt);
    run.write(`${otherThan(latestCode(runtime, email)!)}\n`);
    const result = await run.exit();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/That code is not right, or it has expired or been used\. 4 attempts left\. \[unauthorized\]\n$/);
    expect(existsSync(credentialsPath(configDir))).toBe(false);
  });

  it('on a terminal: a wrong code is typed again; Enter asks for another code, refused within the minute and sent after it', async () => {
    const configDir = newConfigDir();
    const email = newEmail('cli-tty');
    const run = new TerminalRun(['login'], { api: proxy.url, configDir });
    await run.waitFor('Email address: ');
    run.type(`${email}\r`);
    await run.waitFor(codePrompt);
    const first = latestCode(runtime, email)!;

    let from = run.shown.length;
    run.type(`${otherThan(first)}\r`);
    await run.waitFor('That code is not right, or it has expired or been used. 4 attempts left.', 30_000, from);
    await run.waitFor(codePrompt, 30_000, from);

    from = run.shown.length;
    run.type('\r');
    await run.waitFor(/A code was just sent; you can ask for another in \d+ s\./, 30_000, from);
    await run.waitFor(codePrompt, 30_000, from);
    expect(mailsTo(runtime, email)).toHaveLength(1);

    runtime.clock.advance(61);
    from = run.shown.length;
    run.type('r\r');
    await run.waitFor(`Another code was emailed to ${email}`, 30_000, from);
    await run.waitFor(codePrompt, 30_000, from);
    expect(mailsTo(runtime, email)).toHaveLength(2);
    const second = latestCode(runtime, email)!;
    expect(second).not.toBe(first);

    run.type(`${second}\r`);
    const { code, output } = await run.exit();
    expect(code, output).toBe(0);
    expect(output).toContain(`Signed in to ${proxy.url} as ${email}.`);
    expect(statSync(credentialsPath(configDir)).mode & 0o777).toBe(0o600);
    expect(storedSessions(configDir)[proxy.url]!.email).toBe(email);
  });

  it('an address whose organization enforces single sign-on: no code is mailed (the way through the provider is), and a code is refused with sso_required (exit 2)', async () => {
    const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
    await db.send(
      new PutCommand({ TableName: runtime.config.TABLE_NAME, Item: { pk: 'SSO_DOMAIN#cli-sso.example', sk: 'SSO', enforced: true } }),
    );
    const configDir = newConfigDir();
    const email = newEmail('cli-sso', 'cli-sso.example');
    const run = new PipedRun(['login', '--email', email], { api: proxy.url, configDir });
    await run.waitFor(codePrompt);
    expect(mailsTo(runtime, email).map((mail) => mail.subject)).toEqual(['Sign in to Hushlink through your organization']);
    expect(latestCode(runtime, email)).toBeNull();
    run.write('12345678\n');
    const result = await run.exit();
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${email} signs in through its organization's single sign-on, not with an emailed code`);
    expect(result.stderr).toMatch(/\[sso_required\]\n$/);
    expect(existsSync(credentialsPath(configDir))).toBe(false);
  });

  it('refuses an address that is not one (exit 1) before asking the service', async () => {
    const before = proxy.requests.length;
    const result = await cli(['login', '--email', 'not-an-address']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[bad_email]');
    expect(proxy.requests.length).toBe(before);
  });

  it('signing in again replaces the session and ends the one it replaced', async () => {
    const configDir = newConfigDir();
    const email = newEmail('cli-again');
    expect((await login(configDir, email)).code).toBe(0);
    const replaced = storedSessions(configDir)[proxy.url]!;
    runtime.clock.advance(61);
    const again = await login(configDir, email, ['--json']);
    expect(again.code).toBe(0);
    const session = storedSessions(configDir)[proxy.url]!;
    expect(JSON.parse(again.stdout)).toEqual({ api: proxy.url, email, user_id: session.user_id });
    expect(session.refresh_token).not.toBe(replaced.refresh_token);
    expect(session.user_id).toBe(replaced.user_id);
    expect((await api().get('/v1/auth/sessions', bearer(replaced.access_token!))).status).toBe(401);
  });
});

describe('hushlink logout', () => {
  it('ends the session at the service and removes it; the file goes once empty; twice is fine', async () => {
    const configDir = newConfigDir();
    const { email, code } = await login(configDir);
    expect(code).toBe(0);
    const { refresh_token: refreshToken } = storedSessions(configDir)[proxy.url]!;

    const out = await cli(['logout'], { configDir });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe('');
    expect(out.stderr).toContain(`Signed out of ${proxy.url} (${email}).`);
    expect(existsSync(credentialsPath(configDir))).toBe(false);
    expect((await api().post('/v1/auth/refresh', { refresh_token: refreshToken })).status).toBe(401);

    const again = await cli(['logout'], { configDir });
    expect(again.code).toBe(0);
    expect(again.stderr).toContain(`Not signed in to ${proxy.url}; nothing to do.`);
  });

  it('keeps the sessions of other deployments in the file', async () => {
    const configDir = newConfigDir();
    expect((await login(configDir)).code).toBe(0);
    const other = {
      email: 'x@example.com',
      user_id: 'usr_other',
      access_token: 'a',
      access_expires_at: new Date().toISOString(),
      refresh_token: 'hlr_other',
    };
    writeFileSync(credentialsPath(configDir), JSON.stringify({ ...storedSessions(configDir), 'https://other.example': other }));
    expect((await cli(['logout'], { configDir })).code).toBe(0);
    expect(storedSessions(configDir)).toEqual({ 'https://other.example': other });
    expect(statSync(credentialsPath(configDir)).mode & 0o777).toBe(0o600);
  });

  it("--all ends every session of the account, the browser's too", async () => {
    const configDir = newConfigDir();
    const { email } = await login(configDir);
    runtime.clock.advance(61);
    const browser = await signIn(runtime, email, 'Firefox on Linux');
    const out = await cli(['logout', '--all', '--json'], { configDir });
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(out.stdout)).toEqual({ api: proxy.url, email, signed_out: true, sessions_ended: 2 });
    expect(existsSync(credentialsPath(configDir))).toBe(false);
    expect((await api().post('/v1/auth/refresh', { refresh_token: browser.refresh_token })).status).toBe(401);
  });
});

describe('hushlink keys', () => {
  it('create prints the key alone, once; list shows it; revoke ends it; their refusals', async () => {
    const configDir = newConfigDir();
    expect((await login(configDir)).code).toBe(0);

    const created = await cli(
      ['keys', 'create', '--name', 'ci deploy', '--scope', 'secrets:write', '--scope', 'secrets:read', '--expires', '30d'],
      { configDir },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^hlk_key_[A-Za-z0-9_-]+\n$/);
    const key = created.stdout.trim();
    expect(created.stderr).toContain('shown this once');
    expect((await api().get('/v1/secrets', bearer(key))).status).toBe(200);

    const listed = await cli(['keys', 'list'], { configDir });
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+SCOPES\s+CREATED\s+EXPIRES\s+LAST USED$/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('ci deploy');
    expect(lines[1]).toContain(`${key.slice(0, 16)}…`);
    expect(lines[1]).toContain('secrets:write,secrets:read');
    expect(listed.stdout).not.toContain(key);

    const json = await cli(['keys', 'list', '--json'], { configDir });
    const items = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(items).toEqual([
      expect.objectContaining({ name: 'ci deploy', prefix: key.slice(0, 16), scopes: ['secrets:write', 'secrets:read'] }),
    ]);
    expect(items[0]).not.toHaveProperty('key');
    const id = items[0]!.id as string;
    expect(lines[1]!.startsWith(id)).toBe(true);

    const revoked = await cli(['keys', 'revoke', id], { configDir });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain(`Revoked ${id}`);
    expect((await api().get('/v1/secrets', bearer(key))).status).toBe(401);
    const twice = await cli(['keys', 'revoke', id], { configDir });
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('[not_found]');
    const empty = await cli(['keys', 'list'], { configDir });
    expect(empty).toMatchObject({ code: 0, stdout: '' });
    expect(empty.stderr).toContain('No API keys');

    const refusals = [
      [['keys'], 'usage'],
      [['keys', 'rotate'], 'usage'],
      [['keys', 'create', '--scope', 'secrets:read'], 'usage'],
      [['keys', 'create', '--name', 'x'], 'usage'],
      [['keys', 'create', '--name', 'x', '--scope', 'secrets:delete'], 'bad_scope'],
      [['keys', 'create', '--name', 'x', '--scope', 'secrets:read', '--expires', '30m'], 'usage'],
      [['keys', 'list', '--name', 'x'], 'usage'],
      [['keys', 'list', 'extra'], 'usage'],
      [['keys', 'revoke'], 'usage'],
    ] as const;
    const before = proxy.requests.length;
    const refused = await Promise.all(refusals.map(([args]) => cli([...args], { configDir })));
    refusals.forEach(([args, code], index) => {
      expect(refused[index]!.code, args.join(' ')).toBe(1);
      expect(refused[index]!.stderr).toContain(`[${code}]`);
    });
    expect(proxy.requests.length).toBe(before);
    const signedOut = await cli(['keys', 'list']);
    expect(signedOut.code).toBe(2);
    expect(signedOut.stderr).toContain('[unauthorized]');
  });

  it('--help gives each subcommand its usage line, the scopes and examples', async () => {
    const help = await cli(['keys', '--help']);
    expect(help.code).toBe(0);
    for (const usage of ['hushlink keys create --name NAME --scope SCOPE', 'hushlink keys list', 'hushlink keys revoke ID'])
      expect(help.stdout).toContain(usage);
    for (const scope of ['secrets:write', 'secrets:read', 'receipts:read']) expect(help.stdout).toContain(scope);
    expect(help.stdout).toContain('Examples:');
    for (const name of ['login', 'logout']) {
      const own = await cli([name, '--help']);
      expect(own.stdout).toMatch(new RegExp(`^Usage: hushlink ${name}`));
      expect(own.stdout).toContain('Examples:');
    }
  });
});

describe('HUSHLINK_API_KEY', () => {
  it("overrides the stored session: a secret sent with it belongs to the key's account; session-only commands refuse it (exit 2)", async () => {
    const configDir = newConfigDir();
    expect((await login(configDir)).code).toBe(0);
    const signedIn = storedSessions(configDir)[proxy.url]!;
    const other = await signIn(runtime, newEmail('cli-key-owner'));
    const key = await createKey(runtime, other, ['secrets:write', 'secrets:read']);

    const sent = await cli(['send', '--json'], { configDir, input: 'sent with a key', env: { HUSHLINK_API_KEY: key.key } });
    expect(sent.code, sent.stderr).toBe(0);
    const { id } = JSON.parse(sent.stdout) as { id: string };
    expect(((await api().get('/v1/secrets', key.auth)).body.items as Array<{ id: string }>).map((item) => item.id)).toContain(id);
    expect(
      ((await api().get('/v1/secrets', bearer(signedIn.access_token!))).body.items as Array<{ id: string }>).map((item) => item.id),
    ).not.toContain(id);

    for (const args of [
      ['keys', 'list'],
      ['keys', 'create', '--name', 'x', '--scope', 'secrets:read'],
      ['keys', 'revoke', key.id],
      ['logout', '--all'],
    ]) {
      const refused = await cli(args, { configDir, env: { HUSHLINK_API_KEY: key.key } });
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr).toContain('[session_required]');
    }
    // Nothing was asked of the service, and the key still works.
    expect((await api().get('/v1/secrets', key.auth)).status).toBe(200);
  });
});

describe('the session renewed', () => {
  it('an expired access token is refreshed once, the refresh token rotated in the file; four commands at once refresh once and keep the session', async () => {
    const configDir = newConfigDir();
    expect((await login(configDir)).code).toBe(0);
    const first = storedSessions(configDir)[proxy.url]!;
    // Past the access token's 15 minutes on the service's clock; on this machine's, by the file.
    runtime.clock.advance(16 * 60);
    expireAccessToken(configDir);

    const before = refreshes();
    const listed = await cli(['keys', 'list'], { configDir });
    expect(listed.code, listed.stderr).toBe(0);
    expect(refreshes()).toBe(before + 1);
    const second = storedSessions(configDir)[proxy.url]!;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(Date.parse(second.access_expires_at!)).toBeGreaterThan(Date.now());
    expect(statSync(credentialsPath(configDir)).mode & 0o777).toBe(0o600);

    // A refresh token works once: without the config lock each would present the same one.
    expireAccessToken(configDir);
    const parallel = await Promise.all(Array.from({ length: 4 }, () => cli(['keys', 'list'], { configDir })));
    for (const result of parallel) expect(result.code, result.stderr).toBe(0);
    expect(refreshes()).toBe(before + 2);
    const third = storedSessions(configDir)[proxy.url]!;
    expect(third.refresh_token).not.toBe(second.refresh_token);

    const after = await cli(['keys', 'list'], { configDir });
    expect(after.code, after.stderr).toBe(0);
    expect(refreshes()).toBe(before + 2);
    expect((await api().get('/v1/auth/sessions', bearer(third.access_token!))).status).toBe(200);
  });

  it('a session ended elsewhere: the command says to sign in again (exit 2) and forgets it', async () => {
    const configDir = newConfigDir();
    expect((await login(configDir)).code).toBe(0);
    const { refresh_token: refreshToken } = storedSessions(configDir)[proxy.url]!;
    expect((await api().post('/v1/auth/logout', { refresh_token: refreshToken })).status).toBe(200);
    const result = await cli(['keys', 'list'], { configDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('run `hushlink login` again');
    expect(existsSync(credentialsPath(configDir))).toBe(false);
  });
});

describe('x-hushlink-client', () => {
  it('a view the CLI makes has the receipt channel cli, and every request the CLI made in this file carried x-hushlink-client: cli', async () => {
    const configDir = newConfigDir();
    expect((await login(configDir)).code).toBe(0);
    const sent = await cli(['send', '--json'], { configDir, input: 'seen through the cli' });
    expect(sent.code, sent.stderr).toBe(0);
    const { id, link } = JSON.parse(sent.stdout) as { id: string; link: string };
    // `open` asks the link's own origin: the proxy's, to be recorded.
    const opened = await cli(['open', link.replace(runtime.url, proxy.url)]);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toBe('seen through the cli');
    // Receipts are written from the table's stream.
    await runtime.drainWork();
    const receipts = await api().get(`/v1/secrets/${id}/receipts`, bearer(storedSessions(configDir)[proxy.url]!.access_token!));
    expect(receipts.status).toBe(200);
    expect(receipts.body.items).toEqual([expect.objectContaining({ channel: 'cli' })]);

    expect(proxy.requests.map((request) => `${request.method} ${request.path}`)).toEqual(
      expect.arrayContaining([
        'POST /v1/auth/otp/start',
        'POST /v1/auth/otp/verify',
        'POST /v1/secrets',
        `GET /v1/secrets/${id}`,
        `POST /v1/secrets/${id}/claim`,
      ]),
    );
    expect(proxy.requests.filter((request) => request.client !== 'cli')).toEqual([]);
  });
});
