import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { languages } from '../../shared/languages.ts';
import { newEmail, paidKey } from '../support/accounts.ts';
import { PipedRun, runCli, TerminalRun, type CliOptions } from '../support/cli.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';

// The command-line client as people run it, part two (part one: cli.test.ts): the passphrase
// and gate flows on a pseudo-terminal and piped, a 256 MiB file, progress bars, Ctrl-C during an
// upload, and the packed tarball installed offline.

const MiB = 1024 * 1024;
let runtime: Runtime;
let dir: string;
beforeAll(async () => {
  runtime = await startTestRuntime();
  dir = mkdtempSync(join(tmpdir(), 'hushlink-cli-'));
});
afterAll(async () => {
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], options: Partial<CliOptions> = {}) => runCli(args, { api: runtime.url, cwd: dir, ...options });
const terminal = (args: string[], options: Partial<CliOptions> & { columns?: number } = {}) =>
  new TerminalRun(args, { api: runtime.url, cwd: dir, ...options });
const idOf = (link: string) => new URL(link).pathname.split('/')[2]!;
const metadataOf = async (id: string) =>
  (await apiClient(runtime).get(`/v1/secrets/${id}`)).body as { state: string; views_left: number; kind: string };

let files = 0;
function randomFile(size: number, name = `plain-${++files}.bin`): string {
  const path = join(dir, name);
  writeFileSync(path, randomBytes(size));
  return path;
}
async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

describe('passphrases', () => {
  it('piped: HUSHLINK_PASSPHRASE seals and opens; a wrong one exits 4; none and no terminal exits 1 with what to do', async () => {
    const link = (
      await cli(['send', '--passphrase'], { input: 'two factors', env: { HUSHLINK_PASSPHRASE: 'correct horse' } })
    ).stdout.trim();
    expect((await metadataOf(idOf(link))).state).toBe('active');
    const none = await cli(['open', link]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/set HUSHLINK_PASSPHRASE.*\[no_terminal\]/);
    expect((await cli(['open', link], { env: { HUSHLINK_PASSPHRASE: 'wrong horse' } })).code).toBe(4);
    expect(await metadataOf(idOf(link))).toMatchObject({ state: 'active', views_left: 1 });
    expect((await cli(['open', link], { env: { HUSHLINK_PASSPHRASE: 'correct horse' } })).stdout).toBe('two factors');
  });

  it('on a terminal: asked twice without echo when sending, once when opening; the text typed ends with Ctrl-D', async () => {
    const sending = terminal(['send', '--passphrase']);
    await sending.waitFor('Passphrase: ');
    sending.type('s3cret-words\r');
    await sending.waitFor('Passphrase again: ');
    sending.type('s3cret-words\r');
    await sending.waitFor('Type the secret');
    sending.type('typed on a terminal\r\u0004');
    const sent = await sending.exit();
    expect(sent.code).toBe(0);
    expect(sent.output).not.toContain('s3cret-words');
    const link = /(http:\S+#[A-Za-z0-9_-]{43})/.exec(sent.output)![1]!;

    const opening = terminal(['open', link]);
    await opening.waitFor('Passphrase: ');
    opening.type('s3cret-words\r');
    const opened = await opening.exit();
    expect(opened.code).toBe(0);
    expect(opened.output).toContain('typed on a terminal\n');
    expect(opened.output).toContain('It is gone from the service now.');
    expect(opened.output).not.toContain('s3cret-words');
  });

  it('on a terminal: two different passphrases send nothing (exit 1); Ctrl-C at the prompt exits 130', async () => {
    const differing = terminal(['send', '--passphrase']);
    await differing.waitFor('Passphrase: ');
    differing.type('one\r');
    await differing.waitFor('Passphrase again: ');
    differing.type('two\r');
    expect(await differing.exit()).toMatchObject({ code: 1, output: expect.stringMatching(/differ; nothing was sent/) });

    const interrupted = terminal(['send', '--passphrase']);
    await interrupted.waitFor('Passphrase: ');
    interrupted.type('\u0003');
    expect((await interrupted.exit()).code).toBe(130);
  });
});

describe('restricted links', () => {
  it('asks for the address and the emailed code on a terminal, then opens; another address gets no code', async () => {
    const email = newEmail('cli-recipient');
    const sent = JSON.parse((await cli(['send', '--json', '--recipient', `carol:${email}`], { input: 'for carol only' })).stdout) as {
      links: Array<{ link: string; restricted: boolean }>;
    };
    expect(sent.links[0]!.restricted).toBe(true);
    const link = sent.links[0]!.link;

    const stranger = terminal(['open', link]);
    await stranger.waitFor('Your email address: ');
    stranger.type('mallory@example.com\r');
    await stranger.waitFor('Code: ');
    stranger.type('000000\r');
    expect((await stranger.exit()).code).toBe(2);
    expect(runtime.outbox.list().filter((mail) => mail.to === 'mallory@example.com')).toEqual([]);

    const opening = terminal(['open', link]);
    await opening.waitFor('Your email address: ');
    opening.type(`${email}\r`);
    await opening.waitFor('Code: ');
    const code = /\b(\d{6})\b/.exec(runtime.outbox.list().find((mail) => mail.to === email.toLowerCase())?.text ?? '')?.[1];
    expect(code).toBeDefined();
    opening.type(`${code}\r`);
    const opened = await opening.exit();
    expect(opened.code).toBe(0);
    expect(opened.output).toContain('for carol only');
  });

  it('piped: --email and the code as a line on stdin, for scripts; a wrong code is refused (exit 2) and uses no view', async () => {
    const email = newEmail('cli-piped-recipient');
    const link = (
      JSON.parse((await cli(['send', '--json', '--recipient', email], { input: 'scripted' })).stdout) as { links: Array<{ link: string }> }
    ).links[0]!.link;
    const wrong = new PipedRun(['open', link, '--email', email], { api: runtime.url, cwd: dir });
    await wrong.waitFor('Code: ');
    wrong.write('000000\n');
    expect((await wrong.exit()).code).toBe(2);
    expect(await metadataOf(idOf(link))).toMatchObject({ state: 'active', views_left: 1 });

    const opening = new PipedRun(['open', link, '--email', email], { api: runtime.url, cwd: dir });
    await opening.waitFor('Code: ');
    opening.write(`${/\b(\d{6})\b/.exec(runtime.outbox.list().find((mail) => mail.to === email.toLowerCase())?.text ?? '')?.[1]}\n`);
    expect(await opening.exit()).toMatchObject({ code: 0, stdout: 'scripted' });
  });

  it('--no-restrict keeps addresses as labels: anyone with the link opens it', async () => {
    const sent = JSON.parse(
      (await cli(['send', '--json', '--no-restrict', '--recipient', `dave:${newEmail('dave')}`], { input: 'open to the link' })).stdout,
    ) as {
      links: Array<{ link: string; restricted: boolean }>;
    };
    expect(sent.links[0]!.restricted).toBe(false);
    expect((await cli(['open', sent.links[0]!.link])).stdout).toBe('open to the link');
  });
});

describe('files', () => {
  it('a 256 MiB file round trip, byte for byte, in constant memory, silent when piped', async () => {
    const path = join(dir, 'large.bin');
    const handle = await openFile(path, 'w');
    for (let i = 0; i < 256; i++) await handle.write(randomBytes(MiB));
    await handle.close();
    const key = await paidKey(runtime, 'cli-large', 'pro');
    const sent = await cli(['send', path], { timeoutMs: 240_000, env: { HUSHLINK_API_KEY: key.key } });
    expect(sent.code).toBe(0);
    expect(sent.stderr).not.toContain('Uploading');
    const out = join(dir, 'large.out');
    const opened = await cli(['open', sent.stdout.trim(), '-o', out], { timeoutMs: 240_000 });
    expect(opened.code).toBe(0);
    expect(opened.stderr).not.toContain('Downloading');
    expect(statSync(out).size).toBe(256 * MiB);
    expect(await sha256(out)).toBe(await sha256(path));
    rmSync(path);
    rmSync(out);
  }, 300_000);

  it('draws progress bars on a terminal', async () => {
    const path = randomFile(12 * MiB);
    const sending = terminal(['send', path], { columns: 120 });
    const sent = await sending.exit();
    expect(sent.code).toBe(0);
    expect(sent.output).toMatch(/Uploading .*100% 12\.0 MiB\/12\.0 MiB/);
    const link = /(http:\S+#[A-Za-z0-9_-]{43})/.exec(sent.output)![1]!;
    const opening = terminal(['open', link, '-o', join(dir, 'progress.out')]);
    const opened = await opening.exit();
    expect(opened.code).toBe(0);
    expect(opened.output).toMatch(/Downloading .*100%/);
  });

  it('Ctrl-C during an upload aborts it: exit 130, the secret revoked, nothing kept', async () => {
    const key = await paidKey(runtime, 'cli-abort', 'pro');
    const path = randomFile(160 * MiB);
    const sending = terminal(['send', path], { env: { HUSHLINK_API_KEY: key.key } });
    await sending.waitFor(/Uploading .* [1-9]\d*(\.\d)? MiB\//);
    sending.type('\u0003');
    const ended = await sending.exit();
    expect(ended.code).toBe(130);
    expect(ended.output).toMatch(/Interrupted: nothing was kept/);
    const listed = await apiClient(runtime).get('/v1/secrets', key.auth);
    const items = (listed.body as { items: Array<{ id: string; state: string }> }).items;
    expect(items).toHaveLength(1);
    expect(items[0]!.state).toBe('revoked');
    rmSync(path);
  });
});

describe('the packed package', () => {
  it('npm pack gives a tarball that installs offline with no dependencies and runs', async () => {
    const { execFileSync } = await import('node:child_process');
    const cliDir = new URL('../../cli/', import.meta.url).pathname;
    const packs = mkdtempSync(join(dir, 'pack-'));
    const output = execFileSync('npm', ['pack', '--json', '--pack-destination', packs], {
      cwd: cliDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const [packed] = JSON.parse(output.slice(output.indexOf('['))) as Array<{
      filename: string;
      files: Array<{ path: string; mode: number }>;
    }>;
    // The messages ship as one catalogue per language beside dist/ (cli/src/i18n.ts reads only its own).
    const catalogues = languages.map((language) => `i18n/${language}.json`);
    expect(packed!.files.map((file) => file.path).sort()).toEqual(
      ['bin/hushlink.js', 'dist/hushlink.mjs', ...catalogues, 'package.json'].sort(),
    );
    expect(packed!.files.find((file) => file.path === 'bin/hushlink.js')!.mode & 0o111).toBe(0o111);
    const prefix = mkdtempSync(join(dir, 'install-'));
    execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, join(packs, packed!.filename)], {
      stdio: 'ignore',
    });
    const bin = join(prefix, 'node_modules', '.bin', 'hushlink');
    const { execFile } = await import('node:child_process');
    const run = (args: string[], input: string) =>
      new Promise<{ stdout: string; code: number }>((resolve) => {
        const child = execFile(
          bin,
          args,
          { env: { PATH: process.env.PATH, HUSHLINK_API: runtime.url, HUSHLINK_CONFIG_DIR: packs } },
          (error, stdout) => resolve({ stdout, code: error ? Number(error.code) : 0 }),
        );
        child.stdin!.end(input);
      });
    const sent = await run(['send'], 'from the packed package');
    expect(sent.code).toBe(0);
    expect((await run(['open', sent.stdout.trim()], '')).stdout).toBe('from the packed package');
  }, 120_000);
});
