import type { ScheduledEvent } from 'aws-lambda';
import { sqsQueue } from '../shared/adapters/sqs.ts';
import { lambdaEntry, type Deps } from '../shared/deps.ts';
import { expireDueSecrets } from '../shared/domain/secrets/end.ts';
import { rollUpUsage } from '../shared/domain/usage/rollup.ts';
import { queueDueRetries, relayStaleOutbox } from '../shared/domain/webhooks/relay.ts';
import type { ScheduledTask } from '../shared/schedules.ts';

/** What each scheduled task does; `shared/schedules.ts` says when. */
const tasks: Record<ScheduledTask, (deps: Deps) => Promise<number>> = {
  'expire-secrets': (deps) => expireDueSecrets(deps),
  'rollup-usage': (deps) => rollUpUsage(deps),
  // The outbox's safety net and the retries SQS cannot delay, both handed to the work queue.
  'sweep-webhooks': async (deps) => (await relayStaleOutbox(deps)) + (await queueDueRetries(deps)),
};

export type TaskEvent = ScheduledEvent<{ task: ScheduledTask }>;

export interface TaskResult {
  task: ScheduledTask;
  processed: number;
}

export const createHandler =
  (deps: Deps) =>
  async (event: TaskEvent): Promise<TaskResult> => {
    const task = event.detail?.task;
    if (!task || !Object.hasOwn(tasks, task)) throw new Error(`unknown scheduled task: ${String(task)}`);
    const processed = await tasks[task](deps);
    deps.logger.info('scheduled task done', { task, processed });
    return { task, processed };
  };

// Sends outbox notices (and, for the schedule, sweep results) to the work queue.
export const handler = lambdaEntry(createHandler, (config) => ({ queue: sqsQueue(config) }));
