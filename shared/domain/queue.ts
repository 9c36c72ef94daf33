/** Puts one message on the work queue. SQS in AWS; the in-process queue locally. */
export interface Queue {
  send(body: string, options?: { delaySeconds?: number }): Promise<void>;
}

/** SQS refuses delays beyond 15 minutes; longer waits go through the schedule's sweep. */
export const maxQueueDelaySeconds = 900;
