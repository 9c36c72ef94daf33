import { describe, expect, it } from 'vitest';
import type { AdjustableClock, Clock } from '../../shared/clock.ts';
import { RateLimited } from '../../shared/domain/refusals.ts';
import type { HttpError } from '../../shared/http/errors.ts';
import { toHttpError } from '../../shared/http/refusals.ts';
import { RateLimiter, slotsPerCount, type RateCounter, type RateHit } from '../../shared/http/rateLimit.ts';
import { defaultRateLimits } from '../../shared/limits.ts';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** The table's counter, in memory; `hold()` keeps increments waiting until `release()`. */
class FakeCounter implements RateCounter {
  readonly counts = new Map<string, number>();
  readonly calls: Array<{ kind: 'add' | 'addIfBelow'; amount: number }> = [];
  private held: Array<() => void> | null = null;

  hold(): void {
    this.held = [];
  }

  release(): void {
    const waiting = this.held ?? [];
    this.held = null;
    for (const go of waiting) go();
  }

  private async gate(): Promise<void> {
    if (this.held) await new Promise<void>((go) => this.held!.push(go));
  }

  async add(hit: RateHit, amount: number): Promise<number> {
    this.calls.push({ kind: 'add', amount });
    const key = `${hit.bucket}@${hit.windowStart}`;
    const count = (this.counts.get(key) ?? 0) + amount;
    this.counts.set(key, count);
    await this.gate();
    return count;
  }

  async addIfBelow(hit: RateHit): Promise<number | null> {
    this.calls.push({ kind: 'addIfBelow', amount: 1 });
    await this.gate();
    const key = `${hit.bucket}@${hit.windowStart}`;
    const count = this.counts.get(key) ?? 0;
    if (count >= hit.limit) return null;
    this.counts.set(key, count + 1);
    return count + 1;
  }
}

function limiterWith(counter: RateCounter, limit: number, clock = windowStartClock()) {
  const limits = { ...defaultRateLimits, secret_claim: { perIp: { limit, windowSeconds: 60 } } };
  return new RateLimiter(counter, limits, clock, silent);
}

/**
 * A clock stopped at the start of a 60 s window, moved only by `advance`: real time passing
 * while a test runs (a second, on a loaded machine) must not change its retry-after.
 */
function windowStartClock(): Clock & Pick<AdjustableClock, 'advance'> {
  let now = Math.ceil(Date.now() / 60_000) * 60_000;
  return {
    now: () => now,
    advance: (seconds: number) => void (now += seconds * 1000),
  };
}

/** The refusal, as HTTP shows it (shared/http/refusals.ts). */
async function refused(promise: Promise<unknown>): Promise<HttpError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RateLimited) return toHttpError(error);
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('RateLimiter', () => {
  it('lets the work start before the count is stored, and the count settles alongside it', async () => {
    const counter = new FakeCounter();
    counter.hold();
    const limiter = limiterWith(counter, 30);
    // The decision comes back while the increment is still held at the table.
    const admission = await limiter.admitAddress('secret_claim', '203.0.113.7');
    let settled = false;
    void admission.counted.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    counter.release();
    await admission.counted;
    expect(settled).toBe(true);
  });

  it('counts every request at the default limits, and refuses the one past the limit with no call, retry-after to the window end', async () => {
    const counter = new FakeCounter();
    const clock = windowStartClock();
    const limiter = limiterWith(counter, 3, clock);
    for (let i = 0; i < 3; i++) await (await limiter.admitAddress('secret_claim', '203.0.113.7')).counted;
    expect(counter.calls).toEqual([
      { kind: 'add', amount: 1 },
      { kind: 'add', amount: 1 },
      { kind: 'add', amount: 1 },
    ]);
    clock.advance(10);
    const error = await refused(limiter.admitAddress('secret_claim', '203.0.113.7'));
    expect(error.status).toBe(429);
    expect(error.extras.headers?.['retry-after']).toBe('50');
    expect(counter.calls).toHaveLength(3);
    // Another address has its own window; the next window starts over.
    await limiter.admitAddress('secret_claim', '198.51.100.1');
    clock.advance(50);
    await limiter.admitAddress('secret_claim', '203.0.113.7');
  });

  it('counts exactly, before the work, while its own increment is in flight', async () => {
    const counter = new FakeCounter();
    const limiter = limiterWith(counter, 5);
    counter.hold();
    const first = await limiter.admitAddress('secret_claim', '203.0.113.7');
    const results = Promise.allSettled(Array.from({ length: 9 }, () => limiter.admitAddress('secret_claim', '203.0.113.7')));
    counter.release();
    await first.counted;
    const outcomes = await results;
    // 1 optimistic + 4 exact = the limit; the other five are refused.
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(4);
    expect(counter.calls.filter((call) => call.kind === 'addIfBelow')).toHaveLength(9);
    expect([...counter.counts.values()]).toEqual([5]);
  });

  it('counts raised limits in slots of 1%, with a write per slot run and no request past the limit from one instance', async () => {
    expect(slotsPerCount(30)).toBe(1);
    expect(slotsPerCount(600)).toBe(6);
    expect(slotsPerCount(1_000_000)).toBe(10_000);
    const counter = new FakeCounter();
    const limiter = limiterWith(counter, 500);
    let admitted = 0;
    for (let i = 0; i < 600; i++) {
      try {
        await (await limiter.admitAddress('secret_claim', '203.0.113.7')).counted;
        admitted += 1;
      } catch (error) {
        if (!(error instanceof RateLimited)) throw error;
      }
    }
    expect(admitted).toBe(500);
    // 100 increments of 5 slots each: one write per five requests.
    expect(counter.calls).toHaveLength(100);
    expect(counter.calls.every((call) => call.kind === 'add' && call.amount === 5)).toBe(true);
  });

  it('across instances sharing one count, admits at least the limit and at most one more per instance', async () => {
    for (const limit of [10, 300]) {
      const counter = new FakeCounter();
      const clock = windowStartClock();
      const instances = [limiterWith(counter, limit, clock), limiterWith(counter, limit, clock), limiterWith(counter, limit, clock)];
      let admitted = 0;
      // Interleaved like instances serving one request at a time each, every count arriving late.
      for (let round = 0; round < limit; round++) {
        counter.hold();
        const admissions = await Promise.allSettled(instances.map((instance) => instance.admitAddress('secret_claim', '203.0.113.7')));
        counter.release();
        for (const outcome of admissions) {
          if (outcome.status === 'fulfilled') {
            admitted += 1;
            await outcome.value.counted;
          }
        }
      }
      expect(admitted, `limit ${limit}`).toBeGreaterThanOrEqual(limit);
      expect(admitted, `limit ${limit}`).toBeLessThanOrEqual(limit + instances.length);
    }
  });

  it('a count the table refuses is logged and costs the request nothing', async () => {
    const warnings: string[] = [];
    const failing: RateCounter = { add: () => Promise.reject(new Error('throttled')), addIfBelow: () => Promise.resolve(1) };
    const limiter = new RateLimiter(failing, defaultRateLimits, windowStartClock(), {
      ...silent,
      warn: (message: string) => void warnings.push(message),
    });
    await (await limiter.admitAddress('secret_claim', '203.0.113.7')).counted;
    expect(warnings).toEqual(['rate count not stored']);
  });
});

describe('per-address windows', () => {
  it('count every IPv6 address of one /64 together, and another /64 apart', async () => {
    const limiter = limiterWith(new FakeCounter(), 3);
    for (const address of ['2001:db8:7:1::1', '2001:db8:7:1::2', '2001:db8:7:1:aaaa:bbbb:cccc:dddd']) {
      await (await limiter.admitAddress('secret_claim', address)).counted;
    }
    await expect(limiter.admitAddress('secret_claim', '2001:db8:7:1::ffff')).rejects.toBeInstanceOf(RateLimited);
    await expect(limiter.admitAddress('secret_claim', '2001:db8:7:2::1')).resolves.toBeDefined();
  });
});
