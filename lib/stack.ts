import { ArnFormat, CfnOutput, Duration, RemovalPolicy, Stack, Token, Validations, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import type { Group } from '../shared/routes.ts';
import { Api } from './api.ts';
import type { HushlinkSettings } from './config.ts';
import { Data, type ObjectAction, type TableAccess } from './data.ts';
import { Jobs } from './jobs.ts';
import type { FunctionDefaults } from './lambda.ts';
import { Mail } from './mail.ts';
import { Observability } from './observability.ts';
import { WorkQueue } from './queue.ts';
import { filesBucketOrigin, WebHosting } from './web.ts';
import { Webhooks } from './webhooks.ts';

export interface HushlinkStackProps extends StackProps {
  readonly settings: HushlinkSettings;
  /** The built web client, from `prepareWebAssets()` (lib/web.ts). */
  readonly webAssetsDir: string;
}

/** Every function of the stack by its entry name: the API groups and the workers. */
export type FunctionName = Group | 'schedule' | 'deliveries' | 'relay';

/**
 * What each function may do on the table: exactly the DynamoDB calls its code can reach (from
 * `functions/<name>.ts` through the shared middleware, the domain and `shared/store/*`), nothing
 * more. A typed record, so a new group in shared/routes.ts does not compile until it is listed.
 * TransactWriteItems is authorized per item (see TableAccess); only workspaces use ConditionCheck,
 * BatchGet reads workspaces (the list, and a person's tier: secrets, files, account), and no code
 * uses BatchWrite or Scan.
 *
 * - a person's tier (receipts in secrets, file limits in files, usage and flags in account): the
 *   user's plan (GetItem), their memberships (Query gsi1) and those workspaces' plans and member
 *   items (BatchGetItem);
 * - every API function: the rate-limit window (UpdateItem), the caller's session or API key and
 *   the signing keys (GetItem), their last-use stamp and the monthly call counter (UpdateItem);
 * - secrets: create (PutItem), metadata and claim (GetItem, conditional UpdateItem),
 *   revoke/expire/lock/report (UpdateItem), feedback counters (UpdateItem), owner listing
 *   (Query gsi1), receipts (Query of the secret's partition), gate sessions (GetItem), curl
 *   mode's envelope parts (Put, Query, and Delete when the secret ends); no write of a secret is
 *   a transaction (its owner's usage follows from the stream);
 * - gate: the secret (GetItem), a link's code (Put/Get/Update/Delete), gate sessions (PutItem),
 *   the per-link mail window (UpdateItem), the address's account for the code's language (GetItem);
 * - requests: links (Put, Get, Update to close), a response counted and stored in one
 *   transaction (the link's Update and the response's Put), the owner's listing (Query gsi1),
 *   the inbox (Query of the link's partition);
 * - account: sign-in codes (Put/Get/Update/Delete), users (a transaction of two Puts, Get,
 *   Update, the saved mail language too), sessions and API keys (Put/Get/Update/Delete, Query gsi1 for the lists), signing
 *   keys (Get, Put on rotation), adoption (UpdateItem), usage (Get, Query of the
 *   user's day rows on the table), product events (PutItem), CLI counters (UpdateItem);
 * - schedule: expiry sweep (Query gsi2, UpdateItem, DeleteItem of envelope parts), usage
 *   rollup (Query gsi2 for users, Query of day rows on the table, GetItem, PutItem), the retry
 *   sweep (Query gsi2 for due retries and GetItem of each), pending custom domains' checks
 *   (Query gsi2, BatchGetItem of the claims, a transaction of Puts and an Update on verification),
 *   verified ones' hosting (Query gsi2, BatchGetItem of claims and stop orders, UpdateItem of a
 *   claim's hosting and of a stop order, DeleteItem of a stop order carried out), large
 *   uploads' completions (Query gsi2 for due ones, UpdateItem of the try's lease and of the
 *   activation, the owner's tier: GetItem and Query gsi1, a file response's transaction of Puts
 *   and Updates);
 * - webhooks: endpoints (a transaction of the count Update and a Put or Delete, Get, Query of
 *   the owner's partition), the delivery log (Query), test deliveries (PutItem);
 * - workspaces: every change is a transaction of Puts, Updates, Deletes and a ConditionCheck of
 *   the actor's role (the roster's conditions, the audit row's Put), the workspace, roster,
 *   member and invitation-token items (GetItem), the roll and the audit trail (Query of their
 *   partitions), the caller's workspaces (Query gsi1, then BatchGetItem), the caller's address
 *   (GetItem of the user); custom domains (claims in the workspace's partition, their pointers,
 *   the hostnames' verified claims and a deleted claim's stop order: transactions, GetItem, Query
 *   of the partition); an owner naming the SCIM admin Group reads the Group, its Users and
 *   members (GetItem) and moves their roles (transactions with ConditionChecks, issue 30);
 * - every API function: the hostname a request arrived on (GetItem of its verified claim);
 * - billing: the account's customer and the target's subscription (GetItem; UpdateItem to keep a
 *   new customer), a workspace's owner and roster for a Team checkout (GetItem), the caller's
 *   tier and usage (GetItem, Query gsi1, BatchGetItem), a Team's seats (UpdateItem of the roster,
 *   then the provider's answer applied as an event is: PutItem of the marker and the copy), an
 *   enquiry's acknowledgement (the enquirer's account, GetItem; its per-address window, UpdateItem);
 * - billingWebhook: an event applied once (PutItem of its marker, conditional), the subscription's
 *   copy (PutItem), the plan it gives (UpdateItem of the user, or of the workspace and its roster),
 *   the target's link (GetItem; ConditionCheckItem in the transaction); the buyer's notices go on
 *   the work queue, mailed by the delivery worker;
 * - scim: the directory key's workspace (GetItem of the key's lookup and of the workspace), its
 *   Users (GetItem of a User and of its userName's and externalId's pointers, Query of the
 *   partition), the account a new address is (a transaction of Puts), every change of a User a
 *   transaction of Puts, Updates and Deletes with a ConditionCheck of a membership it links; its
 *   Groups (issue 30: GetItem, Query of the partition, PutItem of where a page ended) and every
 *   change of one a transaction of Puts, Updates and Deletes with ConditionChecks of the policy's
 *   admin Group and of members' roles, the roles it moves Updates of member items;
 * - chat: installations and used install states (GetItem, PutItem), a secret's delete token hash
 *   and its subscription (GetItem, UpdateItem), and what every API function reads (sessions, keys,
 *   rate counters, the call counter, signing keys: GetItem, UpdateItem, Query of the table);
 * - openapi: nothing (its one route is public and reads no table);
 * - relay: the owner's endpoints (Query of their partition), deliveries (PutItem, GetItem when
 *   one exists already), the owners' live usage (a transaction of Puts of marks and the counter's
 *   Update), receipts (PutItem); it reads secrets from the stream, never from the table;
 * - deliveries: attempts (GetItem of endpoint and delivery, UpdateItem), the owner's address
 *   when an endpoint is switched off (GetItem); chat notices: the team's installation (GetItem,
 *   UpdateItem to mark it removed when Slack refused its token, and to lease, save or give back a
 *   rotating token's renewal) and each event's mark (UpdateItem to claim, give back and mark sent). No DeleteItem: it reads outside answers (receivers',
 *   Slack's) and needs to remove nothing.
 */
export const tableAccess: Readonly<Record<FunctionName, TableAccess>> = {
  secrets: { items: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchGetItem'], query: ['table', 'gsi1'] },
  gate: { items: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], query: [] },
  files: { items: ['GetItem', 'PutItem', 'UpdateItem', 'BatchGetItem'], query: ['gsi1'] },
  requests: { items: ['GetItem', 'PutItem', 'UpdateItem'], query: ['table', 'gsi1'] },
  account: { items: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchGetItem'], query: ['table', 'gsi1'] },
  schedule: { items: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchGetItem'], query: ['table', 'gsi1', 'gsi2'] },
  webhooks: { items: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], query: ['table'] },
  workspaces: { items: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem', 'BatchGetItem'], query: ['table', 'gsi1'] },
  billing: { items: ['GetItem', 'PutItem', 'UpdateItem', 'BatchGetItem'], query: ['gsi1'] },
  // ConditionCheckItem: a subscription kept but not followed checks the target's link is unchanged (one live subscription).
  billingWebhook: { items: ['GetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'], query: [] },
  scim: { items: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'], query: ['table', 'gsi1'] },
  chat: { items: ['GetItem', 'PutItem', 'UpdateItem'], query: ['table'] },
  openapi: { items: [], query: [] },
  relay: { items: ['GetItem', 'PutItem', 'UpdateItem'], query: ['table'] },
  deliveries: { items: ['GetItem', 'UpdateItem'], query: [] },
};

/**
 * What each function may do to the files bucket's objects (`files/*`; signing a presigned URL
 * needs the action the URL performs):
 * - files: begin, list and complete a multipart upload and sign its parts (PutObject,
 *   ListMultipartUploadParts), abort it (AbortMultipartUpload), measure the result (GetObject:
 *   HeadObject), delete what must not stay (DeleteObject);
 * - secrets: sign a claim's download (GetObject);
 * - requests: sign the inbox's downloads of file responses (GetObject);
 * - relay: an ended file's object deleted, its unfinished upload aborted;
 * - schedule: burned files' objects deleted when their last download URL has expired; large
 *   uploads completed (PutObject, ListMultipartUploadParts), measured and read (GetObject), and
 *   those refused aborted (AbortMultipartUpload) or deleted.
 */
export const fileAccess: Readonly<Record<FunctionName, readonly ObjectAction[]>> = {
  secrets: ['GetObject'],
  gate: [],
  requests: ['GetObject'],
  files: ['PutObject', 'ListMultipartUploadParts', 'AbortMultipartUpload', 'GetObject', 'DeleteObject'],
  account: [],
  webhooks: [],
  workspaces: [],
  billing: [],
  billingWebhook: [],
  scim: [],
  chat: [],
  openapi: [],
  schedule: ['DeleteObject', 'PutObject', 'ListMultipartUploadParts', 'AbortMultipartUpload', 'GetObject'],
  relay: ['DeleteObject', 'AbortMultipartUpload'],
  deliveries: [],
};

/** Functions that send mail through SES (sign-in codes; gate codes; an endpoint switched off and buyers' notices; invitations and notices of workspaces; Enterprise enquiries). */
export const mailSenders: readonly FunctionName[] = ['account', 'gate', 'deliveries', 'workspaces', 'billing'];

/** Functions that call the payment provider, and so read its secrets (Secrets Manager). */
export const paymentProviderCallers: readonly FunctionName[] = ['billing', 'billingWebhook'];

/** Functions that read the chat app's client and signing secrets (Secrets Manager): its routes, and the worker renewing rotating bot tokens. */
export const chatAppCallers: readonly FunctionName[] = ['chat', 'deliveries'];

/**
 * Functions that put messages on the work queue: the relay (first attempts, test deliveries'
 * too), the worker's own retries, the schedule's retry sweep, and the payment webhook (buyers' notices).
 */
export const queueSenders: readonly FunctionName[] = ['relay', 'deliveries', 'schedule', 'billingWebhook'];

/**
 * The one function that serves verified custom hostnames (issue 17): it makes, attaches a
 * certificate to, disables and deletes distribution tenants. Not the API function that verifies a
 * claim: CloudFront and ACM permissions stay off the function that parses untrusted input, and
 * the schedule's next run, within a minute, is small next to a certificate's issuance.
 */
export const hostnameServers: readonly FunctionName[] = ['schedule'];

export class HushlinkStack extends Stack {
  readonly settings: HushlinkSettings;
  /** The customer-managed key (customerManagedKey=true), else undefined. */
  readonly encryptionKey: kms.Key | undefined;
  readonly data: Data;
  readonly mail: Mail;
  readonly queue: WorkQueue;
  readonly observability: Observability;
  /** `api.httpApi` and `api.stage` are what web hosting puts behind CloudFront (`/v1/*`). */
  readonly api: Api;
  readonly jobs: Jobs;
  /** The relay, the delivery worker and the key sealing signing secrets. */
  readonly webhooks: Webhooks;
  /** The web client behind CloudFront, with the API on the same origin. */
  readonly web: WebHosting;
  /** The value CloudFront adds to API requests (`originVerifyHeader`), generated at deploy. */
  readonly originVerify: secretsmanager.Secret;
  /**
   * The payment provider's secret API key and webhook signing secret, as JSON `{secret_key,
   * webhook_secret}`: made empty-valued at deploy and set by the operator (docs/deploy.md,
   * "Payments (Stripe)"), so neither is ever in a template; the billing functions read it at cold
   * start.
   */
  readonly paymentSecrets: secretsmanager.Secret;
  /** The chat app's client secret and signing secret (Slack), JSON {client_secret, signing_secret}. */
  readonly chatSecrets: secretsmanager.Secret;
  /** Every function by entry name. */
  readonly functions: Readonly<Record<FunctionName, nodejs.NodejsFunction>>;

  constructor(scope: Construct, id: string, props: HushlinkStackProps) {
    super(scope, id, props);
    const { settings } = props;
    this.settings = settings;
    const retain = settings.stage === 'prod';
    // shared/config.ts refuses a REGIONS list without REGION at cold start; when the region is
    // known at synth time (pinned, or the CLI's), refuse it here instead.
    if (settings.regions && !Token.isUnresolved(this.region) && !settings.regions.some((entry) => entry.id === this.region)) {
      throw new Error(`context regions must include this stack's region ${this.region}`);
    }

    this.encryptionKey = settings.customerManagedKey
      ? new kms.Key(this, 'Key', {
          description: `Hushlink ${settings.stage}: table, files bucket, queues, alarm topic`,
          enableKeyRotation: true,
          // Data encrypted with it outlives the stack on prod, so must the key; elsewhere a
          // deleted key waits the minimum pending window.
          removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
          pendingWindow: Duration.days(retain ? 30 : 7),
        })
      : undefined;

    this.data = new Data(this, 'Data', {
      retain,
      webOrigin: settings.webOrigin,
      encryptionKey: this.encryptionKey,
      accessLogDays: settings.logRetentionDays,
    });
    this.mail = new Mail(this, 'Mail', { sesIdentity: settings.sesIdentity, mailFrom: settings.mailFrom });
    this.observability = new Observability(this, 'Observability', {
      alarmEmail: settings.alarmEmail,
      encryptionKey: this.encryptionKey,
    });
    this.queue = new WorkQueue(this, 'Work', {
      encryptionKey: this.encryptionKey,
      // Six times the worker's timeout (AWS's advice), so a slow batch is not received twice.
      visibilityTimeout: Duration.seconds(6 * Webhooks.workerTimeoutSeconds),
    });
    this.observability.alarmOnDeadLetters('WorkDeadLetters', this.queue.deadLetterQueue, 'the work queue');

    // CloudFront sends this to the API and the functions compare it (shared/http/clientAddress.ts).
    // Generated by Secrets Manager at deploy, so it is in no template or repository; CloudFormation
    // resolves the dynamic reference into the distribution's origin header and the functions'
    // environment. Its only power is choosing the address a request's per-IP windows count.
    this.originVerify = new secretsmanager.Secret(this, 'OriginVerify', {
      description: `Hushlink ${settings.stage}: header value CloudFront sends to the API to prove a request came through it`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      ...(this.encryptionKey ? { encryptionKey: this.encryptionKey } : {}),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(this.originVerify).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Not a credential to any resource: a shared value proving to the API that a request came through CloudFront, used only to trust ' +
        'the viewer-address header for per-IP rate limits. Rotating it is replacing the secret (a deploy), which also updates both readers.',
    });
    const originVerifyValue = this.originVerify.secretValue.unsafeUnwrap();

    this.paymentSecrets = new secretsmanager.Secret(this, 'PaymentProviderSecrets', {
      description: `Hushlink ${settings.stage}: Stripe secret key and webhook signing secret, JSON {secret_key, webhook_secret}; set after deploy`,
      ...(this.encryptionKey ? { encryptionKey: this.encryptionKey } : {}),
      removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    Validations.of(this.paymentSecrets).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "Stripe API keys are rotated in Stripe's dashboard, then put here (docs/operations.md, Keys and secrets); Secrets Manager cannot rotate them itself.",
    });
    this.chatSecrets = new secretsmanager.Secret(this, 'ChatAppSecrets', {
      description: `Hushlink ${settings.stage}: the Slack app's client secret and signing secret, JSON {client_secret, signing_secret}; set after deploy`,
      ...(this.encryptionKey ? { encryptionKey: this.encryptionKey } : {}),
      removalPolicy: retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    Validations.of(this.chatSecrets).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        "Slack app secrets are regenerated in Slack's app settings, then put here (docs/operations.md, Keys and secrets); Secrets Manager cannot rotate them itself.",
    });

    // The names shared/config.ts validates at cold start; every function gets the same set.
    const environment: Record<string, string> = {
      HUSHLINK_MODE: 'aws',
      TABLE_NAME: this.data.table.tableName,
      WEB_ORIGIN: settings.webOrigin,
      REGION: this.region,
      LOG_LEVEL: settings.logLevel,
      MAIL_FROM: settings.mailFrom,
      QUEUE_URL: this.queue.queue.queueUrl,
      FILES_BUCKET: this.data.filesBucket.bucketName,
      ...(settings.regions ? { REGIONS: JSON.stringify(settings.regions) } : {}),
      ...(settings.rateLimits ? { HUSHLINK_RATE_LIMITS: JSON.stringify(settings.rateLimits) } : {}),
      PRICE_PRO: settings.prices.pro,
      PRICE_TEAM_SEAT: settings.prices.teamSeat,
      SALES_EMAIL: settings.salesEmail,
      // Powertools (the logger now; metrics and tracer read the same names when added).
      POWERTOOLS_SERVICE_NAME: 'hushlink',
      POWERTOOLS_METRICS_NAMESPACE: 'Hushlink',
      POWERTOOLS_LOG_LEVEL: settings.logLevel,
    };
    const functionDefaults: FunctionDefaults = {
      environment,
      logRetentionDays: settings.logRetentionDays,
      retainLogs: retain,
      xray: settings.xray,
    };

    this.webhooks = new Webhooks(this, 'Webhooks', { ...functionDefaults, queue: this.queue, data: this.data, retain });
    this.api = new Api(this, 'Api', {
      webOrigin: settings.webOrigin,
      ...functionDefaults,
      environment: { ...environment, ORIGIN_VERIFY: originVerifyValue },
      groupEnvironment: {
        webhooks: { WEBHOOK_KEY_ID: this.webhooks.signingSecretsKey.keyArn },
        // Seals a workspace's SSO client secret (context sso_workspace) when its settings are saved.
        workspaces: { WEBHOOK_KEY_ID: this.webhooks.signingSecretsKey.keyArn },
        // Opens a workspace's SSO client secret (context sso_workspace) to sign someone in through its provider.
        account: { WEBHOOK_KEY_ID: this.webhooks.signingSecretsKey.keyArn },
        billing: { STRIPE_SECRETS_ARN: this.paymentSecrets.secretArn },
        billingWebhook: { STRIPE_SECRETS_ARN: this.paymentSecrets.secretArn },
        chat: {
          WEBHOOK_KEY_ID: this.webhooks.signingSecretsKey.keyArn,
          SLACK_SECRETS_ARN: this.chatSecrets.secretArn,
          ...(settings.slackClientId ? { SLACK_CLIENT_ID: settings.slackClientId } : {}),
        },
      },
    });
    this.jobs = new Jobs(this, 'Jobs', functionDefaults);
    this.functions = {
      ...this.api.functions,
      schedule: this.jobs.scheduleFunction,
      deliveries: this.webhooks.worker,
      relay: this.webhooks.relay,
    };
    this.webhooks.grantKey(this.functions.webhooks, 'kms:Encrypt');
    this.webhooks.grantKey(this.functions.chat, 'kms:Encrypt', 'chat_team');
    this.webhooks.grantKey(this.functions.workspaces, 'kms:Encrypt', 'sso_workspace');
    this.webhooks.grantKey(this.functions.account, 'kms:Decrypt', 'sso_workspace');
    // The worker renews rotating bot tokens, which takes the app's client credentials.
    this.functions.deliveries.addEnvironment('SLACK_SECRETS_ARN', this.chatSecrets.secretArn);
    if (settings.slackClientId) this.functions.deliveries.addEnvironment('SLACK_CLIENT_ID', settings.slackClientId);

    for (const [name, fn] of Object.entries(this.functions) as [FunctionName, nodejs.NodejsFunction][]) {
      this.data.grantTableAccess(fn, tableAccess[name]);
    }
    for (const [name, actions] of Object.entries(fileAccess) as [FunctionName, readonly ObjectAction[]][]) {
      if (actions.length > 0) this.data.grantFileObjects(this.functions[name], 'files/', actions);
    }
    for (const name of mailSenders) this.mail.grantSendEmail(this.functions[name]);
    for (const name of paymentProviderCallers) this.paymentSecrets.grantRead(this.functions[name]);
    for (const name of chatAppCallers) this.chatSecrets.grantRead(this.functions[name]);
    for (const name of queueSenders) this.queue.grantSend(this.functions[name]);
    // A dedicated route function (ApiProps.dedicated, none yet) starts with its log group only:
    // list it in FunctionName / tableAccess when it is added.

    this.web = new WebHosting(this, 'Web', {
      api: this.api.httpApi,
      webOrigin: settings.webOrigin,
      filesOrigin: filesBucketOrigin(this.data.filesBucket),
      assetsDir: props.webAssetsDir,
      certificateArn: settings.webCertificateArn,
      webAclId: settings.webAclId,
      retain,
      accessLogsBucket: this.data.accessLogsBucket,
      originVerifyValue,
    });

    this.grantHostnameServing();

    new CfnOutput(this, 'ApiUrl', { value: this.api.stage.url });
    new CfnOutput(this, 'TableName', { value: this.data.table.tableName });
    new CfnOutput(this, 'FilesBucketName', { value: this.data.filesBucket.bucketName });
    new CfnOutput(this, 'WorkQueueUrl', { value: this.queue.queue.queueUrl });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.observability.alarmTopic.topicArn });
    new CfnOutput(this, 'PaymentProviderSecretsArn', { value: this.paymentSecrets.secretArn });
    new CfnOutput(this, 'ChatAppSecretsArn', { value: this.chatSecrets.secretArn });
  }

  /**
   * Lets `hostnameServers` manage the tenant distribution's tenants and their certificates, and
   * tells them where (shared/config.ts CUSTOM_HOSTNAMES_*). The distribution's id goes to no API
   * function: API function → tenant distribution → HTTP API → API function would be a cycle.
   * Checked against AWS's documentation only
   * (docs/adr/0064-verified-hostnames-are-served-by-cloudfront-distribution.md): the first deploy
   * confirms in CloudTrail that none of these is refused or unused (docs/operations.md,
   * "First-deploy checks").
   */
  private grantHostnameServing(): void {
    const tenants = this.formatArn({
      service: 'cloudfront',
      region: '',
      resource: 'distribution-tenant',
      resourceName: '*',
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    // CloudFront's managed certificates are ACM's, in us-east-1 whatever the stack's region.
    const certificates = this.formatArn({
      service: 'acm',
      region: 'us-east-1',
      resource: 'certificate',
      resourceName: '*',
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    for (const name of hostnameServers) {
      const fn = this.functions[name];
      // A tenant about to be made has no ARN to authorize; every later call names a tenant of this account.
      fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['cloudfront:CreateDistributionTenant'], resources: ['*'] }));
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: [
            'cloudfront:GetDistributionTenant',
            'cloudfront:UpdateDistributionTenant',
            'cloudfront:DeleteDistributionTenant',
            'cloudfront:GetManagedCertificateDetails',
          ],
          resources: [tenants],
        }),
      );
      // CloudFront requests (and deletes) the managed certificate in this account on the caller's behalf.
      fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['acm:RequestCertificate'], resources: ['*'] }));
      fn.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['acm:DescribeCertificate', 'acm:AddTagsToCertificate', 'acm:DeleteCertificate'],
          resources: [certificates],
        }),
      );
      fn.addEnvironment('CUSTOM_HOSTNAMES_DISTRIBUTION_ID', this.web.tenantDistribution.distributionId);
      fn.addEnvironment('CUSTOM_HOSTNAMES_CONNECTION_GROUP_ID', this.web.connectionGroup.attrId);
      fn.addEnvironment('CUSTOM_HOSTNAMES_TARGET', this.web.connectionGroup.attrRoutingEndpoint);
      const role = fn.role;
      if (role) {
        Validations.of(role).acknowledge({
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason:
            'Custom hostnames: cloudfront:CreateDistributionTenant names no tenant yet (the tenant does not exist), and ' +
            'acm:RequestCertificate has no certificate ARN before it is made; every other action names tenants or certificates of this account.',
        });
        Validations.of(role).acknowledge({
          id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cloudfront::<AWS::AccountId>:distribution-tenant/*]',
          reason: 'Custom hostnames: the tenants are made at run time, one per verified claim, so their ids cannot be named in the policy.',
        });
        Validations.of(role).acknowledge({
          id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:acm:us-east-1:<AWS::AccountId>:certificate/*]',
          reason:
            'Custom hostnames: each tenant’s managed certificate is requested by CloudFront at run time, so its id cannot be named in the policy.',
        });
      }
    }
  }
}
