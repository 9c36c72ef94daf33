import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { tableDefinition } from '../shared/store/table.ts';

export interface DataProps {
  /** Keeps table and bucket when the stack is deleted, and refuses table deletion. */
  readonly retain: boolean;
  /** The only origin allowed to PUT file parts straight to S3 with presigned URLs. */
  readonly webOrigin: string;
}

/** The single table and the files bucket: everything that holds user data. */
export class Data extends Construct {
  readonly table: dynamodb.Table;
  readonly filesBucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: DataProps) {
    super(scope, id);
    const removalPolicy = props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;

    // Built from the same description as the local DynamoDB table, so both have the same indexes.
    const stringKey = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: stringKey(tableDefinition.partitionKey),
      sortKey: stringKey(tableDefinition.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: tableDefinition.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.retain,
      removalPolicy,
    });
    for (const index of tableDefinition.indexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: stringKey(index.partitionKey),
        sortKey: stringKey(index.sortKey),
        ...(index.projection === 'KEYS_ONLY'
          ? { projectionType: dynamodb.ProjectionType.KEYS_ONLY }
          : { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] }),
      });
    }

    // File bytes only ever arrive through presigned multipart URLs from the browser, hence
    // CORS for PUT with ETag exposed (the client needs each part's ETag to complete the upload).
    this.filesBucket = new s3.Bucket(this, 'Files', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      cors: [
        {
          allowedOrigins: [props.webOrigin],
          allowedMethods: [s3.HttpMethods.PUT],
          allowedHeaders: ['*'],
          exposedHeaders: ['ETag'],
          maxAge: 3600,
        },
      ],
      lifecycleRules: [{ id: 'abort-incomplete-multipart', abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      // No autoDeleteObjects: it adds a custom-resource Lambda; a non-empty dev bucket must be
      // emptied by hand before `cdk destroy` succeeds.
      removalPolicy,
    });
  }
}
