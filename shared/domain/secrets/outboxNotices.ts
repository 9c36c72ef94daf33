import type { AppLogger } from '../../logger.ts';
import type { SecretStore } from './ports.ts';

/**
 * A secret store that, after each write appending an event, tells the webhook relay which
 * secret to look at, so deliveries leave within a queue hop instead of at the next sweep.
 * Where the write's result shows the secret has no owner (so no endpoints), it stays quiet.
 * A notice that cannot be sent is logged and left to the schedule's outbox sweep: the event
 * itself is already stored, by the write that caused it.
 */
export function withOutboxNotices(store: SecretStore, notify: (secretId: string) => Promise<void>, logger: AppLogger): SecretStore {
  const announce = async (id: string, owned = true): Promise<void> => {
    if (!owned) return;
    try {
      await notify(id);
    } catch (error) {
      logger.warn('outbox notice not sent; the sweep will relay it', { secret_id: id, error: (error as Error).name });
    }
  };
  // Every other method reaches the wrapped store through the prototype, `this` included.
  return Object.assign(Object.create(store) as SecretStore, {
    async insert(secret) {
      await store.insert(secret);
      await announce(secret.id, secret.ownerId !== undefined);
    },
    async takeView(id, input) {
      const result = await store.takeView(id, input);
      // A refused claim appends nothing here; its denial is its own write (recordDenial).
      if (result.taken) await announce(id, result.secret.ownerId !== undefined);
      return result;
    },
    async end(id, input) {
      const ended = await store.end(id, input);
      if (ended) await announce(id, input.owner !== undefined);
      return ended;
    },
    async refuseProof(id, event) {
      const count = await store.refuseProof(id, event);
      await announce(id);
      return count;
    },
    async recordDenial(id, event, cap) {
      await store.recordDenial(id, event, cap);
      await announce(id);
    },
    async recordReport(id, reporterHash, event) {
      const reporters = await store.recordReport(id, reporterHash, event);
      if (reporters > 0) await announce(id);
      return reporters;
    },
  } satisfies Partial<SecretStore>);
}
