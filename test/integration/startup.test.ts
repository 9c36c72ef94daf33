import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../local/ports.ts';

// `npm start` as a user runs it, data in a folder of its own, one at a time. Signals go to the
// npm process only, as a process manager or `kill <pid>` sends them (Ctrl-C in a terminal
// reaches the whole process group; that is the easier case), except the SIGKILL of the
// service itself. What is left afterwards is read from /proc.

const dataDirs: string[] = [];
const services: Service[] = [];
// A test that failed half-way leaves its service running: stop it as a process manager would.
afterEach(async () => {
  for (const service of services.splice(0)) {
    if (service.child.exitCode !== null || service.child.signalCode !== null) continue;
    service.child.kill('SIGTERM');
    await service.exited;
  }
});
afterAll(() => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

interface Service {
  child: ChildProcess;
  port: number;
  dataDir: string;
  output: () => string;
  exited: Promise<number | null>;
}

async function startService(env: Record<string, string> = {}): Promise<Service> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'hushlink-startup-'));
  dataDirs.push(dataDir);
  const child = spawn('npm', ['start', '--silent'], {
    env: { ...process.env, PORT: String(port), HUSHLINK_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const service = { child, port, dataDir, output: () => output, exited };
  services.push(service);
  return service;
}

/** Java processes running DynamoDB Local on this data folder (read from /proc). */
function dynamoProcesses(dataDir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let commandLine: string;
    try {
      commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // Java itself, not the shell that watches it (its command line names the jar too).
    const program = commandLine.split('\0')[0] ?? '';
    if (/(^|\/)java$/.test(program) && commandLine.includes('DynamoDBLocal.jar') && commandLine.includes(dataDir))
      found.push(Number(entry));
  }
  return found;
}

interface ProcessEntry {
  pid: number;
  parent: number;
  command: string;
}

/** Every live process (zombies are gone in all but name), read from /proc. */
function processes(): ProcessEntry[] {
  const found: ProcessEntry[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
      const [state, parent] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z') continue;
      found.push({
        pid: Number(entry),
        parent: Number(parent),
        command: readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').trim(),
      });
    } catch {}
  }
  return found;
}

/** The processes descending from `root` now: npm's service and everything it started. */
function descendants(root: number): ProcessEntry[] {
  const all = processes();
  const tree = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of all) {
      if (tree.has(entry.parent) && !tree.has(entry.pid)) {
        tree.add(entry.pid);
        grew = true;
      }
    }
  }
  return all.filter((entry) => entry.pid !== root && tree.has(entry.pid));
}

/** Which of `started` still run (by pid and command line, so a reused pid does not count). */
const stillRunning = (started: ProcessEntry[]) =>
  processes().filter((entry) => started.some((one) => one.pid === entry.pid && one.command === entry.command));

/** Resolves once `check` holds, checking every 20 ms; fails after `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    // Watching another process start: polling is the only signal it gives.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Probe {
  status: number;
  code?: string;
  retryAfter: string | null;
  requestId: string | null;
}

/** One request; null when nothing listens yet (connection refused). A hang fails the probe. */
async function probe(port: number, path = '/v1/regions'): Promise<Probe | null> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5_000) });
    const text = await response.text();
    const body = /json/.test(response.headers.get('content-type') ?? '') ? (JSON.parse(text) as { code?: string }) : {};
    return {
      status: response.status,
      ...(body.code ? { code: body.code } : {}),
      retryAfter: response.headers.get('retry-after'),
      requestId: response.headers.get('x-request-id'),
    };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') throw new Error('a request during start-up got no answer within 5 s');
    return null;
  }
}

async function stopAndCheck(service: Service, signal: NodeJS.Signals) {
  const started = descendants(service.child.pid!);
  service.child.kill(signal);
  const code = await Promise.race([service.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000))]);
  expect(code, service.output()).toBe(0);
  // The emulator went with it: no Java process is left on this data folder, nor anything else npm start started.
  await until(() => dynamoProcesses(service.dataDir).length === 0, 10_000, 'DynamoDB Local to stop');
  await until(
    () => stillRunning(started).length === 0,
    10_000,
    `every process npm start started to end: ${JSON.stringify(stillRunning(started))}`,
  );
}

/** The node process running the service, under npm. */
async function serviceProcess(service: Service): Promise<ProcessEntry> {
  let found: ProcessEntry | undefined;
  await until(
    () => (found = descendants(service.child.pid!).find((entry) => entry.command.includes('local/main.ts'))) !== undefined,
    30_000,
    'the service process',
  );
  return found!;
}

describe('npm start: start-up and shutdown', () => {
  it('answers every request from the moment the port is bound: 503 starting with retry-after 1, then the API', async () => {
    // LOG_LEVEL from the environment reaches it too: INFO writes the access log line.
    const service = await startService({ LOG_LEVEL: 'INFO' });
    const answers: Probe[] = [];
    await until(
      async () => {
        const answer = await probe(service.port);
        if (answer) answers.push(answer);
        return answer?.status === 200;
      },
      90_000,
      `the service to be ready (${service.output()})`,
    );
    const starting = answers.filter((answer) => answer.status === 503);
    expect(starting.length, 'requests answered while starting').toBeGreaterThan(0);
    for (const answer of starting) {
      expect(answer).toMatchObject({ code: 'starting', retryAfter: '1' });
      expect(answer.requestId).toMatch(/^\S{8,}$/);
    }
    expect(answers.every((answer) => answer.status === 503 || answer.status === 200)).toBe(true);
    // The web client is served too once ready.
    expect((await probe(service.port, '/'))?.status).toBe(200);
    await until(() => /"message":"request"/.test(service.output()), 10_000, 'the access log line');
    await stopAndCheck(service, 'SIGTERM');
  }, 120_000);

  it('SIGTERM while DynamoDB Local is still booting stops its Java process and exits', async () => {
    const service = await startService();
    await until(() => dynamoProcesses(service.dataDir).length > 0, 60_000, 'DynamoDB Local to be spawned');
    await stopAndCheck(service, 'SIGTERM');
    expect(service.output()).not.toMatch(/Hushlink is running/);
  }, 120_000);

  it('Ctrl-C (SIGINT) as soon as the port answers stops everything started so far', async () => {
    const service = await startService();
    await until(async () => (await probe(service.port)) !== null, 60_000, 'the port to answer');
    await stopAndCheck(service, 'SIGINT');
  }, 120_000);

  it('SIGKILL of the service itself, which no handler sees, still stops DynamoDB Local (its watchdog does)', async () => {
    const service = await startService();
    await until(async () => (await probe(service.port))?.status === 200, 90_000, `the service to be ready (${service.output()})`);
    const node = await serviceProcess(service);
    const started = descendants(service.child.pid!);
    expect(dynamoProcesses(service.dataDir)).toHaveLength(1);
    process.kill(node.pid, 'SIGKILL');
    await service.exited;
    await until(() => dynamoProcesses(service.dataDir).length === 0, 10_000, 'DynamoDB Local to stop');
    await until(
      () => stillRunning(started).length === 0,
      10_000,
      `every process npm start started to end: ${JSON.stringify(stillRunning(started))}`,
    );
  }, 120_000);

  it('SIGKILL of npm, which cannot forward it, stops the service and DynamoDB Local (the service sees its parent gone)', async () => {
    const service = await startService();
    await until(() => dynamoProcesses(service.dataDir).length > 0, 60_000, 'DynamoDB Local to be spawned');
    const node = await serviceProcess(service);
    const started = descendants(service.child.pid!);
    service.child.kill('SIGKILL');
    await service.exited;
    await until(() => stillRunning([node]).length === 0, 15_000, 'the service to stop');
    await until(() => dynamoProcesses(service.dataDir).length === 0, 10_000, 'DynamoDB Local to stop');
    await until(
      () => stillRunning(started).length === 0,
      10_000,
      `every process npm start started to end: ${JSON.stringify(stillRunning(started))}`,
    );
  }, 120_000);

  it('refuses bad settings before starting anything, naming the setting', async () => {
    const service = await startService({ HUSHLINK_RATE_LIMITS: '{"secret_claim":{"perIp":{"limit":0}}}' });
    const code = await service.exited;
    expect(code).toBe(1);
    expect(service.output()).toMatch(/HUSHLINK_RATE_LIMITS\.secret_claim\.perIp\.limit/);
    expect(dynamoProcesses(service.dataDir)).toEqual([]);
  }, 60_000);
});
