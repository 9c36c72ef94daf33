import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { filesCorsPolicy } from '../shared/http/cors.ts';
import { tableDefinition, type IndexName } from '../shared/store/table.ts';

export interface DataProps {
  /** Keeps table and buckets when the stack is deleted, and turns on the table's deletion protection. */
  readonly retain: boolean;
  /** The only origin allowed to PUT file parts straight to S3 with presigned URLs. */
  readonly webOrigin: string;
  /** Encrypts the table and the files bucket with this key; unset, AWS-owned / S3-managed keys. */
  readonly encryptionKey?: kms.IKey | undefined;
  /** Days the files bucket's server access logs are kept. */
  readonly accessLogDays: number;
}

/** The single-item DynamoDB actions a function may be given (IAM names without the prefix). */
export type ItemAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'BatchGetItem';

/**
 * What one function may do on the table. There is no action for TransactWriteItems: IAM
 * authorizes each item of a transaction as its own PutItem / UpdateItem / DeleteItem /
 * ConditionCheckItem, so a function that writes transactions needs those actions only.
 */
export interface TableAccess {
  readonly items: readonly ItemAction[];
  /** Where the function runs Query: the base table (`'table'`) and/or the named indexes. */
  readonly query: readonly ('table' | IndexName)[];
}

/** S3 object actions a function may be given on a prefix of the files bucket. */
export type ObjectAction = 'GetObject' | 'PutObject' | 'DeleteObject' | 'AbortMultipartUpload' | 'ListMultipartUploadParts';

/** The single table and the files bucket: everything that holds user data. */
export class Data extends Construct {
  readonly table: dynamodb.Table;
  readonly filesBucket: s3.Bucket;
  /** Receives the files bucket's server access logs. */
  readonly accessLogsBucket: s3.Bucket;
  readonly encryptionKey: kms.IKey | undefined;

  constructor(scope: Construct, id: string, props: DataProps) {
    super(scope, id);
    const removalPolicy = props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    this.encryptionKey = props.encryptionKey;

    // Built from the same description as the local DynamoDB table, so both have the same indexes.
    const stringKey = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: stringKey(tableDefinition.partitionKey),
      sortKey: stringKey(tableDefinition.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: tableDefinition.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      stream: dynamodb.StreamViewType[tableDefinition.stream],
      deletionProtection: props.retain,
      ...(props.encryptionKey
        ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: props.encryptionKey }
        : { encryption: dynamodb.TableEncryption.DEFAULT }),
      removalPolicy,
    });
    for (const index of tableDefinition.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: stringKey(index.partitionKey),
        sortKey: stringKey(index.sortKey),
        projectionType: dynamodb.ProjectionType.INCLUDE,
        nonKeyAttributes: [...index.projection],
      });
    }

    // Server access logs of the files bucket (who fetched or uploaded which object, when). S3
    // delivers them only to an SSE-S3 bucket, whatever key the files bucket uses. (cdk-nag's S1
    // does not ask a log destination to log itself.)
    this.accessLogsBucket = new s3.Bucket(this, 'AccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: false,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(props.accessLogDays) }],
      removalPolicy,
    });
    // File bytes only ever travel through presigned URLs from the browser: multipart parts up
    // (PUT, with ETag exposed: completing the upload needs each part's), the claim's download
    // down (GET with Range, HEAD).
    this.filesBucket = new s3.Bucket(this, 'Files', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      ...(props.encryptionKey
        ? { encryption: s3.BucketEncryption.KMS, encryptionKey: props.encryptionKey, bucketKeyEnabled: true }
        : { encryption: s3.BucketEncryption.S3_MANAGED }),
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // A deleted or burned file must be gone, not kept as a noncurrent version.
      versioned: false,
      serverAccessLogsBucket: this.accessLogsBucket,
      serverAccessLogsPrefix: 'files/',
      cors: [
        {
          allowedOrigins: [...filesCorsPolicy.allowOrigins],
          allowedMethods: filesCorsPolicy.allowMethods.map((method) => s3.HttpMethods[method]),
          allowedHeaders: [...filesCorsPolicy.allowHeaders],
          exposedHeaders: [...filesCorsPolicy.exposeHeaders],
          maxAge: filesCorsPolicy.maxAgeSeconds,
        },
      ],
      lifecycleRules: [{ id: 'abort-incomplete-multipart', abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      // No autoDeleteObjects: it adds a custom-resource Lambda; a non-empty dev bucket must be
      // emptied by hand before `cdk destroy` succeeds.
      removalPolicy,
    });
  }

  /**
   * Lets a function do exactly `access` on the table: the item actions on the table, Query on
   * the base table and/or the named indexes only, and, with a customer-managed key, the KMS
   * actions DynamoDB performs on the caller's behalf (only through DynamoDB).
   */
  grantTableAccess(grantee: iam.IGrantable, access: TableAccess): void {
    if (access.items.length === 0 && access.query.length === 0) return;
    const { tableArn } = this.table;
    if (access.items.length > 0) {
      grantee.grantPrincipal.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: access.items.map((action) => `dynamodb:${action}`), resources: [tableArn] }),
      );
    }
    if (access.query.length > 0) {
      grantee.grantPrincipal.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:Query'],
          resources: access.query.map((where) => (where === 'table' ? tableArn : `${tableArn}/index/${where}`)),
        }),
      );
    }
    const writes = access.items.some((action) => action !== 'GetItem' && action !== 'BatchGetItem' && action !== 'ConditionCheckItem');
    this.grantKeyVia(grantee, 'dynamodb', writes);
  }

  /**
   * Lets a function's event source mapping read the table's stream (the four actions AWS lists
   * for it, on this stream only), and with a customer-managed key decrypt it through DynamoDB.
   */
  grantStreamRead(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
        resources: [this.table.tableStreamArn!],
      }),
    );
    this.grantKeyVia(grantee, 'dynamodb', false);
  }

  /**
   * Lets a function do `actions` on the objects under `prefix` of the files bucket (no listing,
   * no bucket-level action).
   * The resource ends in `prefix*`, which cdk-nag reports as AwsSolutions-IAM5: acknowledge it
   * where this is called, naming the prefix.
   */
  grantFileObjects(grantee: iam.IGrantable & { role?: iam.IRole | undefined }, prefix: string, actions: readonly ObjectAction[]): void {
    if (!/^[a-z0-9-]+\/$/.test(prefix))
      throw new Error(`prefix must be one lower-case segment ending in / (got ${JSON.stringify(prefix)})`);
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: actions.map((action) => `s3:${action}`),
        resources: [this.filesBucket.arnForObjects(`${prefix}*`)],
      }),
    );
    this.grantKeyVia(grantee, 's3', actions.includes('PutObject'));
    if (grantee.role) {
      Validations.of(grantee.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.filesBucket.node.defaultChild as s3.CfnBucket)}.Arn>/${prefix}*]`,
        reason: `Objects are named by secret id under ${prefix} (one per file secret, made at run time): the grant names the prefix and these actions only, never a bucket-level action.`,
      });
    }
  }

  /** The key's use on the caller's behalf by one service; nothing when no key of ours is used. */
  private grantKeyVia(grantee: iam.IGrantable, service: 'dynamodb' | 's3', writes: boolean): void {
    if (!this.encryptionKey) return;
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['kms:Decrypt', 'kms:DescribeKey', ...(writes ? ['kms:Encrypt', 'kms:GenerateDataKey'] : [])],
        resources: [this.encryptionKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `${service}.${Stack.of(this).region}.amazonaws.com` } },
      }),
    );
  }
}
