import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESClient } from '@aws-sdk/client-ses';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll } from 'vitest';

/**
 * A worker keeps its modules from file to file (ADR 0177), so a file that stubs an AWS client's
 * class (aws-sdk-client-mock's `mockClient(Class)`) and leaves it stubbed answers every later
 * file's runtime with nothing. The file that leaves one fails here, by name, instead.
 */
const clients = {
  CloudFrontClient,
  DynamoDBClient,
  DynamoDBDocumentClient,
  KMSClient,
  S3Client,
  SecretsManagerClient,
  SESClient,
  SQSClient,
};

afterAll(() => {
  const stubbed = Object.entries(clients)
    .filter(([, client]) => 'isSinonProxy' in (client.prototype.send as object))
    .map(([name]) => name);
  if (stubbed.length > 0) throw new Error(`this file left ${stubbed.join(', ')} stubbed: restore() its mockClient in afterAll`);
});
