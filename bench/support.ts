/**
 * What the benches share: knob parsing, the DynamoDB call meter, percentiles, formatting and
 * tables. Each bench keeps what only it measures; this file holds what two or more would
 * otherwise carry as copies, so their figures are computed and printed the same way.
 */
import { appendFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { DynamoDBClient, type ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ratePrefix } from '../shared/store/items/index.ts';

// ---------------------------------------------------------------------------------------------
// Knobs

/** A BENCH_* setting: the fallback when unset; anything but a positive integer stops the bench. */
export function positiveInt(raw: string | undefined, fallback: number): number {
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`expected a positive integer, got ${raw}`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// Metering DynamoDB calls: a middleware on the runtime's client (its `instrumentDynamo` option)
// adds each call's requests, attempts and capacity to the tally the bench picks for it.

export interface Tally {
  /** Logical SDK calls (one per `send`). */
  requests: number;
  /** HTTP attempts, retries included. */
  attempts: number;
  failures: number;
  rcu: number;
  wcu: number;
  /** Of `wcu`, the part DynamoDB charged to global secondary indexes (needs ReturnConsumedCapacity=INDEXES). */
  gsiWcu: number;
  commands: string[];
}

export const newTally = (): Tally => ({ requests: 0, attempts: 0, failures: 0, rcu: 0, wcu: 0, gsiWcu: 0, commands: [] });

/** A tally's figures over an interval, the commands summarized into one line. */
export type Usage = Omit<Tally, 'commands'> & { commands: string };
export type Snapshot = Omit<Tally, 'commands'> & { commands: number };

export const snapshot = (tally: Tally): Snapshot => ({ ...tally, commands: tally.commands.length });

export function usageSince(before: Snapshot, after: Tally, order: CommandOrder = 'as called'): Usage {
  return {
    requests: after.requests - before.requests,
    attempts: after.attempts - before.attempts,
    failures: after.failures - before.failures,
    rcu: round(after.rcu - before.rcu),
    wcu: round(after.wcu - before.wcu),
    gsiWcu: round(after.gsiWcu - before.gsiWcu),
    commands: summarizeCommands(after.commands.slice(before.commands), order),
  };
}

/** Capacity sums carry binary fractions (0.5 RCU reads); three decimals keep them readable. */
export const round = (value: number) => Math.round(value * 1000) / 1000;

/**
 * 'sorted' where calls run concurrently (a worker batch), so the line does not change with
 * which call finished first; 'as called' where they are sequential and the order tells the story.
 */
export type CommandOrder = 'as called' | 'sorted';

/** `GetItem + UpdateItem x2`: each command once, with its count. */
export function summarizeCommands(commands: string[], order: CommandOrder = 'as called'): string {
  if (commands.length === 0) return '-';
  const counts = new Map<string, number>();
  for (const command of order === 'sorted' ? [...commands].sort() : commands) counts.set(command, (counts.get(command) ?? 0) + 1);
  return [...counts].map(([command, count]) => (count > 1 ? `${command} x${count}` : command)).join(' + ');
}

const readCommands = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand', 'BatchGetItemCommand', 'TransactGetItemsCommand']);

/**
 * Capacity of one response (transactions report a list, one entry per table), split into read
 * and write units. DynamoDB Local often gives only the total, so the command says which it is.
 */
export function capacityOf(
  command: string,
  consumed: ConsumedCapacity | ConsumedCapacity[] | undefined,
): { rcu: number; wcu: number; gsiWcu: number } {
  const isRead = readCommands.has(command);
  let rcu = 0;
  let wcu = 0;
  let gsiWcu = 0;
  for (const entry of consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed]) {
    const total = entry.CapacityUnits ?? 0;
    rcu += entry.ReadCapacityUnits ?? (isRead ? total : 0);
    wcu += entry.WriteCapacityUnits ?? (isRead ? 0 : total);
    for (const index of Object.values(entry.GlobalSecondaryIndexes ?? {})) {
      gsiWcu += index.WriteCapacityUnits ?? (isRead ? 0 : (index.CapacityUnits ?? 0));
    }
  }
  return { rcu, wcu, gsiWcu };
}

/** True for the rate counter's items: it shares the runtime's client, so its calls are told apart by key. */
export function isRateCall(input: Record<string, unknown>): boolean {
  const pk = (input.Key as Record<string, unknown> | undefined)?.pk;
  const value = typeof pk === 'string' ? pk : (pk as { S?: string } | undefined)?.S;
  return typeof value === 'string' && value.startsWith(ratePrefix);
}

export interface MeterOptions {
  /** The tally a call counts in, from its input (and whatever context the bench keeps). */
  tallyOf: (input: Record<string, unknown>) => Tally;
  /** INDEXES when the bench reports GSI writes apart; TOTAL gives the same totals. */
  consumedCapacity: 'INDEXES' | 'TOTAL';
}

/** An `instrumentDynamo` hook metering every call of the runtime's client (one stack shared by all stores). */
export function meterCalls({ tallyOf, consumedCapacity }: MeterOptions): (client: DynamoDBDocumentClient) => void {
  return (client) => {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as Record<string, unknown>;
        const tally = tallyOf(input);
        // The handler context lives for the whole call, so the attempt counter below finds it.
        (context as { benchTally?: Tally }).benchTally = tally;
        const command = context.commandName ?? 'unknown';
        tally.requests += 1;
        tally.commands.push(command.replace(/Command$/, ''));
        try {
          const result = await next({ ...args, input: { ...input, ReturnConsumedCapacity: consumedCapacity } });
          const consumed = (result.output as { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] }).ConsumedCapacity;
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
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const tally = (context as { benchTally?: Tally }).benchTally;
        if (tally) tally.attempts += 1;
        return next(args);
      },
      { step: 'finalizeRequest', name: 'benchAttemptCounter', priority: 'low' },
    );
  };
}

/** A client of the bench's own on the runtime's DynamoDB Local, not metered, for raw round trips. */
export function rawDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // One attempt: a raw round trip with a retry in it would not be one round trip.
    maxAttempts: 1,
  });
}

// ---------------------------------------------------------------------------------------------
// Statistics. Two definitions on purpose: the legends of claim and webhooks say "nearest-rank"
// (a reported p99 is a time that was measured), bundles and envelope interpolate (their medians
// of an even count are the mean of the middle two).

export const sortedOf = (values: number[]) => [...values].sort((a, b) => a - b);

/** Nearest-rank percentile of sorted values; NaN when there are none. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** Quantile (0..1) with linear interpolation between the closest ranks. */
export function quantile(values: number[], q: number): number {
  const sorted = sortedOf(values);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export const median = (values: number[]) => quantile(values, 0.5);

// ---------------------------------------------------------------------------------------------
// Formatting

export const fmtMs = (ms: number) => (Number.isNaN(ms) ? '-' : ms.toFixed(2));
export const fmtNum = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(2));
/** `1.23x`; '-' when the baseline was zero or missing, rather than "Infinityx". */
export const fmtRatio = (value: number, digits: number) => (Number.isFinite(value) ? `${value.toFixed(digits)}x` : '-');
export const fmtLoad = (values: number[], separator = ' ') => values.map((value) => value.toFixed(2)).join(separator);

/** The machine line of a report: figures that move with load mean little without it. */
export const machineLine = (loadAtStart: number[]) =>
  `${cpus().length} CPUs, load average (1/5/15 min) at start ${fmtLoad(loadAtStart)}, at end ${fmtLoad(loadavg())}`;

/** A per-operation figure: the value when every sample agrees, else "mean (min-max)". */
export function spread(values: number[]): string {
  if (values.length === 0) return '-';
  const min = Math.min(...values);
  const max = Math.max(...values);
  if (min === max) return fmtNum(min);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return `${mean.toFixed(2)} (${fmtNum(min)}-${fmtNum(max)})`;
}

/** Each different value once, in order of appearance. */
export const distinct = (values: string[]) => [...new Set(values)].join(' | ');

// ---------------------------------------------------------------------------------------------
// Tables

type Columns = ReadonlySet<number> | ((column: number) => boolean);

/**
 * Columns padded to their widest cell, the `rightAligned` ones (figures) to the right. 'plain'
 * for reading in a terminal; 'markdown' (bundles' report), a pipe table that still renders when
 * pasted into Markdown.
 */
export function formatTable(header: string[], rows: string[][], rightAligned: Columns, style: 'plain' | 'markdown' = 'plain'): string {
  const isRight = typeof rightAligned === 'function' ? rightAligned : (column: number) => rightAligned.has(column);
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]!.length)));
  const cells = (row: string[]) =>
    row.map((cell, column) => (isRight(column) ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)));
  if (style === 'markdown') {
    const line = (row: string[]) => `| ${cells(row).join(' | ')} |`;
    const rule = widths.map((width, column) => (isRight(column) ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2)));
    return [line(header), `|${rule.join('|')}|`, ...rows.map(line)].join('\n');
  }
  // Trimmed: a left-aligned last column would otherwise pad every line with spaces.
  const line = (row: string[]) => cells(row).join(' | ').trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('-+-'), ...rows.map(line)].join('\n');
}

export function printTable(header: string[], rows: string[][], rightAligned: Columns): void {
  console.log(formatTable(header, rows, rightAligned));
}

// ---------------------------------------------------------------------------------------------

/** Runs a bench's main; a failure prints and sets exit code 1, letting open handles close on their own. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => {
      process.exitCode = 0;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Headlines: the figure each bench is held to, for `npm run bench`'s one summary table.

export interface Headline {
  /** What the figure is, e.g. "create p50 / raw GetItem, generous limits". */
  name: string;
  /** The figure as printed, e.g. "1.93x" or "3,570 B". */
  value: string;
  /** The target as printed, e.g. "≤ 2.00x"; '-' where no issue set one (shown for information). */
  target: string;
  /** Whether the figure meets its target; undefined when there is none. */
  met?: boolean | undefined;
  /** What explains a miss or qualifies the figure (a floor, a load caveat), kept short. */
  note?: string | undefined;
}

/**
 * Hands a bench's headlines to `bench/all.ts` (a JSON line each, appended to the file named by
 * BENCH_SUMMARY) and prints them, so a bench run on its own ends with the same verdicts.
 */
export function reportHeadlines(bench: string, headlines: Headline[]): void {
  console.log('');
  console.log(`Headlines (${bench})`);
  printTable(
    ['figure', 'value', 'target', 'verdict', 'note'],
    headlines.map((h) => [h.name, h.value, h.target, verdict(h.met), h.note ?? '']),
    new Set([1]),
  );
  const file = process.env.BENCH_SUMMARY;
  if (file) appendFileSync(file, headlines.map((h) => `${JSON.stringify({ bench, ...h })}\n`).join(''));
}

export const verdict = (met: boolean | undefined) => (met === undefined ? 'info' : met ? 'met' : 'MISSED');
