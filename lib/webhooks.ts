import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { SealingContext } from '../shared/domain/webhooks/ports.ts';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import { Construct } from 'constructs';
import { webhookLimits } from '../shared/limits.ts';
import { relayFilters } from '../shared/store/relayRecords.ts';
import type { Data } from './data.ts';
import { HushlinkFunction, type FunctionDefaults } from './lambda.ts';
import type { WorkQueue } from './queue.ts';

export interface WebhooksProps extends FunctionDefaults {
  readonly queue: WorkQueue;
  /** The table whose stream carries secrets' events to the relay. */
  readonly data: Data;
  /** Keeps the signing-secret key when the stack is deleted (prod). */
  readonly retain: boolean;
}

/**
 * Webhook delivery: the relay reading the table's stream (`functions/relay.ts`), the worker
 * consuming the work queue (`functions/deliveries.ts`), and the KMS key that seals endpoints'
 * signing secrets, chat bot tokens and workspaces' SSO client secrets. Only the webhooks, chat
 * and workspaces API functions may encrypt with the key and only the worker may decrypt, each
 * bound to the encryption context the code sets for the kind (`webhook_endpoint`, `chat_team`,
 * `sso_workspace`), so no other role can read any of them out of the table.
 */
export class Webhooks extends Construct {
  /** Seconds one delivery invocation may take: a batch of attempts, each up to 10 s plus DNS. */
  static readonly workerTimeoutSeconds = 30;

  readonly signingSecretsKey: kms.Key;
  readonly worker: nodejs.NodejsFunction;
  readonly relay: nodejs.NodejsFunction;

  constructor(scope: Construct, id: string, props: WebhooksProps) {
    super(scope, id);
    const { queue, data, retain, ...functionDefaults } = props;

    this.signingSecretsKey = new kms.Key(this, 'SigningSecretsKey', {
      description: "Hushlink: seals webhook endpoints' signing secrets (encryption context webhook_endpoint)",
      enableKeyRotation: true,
      removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(retain ? 30 : 7),
    });

    this.worker = new HushlinkFunction(this, 'Worker', {
      name: 'deliveries',
      ...functionDefaults,
      environment: { ...functionDefaults.environment, WEBHOOK_KEY_ID: this.signingSecretsKey.keyArn },
      timeoutSeconds: Webhooks.workerTimeoutSeconds,
    }).fn;
    // The mapping itself, not aws-lambda-event-sources' SqsEventSource: that one also calls
    // queue.grantConsumeMessages, which adds sqs:GetQueueUrl and sqs:ChangeMessageVisibility
    // and, with the customer-managed key, kms:Decrypt on it without a kms:ViaService condition.
    // WorkQueue.grantConsume is the one grant: what Lambda's poller needs, KMS only through SQS.
    queue.grantConsume(this.worker);
    this.worker.addEventSourceMapping('WorkQueue', {
      eventSourceArn: queue.queue.queueArn,
      batchSize: 10,
      maxBatchingWindow: Duration.seconds(0),
      // A record that throws is retried alone; the rest of its batch is done.
      reportBatchItemFailures: true,
      // Bounds how many receivers are hit at once, and the table's write rate.
      maxConcurrency: 10,
    });
    this.grantKey(this.worker, 'kms:Decrypt');
    // Chat notices: the worker opens a team's bot token to send its DMs, and seals a rotating one it renews.
    this.grantKey(this.worker, 'kms:Decrypt', 'chat_team');
    this.grantKey(this.worker, 'kms:Encrypt', 'chat_team');

    // The relay: owned or chat-subscribed secrets' changes and new test deliveries from the table's stream
    // (filtered before invocation, so other writes cost nothing), in order per item; a failing record is retried from where
    // it failed, then the batch's description goes to the dead letters, whose alarm fires.
    this.relay = new HushlinkFunction(this, 'Relay', { name: 'relay', ...functionDefaults }).fn;
    data.grantStreamRead(this.relay);
    queue.grantSendDeadLetters(this.relay);
    this.relay.addEventSourceMapping('TableStream', {
      eventSourceArn: data.table.tableStreamArn!,
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: webhookLimits.relayBatchSize,
      maxBatchingWindow: Duration.seconds(0),
      reportBatchItemFailures: true,
      retryAttempts: webhookLimits.relayAttempts - 1,
      // Not SqsDlq: its bind grants more than SendMessage (grantSendDeadLetters above).
      onFailure: { bind: () => ({ destination: queue.deadLetterQueue.queueArn }) },
      filters: relayFilters.map((pattern) => ({ pattern: JSON.stringify(pattern) })),
    });
  }

  /**
   * Lets `fn` use the sealing key for `action`, only with the context the code sets for the kind
   * of secret it handles (`webhook_endpoint` for signing secrets, `chat_team` for chat bot tokens,
   * `sso_workspace` for SSO client secrets).
   */
  grantKey(fn: iam.IGrantable, action: 'kms:Encrypt' | 'kms:Decrypt', context: SealingContext = 'webhook_endpoint'): void {
    fn.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: [action],
        resources: [this.signingSecretsKey.keyArn],
        conditions: {
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [context] },
          Null: { [`kms:EncryptionContext:${context}`]: 'false' },
        },
      }),
    );
  }
}
