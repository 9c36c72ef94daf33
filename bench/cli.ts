/**
 * The command-line client as users run it (issue 20, "Measured"): the packed bundle, one process
 * per command, against the local runtime, next to baselines measured in the same run.
 *
 *   npx tsx bench/cli.ts              (or: npm run bench:cli)
 *   CLI_BENCH_GIB=5                   (the file's size in GiB; 1 by default; "1,5" runs both)
 *
 * Throughput: `hushlink send FILE` and `hushlink open LINK -o OUT` of a generated file, each a
 * child process of `node bin/hushlink.js`, the launcher, in a temporary folder laid out as the
 * package installs (bin/, and dist/hushlink.mjs from cli/build.js), timed from spawn
 * to exit, against `openssl speed -evp aes-256-gcm -bytes 16384`, run before and after them. The
 * ceilings that explain the figure are measured alongside, each in a process of its own: the
 * CLI's seal alone (fileSealer and SealedReader cutting parts from the file as an upload does,
 * written to /dev/null), and raw AES-256-GCM over 1 MiB chunks with no I/O, node:crypto one
 * cipher per chunk and WebCrypto 2 ahead (SealedReader's depth): bench/cliBaselines.ts.
 *
 * Memory: each CLI process's peak RSS (GNU time's %M, or a preloaded module printing
 * `process.resourceUsage().maxRSS` at exit where /usr/bin/time is missing) next to the idle
 * process's (`hushlink --help`). Each command runs twice per size, with glibc's default malloc
 * arenas (how the launcher starts it) and with MALLOC_ARENA_MAX=2 (bench/files.ts found the
 * libuv threads' arenas inflated the peak while WebCrypto sealed). Start-up: `hushlink --help` of the installed launcher against
 * `node -e ''`, and of the checkout's bin (through tsx) for information. The tables and the
 * verdicts, one per target: bench/cliReport.ts.
 */
import { execFile, fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { measureCeiling, opensslSpeed } from './cliBaselines.ts';
import { report, type Arenas, type CliRun, type Figures, type SizeResult } from './cliReport.ts';
import { ask } from './messages.ts';

// Each process loads only what its role needs (below, by `import()`): the runtime's modules stay
// out of the ceilings' processes, and the CLI's processes run the launcher and the bundle alone.

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
/** Spawns per start-up case, after one discarded round. */
const START_SPAWNS = 20;
/** Idle processes (--help) whose peak RSS is the idle figure (their median). */
const IDLE_SPAWNS = 5;
/** Files up to this size, and their download, go to /dev/shm (RAM); larger ones to the temp folder on disk. */
const SHM_MAX_BYTES = 2 * GiB;
const WARMUP_BYTES = 64 * 1024;

/** CLI_BENCH_GIB: one size or several ("1,5"), each a positive number of GiB (0.25 for a quick look). */
function sizesOf(raw: string | undefined): number[] {
  const sizes = (raw ?? '1').split(',').map((part) => Number(part.trim()));
  if (sizes.some((size) => !Number.isFinite(size) || size <= 0))
    throw new Error(`CLI_BENCH_GIB: expected positive numbers of GiB, got ${raw}`);
  return sizes.map((size) => Math.round(size * GiB));
}

// ---------------------------------------------------------------------------------------------
// The file: a pool of random bytes whose length is not a power of two, repeated, so no two
// chunks hold the same plaintext and any offset's bytes can be made again to check.

const pool = randomBytes(MiB + 4099);
function pattern(offset: number, length: number): Buffer {
  const out = Buffer.allocUnsafeSlow(length);
  for (let filled = 0; filled < length; ) {
    const at = (offset + filled) % pool.length;
    filled += pool.copy(out, filled, at, Math.min(pool.length, at + length - filled));
  }
  return out;
}

async function writePatternFile(path: string, size: number): Promise<void> {
  const file = await open(path, 'w');
  try {
    for (let offset = 0; offset < size; offset += 8 * MiB) await file.write(pattern(offset, Math.min(8 * MiB, size - offset)));
  } finally {
    await file.close();
  }
}

/** The opened file: its size, and its bytes at the start, the middle and the end as generated. */
async function check(path: string, size: number): Promise<void> {
  const file = await open(path);
  try {
    if ((await file.stat()).size !== size) throw new Error(`${path} is not ${size} bytes`);
    for (const offset of [0, Math.floor(size / 2), Math.max(0, size - MiB)]) {
      const length = Math.min(MiB, size - offset);
      const read = Buffer.alloc(length);
      await file.read(read, 0, length, offset);
      if (!read.equals(pattern(offset, length))) throw new Error(`${path} differs from what was sent at ${offset}`);
    }
  } finally {
    await file.close();
  }
}

// ---------------------------------------------------------------------------------------------
// The runtime's process: the local runtime, generous limits, a Team user's API key (files to 20 GiB)

interface RuntimeReady {
  url: string;
  apiKey: string;
}

async function runtimeProcess(): Promise<void> {
  const { startRuntime } = await import('../local/runtime.ts');
  const { generousRateLimits } = await import('../test/support/runtime.ts');
  const { paidKey } = await import('../test/support/accounts.ts');
  const { s3Client } = await import('../shared/adapters/s3Uploads.ts');
  const { DeleteObjectCommand, ListObjectsV2Command } = await import('@aws-sdk/client-s3');
  // Its errors on stderr: a 500 the CLI reports is otherwise unexplained.
  const runtime = await startRuntime({ port: 0, rateLimits: generousRateLimits, logLevel: 'ERROR' });
  // An upload over INLINE_COMPLETION_BYTES (1 GiB) is completed in the background by a task
  // scheduled every minute, which this runtime does not time: run it every second instead, so a
  // send waits for S3's completion (its polls are 5 s apart) and not for the next minute.
  let completing = true;
  const completions = (async () => {
    while (completing) {
      await runtime.scheduler.run('complete-uploads').catch((error: unknown) => console.error('complete-uploads:', error));
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  const key = await paidKey(runtime, 'cli-bench', 'team', ['secrets:write']);
  const s3 = s3Client({
    bucket: runtime.s3.bucket,
    region: 'us-east-1',
    endpoint: runtime.s3.endpoint,
    credentials: runtime.s3.credentials,
  });
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      completing = false;
      await completions;
      s3.destroy();
      await runtime.stop();
      process.exit(0);
    })());
  // The bench stopped without asking (a kill, Ctrl-C): DynamoDB Local's Java process and the local S3's folder go too.
  process.once('disconnect', () => void stop());
  process.on('SIGINT', () => {}); // Ctrl-C reaches the whole group: this process stops when the bench has exited, as above
  process.on('message', async (message: { ask: 'clear' | 'stop' }) => {
    if (message.ask === 'stop') return void stop();
    // A burned file's object stays until its download URL has expired; the bench's disk cannot wait.
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: runtime.s3.bucket }));
    for (const object of listed.Contents ?? []) await s3.send(new DeleteObjectCommand({ Bucket: runtime.s3.bucket, Key: object.Key! }));
    process.send!({ cleared: listed.Contents?.length ?? 0 });
  });
  process.send!({ url: runtime.url, apiKey: key.key } satisfies RuntimeReady);
}

// ---------------------------------------------------------------------------------------------
// The CLI's processes: the launcher under `node`, its peak RSS and wall time

const gnuTime = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

class CliRunner {
  private readonly rssFile: string;
  private readonly preload: string;
  constructor(
    /** The launcher, bin/hushlink.js beside dist/: what `npm install -g` puts on the PATH. */
    private readonly launcher: string,
    private readonly directory: string,
    private readonly ready: RuntimeReady,
  ) {
    this.rssFile = join(directory, 'maxrss');
    this.preload = join(directory, 'maxrss.mjs');
    // Where GNU time is missing: the process's own lifetime peak (getrusage, KiB) and CPU seconds, written as it exits, as GNU time would.
    writeFileSync(
      this.preload,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: this is the source of the preload module, whose template the child process evaluates
      "import { writeFileSync } from 'node:fs';\nprocess.on('exit', () => { const usage = process.resourceUsage(); writeFileSync(process.env.HUSHLINK_BENCH_RSS_FILE, `${usage.maxRSS} ${usage.userCPUTime / 1e6} ${usage.systemCPUTime / 1e6}`); });\n",
    );
  }

  /** `hushlink ARGS` run to its end: a non-zero exit stops the bench with the CLI's stderr. */
  async run(args: string[], arenas: Arenas, withKey: boolean): Promise<CliRun> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HUSHLINK_API: this.ready.url,
      HUSHLINK_CONFIG_DIR: join(this.directory, 'config'),
      HUSHLINK_BENCH_RSS_FILE: this.rssFile,
    };
    delete env.NODE_OPTIONS;
    delete env.MALLOC_ARENA_MAX;
    delete env.HUSHLINK_API_KEY;
    delete env.HUSHLINK_PASSPHRASE;
    if (arenas === '2') env.MALLOC_ARENA_MAX = '2';
    if (withKey) env.HUSHLINK_API_KEY = this.ready.apiKey;
    if (!gnuTime) env.NODE_OPTIONS = `--import=${pathToFileURL(this.preload).href}`;
    const [command, commandArgs] = gnuTime
      ? [gnuTime, ['-f', '%M %U %S', '-o', this.rssFile, process.execPath, this.launcher, ...args]]
      : [process.execPath, [this.launcher, ...args]];
    rmSync(this.rssFile, { force: true });
    const started = performance.now();
    const child = spawn(command, commandArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (piece: Buffer) => stdout.push(piece));
    child.stderr.on('data', (piece: Buffer) => stderr.push(piece));
    const code = await new Promise<number | null>((resolve, reject) => child.once('error', reject).once('close', resolve));
    const ms = performance.now() - started;
    if (code !== 0) throw new Error(`hushlink ${args[0]} exited ${code}: ${Buffer.concat(stderr).toString('utf8').trim()}`);
    const [maxRssKiB, userSeconds, systemSeconds] = readFileSync(this.rssFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
    return { ms, cpuMs: (userSeconds! + systemSeconds!) * 1000, maxRss: maxRssKiB! * 1024, stdout: Buffer.concat(stdout).toString('utf8') };
  }

  /** Sends the file and opens its link into `out`, which is checked against what was sent and deleted. */
  async roundTrip(path: string, size: number, out: string, arenas: Arenas): Promise<{ send: CliRun; open: CliRun }> {
    const send = await this.run(['send', path, '--as-file'], arenas, true);
    const link = send.stdout.trim();
    if (!/^https?:\/\/\S+#\S+$/.test(link)) throw new Error(`hushlink send printed no link: ${send.stdout}`);
    const opened = await this.run(['open', link, '-o', out], arenas, false);
    await check(out, size);
    await rm(out);
    return { send, open: opened };
  }
}

// ---------------------------------------------------------------------------------------------
// Start-up: each case spawned in turn, so the machine's load moves all of them alike

interface StartupCase {
  label: string;
  command: string[];
}

async function startupTimes(cases: StartupCase[]): Promise<Array<{ label: string; times: number[] }>> {
  const times = cases.map(() => [] as number[]);
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  for (let round = 0; round <= START_SPAWNS; round += 1) {
    for (const [
      index,
      {
        label,
        command: [file, ...args],
      },
    ] of cases.entries()) {
      const started = performance.now();
      // Not spawnSync: the event loop stays free for a Ctrl-C (see orchestrate); nothing else runs meanwhile.
      const code = await new Promise<number | null>((resolve, reject) =>
        spawn(file!, args, { env, stdio: 'ignore' }).once('error', reject).once('exit', resolve),
      );
      const ms = performance.now() - started;
      if (code !== 0) throw new Error(`${label} exited ${code}`);
      if (round > 0) times[index]!.push(ms); // round 0 fills the page cache
    }
  }
  return cases.map(({ label }, index) => ({ label, times: times[index]! }));
}

// ---------------------------------------------------------------------------------------------
// This process: build the bundle, start the runtime, measure, print

async function orchestrate(): Promise<void> {
  const support = await import('./support.ts');
  const { chunkLog2Range, fileSealer } = await import('../shared/envelope/index.ts');
  const { partsOf } = await import('../shared/domain/files/upload.ts');
  const { partsInFlight } = await import('../cli/transfer/parts.ts');
  const sizes = sizesOf(process.env.CLI_BENCH_GIB);
  const loadAtStart = loadavg();
  const self = fileURLToPath(import.meta.url);
  const root = fileURLToPath(new URL('..', import.meta.url));
  const disk = mkdtempSync(join(tmpdir(), 'hushlink-bench-cli-'));
  const shm =
    existsSync('/dev/shm') && statfsSync('/dev/shm').bavail * statfsSync('/dev/shm').bsize > 3 * SHM_MAX_BYTES
      ? mkdtempSync('/dev/shm/hushlink-bench-cli-')
      : undefined;
  const folders = [disk, ...(shm ? [shm] : [])];
  const cleanUp = () => {
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  };
  // Ctrl-C or a kill still removes gigabytes of test files. tsx, which runs this, kills it outright
  // when it does not take a signal within some 60 ms, so nothing here blocks the event loop (no *Sync child processes).
  const onSignal = () => {
    cleanUp();
    process.exit(130);
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  let runtimeChild: ChildProcess | undefined;
  try {
    // The package's layout: the launcher finds no ../src/cli.ts beside it and loads ../dist/hushlink.mjs.
    const bundle = join(disk, 'dist', 'hushlink.mjs');
    const launcher = join(disk, 'bin', 'hushlink.js');
    await promisify(execFile)(process.execPath, [join(root, 'cli/build.js'), bundle]);
    mkdirSync(join(disk, 'bin'));
    copyFileSync(join(root, 'cli/bin/hushlink.js'), launcher);
    mkdirSync(join(disk, 'config'), { mode: 0o700 });

    runtimeChild = fork(self, ['runtime'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const ready = await ask<RuntimeReady>(runtimeChild, undefined);
    const clearBucket = (child: ChildProcess) => ask<{ cleared: number }>(child, { ask: 'clear' });
    const cli = new CliRunner(launcher, disk, ready);

    const opensslBefore = { cpu: await opensslSpeed('cpu'), elapsed: await opensslSpeed('elapsed') };
    const ceilings = { 'node-crypto': await measureCeiling('node-crypto'), webcrypto: await measureCeiling('webcrypto') };
    let seal: Figures['seal'] | undefined;

    const warmup = join(disk, 'warmup.bin');
    await writePatternFile(warmup, WARMUP_BYTES);
    // The runtime's first upload and download; and a transfer whose own buffers are small, so its
    // peak is what Node loads and sets up for one (fetch, WebCrypto, the thread pool).
    const small = {} as Figures['small'];
    for (const arenas of ['default', '2'] as const)
      small[arenas] = await cli.roundTrip(warmup, WARMUP_BYTES, join(disk, 'warmup.out'), arenas);

    const results: SizeResult[] = [];
    const failures: Figures['failures'] = [];
    for (const sizeBytes of sizes) {
      const folder = shm && sizeBytes <= SHM_MAX_BYTES ? shm : disk;
      const where = folder === shm ? '/dev/shm' : 'disk';
      const input = join(folder, `file-${sizeBytes}.bin`);
      await writePatternFile(input, sizeBytes);
      seal ??= { sizeBytes, folder: where, rates: await measureCeiling('seal', input, sizeBytes) };
      const sealer = await fileSealer({ meta: { name: 'bench.bin', type: 'application/octet-stream', size: sizeBytes } });
      const { partSize, partCount } = partsOf(sealer.envelopeSize(sizeBytes), chunkLog2Range.default);
      const runs = {} as SizeResult['runs'];
      try {
        for (const arenas of ['default', '2'] as const) {
          runs[arenas] = await cli.roundTrip(input, sizeBytes, join(folder, 'opened.bin'), arenas);
          await clearBucket(runtimeChild);
        }
        results.push({ sizeBytes, partSize, partCount, folder: where, runs });
      } catch (error) {
        // One size's failure (the local S3 can take longer to assemble 5 GiB than the function's
        // timeout on a loaded disk) still leaves the others' figures worth printing.
        failures.push({ sizeBytes, message: (error as Error).message });
        await rm(join(folder, 'opened.bin'), { force: true });
        await clearBucket(runtimeChild);
      } finally {
        await rm(input);
      }
    }

    const idle = {} as Record<Arenas, number>;
    for (const arenas of ['default', '2'] as const) {
      const peaks: number[] = [];
      for (let i = 0; i < IDLE_SPAWNS; i += 1) peaks.push((await cli.run(['--help'], arenas, false)).maxRss);
      idle[arenas] = support.median(peaks);
    }
    const startup = await startupTimes([
      { label: "node -e ''", command: [process.execPath, '-e', ''] },
      { label: 'hushlink --help (bin/hushlink.js, installed: loads dist/)', command: [process.execPath, launcher, '--help'] },
      {
        label: 'hushlink --help (checkout: cli/bin through tsx; information)',
        command: [process.execPath, join(root, 'cli/bin/hushlink.js'), '--help'],
      },
    ]);
    const opensslAfter = { cpu: await opensslSpeed('cpu'), elapsed: await opensslSpeed('elapsed') };

    const settings = { shmMaxBytes: SHM_MAX_BYTES, idleSpawns: IDLE_SPAWNS, rssSource: gnuTime ? 'GNU time' : 'getrusage at exit' };
    report(
      {
        results,
        failures,
        small,
        ceilings,
        seal: seal!,
        openssl: [opensslBefore, opensslAfter],
        idle,
        startup,
        partsInFlight,
        loadAtStart,
        bundleBytes: readFileSync(bundle).length,
        settings,
      },
      support,
    );
  } finally {
    if (runtimeChild?.connected) {
      runtimeChild.send({ ask: 'stop' });
      await new Promise((resolve) => runtimeChild!.once('exit', resolve));
    }
    cleanUp();
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
}

const role = process.argv[2];
if (role === 'runtime') void runtimeProcess();
else void import('./support.ts').then(({ runBench }) => runBench(orchestrate));
