import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { newEmail } from '../support/accounts.ts';
import { cliBundle, newConfigDir, runCli, TerminalRun, type CliOptions } from '../support/cli.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';

// The CLI where things go wrong around it: a slow reader of its output, a folder that cannot
// take the file, a sender's name made to rewrite the terminal, Ctrl-C while a person types,
// and arguments that could be a passphrase. None may lose a view or leak what it was given.

let runtime: Runtime;
let dir: string;
beforeAll(async () => {
  runtime = await startTestRuntime();
  dir = mkdtempSync(join(tmpdir(), 'hushlink-cli-edges-'));
});
afterAll(async () => {
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cli = (args: string[], options: Partial<CliOptions> = {}) => runCli(args, { api: runtime.url, cwd: dir, ...options });
const terminal = (args: string[]) => new TerminalRun(args, { api: runtime.url, cwd: dir });
const idOf = (link: string) => new URL(link).pathname.split('/')[2]!;
const stateOf = async (id: string) => ((await apiClient(runtime).get(`/v1/secrets/${id}`)).body as { state: string }).state;

describe('output', () => {
  it('a pipe gets the whole text: the CLI exits only once stdout has drained (a pipe holds 64 KiB)', async () => {
    const text = 'z'.repeat(200 * 1024);
    const link = (await cli(['send'], { input: text })).stdout.trim();
    // A shell pipe, not Node's own (a socket pair, whose buffer would hold all of it).
    // Not execFileSync: the runtime answering the CLI runs in this process.
    const counted = await promisify(execFile)('sh', ['-c', 'node "$0" open "$1" | wc -c', cliBundle(), link], {
      env: { PATH: process.env.PATH, HUSHLINK_API: runtime.url, HUSHLINK_CONFIG_DIR: newConfigDir() },
      encoding: 'utf8',
    });
    expect(Number(counted.stdout.trim())).toBe(text.length);
    expect(await stateOf(idOf(link))).toBe('burned');
  });

  it('a sender’s name cannot reach the terminal as escape sequences or reversed text, nor the disk as a path', async () => {
    const file = join(dir, 'plain.bin');
    writeFileSync(file, Buffer.from([0, 1, 2, 3]));
    const name = '\u001b]0;pwned\u0007\u001b[31mred\u001b[0m\u202etxt.exe';
    const link = (await cli(['send', file, '--name', name])).stdout.trim();
    const work = mkdtempSync(join(dir, 'names-'));
    const opened = await cli(['open', link], { cwd: work });
    expect(opened.code).toBe(0);
    expect(opened.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202e]/);
    expect(readdirSync(work)).toEqual([']0;pwned[31mred[0mtxt.exe']);
  });
});

describe('a view is never used when the file cannot be written', () => {
  it('a text to a folder that does not exist: exit 1 before the claim', async () => {
    const link = (await cli(['send'], { input: 'kept for later' })).stdout.trim();
    const refused = await cli(['open', link, '-o', join(dir, 'no-such-folder', 'out.txt')]);
    expect(refused.code).toBe(1);
    expect(await stateOf(idOf(link))).toBe('active');
  });

  it('a file to a folder that does not exist, or one that cannot be written: exit 1 before the claim', async () => {
    const file = join(dir, 'data.bin');
    writeFileSync(file, Buffer.alloc(70_000, 7));
    const link = (await cli(['send', file])).stdout.trim();
    expect((await cli(['open', link, '-o', join(dir, 'missing', 'data.bin')])).code).toBe(1);
    expect(await stateOf(idOf(link))).toBe('active');
    const opened = await cli(['open', link, '-o', join(dir, 'data.out')]);
    expect(opened.code).toBe(0);
    expect(await stateOf(idOf(link))).toBe('burned');
  });
});

describe('Ctrl-C and prompts', () => {
  it('Ctrl-C while the text is typed exits 130 and sends nothing', async () => {
    const sending = terminal(['send', '--json']);
    await sending.waitFor('Type the secret');
    sending.type('half a secr');
    sending.type('\u0003');
    const ended = await sending.exit();
    expect(ended.code).toBe(130);
    expect(ended.output).not.toMatch(/"link"/);
  });

  it('Ctrl-C at a visible prompt (a restricted link’s address) exits 130', async () => {
    const email = newEmail('cli-edges');
    const link = (
      JSON.parse((await cli(['send', '--json', '--recipient', email], { input: 'gated' })).stdout) as { links: Array<{ link: string }> }
    ).links[0]!.link;
    const opening = terminal(['open', link]);
    await opening.waitFor('Your email address: ');
    opening.type('\u0003');
    expect((await opening.exit()).code).toBe(130);
    expect(await stateOf(idOf(link))).toBe('active');
  });
});

describe('arguments', () => {
  it('--passphrase takes no value, and one given is never repeated back', async () => {
    const run = await cli(['send', '--passphrase', 'hunter2-correct'], { env: { HUSHLINK_PASSPHRASE: 'x' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/--passphrase takes no value/);
    expect(run.stderr).not.toContain('hunter2-correct');
  });

  it('a link given where it is not understood is not repeated back (it may hold a key)', async () => {
    const key = 'A'.repeat(43);
    for (const args of [
      ['status', `https://example.com/x/sec_1#${key}`],
      ['inbox', `https://example.com/x/${key}`],
      ['respond', `https://example.com/s/x#${key}`],
    ]) {
      const run = await cli(args);
      expect(run.code).toBe(1);
      expect(run.stderr).not.toContain(key);
    }
  });

  it('--name makes a short text file a file, with that name', async () => {
    const file = join(dir, 'short.txt');
    writeFileSync(file, 'short text');
    const link = (await cli(['send', file, '--name', 'renamed.txt'])).stdout.trim();
    expect(((await apiClient(runtime).get(`/v1/secrets/${idOf(link)}`)).body as { kind: string }).kind).toBe('file');
    const work = mkdtempSync(join(dir, 'renamed-'));
    expect((await cli(['open', link], { cwd: work })).code).toBe(0);
    expect(readdirSync(work)).toEqual(['renamed.txt']);
  });
});
