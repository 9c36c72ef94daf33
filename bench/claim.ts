/**
 * Cost and latency of the secret hot path, against the whole local runtime in this process.
 *
 *   npx tsx bench/claim.ts          (or: npm run bench:claim)
 *   BENCH_N=300 BENCH_WARMUP=50     (iterations measured / discarded per operation)
 *
 * For create, metadata read, non-final claim and final (burning) claim it prints the DynamoDB
 * requests each operation makes, the capacity they consume (RCU/WCU, as DynamoDB Local reports
 * it with ReturnConsumedCapacity), and p50/p99 latency over HTTP, next to a raw GetItem and
 * UpdateItem round trip to the same DynamoDB Local in the same run. The ratio to the raw
 * GetItem is the headline: it says how much the service adds on top of one table round trip.
 *
 * Requests are counted by a middleware on the runtime's own DynamoDB client, reached through
 * the stores' private `db` field (no product hook exists for it). The rate counter shares that
 * client; its calls are told apart by their key (`RATE#...`) and shown separately.
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type ConsumedCapacity,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startRuntime, tableName, type Runtime } from '../local/runtime.ts';
import { secretLimits } from '../shared/limits.ts';
import { generousRateLimits, textSecretBody } from '../test/support/runtime.ts';

const N = positiveInt(process.env.BENCH_N, 300);
const WARMUP = positiveInt(process.env.BENCH_WARMUP, 50);
/** Envelope bytes of every secret created (textSecretBody's default). */
const ENVELOPE_BYTES = positiveInt(process.env.BENCH_ENVELOPE_BYTES, 64);
/** Multi-view secrets for the non-final claims: views 1..MAX_VIEWS-1 are non-final. */
const MAX_VIEWS = secretLimits.maxViews.max;

function positiveInt(raw: string | undefined, fallback: number): number {
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`expected a positive integer, got ${raw}`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Counting DynamoDB requests and capacity on the runtime's client

interface Tally {
  /** Logical SDK calls (one per `send`). */
  requests: number;
  /** HTTP attempts, retries included. */
  attempts: number;
  failures: number;
  rcu: number;
  wcu: number;
  /** Of `wcu`, the part DynamoDB charged to global secondary indexes. */
  gsiWcu: number;
  commands: string[];
}

const newTally = (): Tally => ({ requests: 0, attempts: 0, failures: 0, rcu: 0, wcu: 0, gsiWcu: 0, commands: [] });
const tallies = { app: newTally(), rate: newTally() };

const readCommands = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

/** Capacity of one response, split into read and write units. */
function capacityOf(command: string, consumed: ConsumedCapacity | undefined): { rcu: number; wcu: number; gsiWcu: number } {
  if (!consumed) return { rcu: 0, wcu: 0, gsiWcu: 0 };
  const total = consumed.CapacityUnits ?? 0;
  const isRead = readCommands.has(command);
  const rcu = consumed.ReadCapacityUnits ?? (isRead ? total : 0);
  const wcu = consumed.WriteCapacityUnits ?? (isRead ? 0 : total);
  const gsi = Object.values(consumed.GlobalSecondaryIndexes ?? {}).reduce(
    (sum, index) => sum + (index.WriteCapacityUnits ?? (isRead ? 0 : (index.CapacityUnits ?? 0))),
    0,
  );
  return { rcu, wcu, gsiWcu: gsi };
}

/** True for the rate counter's items, so its calls are tallied apart from the secret store's. */
function isRateCall(input: Record<string, unknown>): boolean {
  const pk = (input.Key as Record<string, unknown> | undefined)?.pk;
  const value = typeof pk === 'string' ? pk : (pk as { S?: string } | undefined)?.S;
  return typeof value === 'string' && value.startsWith('RATE#');
}

/** Meters every call of the runtime's DynamoDB client (one stack shared by all stores). */
function installMeter(client: DynamoDBDocumentClient): void {
  const stacks = [client.middlewareStack];
  for (const stack of stacks) {
    stack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        const tally = isRateCall(input) ? tallies.rate : tallies.app;
        // The handler context lives for the whole call, so the attempt counter below finds it.
        (context as { benchTally?: Tally }).benchTally = tally;
        const command = context.commandName ?? 'unknown';
        tally.requests += 1;
        tally.commands.push(command.replace(/Command$/, ''));
        try {
          const result = await next({ ...args, input: { ...input, ReturnConsumedCapacity: 'INDEXES' } });
          const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacity }).ConsumedCapacity;
          const { rcu, wcu, gsiWcu } = capacityOf(command, consumed);
          tally.rcu += rcu;
          tally.wcu += wcu;
          tally.gsiWcu += gsiWcu;
          return result;
        } catch (error) {
          tally.failures += 1;
          throw error;
        }
      },
      { step: 'initialize', name: 'benchCapacityMeter', priority: 'high' },
    );
    // Inside the retry middleware, so this sees every HTTP attempt.
    stack.add(
      (next, context) => async (args) => {
        const tally = (context as { benchTally?: Tally }).benchTally;
        if (tally) tally.attempts += 1;
        return next(args);
      },
      { step: 'finalizeRequest', name: 'benchAttemptCounter', priority: 'low' },
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Samples

interface Sample {
  ms: number;
  app: Omit<Tally, 'commands'> & { commands: string };
  rate: Omit<Tally, 'commands'> & { commands: string };
}

const snapshot = (tally: Tally) => ({ ...tally, commands: tally.commands.length });
type Snapshot = ReturnType<typeof snapshot>;

function delta(before: Snapshot, after: Tally): Sample['app'] {
  return {
    requests: after.requests - before.requests,
    attempts: after.attempts - before.attempts,
    failures: after.failures - before.failures,
    rcu: round(after.rcu - before.rcu),
    wcu: round(after.wcu - before.wcu),
    gsiWcu: round(after.gsiWcu - before.gsiWcu),
    commands: summarizeCommands(after.commands.slice(before.commands)),
  };
}

const round = (value: number) => Math.round(value * 1000) / 1000;

function summarizeCommands(commands: string[]): string {
  if (commands.length === 0) return '-';
  const counts = new Map<string, number>();
  for (const command of commands) counts.set(command, (counts.get(command) ?? 0) + 1);
  return [...counts].map(([command, count]) => (count > 1 ? `${command} x${count}` : command)).join(' + ');
}

class Series {
  readonly samples: Sample[] = [];
  constructor(
    readonly label: string,
    readonly kind: 'http' | 'raw',
  ) {}
}

let recording = false;

/** Runs one operation, timing it and attributing the DynamoDB calls made meanwhile to it. */
async function measure<T>(series: Series, run: () => Promise<T>): Promise<T> {
  const app = snapshot(tallies.app);
  const rate = snapshot(tallies.rate);
  const started = performance.now();
  const result = await run();
  const ms = performance.now() - started;
  if (recording) series.samples.push({ ms, app: delta(app, tallies.app), rate: delta(rate, tallies.rate) });
  return result;
}

/** One raw SDK call (not on the metered client): its capacity comes from its own response. */
async function measureRaw(series: Series, command: 'GetItemCommand' | 'UpdateItemCommand', send: () => Promise<{ ConsumedCapacity?: ConsumedCapacity }>) {
  const output = await measure(series, send);
  const sample = series.samples.at(-1);
  if (recording && sample) {
    sample.app = { ...sample.app, requests: 1, attempts: 1, ...capacityOf(command, output.ConsumedCapacity), commands: command.replace(/Command$/, '') };
  }
  return output;
}

// ---------------------------------------------------------------------------------------------
// HTTP

async function call(runtime: Runtime, method: string, path: string, json?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${runtime.url}${path}`, {
    method,
    ...(json === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(json) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

function expectStatus(reply: { status: number; body: unknown }, status: number, what: string): void {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${JSON.stringify(reply.body)}`);
}

// ---------------------------------------------------------------------------------------------
// Statistics and printing

/** Nearest-rank percentile. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

const fmtMs = (ms: number) => (Number.isNaN(ms) ? '-' : ms.toFixed(2));
const fmtNum = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));
const fmtRatio = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)}x` : '-');

/** A per-operation figure: the value when every sample agrees, else "mean (min-max)". */
function spread(values: number[]): string {
  if (values.length === 0) return '-';
  const min = Math.min(...values);
  const max = Math.max(...values);
  if (min === max) return fmtNum(min);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return `${mean.toFixed(2)} (${fmtNum(min)}-${fmtNum(max)})`;
}

function distinct(values: string[]): string {
  return [...new Set(values)].join(' | ');
}

function printTable(header: string[], rows: string[][], rightAligned: Set<number>): void {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (rightAligned.has(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join(' | ')
      .trimEnd();
  console.log(line(header));
  console.log(widths.map((width) => '-'.repeat(width)).join('-+-'));
  for (const row of rows) console.log(line(row));
}

// ---------------------------------------------------------------------------------------------
// The run

async function main(): Promise<void> {
  const startedAt = performance.now();
  const loadAtStart = loadavg();
  const runtime = await startRuntime({ port: 0, rateLimits: generousRateLimits, instrumentDynamo: installMeter });
  const raw = new DynamoDBClient({
    endpoint: runtime.dynamo.endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  try {
    const bootMs = performance.now() - startedAt;

    const series = {
      create: new Series('create', 'http'),
      read: new Series('metadata read', 'http'),
      claim: new Series('claim, non-final', 'http'),
      burn: new Series('claim, final (burn)', 'http'),
      burnLong: new Series(`claim, final ${MAX_VIEWS}/${MAX_VIEWS}`, 'http'),
      rawGet: new Series('raw GetItem', 'raw'),
      rawUpdate: new Series('raw UpdateItem', 'raw'),
    };
    /** WCU of each non-final claim by the view number it took (1-based). */
    const claimWcuByView = new Map<number, number[]>();

    // Fixtures: an existing secret for the raw GetItem, a counter item for the raw UpdateItem.
    const fixture = await call(runtime, 'POST', '/v1/secrets', textSecretBody({}, ENVELOPE_BYTES));
    expectStatus(fixture, 201, 'fixture create');
    const fixtureKey = { pk: { S: `SECRET#${fixture.body.id}` }, sk: { S: 'SECRET' } };
    const counterKey = { pk: { S: 'BENCH#raw-update' }, sk: { S: 'BENCH' } };
    await raw.send(new PutItemCommand({ TableName: tableName, Item: { ...counterKey, n: { N: '0' } } }));

    // Multi-view secret the non-final claims draw from; replaced (after its own final claim) when spent.
    let pool = { id: '', taken: 0 };
    const refillPool = async () => {
      if (pool.id) {
        const last = await measure(series.burnLong, () => call(runtime, 'POST', `/v1/secrets/${pool.id}/claim`));
        expectStatus(last, 200, 'final claim of the multi-view secret');
        if (last.body.views_left !== 0) throw new Error(`expected the last view, views_left=${last.body.views_left}`);
      }
      const created = await call(runtime, 'POST', '/v1/secrets', textSecretBody({ max_views: MAX_VIEWS }, ENVELOPE_BYTES));
      expectStatus(created, 201, 'multi-view create');
      pool = { id: created.body.id, taken: 0 };
    };
    await refillPool();

    const iteration = async () => {
      // create: a one-view secret, then read its metadata, then burn it with its only claim.
      const created = await measure(series.create, () =>
        call(runtime, 'POST', '/v1/secrets', textSecretBody({ max_views: 1 }, ENVELOPE_BYTES)),
      );
      expectStatus(created, 201, 'create');
      const id = created.body.id as string;

      const read = await measure(series.read, () => call(runtime, 'GET', `/v1/secrets/${id}`));
      expectStatus(read, 200, 'metadata read');

      if (pool.taken >= MAX_VIEWS - 1) await refillPool();
      const claimed = await measure(series.claim, () => call(runtime, 'POST', `/v1/secrets/${pool.id}/claim`));
      expectStatus(claimed, 200, 'non-final claim');
      pool.taken += 1;
      if (claimed.body.views_left !== MAX_VIEWS - pool.taken) {
        throw new Error(`non-final claim: expected views_left=${MAX_VIEWS - pool.taken}, got ${claimed.body.views_left}`);
      }
      if (recording) {
        const wcu = series.claim.samples.at(-1)!.app.wcu;
        claimWcuByView.set(pool.taken, [...(claimWcuByView.get(pool.taken) ?? []), wcu]);
      }

      const burned = await measure(series.burn, () => call(runtime, 'POST', `/v1/secrets/${id}/claim`));
      expectStatus(burned, 200, 'final claim');
      if (burned.body.views_left !== 0) throw new Error(`final claim: expected views_left=0, got ${burned.body.views_left}`);

      // Raw round trips, in the same loop so drift (JIT, GC, emulator warm-up) hits every row alike.
      await measureRaw(series.rawGet, 'GetItemCommand', async () => {
        const output = await raw.send(
          new GetItemCommand({ TableName: tableName, Key: fixtureKey, ConsistentRead: true, ReturnConsumedCapacity: 'INDEXES' }),
        );
        if (!output.Item) throw new Error('raw GetItem found no item');
        return output;
      });
      await measureRaw(series.rawUpdate, 'UpdateItemCommand', () =>
        raw.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: counterKey,
            UpdateExpression: 'ADD #n :one',
            ExpressionAttributeNames: { '#n': 'n' },
            ExpressionAttributeValues: { ':one': { N: '1' } },
            ReturnConsumedCapacity: 'INDEXES',
          }),
        ),
      );
    };

    const warmStarted = performance.now();
    for (let i = 0; i < WARMUP; i++) await iteration();
    const warmMs = performance.now() - warmStarted;

    recording = true;
    const runStarted = performance.now();
    for (let i = 0; i < N; i++) await iteration();
    const runMs = performance.now() - runStarted;
    recording = false;

    // ---- report
    const rawGetSorted = series.rawGet.samples.map((s) => s.ms).sort((a, b) => a - b);
    const baseP50 = percentile(rawGetSorted, 50);
    const baseP99 = percentile(rawGetSorted, 99);

    const header = [
      'operation',
      'n',
      'ddb req (app + rate)',
      'RCU',
      'WCU',
      'of which GSI',
      'rate WCU',
      'p50 ms',
      'p99 ms',
      'p50 vs raw Get',
      'p99 vs raw Get',
      'app DynamoDB calls',
    ];
    const rows = Object.values(series)
      .filter((s) => s.samples.length > 0)
      .map((s) => {
        const sorted = s.samples.map((sample) => sample.ms).sort((a, b) => a - b);
        const p50 = percentile(sorted, 50);
        const p99 = percentile(sorted, 99);
        const appReq = spread(s.samples.map((sample) => sample.app.requests));
        const rateReq = spread(s.samples.map((sample) => sample.rate.requests));
        return [
          s.label,
          String(s.samples.length),
          s.kind === 'raw' ? `${appReq} (direct)` : `${appReq} + ${rateReq}`,
          spread(s.samples.map((sample) => sample.app.rcu)),
          spread(s.samples.map((sample) => sample.app.wcu)),
          spread(s.samples.map((sample) => sample.app.gsiWcu)),
          s.kind === 'raw' ? '-' : spread(s.samples.map((sample) => sample.rate.wcu)),
          fmtMs(p50),
          fmtMs(p99),
          fmtRatio(p50 / baseP50),
          fmtRatio(p99 / baseP99),
          distinct(s.samples.map((sample) => sample.app.commands)),
        ];
      });

    console.log('');
    const load = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
    console.log(`Hushlink claim-path bench: ${N} measured iterations per operation after ${WARMUP} warm-up, sequential`);
    console.log(`${cpus().length} CPUs, load average (1/5/15 min) at start ${load(loadAtStart)}, at end ${load(loadavg())}`);
    console.log(
      `node ${process.version}, runtime up in ${(bootMs / 1000).toFixed(1)} s, warm-up ${(warmMs / 1000).toFixed(1)} s, ` +
        `measured loop ${(runMs / 1000).toFixed(1)} s; envelope ${ENVELOPE_BYTES} B; raw GetItem p50 ${fmtMs(baseP50)} ms, p99 ${fmtMs(baseP99)} ms`,
    );
    console.log('');
    printTable(header, rows, new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    console.log('');

    const views = [...claimWcuByView.keys()].sort((a, b) => a - b);
    const checkpoints = [1, 2, 10, 25, 50, 75, MAX_VIEWS - 1].filter((view) => claimWcuByView.has(view));
    if (views.length > 0) {
      console.log(
        'non-final claim WCU by view number taken (the item carries one more event per view): ' +
          checkpoints.map((view) => `view ${view}: ${spread(claimWcuByView.get(view)!)}`).join(', '),
      );
    }
    const attemptsMismatch = (['app', 'rate'] as const).filter((name) => tallies[name].attempts !== tallies[name].requests);
    const failures = tallies.app.failures + tallies.rate.failures;
    console.log(
      `DynamoDB calls counted on the runtime's client over the whole run: app ${tallies.app.requests}, rate limiter ${tallies.rate.requests}; ` +
        `failed calls ${failures}; ` +
        (attemptsMismatch.length === 0 ? 'no retries.' : `retries seen on: ${attemptsMismatch.join(', ')}.`),
    );
    console.log('');
    console.log('Legend');
    console.log('  create               POST /v1/secrets (text, max_views=1).');
    console.log('  metadata read        GET /v1/secrets/{id} on an active secret.');
    console.log(`  claim, non-final     POST /v1/secrets/{id}/claim on max_views=${MAX_VIEWS} secrets, views 1-${MAX_VIEWS - 1} (views_left stays > 0).`);
    console.log('  claim, final (burn)  POST .../claim on a max_views=1 secret: takes the last view, then ends (burns) the secret.');
    console.log(`  claim, final ${MAX_VIEWS}/${MAX_VIEWS} the last view of each max_views=${MAX_VIEWS} secret above: one per ${MAX_VIEWS - 1} non-final claims, so few samples (p99 = max).`);
    console.log('  raw GetItem/UpdateItem  one SDK call straight to the same DynamoDB Local (GetItem of a secret item with ConsistentRead,');
    console.log('                       UpdateItem ADD on a counter item), same process and loop; no HTTP, gateway or handler.');
    console.log('  ddb req (app + rate) DynamoDB calls per operation: the secret store\'s, plus the rate counter\'s conditional UpdateItem');
    console.log('                       (RATE#... item), counted on the same client but told apart by key. One per SDK send.');
    console.log('  RCU / WCU            capacity units of the secret store\'s calls as DynamoDB Local reports them (ReturnConsumedCapacity=');
    console.log('                       INDEXES), table + GSIs. "of which GSI": WCU charged to index writes (gsi2 due-by-expiry, gsi3 outbox).');
    console.log('                       "rate WCU": the rate counter\'s. "m (a-b)": mean (min-max) when samples differ.');
    console.log('  p50 / p99 ms         wall time of one request, fetch() to parsed body, against the in-process local gateway;');
    console.log('                       nearest-rank percentiles. Operations are interleaved in one loop so drift hits every row alike.');
    console.log('  vs raw Get           the headline: operation p50 (p99) / raw GetItem p50 (p99), i.e. the time of an operation in');
    console.log('                       raw table round trips on this machine.');
    console.log('  Caveat               DynamoDB Local (Java + SQLite) is not DynamoDB and shares the CPU with this process: absolute ms');
    console.log('                       and p99 depend on the machine and its load (load average above); request counts and capacity');
    console.log('                       units follow DynamoDB\'s rules and carry over.');
  } finally {
    raw.destroy();
    await runtime.stop();
  }
}

main().then(
  () => {
    process.exitCode = 0;
  },
  (error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  },
);
