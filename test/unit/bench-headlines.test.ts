import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { reportHeadlines, verdict } from '../../bench/support.ts';

// `npm run bench` reads what each bench hands back; a bench run alone prints the same verdicts.
describe('bench headlines', () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'headlines-'));
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('appends one JSON line per headline to BENCH_SUMMARY, and prints a verdict for each', () => {
    const file = path.join(folder, 'claim.jsonl');
    vi.stubEnv('BENCH_SUMMARY', file);
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => printed.push(line));
    reportHeadlines('claim', [{ name: 'create p50 / raw GetItem', value: '1.93x', target: '≤ 2.00x', met: true }]);
    reportHeadlines('claim', [{ name: 'claim p50 / raw GetItem', value: '2.10x', target: '≤ 2.00x', met: false, note: 'floor 2.05x' }]);
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { bench: 'claim', name: 'create p50 / raw GetItem', value: '1.93x', target: '≤ 2.00x', met: true },
      { bench: 'claim', name: 'claim p50 / raw GetItem', value: '2.10x', target: '≤ 2.00x', met: false, note: 'floor 2.05x' },
    ]);
    expect(printed.join('\n')).toMatch(/create p50 \/ raw GetItem \| 1\.93x \| ≤ 2\.00x \| met/);
    expect(printed.join('\n')).toMatch(/claim p50 \/ raw GetItem\s+\| 2\.10x \| ≤ 2\.00x \| MISSED\s+\| floor 2\.05x/);
    rmSync(folder, { recursive: true, force: true });
  });

  it('calls a figure without a target information, and prints it so', () => {
    vi.stubEnv('BENCH_SUMMARY', '');
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => printed.push(line));
    reportHeadlines('tokens', [{ name: 'verify µs', value: '185', target: '-' }]);
    expect(printed.join('\n')).toMatch(/verify µs \| {3}185 \| - {6}\| info/);
    expect(verdict(undefined)).toBe('info');
    expect(verdict(true)).toBe('met');
    expect(verdict(false)).toBe('MISSED');
  });
});
