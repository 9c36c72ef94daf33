import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { languages } from '../../shared/languages.ts';
import { cliBin, runCli, type CliOptions } from '../support/cli.ts';
import { startTestRuntime } from '../support/runtime.ts';

// The CLI in the reader's language (issue 32): messages, help and prompts follow LC_ALL, then
// LC_MESSAGES, then LANG; what scripts read (--json, links, ids, codes) is the same in every
// locale. The packed program, as users run it, against the local runtime; the catalogues
// themselves: test/unit/cli-i18n.test.ts.

let runtime: Runtime;
let dir: string;
beforeAll(async () => {
  runtime = await startTestRuntime();
  dir = mkdtempSync(join(tmpdir(), 'hushlink-cli-i18n-'));
});
afterAll(async () => {
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The locale variables, all of them given: what the caller's shell has set never leaks in. */
const locale = (variables: { LC_ALL?: string; LC_MESSAGES?: string; LANG?: string }) => ({
  LC_ALL: variables.LC_ALL,
  LC_MESSAGES: variables.LC_MESSAGES,
  LANG: variables.LANG,
});
const german = locale({ LANG: 'de_DE.UTF-8' });
const englishByDefault = locale({});

const cli = (args: string[], env: Record<string, string | undefined>, options: Partial<CliOptions> = {}) =>
  runCli(args, { api: runtime.url, cwd: dir, ...options, env: { ...env, ...options.env } });
const linkPattern = () => new RegExp(`^${runtime.url}/s/sec_[A-Za-z0-9_-]{22}#[A-Za-z0-9_-]{43}\\n$`);

describe('under LANG=de_DE.UTF-8', () => {
  it('helps in German, names commands, options and exit codes as they are', async () => {
    const help = await cli(['--help'], german);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(
      /^hushlink \d+\.\d+\.\d+: Geheimnisse teilen, die sich einmal öffnen lassen, Ende-zu-Ende-verschlüsselt\.\n/,
    );
    expect(help.stdout).toContain('Aufruf: hushlink <command> [options]');
    expect(help.stdout).toContain('\nBefehle:\n');
    expect(help.stdout).toMatch(/^ {2}send +Einen Text oder eine Datei senden; gibt den Link aus\.$/m);
    expect(help.stdout).toMatch(/^ {2}4 +Falscher Schlüssel oder falsche Passphrase/m);
    for (const name of ['send', 'open', 'revoke', 'status', 'request', 'respond', 'inbox', 'login', 'logout', 'keys'])
      expect(help.stdout).toMatch(new RegExp(`^ {2}${name}\\s`, 'm'));
    const send = await cli(['send', '--help'], german);
    expect(send.stdout).toMatch(/^Aufruf: hushlink send \[FILE\|-\] \[options\]\n/);
    expect(send.stdout).toContain('Der Schlüssel steht nur im #Fragment des Links\nund wird nie gesendet.');
    expect(send.stdout).toMatch(/^ {2}--views N +Wie oft es sich öffnen lässt, 1 bis 100 \(Standard 1\)\.$/m);
    expect(send.stdout).toMatch(/^ {2}--api URL +Die zu verwendende Instanz/m);
  });

  it('asks in German, and says why it stopped in German with the same code and exit code', async () => {
    // Piped, the question goes to stderr and stdin's next line answers it: here there is none.
    const login = await cli(['login'], german);
    expect(login.stderr).toBe('E-Mail-Adresse: hushlink: Es kam keine Antwort (die Eingabe endete). [no_answer]\n');
    expect(login.code).toBe(1);
    const open = await cli(['open'], german);
    expect(open.stderr).toBe('hushlink: Geben Sie den zu öffnenden Link an: hushlink open LINK. [usage]\n');
    expect(open.code).toBe(1);
    const option = await cli(['send', '--bogus'], german);
    expect(option.stderr).toBe("hushlink: Unbekannte Option '--bogus'. Siehe `hushlink send --help`. [usage]\n");
    const views = await cli(['send', '--views', '0'], german, { input: 'x' });
    expect(views.stderr).toBe('hushlink: --views erwartet eine Zahl von 1 bis 100 (angegeben: "0"). [usage]\n');
    const expiry = await cli(['send', '--expires', '31d'], german, { input: 'x' });
    expect(expiry.stderr).toBe('hushlink: --expires muss im Bereich 1 Minute bis 30 Tage liegen (angegeben: "31d"). [usage]\n');
    const gone = await cli(['open', `${runtime.url}/s/sec_AAAAAAAAAAAAAAAAAAAAAA#${'A'.repeat(43)}`], german);
    expect(gone.stderr).toBe(
      'hushlink: Kein solches Geheimnis: Es hat nie existiert, oder auch sein letzter Eintrag ist gelöscht. [not_found]\n',
    );
    expect(gone.code).toBe(2);
  });

  it('sends, shows, opens and revokes with German sentences around the same link', async () => {
    const sent = await cli(['send', '--views', '2'], german, { input: 'für Ana' });
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(linkPattern());
    const id = new URL(sent.stdout.trim()).pathname.split('/')[2]!;
    expect(sent.stderr).toMatch(/^Läuft ab am \S+ oder nach 2 Aufrufen\.\nWiderrufstoken: \S+\n {2}\(zum Widerrufen: hushlink revoke sec_/);

    const status = await cli(['status', id], german);
    expect(status.stdout).toContain(`${id}: aktiv\n`);
    expect(status.stdout).toMatch(/^ {2}Art {10}Text$/m);
    expect(status.stdout).toMatch(/^ {2}verbleibend {2}2 von 2 Aufrufen$/m);

    const opened = await cli(['open', sent.stdout.trim(), '-o', join(dir, 'ana.txt')], german);
    expect(opened.code).toBe(0);
    expect(readFileSync(join(dir, 'ana.txt'), 'utf8')).toBe('für Ana');
    expect(opened.stderr).toBe(`Der Text wurde unter ${join(dir, 'ana.txt')} gespeichert. Noch 1 Aufruf.\n`);

    const token = /Widerrufstoken: (\S+)/.exec(sent.stderr)![1]!;
    const revoked = await cli(['revoke', id, '--token', token], german);
    expect(revoked.stderr).toBe(`${id} wurde widerrufen: Seine Links öffnen sich nicht mehr.\n`);
    expect((await cli(['status', id], german)).stdout).toContain(`${id}: widerrufen\n`);
  });
});

describe('which locale variable speaks', () => {
  const commandsHeading = async (env: Record<string, string | undefined>) =>
    /\n\n(.+)\n {2}send /.exec((await cli(['--help'], env)).stdout)?.[1];

  it('LC_ALL before LC_MESSAGES before LANG; C, POSIX, an unknown language or none is English', async () => {
    expect(await commandsHeading(locale({ LC_ALL: 'fr_FR.UTF-8', LC_MESSAGES: 'de_DE.UTF-8', LANG: 'es_ES.UTF-8' }))).toBe('Commandes :');
    expect(await commandsHeading(locale({ LC_MESSAGES: 'de_DE.UTF-8', LANG: 'es_ES.UTF-8' }))).toBe('Befehle:');
    expect(await commandsHeading(locale({ LC_ALL: '', LC_MESSAGES: '', LANG: 'es_ES.UTF-8' }))).toBe('Comandos:');
    expect(await commandsHeading(locale({ LANG: 'pt_BR.UTF-8' }))).toBe('Comandos:');
    expect(await commandsHeading(locale({ LANG: 'ja_JP.UTF-8' }))).toBe('コマンド:');
    expect(await commandsHeading(locale({ LANG: 'zh_CN.UTF-8' }))).toBe('命令：');
    expect(await commandsHeading(locale({ LANG: 'ar_EG.UTF-8' }))).toBe('الأوامر:');
    for (const env of [
      locale({ LC_ALL: 'C', LANG: 'de_DE.UTF-8' }),
      locale({ LANG: 'POSIX' }),
      locale({ LANG: 'sv_SE.UTF-8' }),
      englishByDefault,
    ])
      expect(await commandsHeading(env), JSON.stringify(env)).toBe('Commands:');
  });

  it('speaks each language from the checkout’s launcher (through tsx) as from the bundle', async () => {
    const env = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'it_IT.UTF-8' };
    const fromCheckout = execFileSync(process.execPath, [cliBin, 'revoke', '--help'], { encoding: 'utf8', env });
    expect(fromCheckout).toBe((await cli(['revoke', '--help'], locale({ LANG: 'it_IT.UTF-8' }))).stdout);
    expect(fromCheckout).toMatch(/^Uso: hushlink revoke /);
  });
});

describe('what scripts read', () => {
  it('is the same under de and en: --json answers and errors, links and ids', async () => {
    const sent = await cli(['send', '--json'], german, { input: 'machine' });
    const answer = JSON.parse(sent.stdout) as { id: string; link: string; delete_token: string };
    expect(Object.keys(answer).sort()).toEqual(['delete_token', 'expires_at', 'id', 'link', 'max_views', 'not_before']);
    expect(sent.stderr).toBe('');
    const status = {
      de: await cli(['status', answer.id, '--json'], german),
      en: await cli(['status', answer.id, '--json'], englishByDefault),
    };
    expect(status.de.stdout).toBe(status.en.stdout);
    expect(JSON.parse(status.de.stdout)).toMatchObject({ id: answer.id, state: 'active' });
    // A failure under --json is its error object, English in every locale, on stderr.
    for (const args of [
      ['send', '--views', '0', '--json'],
      ['status', 'nonsense', '--json'],
      ['open', `${answer.link}x`, '--json'],
    ]) {
      const [de, en] = [await cli(args, german, { input: 'x' }), await cli(args, englishByDefault, { input: 'x' })];
      expect(de.stderr, args.join(' ')).toBe(en.stderr);
      expect(de.code).toBe(en.code);
      expect(JSON.parse(de.stderr)).toHaveProperty('error.code');
    }
    const opened = { de: await cli(['open', answer.link, '--json'], german) };
    expect(JSON.parse(opened.de.stdout)).toEqual({ kind: 'text', text: 'machine', views_left: 0 });
    expect(opened.de.stderr).toBe('');
  });
});

describe('the packed package', () => {
  it('ships every catalogue beside dist/ and speaks German from the tarball', async () => {
    const cliDir = new URL('../../cli/', import.meta.url).pathname;
    const packs = mkdtempSync(join(dir, 'pack-'));
    const output = execFileSync('npm', ['pack', '--json', '--pack-destination', packs], {
      cwd: cliDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const [packed] = JSON.parse(output.slice(output.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const paths = packed!.files.map((file) => file.path);
    for (const language of languages) expect(paths).toContain(`i18n/${language}.json`);
    execFileSync('tar', ['-xzf', join(packs, packed!.filename), '-C', packs]);
    expect(readdirSync(join(packs, 'package', 'i18n')).sort()).toEqual(languages.map((language) => `${language}.json`).sort());
    const run = (lang: string) =>
      execFileSync(process.execPath, [join(packs, 'package', 'bin', 'hushlink.js'), 'open', '--help'], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, LANG: lang },
      });
    expect(run('de_DE.UTF-8')).toMatch(/^Aufruf: hushlink open LINK/);
    expect(run('de_DE.UTF-8')).toContain('Öffnet den Link eines Geheimnisses und verbraucht dabei einen seiner Aufrufe.');
    expect(run('C.UTF-8')).toBe((await cli(['open', '--help'], englishByDefault)).stdout);
  }, 120_000);
});
