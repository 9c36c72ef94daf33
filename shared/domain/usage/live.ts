import { isTerminal, type SecretState } from '../secrets/model.ts';

/** A secret as far as its owner's live counters care, before or after one write. */
export interface SecretUsageImage {
  id: string;
  ownerId?: string;
  state: SecretState;
  sizeBytes: number;
}

/**
 * What one write to a secret changes in its owner's live counters: it became theirs and live
 * (created owned, or adopted) or it ended. `phase` makes applying it idempotent: each secret
 * counts once as `live` and once as `ended`, however often the stream hands the write over.
 */
export interface UsageChange {
  ownerId: string;
  secretId: string;
  phase: 'live' | 'ended';
  secrets: 1 | -1;
  bytes: number;
}

/** Keeps the owner's live counters out of the secret's own write, so no write of a secret is a transaction. */
export interface LiveUsageLedger {
  /** Applies each change once (a change already applied is skipped); `now` dates the marks kept for that. */
  apply(changes: UsageChange[], now: number): Promise<void>;
}

/**
 * The usage change a write made, from the secret before and after it (the table's stream
 * gives both). Null when the write moved no counter: a claim, a refusal, a report.
 */
export function usageChangeOf(before: SecretUsageImage | null, after: SecretUsageImage): UsageChange | null {
  if (after.ownerId === undefined) return null;
  const owned = { ownerId: after.ownerId, secretId: after.id };
  if (before?.ownerId === undefined && !isTerminal(after.state)) return { ...owned, phase: 'live', secrets: 1, bytes: after.sizeBytes };
  if (before && before.ownerId === after.ownerId && !isTerminal(before.state) && isTerminal(after.state)) {
    return { ...owned, phase: 'ended', secrets: -1, bytes: -after.sizeBytes };
  }
  return null;
}
