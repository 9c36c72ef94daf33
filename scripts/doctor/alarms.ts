import { ListSubscriptionsByTopicCommand, type SNSClient, type Subscription } from '@aws-sdk/client-sns';
import { ok, warn, type Check } from './report.ts';

/** SNS's placeholder ARN of an email subscription nobody has confirmed yet. */
const pending = 'PendingConfirmation';

/** Every subscription of the topic (`sns:ListSubscriptionsByTopic`, 100 a page). */
async function subscriptionsOf(sns: SNSClient, topicArn: string): Promise<Subscription[]> {
  const all: Subscription[] = [];
  let token: string | undefined;
  do {
    const page = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, NextToken: token }));
    all.push(...(page.Subscriptions ?? []));
    token = page.NextToken;
  } while (token);
  return all;
}

/**
 * The alarm topic (`AlarmTopicArn`) reaches someone: `alarmEmail`'s subscription is confirmed.
 * Alarms are the operator's safeguard, not the users' service, so what is missing is a warning.
 */
export async function checkAlarmEmail(sns: SNSClient, topicArn: string, alarmEmail: string | undefined): Promise<Check> {
  const name = 'alarm email';
  const subscriptions = await subscriptionsOf(sns, topicArn);
  const confirmed = subscriptions.filter((subscription) => subscription.SubscriptionArn?.startsWith('arn:'));
  const resubscribe = (email: string) =>
    `aws sns subscribe --topic-arn ${topicArn} --protocol email --notification-endpoint ${email} sends a new confirmation`;
  if (alarmEmail === undefined) {
    if (confirmed.length > 0)
      return ok(
        name,
        `no alarmEmail; the alarm topic has ${confirmed.length} confirmed subscription${confirmed.length === 1 ? '' : 's'} made by hand`,
      );
    return warn(
      name,
      'no alarmEmail and no confirmed subscription: nobody is told when dead letters pile up',
      'deploy with -c alarmEmail=ops@… and confirm the mail AWS sends, or subscribe to AlarmTopicArn by hand',
    );
  }
  const mine = subscriptions.filter(
    (subscription) => subscription.Protocol === 'email' && subscription.Endpoint?.toLowerCase() === alarmEmail.toLowerCase(),
  );
  if (mine.some((subscription) => subscription.SubscriptionArn?.startsWith('arn:')))
    return ok(name, `${alarmEmail} confirmed on the alarm topic`);
  if (mine.some((subscription) => subscription.SubscriptionArn === pending))
    return warn(
      name,
      `${alarmEmail} has not confirmed its subscription: alarms reach nobody until it does`,
      `open "AWS Notification - Subscription Confirmation" in ${alarmEmail}'s mail and confirm (the link lasts 3 days; after that ${resubscribe(alarmEmail)})`,
    );
  return warn(
    name,
    `${alarmEmail} is not subscribed to the alarm topic (deployed with another alarmEmail, or none?)`,
    `deploy again with -c alarmEmail=${alarmEmail}, or ${resubscribe(alarmEmail)}`,
  );
}
