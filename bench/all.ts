/**
 * Every bench at a quick size, one after another, and one summary table of their headlines.
 *
 *   npm run bench                      (or: npx tsx bench/all.ts)
 *   BENCH_ONLY=claim,envelope          (a subset, by name)
 *
 * Each bench runs as a child process with its quick knobs below (a knob already set in the
 * environment wins), its output written to a log in a temporary folder; it hands its headlines
 * back through `reportHeadlines` (bench/support.ts) as JSON lines in BENCH_SUMMARY. One at a time,
 * because they share two cores and every figure is a ratio to a baseline measured in the same
 * run: a bench running beside another would move its figure and its baseline unevenly.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, existsSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { formatTable, type Headline, machineLine, verdict } from './support.ts';

interface Bench {
  name: string;
  /** Quick-size knobs: figures move more than at the defaults, but every headline is there. */
  knobs: Record<string, string>;
}

const benches: Bench[] = [
  { name: 'claim', knobs: { BENCH_N: '150', BENCH_WARMUP: '50' } },
  { name: 'envelope', knobs: { BENCH_REPS: '5', BENCH_REPS_SMALL: '21', BENCH_FIXED_REPS: '50' } },
  { name: 'bundles', knobs: { BENCH_REPS: '7' } },
  { name: 'webhooks', knobs: { BENCH_N: '100', BENCH_ROUNDS: '2', BENCH_LATENCY_N: '20', BENCH_WARMUP: '200' } },
  { name: 'files', knobs: { FILES_BENCH_GIB: '0.25' } },
  { name: 'cli', knobs: { CLI_BENCH_GIB: '0.25' } },
  { name: 'tokens', knobs: { BENCH_N: '500', BENCH_ROUNDS: '3' } },
  { name: 'scim', knobs: { BENCH_USERS: '1000', BENCH_BASELINE_PAGES: '2' } },
  { name: 'i18n', knobs: {} },
];

const root = path.resolve(import.meta.dirname, '..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const unknown = only?.filter((name) => !benches.some((bench) => bench.name === name)) ?? [];
if (unknown.length) throw new Error(`BENCH_ONLY names no bench: ${unknown.join(', ')} (known: ${benches.map((b) => b.name).join(', ')})`);
const chosen = benches.filter((bench) => !only || only.includes(bench.name));

interface Outcome {
  bench: Bench;
  seconds: number;
  exitCode: number | null;
  log: string;
  headlines: Headline[];
}

function run(bench: Bench, folder: string): Promise<Outcome> {
  const log = path.join(folder, `${bench.name}.log`);
  const summary = path.join(folder, `${bench.name}.jsonl`);
  const out = openSync(log, 'w');
  const started = performance.now();
  // Knobs the caller set win, so `BENCH_N=1000 npm run bench` still means something.
  const knobs = Object.fromEntries(Object.entries(bench.knobs).filter(([key]) => process.env[key] === undefined));
  const child = spawn(tsx, [path.join('bench', `${bench.name}.ts`)], {
    cwd: root,
    env: { ...process.env, ...knobs, BENCH_SUMMARY: summary },
    stdio: ['ignore', out, out],
  });
  return new Promise((resolve) => {
    child.on('close', (exitCode) => {
      closeSync(out);
      const lines = existsSync(summary) ? readFileSync(summary, 'utf8').split('\n').filter(Boolean) : [];
      resolve({
        bench,
        seconds: (performance.now() - started) / 1000,
        exitCode,
        log,
        headlines: lines.map((line) => JSON.parse(line) as Headline),
      });
    });
  });
}

/** `claim 2, envelope 5`: node 20 has no Map.groupBy. */
function missedBy(rows: string[][]): string {
  const counts = new Map<string, number>();
  for (const [bench] of rows) counts.set(bench!, (counts.get(bench!) ?? 0) + 1);
  return [...counts].map(([bench, count]) => `${bench} ${count}`).join(', ');
}

async function main(): Promise<void> {
  const loadAtStart = loadavg();
  const folder = mkdtempSync(path.join(tmpdir(), 'hushlink-bench-'));
  console.log(`Hushlink benches at a quick size: ${chosen.map((b) => b.name).join(', ')}; logs in ${folder}`);
  const outcomes: Outcome[] = [];
  for (const bench of chosen) {
    process.stdout.write(`  ${bench.name} ... `);
    const outcome = await run(bench, folder);
    outcomes.push(outcome);
    const status = outcome.exitCode === 0 ? 'done' : `FAILED (exit ${outcome.exitCode})`;
    console.log(`${status} in ${outcome.seconds.toFixed(0)} s, ${outcome.headlines.length} headlines`);
  }

  const rows: string[][] = [];
  for (const { bench, exitCode, log, headlines } of outcomes) {
    for (const h of headlines) rows.push([bench.name, h.name, h.value, h.target, verdict(h.met), h.note ?? '']);
    if (exitCode !== 0) rows.push([bench.name, 'the bench failed', `exit ${exitCode}`, '-', 'MISSED', `see ${log}`]);
    else if (headlines.length === 0) rows.push([bench.name, 'no headline reported', '-', '-', 'MISSED', `see ${log}`]);
  }
  console.log('');
  console.log(machineLine(loadAtStart));
  console.log(formatTable(['bench', 'headline', 'value', 'target', 'verdict', 'note'], rows, new Set([2]), 'markdown'));
  const all = rows.filter((row) => row[4] !== 'info');
  const missed = all.filter((row) => row[4] === 'MISSED');
  console.log('');
  console.log(
    `${all.length - missed.length} of ${all.length} targets met${missed.length ? `; missed, by bench: ${missedBy(missed)}` : ''}.`,
  );
  console.log('Quick sizes: figures that move with load move more here than in a bench run at its defaults (bench/README.md).');
}

await main();
