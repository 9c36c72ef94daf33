import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialsFile, type StoredSession } from '../../cli/src/credentials.ts';
import type { Runtime } from '../../local/runtime.ts';
import {
  checkServedKey,
  decodePublicKey,
  encodePublicKey,
  fromBase64,
  fromBase64Url,
  generateRequesterKeys,
  newLinkSecret,
  openPrompt,
  openText,
  parseRequestFragment,
  publicKeyFingerprint,
  requestFragment,
  sealPrompt,
  sealText,
  toBase64,
  unwrapResponseKey,
  wrapResponseKey,
  type RequestKem,
} from '../../shared/envelope/index.ts';
import { createKey, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { newConfigDir, runCli, TerminalRun, type CliOptions } from '../support/cli.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';

// `hushlink request`, `respond` and `inbox` as people run them: the real binary against the
// local runtime. The crypto is the web's (shared/envelope, called here as web/src/respond.ts and
// requests.ts call it), so a request made by one side is answered and opened by the other.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let dir: string;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  dir = mkdtempSync(join(tmpdir(), 'hushlink-cli-requests-'));
});
afterAll(async () => {
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], options: Partial<CliOptions> = {}) => runCli(args, { api: runtime.url, cwd: dir, ...options });

interface Requester {
  configDir: string;
  session: SignedIn;
}

/** A config folder signed in as a new account: credentials.json as `hushlink login` writes it. */
async function requester(configDir = newConfigDir()): Promise<Requester> {
  const session = await signIn(runtime, newEmail('cli-requester'));
  const stored: StoredSession = {
    email: session.user.email,
    user_id: session.user.id,
    access_token: session.access_token,
    access_expires_at: new Date(Date.now() + session.expires_in * 1000).toISOString(),
    refresh_token: session.refresh_token,
  };
  await credentialsFile({ HUSHLINK_CONFIG_DIR: configDir }).write({ [runtime.url]: stored });
  return { configDir, session };
}

const linkPattern = () => new RegExp(`^${runtime.url}/q/(rql_[A-Za-z0-9_-]{22})#[A-Za-z0-9_-]{43}\\.[A-Za-z0-9_-]{43}\\n$`);

/** `hushlink request …`: the link it printed and the request's id. */
async function cliRequest(who: Requester, args: string[] = []): Promise<{ link: string; id: string }> {
  const made = await cli(['request', ...args], { configDir: who.configDir });
  expect(made.code, made.stderr).toBe(0);
  const match = linkPattern().exec(made.stdout);
  expect(match, made.stdout).not.toBeNull();
  return { link: made.stdout.trim(), id: match![1]! };
}

const inboxOf = async (who: Requester, id: string) =>
  (await api.get(`/v1/requests/${id}/inbox`, who.session.auth)).body.items as Array<Record<string, any>>;

/** A fingerprint of a key that is not the request's: the link of no request's key. */
const withOtherFingerprint = (link: string) => {
  const [base, fragment] = link.split('#') as [string, string];
  return `${base}#${randomBytes(32).toString('base64url')}.${fragment.split('.')[1]}`;
};

/** The web's responder page, driven from here: the key checked, the prompt opened, a text sealed and its key wrapped. */
async function respondAsTheWeb(
  link: string,
  plaintext: string,
  options: { linkSecret?: Uint8Array } = {},
): Promise<{ prompt: string | null }> {
  const url = new URL(link);
  const id = url.pathname.split('/')[2]!;
  const fragment = parseRequestFragment(url.hash);
  const served = (await api.get(`/v1/requests/${id}`)).body as { public_key: string; kem: RequestKem; prompt_envelope: string | null };
  const publicKey = decodePublicKey(served.kem, served.public_key);
  await checkServedKey(publicKey, fragment.fingerprint);
  const prompt = served.prompt_envelope ? await openPrompt(fromBase64(served.prompt_envelope), fragment) : null;
  const sealed = await sealText(plaintext);
  const wrapped = await wrapResponseKey({
    ...fragment,
    ...(options.linkSecret ? { linkSecret: options.linkSecret } : {}),
    requestId: id,
    kem: served.kem,
    publicKey,
    responseKey: fromBase64Url(sealed.key),
  });
  const reply = await api.post(`/v1/requests/${id}/responses`, {
    kind: 'text',
    envelope: toBase64(sealed.envelope),
    salt: sealed.salt,
    size_bytes: sealed.envelope.length,
    enc: wrapped.enc,
    wrapped_key: wrapped.wrappedKey,
  });
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return { prompt };
}

/** The web's request page, driven from here: a non-extractable key pair, the prompt sealed, the link made. */
async function requestAsTheWeb(who: Requester, prompt: string) {
  const keys = await generateRequesterKeys();
  const link = { fingerprint: await publicKeyFingerprint(keys.publicKey), linkSecret: newLinkSecret() };
  const sealed = await sealPrompt(prompt, link);
  const created = await api.post(
    '/v1/requests',
    {
      public_key: encodePublicKey(keys.publicKey),
      kem: keys.kem,
      prompt_envelope: toBase64(sealed.envelope),
      expires_in: 3600,
      max_responses: 5,
    },
    who.session.auth,
  );
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return {
    id: created.body.id as string,
    keys,
    link,
    url: `${created.body.url_base}#${requestFragment(link.fingerprint, link.linkSecret)}`,
  };
}

describe('request, respond, inbox', () => {
  it('a text piped to `respond` is listed by `inbox` and printed exactly by `inbox --open`', async () => {
    const me = await requester();
    const { link, id } = await cliRequest(me, ['--prompt', 'The staging database password', '--max-responses', '3', '--expires', '2d']);
    const listed = (await api.get('/v1/requests', me.session.auth)).body.items as Array<Record<string, any>>;
    expect(listed).toEqual([expect.objectContaining({ id, open: true, responses: 0, max_responses: 3 })]);

    const text = 'hunter2\n  second line, ünïcode ✓';
    const answered = await cli(['respond', link], { input: text });
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toBe('');
    expect(answered.stderr).toContain('They ask:\n  The staging database password\n');
    expect(answered.stderr).toMatch(/was encrypted here and sent/);

    const list = await cli(['inbox'], { configDir: me.configDir });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${id}  open {5}1 of 3 responses  expires `, 'm'));
    expect(list.stdout).toMatch(/^ {2}rsp_\S+ {2}text /m);
    expect(list.stdout).not.toContain('hunter2');

    const opened = await cli(['inbox', id, '--open'], { configDir: me.configDir });
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toBe(text);

    const json = await cli(['inbox', id, '--open', '--json'], { configDir: me.configDir });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).requests).toEqual([
      expect.objectContaining({ id, key_here: true, responses_received: [expect.objectContaining({ kind: 'text', text })] }),
    ]);
  });

  it('a file answer goes through multipart and is saved byte for byte under its name, never over a file already there', async () => {
    const me = await requester();
    const { link, id } = await cliRequest(me, ['--prompt', 'The backup']);
    const bytes = randomBytes(9 * 1024 * 1024 + 123);
    const sourceDir = mkdtempSync(join(dir, 'source-'));
    writeFileSync(join(sourceDir, 'backup.bin'), bytes);
    const sent = await cli(['respond', link, join(sourceDir, 'backup.bin'), '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout)).toEqual({ request_id: id, kind: 'file', name: 'backup.bin', size: bytes.length });
    const [item] = await inboxOf(me, id);
    expect(item).toMatchObject({ kind: 'file', download: { url: expect.any(String) } });

    const target = mkdtempSync(join(dir, 'inbox-'));
    writeFileSync(join(target, 'backup.bin'), 'already here');
    const opened = await cli(['inbox', id, '--open'], { configDir: me.configDir, cwd: target });
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toBe('');
    expect(opened.stderr).toContain('Saved backup.bin');
    expect(readFileSync(join(target, 'backup.bin'), 'utf8')).toBe('already here');
    expect(readFileSync(join(target, 'backup (1).bin')).equals(bytes)).toBe(true);
  });

  it('on a terminal, shows the question and what is left, then takes the answer typed up to Ctrl-D', async () => {
    const me = await requester();
    const { link, id } = await cliRequest(me, ['--prompt', 'Type it here', '--max-responses', '1']);
    const run = new TerminalRun(['respond', link], { api: runtime.url, cwd: dir });
    await run.waitFor('Type your answer, then press Ctrl-D on a new line:');
    expect(run.shown).toContain('They ask:\n  Type it here\n');
    expect(run.shown).toContain('(yours may be the last response it takes; open until ');
    run.type('typed on a terminal\r');
    await run.waitFor('typed on a terminal\n');
    run.type('\x04');
    const ended = await run.exit();
    expect(ended.code, ended.output).toBe(0);
    expect(ended.output).toContain('Your answer was encrypted here and sent');
    const opened = await cli(['inbox', id, '--open'], { configDir: me.configDir });
    expect(opened.stdout).toBe('typed on a terminal\n');
  });

  it('keeps the key pair in requests.json, mode 0600, in a folder of mode 0700', async () => {
    const configDir = join(newConfigDir(), 'nested', 'hushlink');
    const me = await requester(configDir);
    const { id, link } = await cliRequest(me, ['--prompt', 'x']);
    const keyFile = join(configDir, 'requests.json');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    expect((await stat(configDir)).mode & 0o777).toBe(0o700);
    const kept = JSON.parse(readFileSync(keyFile, 'utf8'))[runtime.url][id];
    const fragment = parseRequestFragment(new URL(link).hash);
    expect(kept).toMatchObject({
      kem: expect.stringMatching(/^(x25519|p256)$/),
      fingerprint: fragment.fingerprint,
      url_base: link.split('#')[0],
    });
    // The service holds the public key only.
    const served = (await api.get(`/v1/requests/${id}`)).body;
    expect(served.public_key).toBe(kept.public_key);
    expect(JSON.stringify(served)).not.toContain(kept.private_key);
  });
});

describe('what `respond` refuses', () => {
  it('a link whose fingerprint is not the served key: exit 4, nothing posted', async () => {
    const me = await requester();
    const { link, id } = await cliRequest(me, ['--prompt', 'Nothing for a substituted key']);
    const tampered = await cli(['respond', withOtherFingerprint(link)], { input: 'must not be sent' });
    expect(tampered.code, tampered.stderr).toBe(4);
    expect(tampered.stderr).toContain('[key_mismatch]');
    expect(tampered.stderr).not.toContain('Nothing for a substituted key');
    expect((await api.get(`/v1/requests/${id}`)).body.responses_left).toBe(10);
    expect(await inboxOf(me, id)).toEqual([]);
  });

  it('a link whose secret is not the one the prompt was sealed with: exit 4, nothing posted', async () => {
    const me = await requester();
    const { link, id } = await cliRequest(me, ['--prompt', 'sealed']);
    const otherSecret = `${link.slice(0, link.lastIndexOf('.') + 1)}${randomBytes(32).toString('base64url')}`;
    const refused = await cli(['respond', otherSecret], { input: 'no' });
    expect(refused.code, refused.stderr).toBe(4);
    expect(refused.stderr).toContain('[wrong_key]');
    expect(await inboxOf(me, id)).toEqual([]);
  });

  it('an unknown request is 2 (not_found); a closed one 2 (gone); a link that is not one 1', async () => {
    const me = await requester();
    const { link, id } = await cliRequest(me);
    const unknown = await cli(['respond', link.replace(id, `rql_${randomBytes(16).toString('base64url').slice(0, 21)}A`)], { input: 'x' });
    expect(unknown.code, unknown.stderr).toBe(2);
    expect(unknown.stderr).toContain('[not_found]');
    expect(unknown.stderr).toContain('No request link has this id');

    expect((await api.delete(`/v1/requests/${id}`, me.session.auth)).status).toBe(200);
    const closed = await cli(['respond', link], { input: 'x' });
    expect(closed.code, closed.stderr).toBe(2);
    expect(closed.stderr).toContain('closed this request link; nothing was sent. [gone]');

    const notALink = await cli(['respond', link.split('#')[0]!], { input: 'x' });
    expect(notALink.code).toBe(1);
    expect(notALink.stderr).toContain('[bad_link]');
  });

  it('a full request is 2 (request_full)', async () => {
    const me = await requester();
    const { link } = await cliRequest(me, ['--max-responses', '1']);
    expect((await cli(['respond', link], { input: 'first' })).code).toBe(0);
    const full = await cli(['respond', link], { input: 'second' });
    expect(full.code, full.stderr).toBe(2);
    expect(full.stderr).toContain('[request_full]');
  });
});

describe('what `request` and `inbox` need', () => {
  it('`request` without a session: exit 2 with the login hint, no key kept', async () => {
    const configDir = newConfigDir();
    const refused = await cli(['request', '--prompt', 'x'], { configDir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('hushlink login');
    expect(refused.stderr).toContain('[unauthorized]');
    expect(existsSync(join(configDir, 'requests.json'))).toBe(false);
  });

  it('`request` and `inbox` with HUSHLINK_API_KEY: exit 2 session_required', async () => {
    const me = await requester();
    const key = await createKey(runtime, me.session, ['secrets:write']);
    for (const args of [['request', '--prompt', 'x'], ['inbox']]) {
      const refused = await cli(args, { configDir: me.configDir, env: { HUSHLINK_API_KEY: key.key } });
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toContain('[session_required]');
    }
    expect(existsSync(join(me.configDir, 'requests.json'))).toBe(false);
  });

  it('bad options are usage errors (1), before anything is made', async () => {
    const me = await requester();
    for (const args of [
      ['--max-responses', '0'],
      ['--max-responses', '101'],
      ['--expires', '31d'],
      ['--expires', 'soon'],
      ['--hostname', 'a.example.com'],
    ]) {
      const refused = await cli(['request', ...args], { configDir: me.configDir });
      expect(refused.code, `${args.join(' ')}: ${refused.stderr}`).toBe(1);
    }
    expect((await api.get('/v1/requests', me.session.auth)).body.items).toEqual([]);
  });
});

describe('between the CLI and the web', () => {
  it('a request made by the CLI, answered as the web answers, opens with `inbox --open`', async () => {
    const me = await requester();
    const { link, id } = await cliRequest(me, ['--prompt', 'Your SSH public key, please']);
    const { prompt } = await respondAsTheWeb(link, 'ssh-ed25519 AAAAC3Nza… web@browser');
    expect(prompt).toBe('Your SSH public key, please');
    const opened = await cli(['inbox', id, '--open'], { configDir: me.configDir });
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toBe('ssh-ed25519 AAAAC3Nza… web@browser');
  });

  it("a request made as the web makes it, answered by `hushlink respond`, opens with the web's unwrap", async () => {
    const me = await requester();
    const made = await requestAsTheWeb(me, 'The deploy token');
    const answered = await cli(['respond', made.url], { input: 'tok_123' });
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stderr).toContain('The deploy token');
    const [item] = await inboxOf(me, made.id);
    const key = await unwrapResponseKey({
      ...made.link,
      requestId: made.id,
      keys: made.keys,
      enc: item!.enc,
      wrappedKey: item!.wrapped_key,
    });
    expect(await openText(fromBase64(item!.envelope), { key, salt: item!.salt })).toBe('tok_123');

    // This config folder has no key for it: listed as such, and --open says so instead of failing obscurely.
    const list = await cli(['inbox'], { configDir: me.configDir });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(`${made.id}  open     1 of 5 responses`);
    expect(list.stdout).toContain('(key not here: made in a browser or another config folder)');
    const one = await cli(['inbox', made.id, '--open'], { configDir: me.configDir });
    expect(one.code).toBe(4);
    expect(one.stderr).toContain('its key is not in this config folder (made in a browser or with another one)');
    expect(one.stderr).toContain('[no_request_key]');
    const all = await cli(['inbox', '--open'], { configDir: me.configDir });
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toBe('');
    expect(all.stderr).toContain(`Request ${made.id} has 1 response, but its key is not in this config folder`);
  });

  it("a response made without the link's secret is reported forged (exit 4) and the others still open", async () => {
    const me = await requester();
    const { link, id } = await cliRequest(me, ['--prompt', 'two answers']);
    await respondAsTheWeb(link, 'the genuine one');
    await respondAsTheWeb(link, 'made with the public key only', { linkSecret: newLinkSecret() });
    const opened = await cli(['inbox', id, '--open'], { configDir: me.configDir });
    expect(opened.code, opened.stderr).toBe(4);
    expect(opened.stdout).toBe('the genuine one\n');
    expect(opened.stderr).toContain('[forged]');
    expect(opened.stdout).not.toContain('public key only');
  });
});

describe('help', () => {
  it('each of the three commands has complete help with examples', async () => {
    for (const name of ['request', 'respond', 'inbox']) {
      const help = await cli([name, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: hushlink ${name}`));
      expect(help.stdout).toContain('Examples:');
      expect(help.stdout).not.toContain('TODO');
    }
  });
});
