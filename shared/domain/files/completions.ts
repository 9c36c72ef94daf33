import { fileLimits } from '../../limits.ts';
import type { AppLogger } from '../../logger.ts';
import { Refusal } from '../refusals.ts';
import { endSecret } from '../secrets/end.ts';
import type { Secret } from '../secrets/model.ts';
import { finishCompletion, type FinishPorts } from './finish.ts';
import { objectKeyOf } from './ports.ts';

/**
 * The completion sweep (`complete-uploads`, every minute): finishes the large uploads whose
 * completion was asked for (complete.ts answered 202). S3 may take minutes to complete one, so a
 * try holds it under a lease longer than the schedule function may run; a try that fails is
 * taken up again later, sooner at first, and one still failing a day after it was asked for ends
 * the upload. What a try does is what a small upload's request does (finish.ts), with the parts
 * S3 holds: their ETags were matched with the client's when the completion was asked for.
 */

export interface CompletionSweepPorts extends FinishPorts {
  logger: AppLogger;
}

/**
 * - `completed`: the secret is active;
 * - `refused`: the object or S3 refused it (a size or header that does not match, a part S3
 *   would not take): the secret is revoked, its parts or object deleted;
 * - `gave_up`: failing for a day: revoked likewise;
 * - `retry`: failed this time, taken up again later;
 * - `skipped`: another try holds it, or it is no longer pending (aborted, completed).
 */
export type CompletionTry = 'completed' | 'refused' | 'gave_up' | 'retry' | 'skipped';

/** The due completions, a few at a time; how many tries ran. */
export async function finishDueCompletions(ports: CompletionSweepPorts, batch: number = fileLimits.completionBatch): Promise<number> {
  const due = await ports.secrets.dueCompletions(ports.clock.now(), batch);
  let next = 0;
  const worker = async () => {
    while (next < due.length) await finishOneCompletion(due[next++]!, ports);
  };
  await Promise.all(Array.from({ length: Math.min(fileLimits.completionConcurrency, due.length) }, worker));
  return due.length;
}

/** One try at one completion. Never throws for the completion's own failure: that is a retry. */
export async function finishOneCompletion(secretId: string, ports: CompletionSweepPorts): Promise<CompletionTry> {
  const secret = await ports.secrets.get(secretId);
  const completion = secret?.upload?.completion;
  if (secret?.state !== 'pending' || !completion) return 'skipped';
  const now = ports.clock.now();
  const uploadId = secret.upload!.id;
  // Before a try, not only after one that failed: tries cut short by the function's timeout never reach the catch.
  if (now - completion.since >= fileLimits.completionGiveUpSeconds * 1000) {
    await endUpload(secret, ports);
    ports.logger.error('upload completion given up', { secret_id: secret.id, attempt: completion.attempts });
    return 'gave_up';
  }
  if (!(await ports.secrets.leaseCompletion(secret.id, completion.attempts, now + fileLimits.completionLeaseSeconds * 1000)))
    return 'skipped';

  const facts = { secret_id: secret.id, attempt: completion.attempts + 1 };
  try {
    await finishCompletion(secret, uploadId, await partsToComplete(secret, ports), ports);
    ports.logger.info('upload completed', facts);
    return 'completed';
  } catch (error) {
    if (error instanceof Refusal) {
      // finish.ts revoked the secret for a size or header that does not match; S3's own refusal did not.
      await endUpload(secret, ports);
      ports.logger.warn('upload completion refused', { ...facts, reason: error.facts?.reason ?? error.kind });
      return 'refused';
    }
    if (now - completion.since >= fileLimits.completionGiveUpSeconds * 1000) {
      await endUpload(secret, ports);
      ports.logger.error('upload completion given up', { ...facts, error: (error as Error).name });
      return 'gave_up';
    }
    // Taken up again sooner than the lease would: 1, 2, 4 … minutes, at most 15.
    const wait = Math.min(fileLimits.completionRetrySeconds * 2 ** completion.attempts, fileLimits.completionRetryMaxSeconds);
    await ports.secrets.retryCompletion(secret.id, completion.attempts + 1, now + wait * 1000);
    ports.logger.warn('upload completion failed; tried again later', { ...facts, error: (error as Error).name, retry_in_seconds: wait });
    return 'retry';
  }
}

/**
 * The parts S3 holds, for it to complete; null when S3 no longer knows the upload but holds its
 * object (an earlier try's completion went through after that try died), so only the checks remain.
 */
async function partsToComplete(secret: Secret, ports: FinishPorts): Promise<Array<{ partNumber: number; etag: string }> | null> {
  const key = objectKeyOf(secret.id);
  const stored = await ports.uploads.parts(key, secret.upload!.id);
  if (stored)
    return stored.filter((part) => part.partNumber <= secret.upload!.partCount).map(({ partNumber, etag }) => ({ partNumber, etag }));
  if ((await ports.uploads.size(key)) !== null) return null;
  throw new Error('S3 knows neither the upload nor its object');
}

/** Revokes the secret (if it is not ended already) and deletes whatever S3 holds of it. */
async function endUpload(secret: Secret, ports: FinishPorts): Promise<void> {
  await endSecret(secret.id, 'revoked', ports);
  await ports.uploads.abort(objectKeyOf(secret.id), secret.upload!.id);
  await ports.uploads.remove(objectKeyOf(secret.id));
}
