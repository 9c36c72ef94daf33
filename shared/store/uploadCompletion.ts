import { secretKey, workEntry, workQueues } from './items/index.ts';
import { pick } from './secretItem.ts';

/**
 * The writes of a large upload's completion left to the sweep (shared/domain/files/completions.ts):
 * the secret marked completing and moved from the stale uploads to the completions' work index,
 * and each try's lease or retry, conditional on the count of tries so two sweeps never hold one.
 */

/** Pending under that upload and not completing yet: completing since `now`, due at once. */
export function completingMark(id: string, uploadId: string, now: number) {
  const entry = workEntry(workQueues.completion, id, now);
  return {
    Key: secretKey(id),
    UpdateExpression: 'SET completing_since = :now, completion_attempts = :zero, #g2pk = :queue, #g2sk = :at',
    ConditionExpression: '#state = :pending AND upload_id = :upload AND attribute_not_exists(completing_since)',
    ExpressionAttributeNames: pick('#state', '#g2pk', '#g2sk'),
    ExpressionAttributeValues: {
      ':now': now,
      ':zero': 0,
      ':queue': entry.gsi2pk,
      ':at': entry.gsi2sk,
      ':pending': 'pending',
      ':upload': uploadId,
    },
  };
}

/** Still pending, completing and taken up `attempts` times: `next` tries, due again at `at`. */
export function completionTry(id: string, attempts: number, next: number, at: number) {
  const entry = workEntry(workQueues.completion, id, at);
  return {
    Key: secretKey(id),
    UpdateExpression: 'SET completion_attempts = :next, #g2sk = :at',
    ConditionExpression: '#state = :pending AND completion_attempts = :attempts AND #g2pk = :queue',
    ExpressionAttributeNames: pick('#state', '#g2pk', '#g2sk'),
    ExpressionAttributeValues: { ':next': next, ':attempts': attempts, ':pending': 'pending', ':queue': entry.gsi2pk, ':at': entry.gsi2sk },
  };
}
