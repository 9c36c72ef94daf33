/**
 * The background tasks and how often they run. The CDK jobs construct makes one EventBridge
 * rule per row; the local runtime's scheduler runs the same rows against its clock. Each
 * invocation of `functions/schedule.ts` carries the task name in `detail.task`.
 */
export const schedules = [
  { task: 'expire-secrets', everyMinutes: 1 },
  /** Today's usage row of every user with usage (`GET /v1/usage/history`). */
  { task: 'rollup-usage', everyMinutes: 60 },
  /** Webhook retries due beyond SQS's 15-minute delay. */
  { task: 'sweep-webhooks', everyMinutes: 1 },
  /** Objects of burned files, once their last download URL has expired. */
  { task: 'purge-files', everyMinutes: 1 },
  /** File uploads never completed, a day after they began: revoked (the relay aborts them). */
  { task: 'revoke-stale-uploads', everyMinutes: 15 },
  /** Large uploads whose completion was asked for (202): S3 completes them here, with retries (issue 28). */
  { task: 'complete-uploads', everyMinutes: 1 },
  /** Custom domains' pending claims: their TXT records looked up again, for 7 days after each claim. */
  { task: 'check-domains', everyMinutes: 10 },
  /**
   * Verified custom domains served as CloudFront distribution tenants until live, and deleted
   * ones' tenants stopped (shared/domain/domains/hosting.ts): a few steps per run.
   */
  { task: 'host-domains', everyMinutes: 1 },
] as const;

export type ScheduledTask = (typeof schedules)[number]['task'];
