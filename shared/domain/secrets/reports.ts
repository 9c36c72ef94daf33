import type { Clock } from '../../clock.ts';
import { addressKey } from '../sources.ts';
import { newEventId, sha256Base64Url } from '../../ids.ts';
import { dayOf, type Counters } from '../counters.ts';
import type { HostClaim } from '../domains/model.ts';
import { digestOf, provesLink } from './proof.ts';
import { endSecret } from './end.ts';
import { isTerminal } from './model.ts';
import type { SecretPorts } from './ports.ts';
import { findSecretOn } from './read.ts';

/** Distinct reporters (by address) that lock a secret pending review. */
export const reportsBeforeLock = 3;

/**
 * Records an abuse report as `secret.reported`, once per reporting address (and once more if
 * that address later proves the link). Only reporters who hold the link (its link token) count
 * towards the lock: an id alone, which leaks wherever paths are logged, must not be able to
 * destroy a secret. The answer never says whether the id exists (or, on a workspace's
 * hostname, was made on it: one that was not is not there).
 */
export async function reportSecret(
  id: string,
  linkToken: string | null,
  sourceIp: string,
  hostClaim: HostClaim | null,
  ports: SecretPorts,
): Promise<void> {
  const secret = await findSecretOn(id, hostClaim, ports);
  if (!secret || isTerminal(secret.state)) return;
  const now = ports.clock.now();
  const proven = provesLink(secret, digestOf(linkToken));
  const reporter = sha256Base64Url(`reporter:${addressKey(sourceIp)}`);
  const provenReporters = await ports.secrets.recordReport(id, reporter, proven, { id: newEventId(), type: 'secret.reported', at: now });
  if (proven && provenReporters >= reportsBeforeLock) await endSecret(id, 'locked', ports);
}

/** Thumbs up or down from a reveal page: a counter per day, with nothing that names anyone. */
export async function recordRevealFeedback(rating: 'up' | 'down', ports: { counters: Counters; clock: Clock }): Promise<void> {
  await ports.counters.add('reveal_feedback', dayOf(ports.clock.now()), { [rating]: 1 });
}
