import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface WorkQueueProps {
  /** Encrypts both queues with this key; unset, SQS-managed encryption. */
  readonly encryptionKey?: kms.IKey | undefined;
  /** Receives after which a message moves to the dead-letter queue. */
  readonly maxReceiveCount?: number;
  /**
   * How long a received message stays invisible; at least six times the consumer's timeout
   * (AWS's advice for Lambda consumers), so a slow batch is not delivered twice.
   */
  readonly visibilityTimeout?: Duration;
}

/**
 * The work queue (background jobs that must not run inside a request) and its dead-letter queue.
 * Producers get `grantSend` (lib/stack.ts `queueSenders`); the webhook delivery worker
 * (`functions/deliveries.ts`, lib/webhooks.ts) consumes it. Nothing else may touch either queue.
 */
export class WorkQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  private readonly encryptionKey: kms.IKey | undefined;

  constructor(scope: Construct, id: string, props: WorkQueueProps = {}) {
    super(scope, id);
    this.encryptionKey = props.encryptionKey;
    const encryption = props.encryptionKey
      ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: props.encryptionKey, dataKeyReuse: Duration.hours(1) }
      : { encryption: sqs.QueueEncryption.SQS_MANAGED };

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetters', {
      ...encryption,
      enforceSSL: true,
      // The maximum: two weeks to look at what failed before SQS drops it.
      retentionPeriod: Duration.days(14),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      ...encryption,
      enforceSSL: true,
      visibilityTimeout: props.visibilityTimeout ?? Duration.seconds(60),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: props.maxReceiveCount ?? 5 },
      removalPolicy: RemovalPolicy.DESTROY,
    });
  }

  /** Lets a producer put messages on the work queue, and nothing else. */
  grantSend(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }),
    );
    this.grantKeyVia(grantee, ['kms:GenerateDataKey', 'kms:Decrypt']);
  }

  /**
   * Lets a stream event source mapping send what it gives up on (a description of the failed
   * batch, never its records) to the dead-letter queue, where the alarm sees it.
   */
  grantSendDeadLetters(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deadLetterQueue.queueArn] }),
    );
    this.grantKeyVia(grantee, ['kms:GenerateDataKey', 'kms:Decrypt']);
  }

  /**
   * Lets the worker's event source mapping receive and delete messages of the work queue: the
   * three actions AWS lists for a Lambda execution role polling SQS. The worker's code makes no
   * SQS call of its own but SendMessage (`grantSend`), so no ChangeMessageVisibility or GetQueueUrl.
   */
  grantConsume(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
        resources: [this.queue.queueArn],
      }),
    );
    this.grantKeyVia(grantee, ['kms:Decrypt']);
  }

  private grantKeyVia(grantee: iam.IGrantable, actions: string[]): void {
    if (!this.encryptionKey) return;
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions,
        resources: [this.encryptionKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `sqs.${Stack.of(this).region}.amazonaws.com` } },
      }),
    );
  }
}
