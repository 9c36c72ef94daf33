import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { Stack } from 'aws-cdk-lib';
import { Api, accessLogFields } from '../../lib/api.ts';
import { readSettings } from '../../lib/config.ts';
import { FUNCTION_TAG } from '../../lib/lambda.ts';
import { HushlinkStack } from '../../lib/stack.ts';
import { prepareWebAssets } from '../../lib/web.ts';
import { Webhooks } from '../../lib/webhooks.ts';
import { groups, routeKey, routes, scimFallbackPath } from '../../shared/routes.ts';
import { schedules } from '../../shared/schedules.ts';
import { createTableInput, tableDefinition } from '../../shared/store/table.ts';
import { relayFilters } from '../../shared/store/relayRecords.ts';
import { webhookLimits } from '../../shared/limits.ts';
import { loadConfig } from '../../shared/config.ts';
import { cdkContext, testPrices } from './context.ts';

const webAssetsDir = await prepareWebAssets();

/**
 * The synthesized template is checked against the route table and the table definition, so
 * adding a route or an index needs no change here. Logical ids are never hard-coded: each
 * function is found by its `hushlink:function` tag and everything else by following references.
 */

type Resource = {
  Type: string;
  Properties?: Record<string, any>;
  Metadata?: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};

const WEB_ORIGIN = 'https://app.hushlink.test';

/**
 * Logical id prefixes of the Lambda functions CDK adds for its own custom resources (the web
 * client's BucketDeployment, the web assets bucket's autoDeleteObjects on deletable stages).
 * They are not ours: the checks on functions below select ours by their `hushlink:function` tag.
 */
const CDK_FUNCTION_PREFIXES = ['CustomCDKBucketDeployment', 'CustomS3AutoDeleteObjectsCustomResourceProvider'] as const;

/** The functions of a template tagged `hushlink:function`. */
function taggedFunctions(all: Record<string, Resource>): [string, Resource][] {
  return Object.entries(all).filter(
    ([, r]) =>
      r.Type === 'AWS::Lambda::Function' && ((r.Properties?.Tags ?? []) as { Key: string }[]).some((tag) => tag.Key === FUNCTION_TAG),
  );
}

/** The log groups of a template but those of CDK's custom-resource functions (their own retention). */
function ourLogGroups(all: Record<string, Resource>): [string, Resource][] {
  return Object.entries(all).filter(
    ([id, r]) => r.Type === 'AWS::Logs::LogGroup' && !CDK_FUNCTION_PREFIXES.some((prefix) => id.startsWith(prefix)),
  );
}

function synth(context: Record<string, unknown>): { app: App; template: Template } {
  const app = new App({ context: { ...cdkContext, webOrigin: WEB_ORIGIN, ...context } });
  const stack = new HushlinkStack(app, 'HushlinkTest', { settings: readSettings(app.node), webAssetsDir });
  return { app, template: Template.fromStack(stack) };
}

// Bundles every function with esbuild, as a deployment would, so a broken entry fails here.
const { app, template } = synth({ stage: 'dev' });
const resources = template.toJSON().Resources as Record<string, Resource>;

const ofType = (type: string): [string, Resource][] => Object.entries(resources).filter(([, r]) => r.Type === type);
const props = (logicalId: string): Record<string, any> => resources[logicalId]?.Properties ?? {};
const tables = ofType('AWS::DynamoDB::Table');
const tableId = tables[0]?.[0];

/** `{ Ref: id }` → id, `{ 'Fn::GetAtt': [id, attr] }` → id. */
function referencedId(value: unknown): string | undefined {
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string') return v.Ref;
    const getAtt = v['Fn::GetAtt'];
    if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  }
  return undefined;
}

/** Logical id of the Lambda whose `hushlink:function` tag is `name` (a group or a worker). */
const functionIds = new Map<string, string>();
for (const [id, fn] of ofType('AWS::Lambda::Function')) {
  const tags = (fn.Properties?.Tags ?? []) as { Key: string; Value: string }[];
  const name = tags.find((tag) => tag.Key === FUNCTION_TAG)?.Value;
  if (name !== undefined) {
    if (functionIds.has(name)) throw new Error(`two functions tagged ${FUNCTION_TAG}=${name}`);
    functionIds.set(name, id);
  }
}
function functionId(name: string): string {
  const id = functionIds.get(name);
  if (!id) throw new Error(`no Lambda tagged ${FUNCTION_TAG}=${name}`);
  return id;
}

/** The work queue (the queue with a redrive policy) and its dead-letter queue. */
const [[queueId] = []] = ofType('AWS::SQS::Queue').filter(([, q]) => q.Properties?.RedrivePolicy);
const deadLetterQueueId = referencedId(props(queueId!).RedrivePolicy?.deadLetterTargetArn);
/** The key sealing webhook signing secrets; on this configuration (no customer-managed key) the only key. */
const [[signingKeyId] = []] = ofType('AWS::KMS::Key');
/** The functions that seal or open secrets with the sealing key (webhooks', chat's, SSO clients'), and so get WEBHOOK_KEY_ID. */
const signingKeyUsers = ['webhooks', 'deliveries', 'chat', 'workspaces', 'account'];

/** Logical id of the function a route's integration invokes. */
function routeTargetFunction(route: Resource): string | undefined {
  // Target is `integrations/<IntegrationId>`, rendered as a join of the literal and a Ref.
  const join = route.Properties?.Target?.['Fn::Join'] as [string, unknown[]] | undefined;
  expect(join?.[1]?.[0]).toBe('integrations/');
  const integrationId = referencedId(join?.[1]?.[1]);
  expect(integrationId, 'route target is not an integration of this stack').toBeDefined();
  const integration = resources[integrationId!];
  expect(integration?.Type).toBe('AWS::ApiGatewayV2::Integration');
  expect(integration?.Properties?.IntegrationType).toBe('AWS_PROXY');
  const uri = integration?.Properties?.IntegrationUri as Record<string, unknown> | undefined;
  expect(uri?.['Fn::GetAtt'], 'IntegrationUri must be a function ARN').toEqual([expect.any(String), 'Arn']);
  return referencedId(uri);
}

describe('API', () => {
  const apiRoutes = ofType('AWS::ApiGatewayV2::Route').map(([, route]) => route);

  it('has one Lambda per group, tagged with the group name', () => {
    for (const group of groups) expect(functionIds.has(group), `function for group ${group}`).toBe(true);
  });

  it.each(routes.map((row) => [routeKey(row), row] as const))('routes %s to its group function', (key, row) => {
    const matching = apiRoutes.filter((route) => route.Properties?.RouteKey === key);
    expect(matching).toHaveLength(1);
    expect(routeTargetFunction(matching[0]!)).toBe(functionId(row.group));
  });

  it("has no route beyond the route table but the scim group's fallback, to the scim function", () => {
    const keys = apiRoutes.map((route) => route.Properties?.RouteKey as string).sort();
    expect(keys).toEqual([...routes.map(routeKey), `ANY ${scimFallbackPath}`].sort());
    const fallback = apiRoutes.filter((route) => route.Properties?.RouteKey === `ANY ${scimFallbackPath}`);
    expect(fallback).toHaveLength(1);
    expect(routeTargetFunction(fallback[0]!)).toBe(functionId('scim'));
  });

  it('lets API Gateway invoke each group function', () => {
    const invokers = ofType('AWS::Lambda::Permission')
      .map(([, permission]) => permission.Properties ?? {})
      .filter((permission) => permission.Principal === 'apigateway.amazonaws.com');
    for (const group of groups) {
      expect(
        invokers.some((p) => referencedId(p.FunctionName) === functionId(group)),
        group,
      ).toBe(true);
    }
  });

  it('answers CORS preflight for the web origin only', () => {
    const [[, api] = []] = ofType('AWS::ApiGatewayV2::Api');
    const cors = api?.Properties?.CorsConfiguration;
    expect(cors?.AllowOrigins).toEqual([WEB_ORIGIN]);
    expect(cors?.AllowHeaders).toEqual(expect.arrayContaining(['content-type', 'authorization', 'x-delete-token', 'x-request-id']));
    expect(cors?.ExposeHeaders).toEqual(expect.arrayContaining(['x-request-id', 'retry-after']));
    expect(cors?.AllowMethods).toEqual(expect.arrayContaining([...new Set(routes.map((row) => row.method))]));
  });

  it('throttles the auto-deployed default stage', () => {
    const stages = ofType('AWS::ApiGatewayV2::Stage').map(([, stage]) => stage.Properties ?? {});
    expect(stages).toHaveLength(1);
    expect(stages[0]).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingBurstLimit: 200, ThrottlingRateLimit: 100 },
    });
  });

  it('logs each request to its own log group: ids, route template, status, timings and address, nothing of the request', () => {
    const [[, stage] = []] = ofType('AWS::ApiGatewayV2::Stage');
    const settings = stage?.Properties?.AccessLogSettings;
    const logGroupId = referencedId(settings?.DestinationArn);
    expect(resources[logGroupId!]?.Type).toBe('AWS::Logs::LogGroup');
    expect(props(logGroupId!).RetentionInDays).toBe(14);
    const format = JSON.parse(settings.Format as string) as Record<string, string>;
    expect(format).toEqual({
      requestId: '$context.requestId',
      routeKey: '$context.routeKey',
      status: '$context.status',
      responseLatency: '$context.responseLatency',
      integrationLatency: '$context.integrationLatency',
      sourceIp: '$context.identity.sourceIp',
      requestTime: '$context.requestTime',
    });
    expect(format).toEqual(accessLogFields);
    // No raw path (it carries ids), query string, header (authorization), body or user agent.
    for (const forbidden of ['path', 'querystring', 'query', 'header', 'authorization', 'body', 'useragent', 'authorizer']) {
      expect(settings.Format.toLowerCase(), forbidden).not.toContain(`$context.${forbidden}`);
      expect(settings.Format.toLowerCase(), forbidden).not.toContain(`.${forbidden}`);
    }
  });
});

describe('functions', () => {
  const functions = taggedFunctions(resources);

  it('are exactly the groups plus the schedule, relay and deliveries workers', () => {
    expect([...functionIds.keys()].sort()).toEqual([...groups, 'schedule', 'deliveries', 'relay'].sort());
    expect(functions).toHaveLength(functionIds.size);
  });

  it("are, besides ours, only CDK's custom-resource functions", () => {
    const others = ofType('AWS::Lambda::Function')
      .map(([id]) => id)
      .filter((id) => ![...functionIds.values()].includes(id));
    for (const id of others)
      expect(
        CDK_FUNCTION_PREFIXES.some((prefix) => id.startsWith(prefix)),
        id,
      ).toBe(true);
  });

  it.each([...functionIds.keys()])('%s runs nodejs22.x on arm64 with the service environment', (name) => {
    const id = functionId(name);
    expect(props(id)).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      MemorySize: 512,
      // The delivery worker waits on receivers: a batch of attempts, each up to 10 s; the schedule
      // on DNS lookups and CloudFront's API.
      Timeout: name === 'deliveries' ? 30 : name === 'schedule' ? 900 : 10,
      Handler: 'index.handler',
    });
    const env = props(id).Environment?.Variables ?? {};
    expect(env).toMatchObject({
      HUSHLINK_MODE: 'aws',
      WEB_ORIGIN: WEB_ORIGIN,
      REGION: { Ref: 'AWS::Region' },
      LOG_LEVEL: 'INFO',
      POWERTOOLS_SERVICE_NAME: 'hushlink',
      POWERTOOLS_METRICS_NAMESPACE: 'Hushlink',
      POWERTOOLS_LOG_LEVEL: 'INFO',
      NODE_OPTIONS: '--enable-source-maps',
    });
    // Unset regions: the functions answer /v1/regions with this region alone.
    expect(env.REGIONS).toBeUndefined();
    expect(referencedId(env.TABLE_NAME)).toBe(tableId);
    // Every function may be handed the work queue's URL (a Ref of a queue is its URL); who may
    // send to it is IAM's business (iam.test.ts).
    expect(env.QUEUE_URL).toEqual({ Ref: queueId });
    // The sealing key's ARN only where the code seals (webhooks, chat, workspaces) or opens (deliveries, account) secrets.
    if (signingKeyUsers.includes(name)) expect(env.WEBHOOK_KEY_ID).toEqual({ 'Fn::GetAtt': [signingKeyId, 'Arn'] });
    else expect(env.WEBHOOK_KEY_ID).toBeUndefined();
    // Nothing else: a new variable is a visible change here.
    expect(Object.keys(env).sort()).toEqual(
      [
        'HUSHLINK_MODE',
        'TABLE_NAME',
        'WEB_ORIGIN',
        'REGION',
        'LOG_LEVEL',
        'MAIL_FROM',
        'QUEUE_URL',
        'FILES_BUCKET',
        'POWERTOOLS_SERVICE_NAME',
        'POWERTOOLS_METRICS_NAMESPACE',
        'POWERTOOLS_LOG_LEVEL',
        'NODE_OPTIONS',
        'PRICE_PRO',
        'PRICE_TEAM_SEAT',
        'SALES_EMAIL',
        ...((groups as readonly string[]).includes(name) ? ['ORIGIN_VERIFY'] : []),
        ...(signingKeyUsers.includes(name) ? ['WEBHOOK_KEY_ID'] : []),
        ...(name === 'billing' || name === 'billingWebhook' ? ['STRIPE_SECRETS_ARN'] : []),
        // The Slack app's client id comes from context (`slackClientId`), unset here.
        ...(name === 'chat' || name === 'deliveries' ? ['SLACK_SECRETS_ARN'] : []),
        ...(name === 'schedule'
          ? ['CUSTOM_HOSTNAMES_DISTRIBUTION_ID', 'CUSTOM_HOSTNAMES_CONNECTION_GROUP_ID', 'CUSTOM_HOSTNAMES_TARGET']
          : []),
      ].sort(),
    );
  });

  it('tells the schedule alone where custom hostnames are served: the tenant distribution, its connection group and routing endpoint', () => {
    const [[tenantDistributionId] = []] = ofType('AWS::CloudFront::Distribution').filter(
      ([, d]) => d.Properties?.DistributionConfig?.ConnectionMode === 'tenant-only',
    );
    const [[connectionGroupId] = []] = ofType('AWS::CloudFront::ConnectionGroup');
    expect(props(functionId('schedule')).Environment.Variables).toMatchObject({
      CUSTOM_HOSTNAMES_DISTRIBUTION_ID: { Ref: tenantDistributionId },
      CUSTOM_HOSTNAMES_CONNECTION_GROUP_ID: { 'Fn::GetAtt': [connectionGroupId, 'Id'] },
      CUSTOM_HOSTNAMES_TARGET: { 'Fn::GetAtt': [connectionGroupId, 'RoutingEndpoint'] },
    });
    // No API function may name the tenant distribution: it depends on the API (a cycle), and only the schedule needs it.
    for (const group of groups) expect(JSON.stringify(props(functionId(group)).Environment), group).not.toContain(tenantDistributionId!);
  });

  it.each(functions.map(([id]) => id))('%s logs to its own log group, kept two weeks on dev, without X-Ray', (id) => {
    const logGroupId = referencedId(props(id).LoggingConfig?.LogGroup);
    expect(resources[logGroupId!]?.Type).toBe('AWS::Logs::LogGroup');
    expect(props(logGroupId!).RetentionInDays).toBe(14);
    expect(props(id).TracingConfig).toBeUndefined();
  });

  it('are each bundled into one ESM file with the AWS SDK inside', () => {
    // The asset is the esbuild output: a bundle that imports no @aws-sdk package at run time.
    const outdir = app.outdir;
    for (const [id] of functions) {
      // The staged asset directory is `asset.<hash>`, the hash the template's S3 key carries.
      const hash = String(props(id).Code?.S3Key).replace(/\.zip$/, '');
      const code = readFileSync(`${outdir}/asset.${hash}/index.mjs`, 'utf8');
      expect(code, id).not.toMatch(/from\s*["']@aws-sdk\//);
      expect(code.length, id).toBeLessThan(2_000_000);
    }
  });

  it('API functions, and only they, get the origin proof CloudFront sends, from a generated secret', () => {
    const secrets = ofType('AWS::SecretsManager::Secret').filter(([id]) => id.startsWith('OriginVerify'));
    expect(secrets).toHaveLength(1);
    const [secretId, secret] = secrets[0]!;
    expect(secret.Properties?.GenerateSecretString).toMatchObject({ PasswordLength: 48, ExcludePunctuation: true });
    const reference = { 'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: secretId }, ':SecretString:::}}']] };
    for (const group of groups) expect(props(functionId(group)).Environment.Variables.ORIGIN_VERIFY, group).toEqual(reference);
    for (const worker of ['schedule', 'deliveries'])
      expect(props(functionId(worker)).Environment.Variables.ORIGIN_VERIFY, worker).toBeUndefined();
    // Both distributions: the deployment's own, and the custom hostnames'.
    const distributions = ofType('AWS::CloudFront::Distribution');
    expect(distributions).toHaveLength(2);
    for (const [id, distribution] of distributions) {
      const apiOrigins = (distribution.Properties!.DistributionConfig.Origins as any[]).filter((origin) => origin.CustomOriginConfig);
      expect(apiOrigins, id).toHaveLength(1);
      expect(apiOrigins[0].OriginCustomHeaders, id).toEqual([{ HeaderName: 'x-hushlink-origin-verify', HeaderValue: reference }]);
    }
  });

  it.each([
    ["the payment provider's", 'PaymentProviderSecrets', 'STRIPE_SECRETS_ARN', ['billing', 'billingWebhook']],
    ["the chat app's", 'ChatAppSecrets', 'SLACK_SECRETS_ARN', ['chat', 'deliveries']],
  ] as const)(
    'keeps %s secrets in a secret of their own, set after deploy (never a value in the template), named to their functions alone',
    (_, prefix, variable, readers) => {
      const secrets = ofType('AWS::SecretsManager::Secret').filter(([id]) => !id.startsWith('OriginVerify'));
      expect(secrets.map(([id]) => id).sort()).toEqual([
        expect.stringMatching(/^ChatAppSecrets/),
        expect.stringMatching(/^PaymentProviderSecrets/),
      ]);
      const [secretId, secret] = secrets.find(([id]) => id.startsWith(prefix))!;
      // A random placeholder until the operator puts the real keys (docs/deploy.md, "Payments
      // (Stripe)"): no value is in the template.
      expect(secret.Properties?.SecretString).toBeUndefined();
      for (const name of functionIds.keys()) {
        const expected = (readers as readonly string[]).includes(name) ? { Ref: secretId } : undefined;
        expect(props(functionId(name)).Environment.Variables[variable], name).toEqual(expected);
      }
    },
  );

  it('names the Slack app to the chat function and the worker when the context gives its client id', () => {
    // Only a setting differs from the bundled synth above: bundling every function again took
    // 30 s of CI's loaded machine (and timed the test out) to prove nothing more.
    const configured = synth({ stage: 'dev', slackClientId: '1234567890.0987654321', 'aws:cdk:bundling-stacks': [] }).template;
    const variables = Object.values(configured.toJSON().Resources as Record<string, Resource>)
      .filter((resource) => resource.Type === 'AWS::Lambda::Function')
      .map((resource) => resource.Properties?.Environment?.Variables ?? {});
    // The chat function, and the worker that renews rotating bot tokens.
    expect(variables.filter((env: Record<string, unknown>) => env.SLACK_CLIENT_ID === '1234567890.0987654321')).toHaveLength(2);
    expect(() => readSettings(new App({ context: { ...cdkContext, slackClientId: 'not-an-id' } }).node)).toThrow('slackClientId');
  });

  // What each function may do (IAM) is test/infra/iam.test.ts.
});

describe('schedule', () => {
  const all = ofType('AWS::Scheduler::Schedule').map(([, schedule]) => schedule.Properties ?? {});
  const schedulesFor = (task: string) => all.filter((schedule) => eventOf(schedule.Target).detail?.task === task);

  it('has one EventBridge Scheduler schedule per row of shared/schedules.ts, and no EventBridge rule', () => {
    expect(all).toHaveLength(schedules.length);
    expect(ofType('AWS::Events::Rule')).toHaveLength(0);
  });

  it('keeps the schedules in a group of their own', () => {
    const groupsOfStack = ofType('AWS::Scheduler::ScheduleGroup');
    expect(groupsOfStack).toHaveLength(1);
    for (const schedule of all) expect(schedule.GroupName).toBe(props(groupsOfStack[0]![0]).Name);
  });

  it.each(schedules.map((row) => [row.task, row] as const))('runs %s on its schedule, on time, with bounded retries', (task, row) => {
    const matching = schedulesFor(task);
    expect(matching).toHaveLength(1);
    const schedule = matching[0]!;
    // CDK writes whole hours as hours: rate(1 hour), rate(2 hours).
    const [amount, unit] = row.everyMinutes % 60 === 0 ? [row.everyMinutes / 60, 'hour'] : [row.everyMinutes, 'minute'];
    expect(schedule.ScheduleExpression).toBe(`rate(${amount} ${unit}${amount === 1 ? '' : 's'})`);
    expect(schedule.State).toBe('ENABLED');
    expect(schedule.FlexibleTimeWindow).toEqual({ Mode: 'OFF' });
    expect(referencedId(schedule.Target.Arn)).toBe(functionId('schedule'));
    // A missed run is retried until the next one is due, no longer.
    expect(schedule.Target.RetryPolicy).toEqual({
      MaximumEventAgeInSeconds: Math.max(row.everyMinutes * 60, 60),
      MaximumRetryAttempts: 3,
    });
  });

  it('sends the schedule worker a ScheduledEvent with task expire-secrets every minute', () => {
    const [schedule, ...others] = schedulesFor('expire-secrets');
    expect(others).toHaveLength(0);
    expect(schedule?.ScheduleExpression).toBe('rate(1 minute)');
    const target = schedule?.Target;
    expect(referencedId(target.Arn)).toBe(functionId('schedule'));
    // id and time come from each invocation, region and account from the stack, as in a ScheduledEvent.
    expect(eventOf(target)).toEqual({
      version: '0',
      id: '<aws.scheduler.execution-id>',
      'detail-type': 'Scheduled Event',
      source: 'hushlink.schedule',
      time: '<aws.scheduler.scheduled-time>',
      region: '{AWS::Region}',
      account: '{AWS::AccountId}',
      resources: [],
      detail: { task: 'expire-secrets' },
    });
  });

  it('sweeps the webhook outbox and far retries every minute (shared/schedules.ts sweep-webhooks)', () => {
    expect(schedules).toContainEqual({ task: 'sweep-webhooks', everyMinutes: 1 });
    const [schedule, ...others] = schedulesFor('sweep-webhooks');
    expect(others).toHaveLength(0);
    expect(schedule?.ScheduleExpression).toBe('rate(1 minute)');
    expect(referencedId(schedule?.Target.Arn)).toBe(functionId('schedule'));
    expect(eventOf(schedule?.Target)).toMatchObject({
      'detail-type': 'Scheduled Event',
      source: 'hushlink.schedule',
      detail: { task: 'sweep-webhooks' },
    });
  });

  it('invokes the schedule worker through a role (what it may do is in iam.test.ts)', () => {
    const roles = new Set(all.map((schedule) => referencedId(schedule.Target.RoleArn)));
    expect(roles.size).toBe(1);
    expect(resources[[...roles][0]!]?.Type).toBe('AWS::IAM::Role');
  });

  /** The target's Input, with each `{Ref: X}` of its Fn::Join written as the string `{X}`. */
  function eventOf(target: any): Record<string, any> {
    const input = target?.Input as string | { 'Fn::Join': [string, unknown[]] };
    const text =
      typeof input === 'string'
        ? input
        : input['Fn::Join'][1]
            .map((part) => (typeof part === 'string' ? part : `{${(part as { Ref: string }).Ref}}`))
            .join(input['Fn::Join'][0]);
    return JSON.parse(text) as Record<string, any>;
  }
});

describe('table', () => {
  const table = () => props(tableId!);
  // The input the local runtime gives DynamoDB Local: AWS must get the same keys and indexes.
  const local = createTableInput('any');
  const byName = <T extends { AttributeName?: string | undefined }>(a: T, b: T) =>
    String(a.AttributeName).localeCompare(String(b.AttributeName));

  it('is the single table of the service', () => {
    expect(tables).toHaveLength(1);
  });

  it('has the key schema and attributes of tableDefinition', () => {
    expect(table().KeySchema).toEqual(local.KeySchema);
    expect([...table().AttributeDefinitions].sort(byName)).toEqual([...local.AttributeDefinitions!].sort(byName));
  });

  it('has exactly the GSIs of tableDefinition, keys only', () => {
    const gsis = table().GlobalSecondaryIndexes as { IndexName: string }[];
    expect(gsis.map((gsi) => gsi.IndexName).sort()).toEqual(tableDefinition.indexes.map((index) => index.name).sort());
    for (const expected of local.GlobalSecondaryIndexes!) {
      expect(gsis.find((gsi) => gsi.IndexName === expected.IndexName)).toEqual(expected);
    }
  });

  it('expires items by the TTL attribute, bills on demand and keeps point-in-time recovery', () => {
    expect(table()).toMatchObject({
      TimeToLiveSpecification: { AttributeName: tableDefinition.ttlAttribute, Enabled: true },
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('is deleted with a dev stack', () => {
    expect(resources[tableId!]?.DeletionPolicy).toBe('Delete');
    expect(table().DeletionProtectionEnabled).toBe(false);
  });

  it('is encrypted with the AWS-owned key unless a key of ours is asked for', () => {
    // DynamoDB always encrypts at rest; no SSESpecification (or SSEEnabled false) is the owned key.
    expect(table().SSESpecification?.SSEEnabled ?? false).toBe(false);
  });
});

describe('files bucket', () => {
  const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
  const bucketId = referencedId(outputs.FilesBucketName?.Value)!;
  const bucket = () => props(bucketId);
  const logsBucketId = referencedId(bucket().LoggingConfiguration?.DestinationBucketName);
  // The web client's bucket: the one CDK's BucketDeployments write to (lib/web.ts).
  const webBucketIds = [
    ...new Set(
      Object.values(resources)
        .filter((r) => r.Type.startsWith('Custom::CDKBucketDeployment'))
        .map((r) => referencedId(r.Properties?.DestinationBucketName)),
    ),
  ];

  it('and its access-log bucket are the buckets of the stack, with the web assets bucket', () => {
    expect(resources[bucketId]?.Type).toBe('AWS::S3::Bucket');
    expect(webBucketIds).toHaveLength(1);
    expect(
      ofType('AWS::S3::Bucket')
        .map(([id]) => id)
        .sort(),
    ).toEqual([bucketId, logsBucketId, webBucketIds[0]].sort());
    // The web assets bucket logs its server access to the same access-log bucket.
    expect(referencedId(props(webBucketIds[0]!).LoggingConfiguration?.DestinationBucketName)).toBe(logsBucketId);
  });

  it('blocks all public access and encrypts with S3-managed keys', () => {
    expect(bucket().PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket().BucketEncryption?.ServerSideEncryptionConfiguration).toEqual([
      { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
    ]);
    expect(bucket().OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
  });

  it('keeps no versions: a deleted file is gone', () => {
    expect(bucket().VersioningConfiguration?.Status ?? 'never enabled').not.toBe('Enabled');
  });

  it('aborts incomplete multipart uploads after a day', () => {
    expect(bucket().LifecycleConfiguration?.Rules).toEqual(
      expect.arrayContaining([expect.objectContaining({ Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } })]),
    );
  });

  it('accepts presigned part PUTs and download GETs from the web origin only, exposing ETag and the ranges', () => {
    expect(bucket().CorsConfiguration?.CorsRules).toEqual([
      expect.objectContaining({
        AllowedOrigins: ['*'],
        AllowedMethods: ['PUT', 'GET', 'HEAD'],
        ExposedHeaders: ['ETag', 'Content-Length', 'Content-Range'],
      }),
    ]);
  });

  it('gives every function the bucket’s name', () => {
    for (const [id, fn] of ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Properties?.Environment?.Variables?.TABLE_NAME)) {
      expect(referencedId(fn.Properties?.Environment?.Variables?.FILES_BUCKET), id).toBe(bucketId);
    }
  });

  it.each([
    ['files', () => bucketId],
    ['access-log', () => logsBucketId!],
  ] as const)('refuses plain HTTP (%s bucket)', (_name, id) => {
    const policies = ofType('AWS::S3::BucketPolicy').filter(([, policy]) => referencedId(policy.Properties?.Bucket) === id());
    expect(policies).toHaveLength(1);
    expect(policies[0]![1].Properties?.PolicyDocument?.Statement).toEqual(
      expect.arrayContaining([expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
    );
  });

  it('writes server access logs to a private bucket that expires them', () => {
    expect(bucket().LoggingConfiguration?.LogFilePrefix).toBe('files/');
    const logs = props(logsBucketId!);
    expect(logs.PublicAccessBlockConfiguration).toMatchObject({ BlockPublicAcls: true, RestrictPublicBuckets: true });
    // S3 delivers access logs only to SSE-S3 buckets.
    expect(logs.BucketEncryption?.ServerSideEncryptionConfiguration).toEqual([
      { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
    ]);
    expect(logs.LifecycleConfiguration?.Rules).toEqual([expect.objectContaining({ Status: 'Enabled', ExpirationInDays: 14 })]);
  });
});

describe('work queue', () => {
  const queues = ofType('AWS::SQS::Queue');
  const main = queues.find(([id]) => id === queueId);
  const dlqId = deadLetterQueueId;

  it('is a queue and its dead-letter queue', () => {
    expect(queues).toHaveLength(2);
    expect(main).toBeDefined();
    expect(queues.map(([id]) => id)).toContain(dlqId);
  });

  it('moves a message to the dead-letter queue after five receives', () => {
    expect(main?.[1].Properties?.RedrivePolicy?.maxReceiveCount).toBe(5);
  });

  it('keeps dead letters fourteen days', () => {
    expect(props(dlqId!).MessageRetentionPeriod).toBe(14 * 24 * 3600);
  });

  it.each([
    ['queue', () => main![0]],
    ['dead-letter queue', () => dlqId!],
  ] as const)('%s is encrypted and refuses plain HTTP', (_name, id) => {
    expect(props(id()).SqsManagedSseEnabled).toBe(true);
    const policies = ofType('AWS::SQS::QueuePolicy').filter(([, p]) =>
      (p.Properties?.Queues ?? []).some((q: unknown) => referencedId(q) === id()),
    );
    expect(policies).toHaveLength(1);
    expect(policies[0]![1].Properties?.PolicyDocument?.Statement).toEqual(
      expect.arrayContaining([expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
    );
  });

  it('is consumed by the deliveries worker alone: batches of ten, partial batch failures, at most ten at once', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping')
      .map(([, mapping]) => mapping.Properties ?? {})
      .filter((mapping) => JSON.stringify(mapping.EventSourceArn).includes('Queue'));
    // One mapping on a queue: nothing polls the dead-letter queue (it is redriven by hand).
    expect(mappings).toHaveLength(1);
    const { Tags: _tags, ...mapping } = mappings[0]!;
    expect(mapping).toEqual({
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionName: { Ref: functionId('deliveries') },
      BatchSize: 10,
      // Invoked as soon as messages arrive, not after a batching wait.
      MaximumBatchingWindowInSeconds: 0,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 10 },
    });
  });

  it('hands the table stream to the relay alone: owned or chat-subscribed secrets and test deliveries only, from the oldest record, retried from the failed one, then to the dead letters', () => {
    const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, mapping]) => mapping.Properties ?? {});
    const [tableId] = ofType('AWS::DynamoDB::Table').map(([id]) => id);
    expect(props(tableId!).StreamSpecification).toEqual({ StreamViewType: 'NEW_AND_OLD_IMAGES' });
    const streamMappings = mappings.filter((mapping) => JSON.stringify(mapping.EventSourceArn).includes('StreamArn'));
    expect(streamMappings).toHaveLength(1);
    const { Tags: _tags, ...mapping } = streamMappings[0]!;
    expect(mapping).toEqual({
      EventSourceArn: { 'Fn::GetAtt': [tableId, 'StreamArn'] },
      FunctionName: { Ref: functionId('relay') },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: webhookLimits.relayBatchSize,
      MaximumBatchingWindowInSeconds: 0,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: webhookLimits.relayAttempts - 1,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [dlqId, 'Arn'] } } },
      FilterCriteria: { Filters: relayFilters.map((pattern) => ({ Pattern: JSON.stringify(pattern) })) },
    });
  });

  it('hides a received message for six times the worker timeout, so a slow batch is not received twice', () => {
    const workerTimeout = props(functionId('deliveries')).Timeout as number;
    expect(workerTimeout).toBe(Webhooks.workerTimeoutSeconds);
    expect(props(queueId!).VisibilityTimeout).toBe(6 * workerTimeout);
    expect(props(queueId!).VisibilityTimeout).toBe(180);
  });

  it('redrives to its own dead-letter queue, which redrives nowhere', () => {
    expect(props(queueId!).RedrivePolicy).toEqual({ deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: 5 });
    expect(dlqId).not.toBe(queueId);
    expect(props(dlqId!).RedrivePolicy).toBeUndefined();
  });

  it('raises an alarm to the alarm topic when one dead letter is visible', () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, a]) => a.Properties ?? {});
    const onDlq = alarms.filter((a) => a.Dimensions?.some((d: any) => d.Name === 'QueueName' && referencedId(d.Value) === dlqId));
    expect(onDlq).toHaveLength(1);
    expect(onDlq[0]).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'notBreaching',
    });
    const [[topicId] = []] = ofType('AWS::SNS::Topic');
    expect(onDlq[0]!.AlarmActions.map(referencedId)).toEqual([topicId]);
    expect(onDlq[0]!.OKActions.map(referencedId)).toEqual([topicId]);
  });

  it('has no alarm e-mail subscription unless alarmEmail is set', () => {
    expect(ofType('AWS::SNS::Subscription')).toHaveLength(0);
  });
});

describe('webhook signing-secrets key', () => {
  const key = () => resources[signingKeyId!]!;

  it('is the only KMS key without the customer-managed key option, and rotates yearly', () => {
    expect(ofType('AWS::KMS::Key')).toHaveLength(1);
    expect(key().Properties?.EnableKeyRotation).toBe(true);
    expect(key().Properties?.Description).toMatch(/webhook_endpoint/);
  });

  it('is deleted with a dev stack, after the shortest pending window', () => {
    expect(key().DeletionPolicy).toBe('Delete');
    expect(key().UpdateReplacePolicy).toBe('Delete');
    expect(key().Properties?.PendingWindowInDays).toBe(7);
  });

  it('encrypts no resource of the stack: only the functions that seal or open secrets are given it', () => {
    // Referenced by the five functions' WEBHOOK_KEY_ID and their policies (iam.test.ts), nothing else.
    const referrers = Object.entries(resources)
      .filter(([id, r]) => id !== signingKeyId && JSON.stringify(r).includes(JSON.stringify(signingKeyId)))
      .map(([, r]) => r.Type)
      .sort();
    expect(referrers).toEqual([...Array(5).fill('AWS::IAM::Policy'), ...Array(5).fill('AWS::Lambda::Function')]);
  });
});

describe('outputs', () => {
  it('publish the API URL, the table, bucket and queue names and the alarm topic', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs)).toEqual(
      expect.arrayContaining(['ApiUrl', 'TableName', 'FilesBucketName', 'WorkQueueUrl', 'AlarmTopicArn']),
    );
    expect(referencedId(outputs.TableName?.Value)).toBe(tableId);
    expect(resources[referencedId(outputs.FilesBucketName?.Value)!]?.Type).toBe('AWS::S3::Bucket');
    expect(resources[referencedId(outputs.WorkQueueUrl?.Value)!]?.Type).toBe('AWS::SQS::Queue');
    expect(resources[referencedId(outputs.AlarmTopicArn?.Value)!]?.Type).toBe('AWS::SNS::Topic');
  });

  it('publish the CNAME target of custom hostnames: the connection group’s routing endpoint', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    const [[connectionGroupId] = []] = ofType('AWS::CloudFront::ConnectionGroup');
    const [, target] = Object.entries(outputs).find(([id]) => id.startsWith('WebCustomHostnameTarget'))!;
    expect(target.Value).toEqual({ 'Fn::GetAtt': [connectionGroupId, 'RoutingEndpoint'] });
  });
});

describe('prod stage', () => {
  // Only settings differ; skipping bundling keeps these synths fast.
  const prod = synth({ stage: 'prod', 'aws:cdk:bundling-stacks': [] }).template.toJSON().Resources as Record<string, Resource>;
  const prodOf = (type: string) => Object.values(prod).filter((r) => r.Type === type);

  it('retains and protects the data', () => {
    const [table] = prodOf('AWS::DynamoDB::Table');
    expect(table?.DeletionPolicy).toBe('Retain');
    expect(table?.Properties?.DeletionProtectionEnabled).toBe(true);
    for (const bucket of prodOf('AWS::S3::Bucket')) expect(bucket.DeletionPolicy).toBe('Retain');
  });

  it('retains the webhook signing-secrets key, after the longest pending window', () => {
    const keys = prodOf('AWS::KMS::Key');
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: { EnableKeyRotation: true, PendingWindowInDays: 30 },
    });
  });

  it('keeps logs three months and retains them', () => {
    const groups = ourLogGroups(prod).map(([, group]) => group);
    expect(groups.length).toBeGreaterThan(0);
    for (const group of groups) {
      expect(group.Properties?.RetentionInDays).toBe(90);
      expect(group.DeletionPolicy).toBe('Retain');
    }
  });
});

describe('every option on (customer-managed key, X-Ray, alarm e-mail, regions, retention)', () => {
  const regions = [
    { id: 'eu-west-1', api_url: 'https://eu.hushlink.test' },
    { id: 'us-east-1', api_url: 'https://us.hushlink.test' },
  ];
  const full = synth({
    stage: 'prod',
    'aws:cdk:bundling-stacks': [],
    customerManagedKey: 'true',
    xray: 'true',
    alarmEmail: 'ops@example.com',
    region: 'eu-west-1',
    regions: JSON.stringify(regions),
    logRetentionDays: '30',
    rateLimits: '{"secret_claim":{"perIp":{"limit":600}}}',
  }).template.toJSON().Resources as Record<string, Resource>;
  const fullOf = (type: string) => Object.entries(full).filter(([, r]) => r.Type === type);
  // The customer-managed key is the one the functions are not handed as WEBHOOK_KEY_ID.
  const signingKeyIds = new Set(
    taggedFunctions(full)
      .map(([, fn]) => referencedId(fn.Properties?.Environment?.Variables?.WEBHOOK_KEY_ID))
      .filter(Boolean),
  );
  const [[keyId, key] = []] = fullOf('AWS::KMS::Key').filter(([id]) => !signingKeyIds.has(id));
  const keyArn = { 'Fn::GetAtt': [keyId, 'Arn'] };

  it('has one rotating KMS key for the data besides the signing-secrets key, both kept with the prod data', () => {
    expect(signingKeyIds.size).toBe(1);
    expect(
      fullOf('AWS::KMS::Key')
        .map(([id]) => id)
        .sort(),
    ).toEqual([keyId, ...signingKeyIds].sort());
    for (const [id, k] of fullOf('AWS::KMS::Key')) {
      expect(k.Properties?.EnableKeyRotation, id).toBe(true);
      expect(k.DeletionPolicy, id).toBe('Retain');
    }
  });

  it('encrypts the table with it', () => {
    const [[, table] = []] = fullOf('AWS::DynamoDB::Table');
    expect(table?.Properties?.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: keyArn });
  });

  it('encrypts the files bucket with it (SSE-KMS with a bucket key); access logs stay SSE-S3', () => {
    const buckets = fullOf('AWS::S3::Bucket').map(([, b]) => b.Properties ?? {});
    const files = buckets.find((b) => b.CorsConfiguration);
    expect(files?.BucketEncryption?.ServerSideEncryptionConfiguration).toEqual([
      { BucketKeyEnabled: true, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: keyArn } },
    ]);
    const logs = buckets.find((b) => !b.CorsConfiguration);
    expect(logs?.BucketEncryption?.ServerSideEncryptionConfiguration).toEqual([
      { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
    ]);
  });

  it('encrypts both queues and the alarm topic with it, and lets CloudWatch publish to the topic', () => {
    for (const [id, queue] of fullOf('AWS::SQS::Queue')) expect(queue.Properties?.KmsMasterKeyId, id).toEqual(keyArn);
    const [[, topic] = []] = fullOf('AWS::SNS::Topic');
    expect(topic?.Properties?.KmsMasterKeyId).toEqual(keyArn);
    const statements = key?.Properties?.KeyPolicy?.Statement as any[];
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey'] }),
      ]),
    );
  });

  it('subscribes the alarm e-mail to the alarm topic', () => {
    const subscriptions = fullOf('AWS::SNS::Subscription').map(([, s]) => s.Properties ?? {});
    expect(subscriptions).toEqual([expect.objectContaining({ Protocol: 'email', Endpoint: 'ops@example.com' })]);
  });

  it('traces every function and hands them the region list and the settings', () => {
    const functions = taggedFunctions(full);
    expect(functions.length).toBe(groups.length + 3);
    for (const [id, fn] of functions) {
      expect(fn.Properties?.TracingConfig, id).toEqual({ Mode: 'Active' });
      const env = fn.Properties?.Environment?.Variables;
      expect(JSON.parse(env.REGIONS), id).toEqual(regions);
      expect(env.REGION, id).toEqual({ Ref: 'AWS::Region' });
      // The operator's rate limits, as the functions read them (shared/config.ts).
      expect(
        loadConfig({ TABLE_NAME: 't', WEB_ORIGIN: WEB_ORIGIN, HUSHLINK_RATE_LIMITS: env.HUSHLINK_RATE_LIMITS }).rateLimits.secret_claim,
        id,
      ).toEqual({
        perIp: { limit: 600, windowSeconds: 60 },
      });
    }
    for (const [id, group] of ourLogGroups(full)) expect(group.Properties?.RetentionInDays, id).toBe(30);
  });
});

describe('settings', () => {
  const settingsOf = (context: Record<string, unknown>) => readSettings(new App({ context: { ...testPrices, ...context } }).node);

  it('refuse to synthesize without your Stripe price ids, naming the context keys, and refuse the emulator’s', () => {
    const bare = (context: Record<string, unknown>) => () => readSettings(new App({ context }).node);
    expect(bare({})).toThrow(
      /context pricePro and priceTeamSeat must name your Stripe price ids.*-c pricePro=price_… -c priceTeamSeat=price_…/,
    );
    expect(bare({ pricePro: testPrices.pricePro })).toThrow(/^context priceTeamSeat must name/);
    expect(bare({ ...testPrices, pricePro: 'price_pro_monthly' })).toThrow(/pricePro is the local emulator's price id/);
    expect(bare({ ...testPrices, priceTeamSeat: 'price_team_seat_monthly' })).toThrow(/priceTeamSeat is the local emulator's price id/);
    expect(bare({ ...testPrices, pricePro: 'prod_123' })).toThrow(/pricePro must be a Stripe price id/);
    expect(settingsOf({}).prices).toEqual({ pro: testPrices.pricePro, teamSeat: testPrices.priceTeamSeat });
  });

  it('read booleans from -c strings and cdk.json booleans alike', () => {
    expect(settingsOf({ customerManagedKey: 'true', xray: true })).toMatchObject({ customerManagedKey: true, xray: true });
    expect(settingsOf({})).toMatchObject({
      customerManagedKey: false,
      xray: false,
      alarmEmail: undefined,
      regions: undefined,
      logRetentionDays: 14,
    });
    expect(settingsOf({ stage: 'prod' }).logRetentionDays).toBe(90);
    expect(settingsOf({ mailFrom: 'no-reply@mail.example.com', sesIdentity: 'example.com' }).sesIdentity).toBe('example.com');
    expect(settingsOf({}).rateLimits).toBeUndefined();
    expect(settingsOf({ rateLimits: { otp_start: { perIp: { limit: 100 } } } }).rateLimits).toEqual({
      otp_start: { perIp: { limit: 100 } },
    });
  });

  it.each([
    [{ xray: 'yes' }, /xray must be true or false/],
    [{ logRetentionDays: '10' }, /logRetentionDays must be one of/],
    [{ alarmEmail: 'ops' }, /alarmEmail must be an email address/],
    [{ regions: '[{"id":"eu-west-1"}]' }, /regions\[0\] must be exactly/],
    [{ regions: 'not json' }, /regions must be a JSON array/],
    [
      { region: 'eu-west-1', regions: '[{"id":"us-east-1","api_url":"https://us.example.com"}]' },
      /must include this deployment's region eu-west-1/,
    ],
    [{ mailFrom: 'a@b.example.com', sesIdentity: 'other.example.com' }, /sesIdentity must be mailFrom or its \(parent\) domain/],
    [{ stage: 'Prod' }, /stage must be lower-case/],
    [{ webOrigin: 'http://example.com' }, /webOrigin must use https/],
    [{ rateLimits: '{"secret_claim":{"perIp":{"limit":-1}}}' }, /context rateLimits\.secret_claim\.perIp\.limit: Too small/],
    [{ rateLimits: { claims: {} } }, /context rateLimits\.claims is not a known name/],
    [{ rateLimits: '{' }, /rateLimits must be a JSON object/],
  ])('refuse %j', (context, message) => {
    expect(() => settingsOf(context)).toThrow(message);
  });
});

describe('a route with a dedicated function', () => {
  // How the payment webhook will be served (its own function, permissions and concurrency); no
  // such route is in the table yet, so any route stands in for it here.
  const defaults = { environment: {}, logRetentionDays: 14, retainLogs: false, xray: false };
  const build = (dedicated: Record<string, string>) => {
    const scope = new Stack(new App({ context: { ...cdkContext, 'aws:cdk:bundling-stacks': [] } }), 'Dedicated');
    const api = new Api(scope, 'Api', { webOrigin: WEB_ORIGIN, ...defaults, dedicated });
    return { api, resources: Template.fromStack(scope).toJSON().Resources as Record<string, Resource> };
  };
  const row = routes.find((route) => route.group === 'account')!;

  it('is integrated with that function, the other routes with their groups', () => {
    // functions/schedule.ts is an entry that exists; the name only picks the file.
    const { api, resources: r } = build({ [routeKey(row)]: 'schedule' });
    const targetOf = (key: string) => {
      const [route] = Object.values(r).filter((x) => x.Type === 'AWS::ApiGatewayV2::Route' && x.Properties?.RouteKey === key);
      const integration = r[referencedId(route?.Properties?.Target?.['Fn::Join']?.[1]?.[1])!];
      return referencedId(integration?.Properties?.IntegrationUri);
    };
    const idOf = (fn: { node: { defaultChild?: unknown } }) => Stack.of(api).getLogicalId(fn.node.defaultChild as never);
    expect(targetOf(routeKey(row))).toBe(idOf(api.dedicatedFunctions.schedule!));
    const other = routes.find((route) => route.group === 'account' && route !== row)!;
    expect(targetOf(routeKey(other))).toBe(idOf(api.functions.account));
    expect(api.allFunctions()).toHaveLength(groups.length + 1);
  });

  it('must name a route of the table', () => {
    expect(() => build({ 'POST /v1/billing/nowhere': 'billing-webhook' })).toThrow(/not a route of shared\/routes.ts/);
  });
});
