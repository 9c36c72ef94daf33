import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { createKey, newEmail, signIn } from '../support/accounts.ts';
import { cliBin, runCli, type CliOptions } from '../support/cli.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';

// The command-line client as people run it: the packed program as a child process against the
// local runtime. Help, usage errors, send, open, revoke and status with their exit codes (the
// terminal flows, large files and the package: cli-flows.test.ts; failures around it: cli-edges).

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
const linkPattern = () => new RegExp(`^${runtime.url}/s/sec_[A-Za-z0-9_-]{22}#[A-Za-z0-9_-]{43}$`);
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
/** A link whose key is another valid key: the link of no secret's key. */
const withOtherKey = (link: string) => `${link.slice(0, link.indexOf('#') + 1)}${randomBytes(32).toString('base64url')}`;

describe('help and usage', () => {
  it('lists every command, the exit codes and examples; each command has its own help with examples', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    for (const name of ['send', 'open', 'revoke', 'status', 'request', 'respond', 'inbox', 'login', 'logout', 'keys'])
      expect(help.stdout).toMatch(new RegExp(`^  ${name}\\s`, 'm'));
    expect(help.stdout).toContain('Exit codes:');
    for (const code of ['0', '1', '2', '3', '4', '130']) expect(help.stdout).toMatch(new RegExp(`^  ${code}\\s`, 'm'));
    for (const name of ['send', 'open', 'revoke', 'status']) {
      const own = await cli([name, '--help']);
      expect(own.code).toBe(0);
      expect(own.stdout).toMatch(new RegExp(`^Usage: hushlink ${name}`));
      expect(own.stdout).toContain('Examples:');
      expect(own.stdout).toContain('--api URL');
      expect((await cli(['help', name])).stdout).toBe(own.stdout);
    }
    expect((await cli(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('runs from a checkout too: the package bin (its sources through tsx) and `npx hushlink`', async () => {
    const { execFileSync } = await import('node:child_process');
    const bundled = (await cli(['--help'])).stdout;
    expect(execFileSync(process.execPath, [cliBin, '--help'], { encoding: 'utf8' })).toBe(bundled);
    const root = new URL('../../', import.meta.url).pathname;
    expect(
      execFileSync('npx', ['--offline', 'hushlink', 'send', '--help'], {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ).toMatch(/^Usage: hushlink send/);
  });

  it('exits 1 with one sentence for a usage error, before asking anything of the service', async () => {
    const cases: Array<[string[], RegExp]> = [
      [[], /Usage: hushlink <command>/],
      [['frobnicate'], /Unknown command "frobnicate"/],
      [['send', '--frob'], /Unknown option '--frob'.*hushlink send --help/],
      [['send', '--views', '0'], /--views takes a number from 1 to 100/],
      [['send', '--views', 'many'], /--views takes a number/],
      [['send', '--expires', '10y'], /--expires takes a duration/],
      [['send', '--expires', '31d'], /--expires must be from 1 minute to 30 days/],
      [['send', '--not-before', 'soon'], /--not-before takes a date-time/],
      [['send', '--recipient', 'bob:not-an-address'], /is not an email address/],
      [['send', join(dir, 'no-such-file')], /is not a file that can be read/],
      [['send', 'a', 'b'], /Too many arguments: b/],
      [['open'], /Give the link to open/],
      [['open', 'https://example.com/elsewhere'], /not a Hushlink link/],
      [['open', `${'http://localhost:1'}/s/sec_x#short`], /not a Hushlink link/],
      [['status', 'nonsense'], /neither a link nor a secret id/],
      [['send', '--api', 'ftp://host'], /--api must be an http\(s\) URL/],
    ];
    for (const [args, message] of cases) {
      const run = await cli(args, { input: 'text' });
      expect({ args, code: run.code }).toEqual({ args, code: 1 });
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe('');
    }
  });

  it('exits 3 when the service cannot be reached', async () => {
    const run = await cli(['send', '--api', 'http://127.0.0.1:9'], { input: 'text' });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/Could not reach http:\/\/127.0.0.1:9( \(ECONNREFUSED\))?\. .*\[network\]/);
  });

  it('says errors as JSON on stderr with --json', async () => {
    const run = await cli(['status', 'sec_AAAAAAAAAAAAAAAAAAAAAA', '--json']);
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stderr)).toEqual({ error: { code: 'not_found', message: expect.any(String), exit_code: 2 } });
  });
});

describe('send and open, piped', () => {
  it('prints the link alone on stdout and opens the exact text once; then exit 2, gone', async () => {
    const text = `line one\nline two ✓ ${randomBytes(8).toString('hex')}`; // no final newline: none is added
    const sent = await cli(['send'], { input: text });
    expect(sent.code).toBe(0);
    expect(sent.stdout.endsWith('\n')).toBe(true);
    const link = sent.stdout.trimEnd();
    expect(link).toMatch(linkPattern());
    expect(sent.stderr).toMatch(/Delete token: hdt_/);
    expect(sent.stderr).not.toContain(new URL(link).hash.slice(1));

    expect(await metadataOf(idOf(link))).toMatchObject({ state: 'active', views_left: 1, kind: 'text' });
    const opened = await cli(['open', link]);
    expect(opened).toMatchObject({ code: 0, stdout: text });
    expect(opened.stderr).toBe('');
    const again = await cli(['open', link]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already opened.*\[gone\]/);
    expect(again.stdout).toBe('');
  });

  it('sends with --views, --expires and --json; status reads without using a view', async () => {
    const sent = await cli(['send', '--views', '2', '--expires', '1h30m', '--json'], { input: 'twice' });
    expect(sent.code).toBe(0);
    const body = JSON.parse(sent.stdout) as { id: string; link: string; delete_token: string; expires_at: string; max_views: number };
    expect(body).toMatchObject({
      id: expect.stringMatching(/^sec_/),
      link: expect.stringMatching(linkPattern()),
      delete_token: expect.stringMatching(/^hdt_/),
      max_views: 2,
    });
    expect(Date.parse(body.expires_at) - runtime.clock.now()).toBeGreaterThan(89 * 60 * 1000);
    expect(Date.parse(body.expires_at) - runtime.clock.now()).toBeLessThanOrEqual(90 * 60 * 1000);

    const status = await cli(['status', body.id]);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^${body.id}: active\\n`));
    expect(status.stdout).toMatch(/views left {2}2 of 2/);
    expect((await cli(['open', body.link])).stdout).toBe('twice');
    const json = JSON.parse((await cli(['status', body.link, '--json'])).stdout) as { state: string; views_left: number };
    expect(json).toMatchObject({ state: 'active', views_left: 1 });
    expect(JSON.parse((await cli(['open', body.link, '--json'])).stdout)).toEqual({ kind: 'text', text: 'twice', views_left: 0 });
    expect((await cli(['status', body.id])).stdout).toMatch(/: burned\n/);
  });

  it('sends a small UTF-8 file as text, and a binary file as a file saved under its own name, never over another', async () => {
    const textPath = join(dir, 'notes.txt');
    writeFileSync(textPath, 'DB_PASSWORD=hunter2\n');
    const textLink = (await cli(['send', textPath])).stdout.trim();
    expect((await metadataOf(idOf(textLink))).kind).toBe('text');
    expect((await cli(['open', textLink])).stdout).toBe('DB_PASSWORD=hunter2\n');

    const asFile = (await cli(['send', textPath, '--as-file', '--views', '2'])).stdout.trim();
    expect((await metadataOf(idOf(asFile))).kind).toBe('file');
    const work = mkdtempSync(join(dir, 'work-'));
    writeFileSync(join(work, 'notes.txt'), 'already here');
    const first = await cli(['open', asFile], { cwd: work });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('to notes (1).txt');
    expect(readFileSync(join(work, 'notes.txt'), 'utf8')).toBe('already here');
    expect(readFileSync(join(work, 'notes (1).txt'), 'utf8')).toBe('DB_PASSWORD=hunter2\n');
    expect(statSync(join(work, 'notes (1).txt')).mode & 0o777).toBe(0o600);

    const binary = randomFile(3 * MiB + 17, 'photo.raw');
    const link = (await cli(['send', binary, '--name', '../../evil/.hidden'])).stdout.trim();
    const saved = await cli(['open', link, '--json'], { cwd: work });
    expect(JSON.parse(saved.stdout)).toMatchObject({
      kind: 'file',
      path: 'hidden',
      name: '../../evil/.hidden',
      size: 3 * MiB + 17,
      views_left: 0,
    });
    expect(await sha256(join(work, 'hidden'))).toBe(await sha256(binary));
  });

  it('refuses -o over an existing file before claiming (no view used), and overwrites with --force', async () => {
    const link = (await cli(['send'], { input: 'kept' })).stdout.trim();
    const target = join(dir, 'existing.txt');
    writeFileSync(target, 'old');
    const refused = await cli(['open', link, '-o', target]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/exists already.*--force.*\[exists\]/);
    expect(await metadataOf(idOf(link))).toMatchObject({ state: 'active', views_left: 1 });
    expect((await cli(['open', link, '-o', target, '--force'])).code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('kept');
  });

  it('refuses empty or oversized stdin (exit 1) and reads a text of the full size', async () => {
    expect(await cli(['send'], { input: '' })).toMatchObject({ code: 1, stderr: expect.stringMatching(/nothing to send/) });
    const tooLong = await cli(['send'], { input: 'x'.repeat(256 * 1024 + 1) });
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toMatch(/save it to a file/);
    const large = 'y'.repeat(200 * 1024);
    const link = (await cli(['send'], { input: large })).stdout.trim();
    expect((await cli(['open', link])).stdout).toBe(large);
  });

  it('a wrong key exits 4 without using a view, and says how many attempts are left', async () => {
    const link = (await cli(['send'], { input: 'guarded' })).stdout.trim();
    const wrong = await cli(['open', withOtherKey(link)]);
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toMatch(/does not open this secret\. \d+ attempts? left before it locks\. \[proof_refused\]/);
    expect(await metadataOf(idOf(link))).toMatchObject({ state: 'active', views_left: 1 });
    expect((await cli(['open', link])).stdout).toBe('guarded');
  });

  it('waits for --not-before: exit 2 too_early with the time, then opens once the service’s clock has passed it', async () => {
    const link = (await cli(['send', '--not-before', '2h'], { input: 'later' })).stdout.trim();
    const early = await cli(['open', link]);
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(/cannot be opened yet\. It opens from \d{4}-.*\[too_early\]/);
    runtime.clock.advance(2 * 3600 + 60);
    expect((await cli(['open', link])).stdout).toBe('later');
  });
});

describe('revoke', () => {
  it('revokes with the delete token; a wrong token or an unknown id is refused (exit 2)', async () => {
    const sent = JSON.parse((await cli(['send', '--json'], { input: 'revoke me' })).stdout) as {
      id: string;
      link: string;
      delete_token: string;
    };
    const wrong = await cli(['revoke', sent.id, '--token', `hdt_${randomBytes(32).toString('base64url')}`]);
    expect(wrong.code).toBe(2);
    expect(await metadataOf(sent.id)).toMatchObject({ state: 'active' });
    expect((await cli(['revoke', 'sec_AAAAAAAAAAAAAAAAAAAAAA', '--token', sent.delete_token])).code).toBe(2);
    const revoked = await cli(['revoke', sent.link, '--token', sent.delete_token]);
    expect(revoked).toMatchObject({ code: 0, stdout: '' });
    expect(revoked.stderr).toMatch(/Revoked sec_/);
    expect((await cli(['open', sent.link])).stderr).toMatch(/revoked by its sender.*\[gone\]/);
    expect((await cli(['status', sent.id, '--json'])).stdout).toMatch(/"state": "revoked"/);
  });

  it('revokes as the owner with an API key, no token needed, and one recipient’s link alone', async () => {
    const session = await signIn(runtime, newEmail('cli-owner'));
    const key = await createKey(runtime, session, ['secrets:write', 'secrets:read', 'receipts:read']);
    const env = { HUSHLINK_API_KEY: key.key };
    const sent = JSON.parse(
      (await cli(['send', '--json', '--recipient', 'alice', '--recipient', 'bob'], { input: 'for two', env })).stdout,
    ) as {
      id: string;
      links: Array<{ recipient_id: string; label: string; link: string }>;
    };
    expect(sent.links.map((link) => link.label)).toEqual(['alice', 'bob']);
    const [alice, bob] = sent.links;
    expect((await cli(['revoke', bob!.link], { env })).code).toBe(0);
    expect((await cli(['open', bob!.link])).code).toBe(2);
    const owned = await cli(['status', sent.id], { env });
    expect(owned.stdout).toMatch(new RegExp(`link ${bob!.recipient_id} {2}bob {2}revoked`));
    expect((await cli(['open', alice!.link])).stdout).toBe('for two');
    // Receipts are written from the table's stream: the relay's turn comes first.
    await runtime.stream.drain();
    expect((await cli(['status', sent.id], { env })).stdout).toMatch(/opened {6}\S+ via cli/);
    expect((await cli(['revoke', sent.id], { env })).code).toBe(0);
    expect((await cli(['revoke', sent.id])).code).toBe(2);
  });
});
