/**
 * Running the real `hushlink` program as a child process: piped, or on a pseudo-terminal through
 * util-linux `script` (Debian's bsdutils, always installed), with a config folder of its own and
 * the test runtime's URL. It runs as it is packed (cli/build.js's bundle, built once per test
 * file): what users install, and some ten times quicker to start than the checkout's launcher
 * through tsx (cli/bin/hushlink.js, run by the help and packing tests).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, type BuildOptions } from 'esbuild';
// @ts-expect-error: a plain ES module of the CLI's package, without types.
import { bundleOptions } from '../../cli/build.js';

export const cliBin = fileURLToPath(new URL('../../cli/bin/hushlink.js', import.meta.url));

let bundle: string | undefined;
/** The packed program's one file, built on first use into a folder of this process. */
export function cliBundle(): string {
  if (!bundle) {
    const out = join(mkdtempSync(join(tmpdir(), 'hushlink-cli-bundle-')), 'hushlink.mjs');
    buildSync(bundleOptions(out) as BuildOptions);
    bundle = out;
  }
  return bundle;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  /** The deployment: HUSHLINK_API. */
  api: string;
  /** HUSHLINK_CONFIG_DIR; a fresh folder when not given. */
  configDir?: string;
  /** More environment (HUSHLINK_PASSPHRASE, HUSHLINK_API_KEY…); undefined removes a variable. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, then closed; stdin is closed at once when not given. */
  input?: string | Buffer;
  cwd?: string;
  timeoutMs?: number;
}

export const newConfigDir = () => mkdtempSync(join(tmpdir(), 'hushlink-cli-config-'));

/** The environment a child gets: nothing of the caller's HUSHLINK_* leaks in. */
function childEnv(options: CliOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('HUSHLINK_') && name !== 'NODE_OPTIONS') env[name] = value;
  env.HUSHLINK_API = options.api;
  env.HUSHLINK_CONFIG_DIR = options.configDir ?? newConfigDir();
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

/** Runs `hushlink …args` with pipes for stdin, stdout and stderr. */
export function runCli(args: string[], options: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliBundle(), ...args], {
      env: childEnv(options),
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (data: Buffer) => stdout.push(data));
    child.stderr.on('data', (data: Buffer) => stderr.push(data));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`hushlink ${args.join(' ')} took over ${options.timeoutMs ?? 60_000} ms; stderr: ${Buffer.concat(stderr).toString()}`),
      );
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: code ?? (signal === 'SIGINT' ? 130 : -1),
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * `hushlink …args` on a pseudo-terminal (`script -qec`): stdin, stdout and stderr are all the
 * terminal, as a person at a shell has them. Wait for a prompt before answering it: typed ahead,
 * the terminal would echo it before the CLI turns echo off.
 */
export class TerminalRun {
  private output = '';
  private waiters: Array<() => void> = [];
  readonly exited: Promise<{ code: number; output: string }>;
  private readonly child;

  constructor(args: string[], options: CliOptions & { columns?: number }) {
    const size = options.columns ? `stty cols ${options.columns} rows 30; ` : '';
    const command = `${size}exec ${[process.execPath, cliBundle(), ...args].map(shellQuote).join(' ')}`;
    this.child = spawn('script', ['-qec', command, '/dev/null'], {
      env: childEnv(options),
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const take = (data: Buffer) => {
      this.output += data.toString('utf8').replaceAll('\r\n', '\n');
      for (const wake of this.waiters.splice(0)) wake();
    };
    this.child.stdout.on('data', take);
    this.child.stderr.on('data', take);
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve({ code: code ?? -1, output: this.output })));
  }

  /** All the terminal showed so far (\r\n made \n). */
  get shown(): string {
    return this.output;
  }

  /** Resolves once the terminal shows `expected` (after `from`, an offset in `shown`). */
  async waitFor(expected: string | RegExp, timeoutMs = 30_000, from = 0): Promise<void> {
    const seen = () => (typeof expected === 'string' ? this.output.indexOf(expected, from) !== -1 : expected.test(this.output.slice(from)));
    const deadline = Date.now() + timeoutMs;
    while (!seen()) {
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${String(expected)}; it showed:\n${this.output}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Types `text` (a person's keys: `\r` is Enter, `\x03` Ctrl-C, `\x04` Ctrl-D). */
  type(text: string): void {
    this.child.stdin.write(text);
  }

  /** Waits for the exit; the terminal is closed once the CLI has exited. */
  async exit(timeoutMs = 60_000): Promise<{ code: number; output: string }> {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
      this.child.stdin.end();
    }
  }
}

/**
 * `hushlink …args` with pipes and stdin left open, for a command that asks something only known
 * once it has run (an emailed code): wait for its question on stderr, then `write` the answer.
 */
export class PipedRun {
  private out: Buffer[] = [];
  private err = '';
  private waiters: Array<() => void> = [];
  readonly exited: Promise<CliResult>;
  private readonly child;

  constructor(args: string[], options: Omit<CliOptions, 'input'>) {
    this.child = spawn(process.execPath, [cliBundle(), ...args], {
      env: childEnv(options),
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout.on('data', (data: Buffer) => this.out.push(data));
    this.child.stderr.on('data', (data: Buffer) => {
      this.err += data.toString('utf8');
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve, reject) => {
      this.child.on('error', reject);
      this.child.on('close', (code, signal) =>
        resolve({ code: code ?? (signal === 'SIGINT' ? 130 : -1), stdout: Buffer.concat(this.out).toString('utf8'), stderr: this.err }),
      );
    });
  }

  /** All of stderr so far. */
  get stderr(): string {
    return this.err;
  }

  /** Resolves once stderr shows `expected` (after `from`, an offset in `stderr`). */
  async waitFor(expected: string, timeoutMs = 30_000, from = 0): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.err.indexOf(expected, from) === -1) {
      if (Date.now() > deadline) throw new Error(`stderr never showed ${expected}; it showed:\n${this.err}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  write(text: string): void {
    this.child.stdin.write(text);
  }

  /** Closes stdin and waits for the exit. */
  async exit(timeoutMs = 60_000): Promise<CliResult> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
