import type { Clock } from '../../clock.ts';
import { addressKey } from '../../http/clientAddress.ts';
import { newEventId, sha256Base64Url } from '../../ids.ts';
import { dayOf, type Counters } from '../counters.ts';
import { endSecret } from './end.ts';
import { isTerminal } from './model.ts';
import type { SecretPorts } from './ports.ts';
import { secretIdPattern } from './rules.ts';

/** Distinct reporters (by address) that lock a secret pending review. */
export const reportsBeforeLock = 3;

/**
 * Records an abuse report as `secret.reported`, once per reporting address; enough distinct
 * reporters lock the secret. The answer never says whether the id exists.
 */
export async function reportSecret(id: string, _reason: string, sourceIp: string, ports: SecretPorts): Promise<void> {
  if (!secretIdPattern.test(id)) return;
  const secret = await ports.secrets.get(id);
  if (!secret || isTerminal(secret.state)) return;
  const now = ports.clock.now();
  const reporters = await ports.secrets.recordReport(id, sha256Base64Url(`reporter:${addressKey(sourceIp)}`), { id: newEventId(), type: 'secret.reported', at: now });
  if (reporters >= reportsBeforeLock) await endSecret(id, 'locked', ports);
}

/** Thumbs up or down from a reveal page: a counter per day, with nothing that names anyone. */
export async function recordRevealFeedback(rating: 'up' | 'down', ports: { counters: Counters; clock: Clock }): Promise<void> {
  await ports.counters.add('reveal_feedback', dayOf(ports.clock.now()), { [rating]: 1 });
}
