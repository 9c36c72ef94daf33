import { newEventId } from '../../ids.ts';
import { secretLimits } from '../../limits.ts';
import type { SecretEventType, TerminalState } from './model.ts';
import type { SecretPorts } from './ports.ts';

const eventOf: Record<TerminalState, SecretEventType> = {
  burned: 'secret.burned',
  expired: 'secret.expired',
  revoked: 'secret.revoked',
  locked: 'secret.locked',
};

/**
 * Ends a secret: payload deleted and event recorded in one conditional write. Safe to call
 * from racing requests: only the first one that still meets the condition writes, so each
 * terminal event is emitted exactly once. The owner's usage follows from that write through
 * the table's stream (shared/domain/usage/live.ts), so it is one item, never a transaction.
 */
export async function endSecret(id: string, state: TerminalState, ports: SecretPorts): Promise<boolean> {
  const now = ports.clock.now();
  return ports.secrets.end(id, {
    state,
    now,
    event: { id: newEventId(), type: eventOf[state], at: now },
    tombstoneUntil: now + secretLimits.tombstoneSeconds * 1000,
  });
}

/**
 * The schedule's sweep: every active secret past its expiry becomes `expired`. Bounded per run
 * (the index is eventually consistent, so an id just ended may be listed once more); the next
 * run takes the rest.
 */
export async function expireDueSecrets(ports: SecretPorts, batch = 100, rounds = 10): Promise<number> {
  let expired = 0;
  for (let round = 0; round < rounds; round++) {
    const due = await ports.secrets.dueForExpiry(ports.clock.now(), batch);
    for (const id of due) {
      if (await endSecret(id, 'expired', ports)) expired += 1;
      // Its last view was taken and the claim's burn did not land: finish it.
      else await endSecret(id, 'burned', ports);
    }
    if (due.length < batch) break;
  }
  return expired;
}
