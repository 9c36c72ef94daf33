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
 * Requests are counted by the meter of bench/support.ts on the runtime's own DynamoDB client
 * (installed through the runtime's `instrumentDynamo` option). The rate counter shares that
 * client; its calls are told apart by their key (`RATE#...`) and shown separately.
 *
 * The runtime runs with generous rate limits (a load test's setting: the limiter counts them in
 * slots of 1%, so almost no request writes a count). A second runtime on the same DynamoDB Local
 * runs with the default limits, every create and claim of it in a fresh window (its clock moved
 * a minute first), so each is counted by one increment sent alongside it: the "default limits"
 * rows show what that costs.
 *
 * Issue 33 (item 3) asks create and claim p50 at most 2.0x raw GetItem: the report ends with that
 * verdict per row (`reportHeadlines`), each row split into time in DynamoDB calls and outside them,
 * next to the fixed HTTP path (a route with no table call) and, at the default limits, the floor
 * the emulator sets by running an operation's write and its count one after the other.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { GetItemCommand, PutItemCommand, UpdateItemCommand, type ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { startRuntime, tableName, type Runtime } from '../local/runtime.ts';
import { secretLimits } from '../shared/limits.ts';
import { receiptPrefix, secretKey } from '../shared/store/items/index.ts';
import { DynamoRateCounter } from '../shared/store/rateLimits.ts';
import { createDocumentClient } from '../shared/store/client.ts';
import { DynamoSecretStore } from '../shared/store/secrets.ts';
import { newEventId, newSecretId } from '../shared/ids.ts';
import { defaultRateLimits } from '../shared/limits.ts';
import { signIn } from '../test/support/accounts.ts';
import { generousRateLimits, textSecretBody } from '../test/support/runtime.ts';
import {
  capacityOf,
  distinct,
  fmtMs,
  fmtRatio,
  isRateCall,
  machineLine,
  meterCalls,
  newTally,
  percentile,
  positiveInt,
  printTable,
  rawDynamoClient,
  reportHeadlines,
  runBench,
  snapshot,
  sortedOf,
  spread,
  usageSince,
} from './support.ts';
import { Series, targetHeadlines } from './claimTargets.ts';

const N = positiveInt(process.env.BENCH_N, 300);
const WARMUP = positiveInt(process.env.BENCH_WARMUP, 50);
/** Envelope bytes of every secret created (textSecretBody's default). */
const ENVELOPE_BYTES = positiveInt(process.env.BENCH_ENVELOPE_BYTES, 64);
/** Multi-view secrets for the non-final claims: views 1..MAX_VIEWS-1 are non-final. */
const MAX_VIEWS = secretLimits.maxViews.max;

// ---------------------------------------------------------------------------------------------
// Counting DynamoDB requests and capacity on the runtime's client

const tallies = { app: newTally(), rate: newTally(), receipts: newTally() };
/** A receipt's Put, which the stream relay sends after a claim (never the claim itself). */
const isReceiptPut = (input: Record<string, unknown>) => {
  const sk = (input.Item as { sk?: unknown } | undefined)?.sk;
  const value = typeof sk === 'string' ? sk : (sk as { S?: string } | undefined)?.S;
  return typeof value === 'string' && value.startsWith(receiptPrefix);
};
/** Every call of the runtime's client; INDEXES for the "of which GSI" column. */
const meter = meterCalls({
  tallyOf: (input) => (isRateCall(input) ? tallies.rate : isReceiptPut(input) ? tallies.receipts : tallies.app),
  consumedCapacity: 'INDEXES',
});

/**
 * Wall time with at least one call of the runtime's DynamoDB client in flight (its SDK pipeline
 * and round trip; a rate count sent alongside included): what a request spends in the table,
 * the rest being HTTP, the gateway and the handler.
 */
const inDynamo = { calls: 0, since: 0, ms: 0 };
const instrument = (client: DynamoDBDocumentClient) => {
  meter(client);
  client.middlewareStack.add(
    (next) => async (args) => {
      if (inDynamo.calls++ === 0) inDynamo.since = performance.now();
      try {
        return await next(args);
      } finally {
        if (--inDynamo.calls === 0) inDynamo.ms += performance.now() - inDynamo.since;
      }
    },
    { step: 'initialize', name: 'benchInDynamoTimer', priority: 'high' },
  );
};

// ---------------------------------------------------------------------------------------------
// Samples

let recording = false;

/** Runs one operation, timing it and attributing the DynamoDB calls made meanwhile to it. */
async function measure<T>(series: Series, run: () => Promise<T>): Promise<T> {
  const app = snapshot(tallies.app);
  const rate = snapshot(tallies.rate);
  const ddbBefore = inDynamo.ms;
  const started = performance.now();
  const result = await run();
  const ms = performance.now() - started;
  const ddbMs = inDynamo.ms - ddbBefore;
  if (recording) series.samples.push({ ms, ddbMs, app: usageSince(app, tallies.app), rate: usageSince(rate, tallies.rate) });
  return result;
}

/** One raw SDK call (not on the metered client): its capacity comes from its own response. */
async function measureRaw(
  series: Series,
  command: 'GetItemCommand' | 'UpdateItemCommand',
  send: () => Promise<{ ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }>,
  requests = 1,
) {
  const output = await measure(series, send);
  const sample = series.samples.at(-1);
  if (recording && sample) {
    const name = command.replace(/Command$/, '');
    sample.app = {
      ...sample.app,
      requests,
      attempts: requests,
      ...capacityOf(command, output.ConsumedCapacity),
      commands: requests > 1 ? `${name} x${requests}` : name,
    };
  }
  return output;
}

// ---------------------------------------------------------------------------------------------
// HTTP

async function call(
  runtime: Runtime,
  method: string,
  path: string,
  json?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const response = await fetch(`${runtime.url}${path}`, {
    method,
    headers: { ...headers, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

function expectStatus(reply: { status: number; body: unknown }, status: number, what: string): void {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status} ${JSON.stringify(reply.body)}`);
}

// ---------------------------------------------------------------------------------------------
// The run

async function main(): Promise<void> {
  const startedAt = performance.now();
  const loadAtStart = loadavg();
  const runtime = await startRuntime({ port: 0, rateLimits: generousRateLimits, instrumentDynamo: instrument });
  const atDefaults = await startRuntime({ port: 0, rateLimits: defaultRateLimits, instrumentDynamo: instrument, dynamo: runtime.dynamo });
  const raw = rawDynamoClient(runtime.dynamo.endpoint);
  const countClient = rawDynamoClient(runtime.dynamo.endpoint);
  try {
    const bootMs = performance.now() - startedAt;
    // Receipts are kept for an owner to read: the linked secrets are an account's.
    const owner = await signIn(runtime, 'bench-owner@example.com');

    const series = {
      create: new Series('create', 'http'),
      read: new Series('metadata read', 'http'),
      claim: new Series('claim, non-final', 'http'),
      burn: new Series('claim, final (burn)', 'http'),
      burnLong: new Series(`claim, final ${MAX_VIEWS}/${MAX_VIEWS}`, 'http'),
      claimLink: new Series('claim through a link', 'http'),
      createDefault: new Series('create, default limits', 'http'),
      claimDefault: new Series('claim, default limits', 'http'),
      rawGet: new Series('raw GetItem', 'raw'),
      rawUpdate: new Series('raw UpdateItem', 'raw'),
      rawUpdatePair: new Series('raw UpdateItem ∥ 2', 'raw'),
      rawUpdateCount: new Series('raw UpdateItem ∥ count', 'raw'),
      noDynamo: new Series('no DynamoDB (regions)', 'http'),
      refusedCreate: new Series('create refused (400)', 'http'),
      storeInsert: new Series("create's write alone", 'raw'),
      storeTakeView: new Series("claim's write alone", 'raw'),
    };
    /** WCU of each non-final claim by the view number it took (1-based). */
    const claimWcuByView = new Map<number, number[]>();

    // Fixtures: an existing secret for the raw GetItem, a counter item for the raw UpdateItem.
    const fixture = await call(runtime, 'POST', '/v1/secrets', textSecretBody({}, ENVELOPE_BYTES));
    expectStatus(fixture, 201, 'fixture create');
    const fixtureKey = marshall(secretKey(String(fixture.body.id)));
    const counterKey = { pk: { S: 'BENCH#raw-update' }, sk: { S: 'BENCH' } };
    const otherCounterKey = { pk: { S: 'BENCH#raw-update-2' }, sk: { S: 'BENCH' } };
    await raw.send(new PutItemCommand({ TableName: tableName, Item: { ...counterKey, n: { N: '0' } } }));
    await raw.send(new PutItemCommand({ TableName: tableName, Item: { ...otherCounterKey, n: { N: '0' } } }));
    const addOne = (Key: typeof counterKey) =>
      new UpdateItemCommand({
        TableName: tableName,
        Key,
        UpdateExpression: 'ADD #n :one',
        ExpressionAttributeNames: { '#n': 'n' },
        ExpressionAttributeValues: { ':one': { N: '1' } },
        ReturnConsumedCapacity: 'INDEXES',
      });

    // The service's rate counter on a raw client of the bench's own (not metered), its capacity kept for the row.
    let countCapacity: ConsumedCapacity | undefined;
    countClient.middlewareStack.add(
      (next) => async (args) => {
        const result = await next({ ...args, input: { ...(args.input as object), ReturnConsumedCapacity: 'INDEXES' } });
        countCapacity = (result.output as { ConsumedCapacity?: ConsumedCapacity }).ConsumedCapacity;
        return result;
      },
      { step: 'initialize', name: 'benchCountCapacity' },
    );
    const rawCounter = new DynamoRateCounter(DynamoDBDocumentClient.from(countClient), tableName);
    let windowStart = 0;

    // The operations' own writes, through the service's own store on a client of the bench's own
    // (not metered): the secret create puts, and the conditional update a non-final claim sends,
    // with no HTTP, gateway or handler around them. Their sum with the no-DynamoDB route is the
    // floor of the generous-limits rows.
    const storeClient = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
    const storeTally = newTally();
    meterCalls({ tallyOf: () => storeTally, consumedCapacity: 'INDEXES' })(storeClient);
    const store = new DynamoSecretStore(storeClient, tableName, secretLimits.tombstoneSeconds);
    const measureStore = async (on: Series, run: () => Promise<unknown>) => {
      const before = snapshot(storeTally);
      await measure(on, run);
      const sample = on.samples.at(-1);
      if (recording && sample) sample.app = usageSince(before, storeTally);
    };
    const template = await store.get(String(fixture.body.id));
    if (!template) throw new Error('the fixture secret was not found');
    const manyViews = { ...template, id: newSecretId(), maxViews: 1_000_000_000, viewsLeft: 1_000_000_000 };
    await store.insert(manyViews);
    const takeOne = async () => {
      const now = Date.now();
      const result = await store.takeView(manyViews.id, {
        now,
        proofHash: null,
        event: { id: newEventId(), type: 'secret.viewed', at: now, view: { channel: 'api' } },
      });
      if (!result.taken) throw new Error("the claim's write alone was refused");
    };

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

      // A per-recipient link's first view (of 2, the secret's 3 links): the view, the link's
      // budget and the receipt's facts go in the claim's one write; the relay puts the receipt.
      const linked = await call(
        runtime,
        'POST',
        '/v1/secrets',
        textSecretBody({ max_views: 2, recipients: [{ label: 'a' }, { label: 'b' }, { label: 'c' }] }, ENVELOPE_BYTES),
        owner.auth,
      );
      expectStatus(linked, 201, 'create with links');
      const recipientId = linked.body.recipients[1].recipient_id as string;
      const viaLink = await measure(series.claimLink, () =>
        call(runtime, 'POST', `/v1/secrets/${linked.body.id}/claim`, { recipient_id: recipientId }),
      );
      expectStatus(viaLink, 200, 'claim through a link');

      // The same at the default limits, each in a fresh window: its count goes alongside it.
      atDefaults.clock.advance(60);
      const createdAtDefaults = await measure(series.createDefault, () =>
        call(atDefaults, 'POST', '/v1/secrets', textSecretBody({ max_views: 2 }, ENVELOPE_BYTES)),
      );
      expectStatus(createdAtDefaults, 201, 'create at default limits');
      atDefaults.clock.advance(60);
      const claimedAtDefaults = await measure(series.claimDefault, () =>
        call(atDefaults, 'POST', `/v1/secrets/${createdAtDefaults.body.id}/claim`),
      );
      expectStatus(claimedAtDefaults, 200, 'non-final claim at default limits');

      // Raw round trips, in the same loop so drift (JIT, GC, emulator warm-up) hits every row alike.
      await measureRaw(series.rawGet, 'GetItemCommand', async () => {
        const output = await raw.send(
          new GetItemCommand({ TableName: tableName, Key: fixtureKey, ConsistentRead: true, ReturnConsumedCapacity: 'INDEXES' }),
        );
        if (!output.Item) throw new Error('raw GetItem found no item');
        return output;
      });
      await measureRaw(series.rawUpdate, 'UpdateItemCommand', () => raw.send(addOne(counterKey)));
      // Two writes to two items sent together, as an operation and its rate count are: in
      // DynamoDB they overlap; this row shows whether the emulator overlaps them too.
      await measureRaw(
        series.rawUpdatePair,
        'UpdateItemCommand',
        async () => {
          const outputs = await Promise.all([raw.send(addOne(counterKey)), raw.send(addOne(otherCounterKey))]);
          return { ConsumedCapacity: outputs.flatMap((output) => output.ConsumedCapacity ?? []) };
        },
        2,
      );
      // The same with the limiter's own count (a fresh window, so its item is created) as the second write.
      windowStart += 60;
      await measureRaw(
        series.rawUpdateCount,
        'UpdateItemCommand',
        async () => {
          const [output] = await Promise.all([
            raw.send(addOne(counterKey)),
            rawCounter.add({ bucket: 'bench#raw', windowStart, windowSeconds: 60, limit: 30 }, 1),
          ]);
          return { ConsumedCapacity: [output.ConsumedCapacity, countCapacity].flatMap((capacity) => capacity ?? []) };
        },
        2,
      );
      // The fixed cost of the HTTP path: client, gateway, middleware and a handler with no table call.
      expectStatus(await measure(series.noDynamo, () => call(runtime, 'GET', '/v1/regions')), 200, 'regions');
      // A create's own body sent, parsed and refused before the table (max_views 0): what any create pays outside its write.
      expectStatus(
        await measure(series.refusedCreate, () => call(runtime, 'POST', '/v1/secrets', textSecretBody({ max_views: 0 }, ENVELOPE_BYTES))),
        400,
        'refused create',
      );
      await measureStore(series.storeInsert, () => store.insert({ ...template, id: newSecretId() }));
      await measureStore(series.storeTakeView, takeOne);
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
      'in DDB p50',
      'outside p50',
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
          fmtRatio(p50 / baseP50, 1),
          fmtRatio(p99 / baseP99, 1),
          s.kind === 'raw' ? '-' : fmtMs(percentile(sortedOf(s.samples.map((sample) => sample.ddbMs)), 50)),
          s.kind === 'raw' ? '-' : fmtMs(percentile(sortedOf(s.samples.map((sample) => sample.ms - sample.ddbMs)), 50)),
          distinct(s.samples.map((sample) => sample.app.commands)),
        ];
      });

    console.log('');
    console.log(`Hushlink claim-path bench: ${N} measured iterations per operation after ${WARMUP} warm-up, sequential`);
    console.log(machineLine(loadAtStart));
    console.log(
      `node ${process.version}, runtime up in ${(bootMs / 1000).toFixed(1)} s, warm-up ${(warmMs / 1000).toFixed(1)} s, ` +
        `measured loop ${(runMs / 1000).toFixed(1)} s; envelope ${ENVELOPE_BYTES} B; raw GetItem p50 ${fmtMs(baseP50)} ms, p99 ${fmtMs(baseP99)} ms`,
    );
    console.log('');
    printTable(header, rows, new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]));
    console.log('');
    const headlines = targetHeadlines(series, baseP50);
    console.log('');

    const views = [...claimWcuByView.keys()].sort((a, b) => a - b);
    const checkpoints = [1, 2, 10, 25, 50, 75, MAX_VIEWS - 1].filter((view) => claimWcuByView.has(view));
    if (views.length > 0) {
      console.log(
        "non-final claim WCU by view number taken (the item keeps only its latest write's events, so a claim costs the same at any view): " +
          checkpoints.map((view) => `view ${view}: ${spread(claimWcuByView.get(view)!)}`).join(', '),
      );
    }
    await runtime.drainWork();
    const linkClaims = series.claimLink.samples.length + WARMUP;
    console.log(
      `receipts the stream relay put, over the whole run (warm-up too): ${tallies.receipts.requests} PutItem for ${linkClaims} claims through a link ` +
        `(${(tallies.receipts.requests / linkClaims).toFixed(2)} each), ${tallies.receipts.wcu.toFixed(1)} WCU (${(tallies.receipts.wcu / Math.max(1, tallies.receipts.requests)).toFixed(2)} each); none on the claim's path.`,
    );
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
    console.log(
      `  claim, non-final     POST /v1/secrets/{id}/claim on max_views=${MAX_VIEWS} secrets, views 1-${MAX_VIEWS - 1} (views_left stays > 0).`,
    );
    console.log('  claim, final (burn)  POST .../claim on a max_views=1 secret: takes the last view, then ends (burns) the secret.');
    console.log(
      `  claim, final ${MAX_VIEWS}/${MAX_VIEWS} the last view of each max_views=${MAX_VIEWS} secret above: one per ${MAX_VIEWS - 1} non-final claims, so few samples (p99 = max).`,
    );
    console.log(
      "  claim through a link POST .../claim with recipient_id: a link's first view (an account's secret, max_views=2, 3 links). The receipt's",
    );
    console.log("                       facts ride on the claim's one write (its event); the relay puts the receipt item afterwards.");
    console.log('  ..., default limits   the same on a second runtime (same DynamoDB Local) at the default rate limits, each in a fresh');
    console.log('                       window: its count is one unconditional ADD sent alongside the operation (a max_views=2 secret,');
    console.log('                       its first view). The rows above run at generous limits, counted in slots of 1% (no write each).');
    console.log(
      '  raw GetItem/UpdateItem  one SDK call straight to the same DynamoDB Local (GetItem of a secret item with ConsistentRead,',
    );
    console.log('                       UpdateItem ADD on a counter item), same process and loop; no HTTP, gateway or handler.');
    console.log('  raw UpdateItem ∥ 2   two such UpdateItems on two items sent at once (an operation and its rate count): DynamoDB');
    console.log('                       overlaps them; near twice one UpdateItem means the emulator runs them one after the other.');
    console.log("  raw UpdateItem ∥ count the same, the second write being the rate limiter's own count (DynamoRateCounter.add) in a");
    console.log('                       fresh window, as each default-limits request above sends: it creates its item, sets its TTL.');
    console.log('  no DynamoDB (regions) GET /v1/regions: client, gateway, middleware and a handler that calls no table (the fixed path).');
    console.log("  in DDB / outside p50 wall time with a call of the runtime's DynamoDB client in flight (SDK pipeline and round trip,");
    console.log('                       a rate count sent alongside included), and the rest: HTTP, gateway, handler. p50 of each apart.');
    console.log("  ddb req (app + rate) DynamoDB calls per operation: the secret store's, plus the rate counter's UpdateItem (RATE#...");
    console.log(
      '                       item), counted on the same client but told apart by key. One per SDK send; "m (a-b)" when they vary.',
    );
    console.log(
      "  RCU / WCU            capacity units of the secret store's calls as DynamoDB Local reports them (ReturnConsumedCapacity=",
    );
    console.log(
      '                       INDEXES), table + GSIs. "of which GSI": WCU charged to index writes (gsi1 owner listing, gsi2 due-by-expiry).',
    );
    console.log('                       "rate WCU": the rate counter\'s. "m (a-b)": mean (min-max) when samples differ.');
    console.log('  p50 / p99 ms         wall time of one request, fetch() to parsed body, against the in-process local gateway;');
    console.log('                       nearest-rank percentiles. Operations are interleaved in one loop so drift hits every row alike.');
    console.log('  vs raw Get           the headline: operation p50 (p99) / raw GetItem p50 (p99), i.e. the time of an operation in');
    console.log('                       raw table round trips on this machine.');
    console.log('  Caveat               DynamoDB Local (Java + SQLite) is not DynamoDB and shares the CPU with this process: absolute ms');
    console.log('                       and p99 depend on the machine and its load (load average above); request counts and capacity');
    console.log("                       units follow DynamoDB's rules and carry over.");
    reportHeadlines('claim', headlines);
  } finally {
    raw.destroy();
    countClient.destroy();
    await atDefaults.stop();
    await runtime.stop();
  }
}

runBench(main);
