import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { schedules, type ScheduledTask } from '../shared/schedules.ts';
import { HushlinkFunction } from './lambda.ts';

export interface JobsProps {
  readonly environment: Record<string, string>;
  readonly retainLogs: boolean;
}

/**
 * One EventBridge rule per row of `shared/schedules.ts` (the local runtime's timers read the same
 * rows), all invoking `functions/schedule.ts`, which dispatches on `detail.task`.
 */
export class Jobs extends Construct {
  readonly scheduleFunction: nodejs.NodejsFunction;
  readonly rules: Readonly<Record<ScheduledTask, events.Rule>>;

  constructor(scope: Construct, id: string, props: JobsProps) {
    super(scope, id);
    this.scheduleFunction = new HushlinkFunction(this, 'Schedule', {
      name: 'schedule',
      environment: props.environment,
      retainLogs: props.retainLogs,
    }).fn;

    const rules = {} as Record<ScheduledTask, events.Rule>;
    for (const { task, everyMinutes } of schedules) {
      const rule = new events.Rule(this, `Rule-${task}`, {
        description: `Hushlink scheduled task ${task}`,
        schedule: events.Schedule.rate(Duration.minutes(everyMinutes)),
      });
      // The ScheduledEvent shape the local runtime's timers send too, so the worker has one code
      // path; `source` is ours because `aws.events` is reserved for AWS.
      rule.addTarget(
        new targets.LambdaFunction(this.scheduleFunction, {
          event: events.RuleTargetInput.fromObject({
            version: '0',
            id: events.EventField.eventId,
            'detail-type': 'Scheduled Event',
            source: 'hushlink.schedule',
            time: events.EventField.time,
            region: events.EventField.region,
            account: events.EventField.account,
            resources: [],
            detail: { task },
          }),
        }),
      );
      rules[task] = rule;
    }
    this.rules = rules;
  }
}
