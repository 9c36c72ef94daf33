import { describe, expect, it } from 'vitest';
import { isTransactionConflict, retryTransactionConflicts } from '../../shared/store/client.ts';
import { transactionConflict, writeConflict } from '../support/faults.ts';

const options = { attempts: 4, baseMs: 10, capMs: 40 };

/** A `next` that fails with the given errors in turn, then answers. */
function failing(...errors: Error[]) {
  const calls: unknown[] = [];
  const next = async (args: unknown) => {
    calls.push(args);
    const error = errors.shift();
    if (error) throw error;
    return { output: 'ok' };
  };
  return { next, calls };
}

describe('retryTransactionConflicts', () => {
  it('retries a transaction cancelled for a conflict, and a single write refused for one, with waits that spread out', async () => {
    const waits: number[] = [];
    const { next, calls } = failing(transactionConflict(2), writeConflict(), transactionConflict(3, 0));
    const answer = await retryTransactionConflicts(options, async (ms) => void waits.push(ms))(next)({ input: 1 });
    expect(answer).toEqual({ output: 'ok' });
    expect(calls).toHaveLength(4);
    // Full jitter below a doubling ceiling (20, 40, then the 40 ms cap).
    expect(waits).toHaveLength(3);
    waits.forEach((ms, i) => {
      expect(ms).toBeLessThanOrEqual(Math.min(40, 10 * 2 ** (i + 1)));
    });
  });

  it('gives up after its attempts with the last conflict', async () => {
    const { next, calls } = failing(writeConflict(), writeConflict(), writeConflict(), writeConflict(), writeConflict());
    await expect(retryTransactionConflicts(options, async () => {})(next)({})).rejects.toMatchObject({
      name: 'TransactionConflictException',
    });
    expect(calls).toHaveLength(4);
  });

  it('never retries a refused condition, or anything else', async () => {
    const refused = Object.assign(new Error('cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
    });
    for (const error of [refused, Object.assign(new Error('no'), { name: 'ConditionalCheckFailedException' }), new Error('boom')]) {
      const { next, calls } = failing(error);
      await expect(retryTransactionConflicts(options, async () => {})(next)({})).rejects.toBe(error);
      expect(calls).toHaveLength(1);
    }
  });

  it('tells conflicts apart from other cancellations', () => {
    expect(isTransactionConflict(transactionConflict(3))).toBe(true);
    expect(isTransactionConflict(writeConflict())).toBe(true);
    expect(isTransactionConflict({ name: 'TransactionCanceledException', CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] })).toBe(
      false,
    );
    expect(isTransactionConflict(undefined)).toBe(false);
  });
});
