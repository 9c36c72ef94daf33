import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { createHandler, type DeliveriesDeps } from '../../functions/deliveries.ts';
import { deliverMessage } from '../../shared/domain/webhooks/work.ts';
import { StoppedClock } from '../support/clock.ts';

// The work queue's consumer reports partial batch failures (Powertools' batch processor): only
// the records that threw come back to SQS, a batch failing whole is reported, never thrown, and
// a body that is not ours is dropped, not retried.

function fakeDeps(failFor: Set<string>) {
  const logged: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
  const log =
    (level: string) =>
    (message: string, fields: Record<string, unknown> = {}) =>
      void logged.push({ level, message, fields });
  let flushed = 0;
  const deps = {
    clock: new StoppedClock(Date.parse('2026-11-28T12:00:00Z')),
    logger: { info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') },
    metrics: { count: () => undefined, flush: () => void (flushed += 1) },
    webhooks: {
      getEndpoint: async () => null,
      // A delivery the store cannot claim: thrown for the ids asked, `skipped` (claimed by none) otherwise.
      claimAttempt: async (_endpointId: string, deliveryId: string) => {
        if (failFor.has(deliveryId)) throw new Error(`the table refused ${deliveryId}`);
        return null;
      },
    },
  } as unknown as DeliveriesDeps;
  return { deps, logged, flushes: () => flushed };
}

const record = (messageId: string, body: string) => ({ messageId, body }) as SQSEvent['Records'][number];
const delivery = (id: string) => JSON.stringify(deliverMessage({ id, endpointId: 'whk_1', userId: 'usr_1' }, 1));

describe('the delivery worker', () => {
  it('reports only the records that threw, and logs each failure by message id', async () => {
    const { deps, logged, flushes } = fakeDeps(new Set(['dlv_bad']));
    const answer = await createHandler(deps)({
      Records: [record('m1', delivery('dlv_ok')), record('m2', delivery('dlv_bad')), record('m3', delivery('dlv_ok2'))],
    });
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }] });
    expect(logged.filter((entry) => entry.message === 'work message failed').map((entry) => entry.fields)).toEqual([
      { message_id: 'm2', error: 'Error', error_message: 'the table refused dlv_bad' },
    ]);
    expect(flushes()).toBe(1);
  });

  it('reports a batch that fails whole instead of throwing, so SQS retries each record alone', async () => {
    const { deps } = fakeDeps(new Set(['dlv_a', 'dlv_b']));
    const answer = await createHandler(deps)({ Records: [record('m1', delivery('dlv_a')), record('m2', delivery('dlv_b'))] });
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
  });

  it('drops a body that is not one of ours without a retry', async () => {
    const { deps, logged } = fakeDeps(new Set());
    const answer = await createHandler(deps)({ Records: [record('m1', '{"kind":"nope"}'), record('m2', 'not json')] });
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(logged.filter((entry) => entry.message === 'work message dropped: not one of ours')).toHaveLength(2);
  });
});
