import { Aws, Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { schedules, type ScheduledTask } from '../shared/schedules.ts';
import { HushlinkFunction, type FunctionDefaults } from './lambda.ts';

export type JobsProps = FunctionDefaults;

/**
 * One EventBridge Scheduler schedule per row of `shared/schedules.ts` (the local runtime's timers
 * read the same rows), all invoking `functions/schedule.ts`, which dispatches on `detail.task`.
 *
 * The schedules live in a schedule group of their own and invoke the function through one role
 * that only EventBridge Scheduler, for schedules of that group in this account, may assume, and
 * whose only permission is `lambda:InvokeFunction` on the schedule function (no versions, no
 * aliases): the function carries no resource policy for it.
 */
export class Jobs extends Construct {
  /** The schedule function's timeout, in seconds: Lambda's most. */
  static readonly timeoutSeconds = 900;
  readonly scheduleFunction: nodejs.NodejsFunction;
  readonly scheduleGroup: scheduler.ScheduleGroup;
  readonly schedulerRole: iam.Role;
  readonly schedules: Readonly<Record<ScheduledTask, scheduler.Schedule>>;

  constructor(scope: Construct, id: string, props: JobsProps) {
    super(scope, id);
    // Fifteen minutes: S3 may take minutes to complete a large upload (complete-uploads), and a try
    // holds its completion under a lease just longer than this (fileLimits.completionLeaseSeconds).
    // The other tasks bound their own work to well under a minute: DNS lookups (a 6 s bound, 50 five
    // at a time), CloudFront's API (ten steps, each a few calls). Each is a sweep that a run cut
    // short leaves to the next.
    this.scheduleFunction = new HushlinkFunction(this, 'Schedule', { name: 'schedule', timeoutSeconds: Jobs.timeoutSeconds, ...props }).fn;

    this.scheduleGroup = new scheduler.ScheduleGroup(this, 'Group');
    this.schedulerRole = new iam.Role(this, 'SchedulerRole', {
      description: 'EventBridge Scheduler invoking the Hushlink schedule function',
      // The confused-deputy guard AWS documents for Scheduler: this account, this schedule group.
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID, 'aws:SourceArn': this.scheduleGroup.scheduleGroupArn },
        },
      }),
    });
    this.schedulerRole.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.scheduleFunction.functionArn] }),
    );

    const all = {} as Record<ScheduledTask, scheduler.Schedule>;
    for (const { task, everyMinutes } of schedules) {
      all[task] = new scheduler.Schedule(this, `Schedule-${task}`, {
        description: `Hushlink scheduled task ${task}`,
        scheduleGroup: this.scheduleGroup,
        schedule: scheduler.ScheduleExpression.rate(Duration.minutes(everyMinutes)),
        timeWindow: scheduler.TimeWindow.off(),
        target: new InvokeScheduleFunction(this.scheduleFunction, this.schedulerRole, task, everyMinutes),
      });
    }
    this.schedules = all;
  }
}

/**
 * The Lambda target of a schedule, with the stack's own role. (`LambdaInvoke` of
 * aws-scheduler-targets would grant the role `lambda:InvokeFunction` on every version and alias
 * too, `<arn>:*`, which this stack does not need.)
 */
class InvokeScheduleFunction implements scheduler.IScheduleTarget {
  constructor(
    private readonly fn: nodejs.NodejsFunction,
    private readonly role: iam.IRole,
    private readonly task: ScheduledTask,
    private readonly everyMinutes: number,
  ) {}

  bind(): scheduler.ScheduleTargetConfig {
    return {
      arn: this.fn.functionArn,
      role: this.role,
      // The ScheduledEvent shape the local runtime's timers send too, so the worker has one code
      // path; `source` is ours because `aws.events` is reserved for AWS. Scheduler fills the
      // `<aws.scheduler.…>` placeholders for every invocation.
      input: scheduler.ScheduleTargetInput.fromObject({
        version: '0',
        id: scheduler.ContextAttribute.executionId,
        'detail-type': 'Scheduled Event',
        source: 'hushlink.schedule',
        time: scheduler.ContextAttribute.scheduledTime,
        region: Aws.REGION,
        account: Aws.ACCOUNT_ID,
        resources: [],
        detail: { task: this.task },
      }),
      // A run that cannot be delivered is retried until the next run is due, then dropped: the
      // tasks are sweeps that pick up whatever the missed run would have done.
      retryPolicy: {
        maximumEventAgeInSeconds: Math.min(Math.max(this.everyMinutes * 60, 60), 86_400),
        maximumRetryAttempts: 3,
      },
    };
  }
}
