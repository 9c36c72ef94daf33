import { newEventId } from '../../ids.ts';
import { secretLimits } from '../../limits.ts';
import type { Secret, SecretEventType, TerminalState } from './model.ts';
import type { EndInput, SecretPorts } from './ports.ts';

const eventOf: Record<TerminalState, SecretEventType> = {
  burned: 'secret.burned',
  expired: 'secret.expired',
  revoked: 'secret.revoked',
  locked: 'secret.locked',
};

/**
 * Ends a secret: payload deleted and event recorded in one conditional write. Safe to call
 * from racing requests: only the first one that still meets the condition writes, so each
 * terminal event is emitted exactly once.
 */
export async function endSecret(id: string, state: TerminalState, ports: SecretPorts, owner?: EndInput['owner']): Promise<boolean> {
  const now = ports.clock.now();
  return ports.secrets.end(id, {
    owner,
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
    for (const { id, owner } of due) {
      if (await endSecret(id, 'expired', ports, owner)) expired += 1;
    }
    if (due.length < batch) break;
  }
  return expired;
}

/** The usage counters a secret's end must lower, when it has an owner. */
export const ownerOf = (secret: Secret): EndInput['owner'] =>
  secret.ownerId === undefined ? undefined : { userId: secret.ownerId, sizeBytes: secret.sizeBytes };
