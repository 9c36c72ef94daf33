import { afterEach, describe, expect, it, vi } from 'vitest';
import { CountingMetrics, PowertoolsMetrics } from '../../shared/metrics.ts';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** Every line Powertools prints during `run`, parsed (it writes EMF through console.log). */
function emitted(run: () => void): Array<Record<string, any>> {
  const lines: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((line: unknown) => void lines.push(String(line)));
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => (lines.push(String(chunk)), true));
  run();
  return lines
    .flatMap((line) => line.split('\n'))
    .filter((line) => line.trim().startsWith('{'))
    .map((line) => JSON.parse(line));
}

describe('PowertoolsMetrics', () => {
  it('writes one embedded-metric-format line per invocation in the Hushlink namespace, and a cold start once', () => {
    // As Lambda sets it for an on-demand instance: Powertools counts cold starts only then.
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
    const metrics = new PowertoolsMetrics();
    const first = emitted(() => {
      metrics.count('SecretsCreated');
      metrics.count('SecretsCreated');
      metrics.count('ClaimsRefused', 3);
      metrics.flush();
    });
    const business = first.filter((line) => 'SecretsCreated' in line);
    expect(business).toHaveLength(1);
    const [line] = business;
    expect(line!._aws.CloudWatchMetrics[0].Namespace).toBe('Hushlink');
    expect(line!._aws.CloudWatchMetrics[0].Metrics).toEqual(
      expect.arrayContaining([
        { Name: 'SecretsCreated', Unit: 'Count' },
        { Name: 'ClaimsRefused', Unit: 'Count' },
      ]),
    );
    expect(line!.SecretsCreated).toEqual([1, 1]);
    expect(line!.ClaimsRefused).toBe(3);
    expect(line!.service).toBe('hushlink');
    expect(first.filter((line) => 'ColdStart' in line)).toHaveLength(1);

    // A second invocation: no cold start, and nothing at all when nothing was counted.
    expect(emitted(() => metrics.flush())).toEqual([]);
    const second = emitted(() => {
      metrics.count('SignIns');
      metrics.flush();
    });
    expect(second).toHaveLength(1);
    expect(second[0]!.SignIns).toBe(1);
  });
});

describe('CountingMetrics', () => {
  it('adds counts to the totals only when flushed', () => {
    const metrics = new CountingMetrics();
    metrics.count('RateLimited');
    metrics.count('RateLimited', 2);
    expect(metrics.total('RateLimited')).toBe(0);
    metrics.flush();
    expect(metrics.total('RateLimited')).toBe(3);
    expect(metrics.total('ServerErrors')).toBe(0);
  });
});
