import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface ObservabilityProps {
  /** Subscribed by email to the alarm topic (the address must confirm the subscription). */
  readonly alarmEmail?: string | undefined;
  /** Encrypts the alarm topic; CloudWatch is allowed to use the key for publishing to it. */
  readonly encryptionKey?: kms.IKey | undefined;
}

/** The alarm topic and the alarms that publish to it. */
export class Observability extends Construct {
  readonly alarmTopic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);

    this.alarmTopic = new sns.Topic(this, 'Alarms', {
      displayName: 'Hushlink alarms',
      enforceSSL: true,
      ...(props.encryptionKey ? { masterKey: props.encryptionKey } : {}),
    });
    if (props.encryptionKey) {
      // CloudWatch publishes alarm notifications with its service principal: it needs the key.
      props.encryptionKey.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey');
    }
    // Without a key of ours the topic is not encrypted at rest: CloudWatch cannot publish to a
    // topic under the AWS-managed SNS key, and the topic carries alarm state changes only (alarm
    // name, metric, threshold), never user data.
    if (props.alarmEmail) this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
  }

  /** Alarms as soon as one message sits in a dead-letter queue: something failed five times. */
  alarmOnDeadLetters(id: string, queue: sqs.IQueue, what: string): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      alarmDescription: `Messages in the dead-letter queue of ${what}: they failed every retry and wait to be looked at (SQS drops them after 14 days).`,
      metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: cloudwatch.Stats.MAXIMUM }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      // An empty queue publishes no datapoints at times; that is the healthy state.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    this.watch(alarm);
    return alarm;
  }

  /** Sends the alarm's state changes (into ALARM and back to OK) to the alarm topic. */
  watch(alarm: cloudwatch.Alarm): void {
    const action = new actions.SnsAction(this.alarmTopic);
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    this.alarms.push(alarm);
  }
}
