import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/config.ts';
import { FUNCTION_TAG } from '../../lib/lambda.ts';
import { HushlinkStack } from '../../lib/stack.ts';
import { groups, routeKey, routes } from '../../shared/routes.ts';
import { schedules } from '../../shared/schedules.ts';
import { createTableInput, tableDefinition } from '../../shared/store/table.ts';

/**
 * The synthesized template is checked against the route table and the table definition, so
 * adding a route or an index needs no change here. Logical ids are never hard-coded: each
 * function is found by its `hushlink:function` tag and everything else by following references.
 */

type Resource = { Type: string; Properties?: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string };

const WEB_ORIGIN = 'https://app.hushlink.test';

/** The same feature flags `cdk synth` uses, so the test sees the template that gets deployed. */
const cdkContext = (JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> })
  .context;

function synth(context: Record<string, unknown>): Template {
  const app = new App({ context: { ...cdkContext, webOrigin: WEB_ORIGIN, ...context } });
  const stack = new HushlinkStack(app, 'HushlinkTest', { settings: readSettings(app.node) });
  return Template.fromStack(stack);
}

// Bundles every function with esbuild, as a deployment would, so a broken entry fails here.
const template = synth({ stage: 'dev' });
const resources = template.toJSON()['Resources'] as Record<string, Resource>;

const ofType = (type: string): [string, Resource][] => Object.entries(resources).filter(([, r]) => r.Type === type);
const props = (logicalId: string): Record<string, any> => resources[logicalId]?.Properties ?? {};
const tables = ofType('AWS::DynamoDB::Table');
const tableId = tables[0]?.[0];

/** `{ Ref: id }` → id, `{ 'Fn::GetAtt': [id, attr] }` → id. */
function referencedId(value: unknown): string | undefined {
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (typeof v['Ref'] === 'string') return v['Ref'];
    const getAtt = v['Fn::GetAtt'];
    if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  }
  return undefined;
}

/** Logical id of the Lambda whose `hushlink:function` tag is `name` (a group or a worker). */
const functionIds = new Map<string, string>();
for (const [id, fn] of ofType('AWS::Lambda::Function')) {
  const tags = (fn.Properties?.['Tags'] ?? []) as { Key: string; Value: string }[];
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

/** Logical id of the function a route's integration invokes. */
function routeTargetFunction(route: Resource): string | undefined {
  // Target is `integrations/<IntegrationId>`, rendered as a join of the literal and a Ref.
  const join = route.Properties?.['Target']?.['Fn::Join'] as [string, unknown[]] | undefined;
  expect(join?.[1]?.[0]).toBe('integrations/');
  const integrationId = referencedId(join?.[1]?.[1]);
  expect(integrationId, 'route target is not an integration of this stack').toBeDefined();
  const integration = resources[integrationId!];
  expect(integration?.Type).toBe('AWS::ApiGatewayV2::Integration');
  expect(integration?.Properties?.['IntegrationType']).toBe('AWS_PROXY');
  const uri = integration?.Properties?.['IntegrationUri'] as Record<string, unknown> | undefined;
  expect(uri?.['Fn::GetAtt'], 'IntegrationUri must be a function ARN').toEqual([expect.any(String), 'Arn']);
  return referencedId(uri);
}

describe('API', () => {
  const apiRoutes = ofType('AWS::ApiGatewayV2::Route').map(([, route]) => route);

  it('has one Lambda per group, tagged with the group name', () => {
    for (const group of groups) expect(functionIds.has(group), `function for group ${group}`).toBe(true);
  });

  it.each(routes.map((row) => [routeKey(row), row] as const))('routes %s to its group function', (key, row) => {
    const matching = apiRoutes.filter((route) => route.Properties?.['RouteKey'] === key);
    expect(matching).toHaveLength(1);
    expect(routeTargetFunction(matching[0]!)).toBe(functionId(row.group));
  });

  it('has no route beyond the route table', () => {
    const keys = apiRoutes.map((route) => route.Properties?.['RouteKey'] as string).sort();
    expect(keys).toEqual(routes.map(routeKey).sort());
  });

  it('lets API Gateway invoke each group function', () => {
    const invokers = ofType('AWS::Lambda::Permission')
      .map(([, permission]) => permission.Properties ?? {})
      .filter((permission) => permission['Principal'] === 'apigateway.amazonaws.com');
    for (const group of groups) {
      expect(invokers.some((p) => referencedId(p['FunctionName']) === functionId(group)), group).toBe(true);
    }
  });

  it('answers CORS preflight for the web origin only', () => {
    const [[, api] = []] = ofType('AWS::ApiGatewayV2::Api');
    const cors = api?.Properties?.['CorsConfiguration'];
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
});

describe('functions', () => {
  const functions = ofType('AWS::Lambda::Function');

  it('are exactly the groups plus the schedule worker', () => {
    expect([...functionIds.keys()].sort()).toEqual([...groups, 'schedule'].sort());
    expect(functions).toHaveLength(functionIds.size);
  });

  it.each(functions.map(([id]) => id))('%s runs nodejs22.x on arm64 with the service environment', (id) => {
    expect(props(id)).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      MemorySize: 512,
      Timeout: 10,
      Handler: 'index.handler',
    });
    const env = props(id)['Environment']?.['Variables'] ?? {};
    expect(env).toMatchObject({ HUSHLINK_MODE: 'aws', WEB_ORIGIN: WEB_ORIGIN, REGION: { Ref: 'AWS::Region' } });
    expect(referencedId(env['TABLE_NAME'])).toBe(tableId);
  });

  it('get no wildcard actions', () => {
    const roleIds = new Set(functions.map(([id]) => referencedId(props(id)['Role'])));
    const policies = ofType('AWS::IAM::Policy').filter(([, policy]) =>
      (policy.Properties?.['Roles'] ?? []).some((role: unknown) => roleIds.has(referencedId(role))),
    );
    expect(policies.length).toBeGreaterThan(0);
    for (const [, policy] of policies) {
      for (const statement of policy.Properties?.['PolicyDocument']?.['Statement'] ?? []) {
        const actions = [statement.Action].flat() as string[];
        for (const action of actions) {
          expect(action === '*' || action.endsWith(':*'), `wildcard action ${action}`).toBe(false);
        }
      }
    }
  });

  it('can each read and write the table', () => {
    for (const [id] of functions) {
      const roleId = referencedId(props(id)['Role']);
      const statements = ofType('AWS::IAM::Policy')
        .filter(([, policy]) => (policy.Properties?.['Roles'] ?? []).some((role: unknown) => referencedId(role) === roleId))
        .flatMap(([, policy]) => policy.Properties?.['PolicyDocument']?.['Statement'] ?? []);
      const grantsOnTable = statements.filter((statement: any) =>
        [statement.Resource].flat().some((resource: unknown) => referencedId(resource) === tableId),
      );
      const actions = grantsOnTable.flatMap((statement: any) => [statement.Action].flat());
      expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query']));
    }
  });
});

describe('schedule', () => {
  const rules = ofType('AWS::Events::Rule').map(([, rule]) => rule.Properties ?? {});
  const rulesFor = (task: string) => rules.filter((rule) => rule['Targets']?.some((target: any) => taskOf(target) === task));

  it('has one rule per row of shared/schedules.ts', () => {
    expect(rules).toHaveLength(schedules.length);
  });

  it.each(schedules.map((row) => [row.task, row] as const))('runs %s on its schedule', (task, row) => {
    const matching = rulesFor(task);
    expect(matching).toHaveLength(1);
    const rule = matching[0]!;
    // CDK writes whole hours as hours: rate(1 hour), rate(2 hours).
    const [amount, unit] = row.everyMinutes % 60 === 0 ? [row.everyMinutes / 60, 'hour'] : [row.everyMinutes, 'minute'];
    expect(rule['ScheduleExpression']).toBe(`rate(${amount} ${unit}${amount === 1 ? '' : 's'})`);
    expect(rule['State']).toBe('ENABLED');
    expect(rule['Targets']).toHaveLength(1);
    expect(referencedId(rule['Targets'][0].Arn)).toBe(functionId('schedule'));
  });

  it('sends the schedule worker a ScheduledEvent with task expire-secrets every minute', () => {
    const [rule, ...others] = rulesFor('expire-secrets');
    expect(others).toHaveLength(0);
    expect(rule?.['ScheduleExpression']).toBe('rate(1 minute)');
    const target = rule?.['Targets'][0];
    expect(referencedId(target.Arn)).toBe(functionId('schedule'));
    const event = eventOf(target);
    expect(event).toMatchObject({
      version: '0',
      'detail-type': 'Scheduled Event',
      source: 'hushlink.schedule',
      resources: [],
      detail: { task: 'expire-secrets' },
    });
    // id, time, region and account come from the real event, as in a ScheduledEvent.
    expect(target.InputTransformer.InputPathsMap).toMatchObject({
      [placeholder(event['id'])]: '$.id',
      [placeholder(event['time'])]: '$.time',
      [placeholder(event['region'])]: '$.region',
      [placeholder(event['account'])]: '$.account',
    });
  });

  it('lets EventBridge invoke the schedule worker', () => {
    const permissions = ofType('AWS::Lambda::Permission').map(([, p]) => p.Properties ?? {});
    expect(
      permissions.some((p) => p['Principal'] === 'events.amazonaws.com' && referencedId(p['FunctionName']) === functionId('schedule')),
    ).toBe(true);
  });

  /** The InputTransformer template with each `<name>` placeholder turned into the string `"<name>"`. */
  function eventOf(target: any): Record<string, any> {
    const inputTemplate = target.InputTransformer?.InputTemplate as string;
    return JSON.parse(inputTemplate.replace(/<([A-Za-z0-9_-]+)>/g, '"<$1>"')) as Record<string, any>;
  }
  function taskOf(target: any): unknown {
    return target.InputTransformer ? eventOf(target)['detail']?.task : undefined;
  }
  function placeholder(value: unknown): string {
    const match = /^<(.+)>$/.exec(String(value));
    if (!match) throw new Error(`expected a placeholder, got ${String(value)}`);
    return match[1]!;
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
    expect(table()['KeySchema']).toEqual(local.KeySchema);
    expect([...table()['AttributeDefinitions']].sort(byName)).toEqual([...local.AttributeDefinitions!].sort(byName));
  });

  it('has exactly the GSIs of tableDefinition, keys only', () => {
    const gsis = table()['GlobalSecondaryIndexes'] as { IndexName: string }[];
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
    expect(table()['DeletionProtectionEnabled']).toBe(false);
  });
});

describe('files bucket', () => {
  const buckets = ofType('AWS::S3::Bucket');
  const bucket = () => buckets[0]?.[1].Properties ?? {};

  it('is the only bucket', () => {
    expect(buckets).toHaveLength(1);
  });

  it('blocks all public access and encrypts with S3-managed keys', () => {
    expect(bucket()['PublicAccessBlockConfiguration']).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket()['BucketEncryption']?.ServerSideEncryptionConfiguration).toEqual([
      { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
    ]);
  });

  it('aborts incomplete multipart uploads after a day', () => {
    expect(bucket()['LifecycleConfiguration']?.Rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
      ]),
    );
  });

  it('accepts presigned PUTs from the web origin and exposes ETag', () => {
    expect(bucket()['CorsConfiguration']?.CorsRules).toEqual([
      expect.objectContaining({ AllowedOrigins: [WEB_ORIGIN], AllowedMethods: ['PUT'], ExposedHeaders: ['ETag'] }),
    ]);
  });

  it('refuses plain HTTP', () => {
    const [[, policy] = []] = ofType('AWS::S3::BucketPolicy');
    expect(referencedId(policy?.Properties?.['Bucket'])).toBe(buckets[0]?.[0]);
    expect(policy?.Properties?.['PolicyDocument']?.Statement).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ]),
    );
  });
});

describe('outputs', () => {
  it('publish the API URL, the table name and the bucket name', () => {
    const outputs = template.toJSON()['Outputs'] as Record<string, { Value: unknown }>;
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['ApiUrl', 'TableName', 'FilesBucketName']));
    expect(referencedId(outputs['TableName']?.Value)).toBe(tableId);
    expect(referencedId(outputs['FilesBucketName']?.Value)).toBe(ofType('AWS::S3::Bucket')[0]?.[0]);
  });
});

describe('prod stage', () => {
  // Only the removal settings differ; skipping bundling keeps this second synth fast.
  const prod = synth({ stage: 'prod', 'aws:cdk:bundling-stacks': [] }).toJSON()['Resources'] as Record<string, Resource>;
  const prodOf = (type: string) => Object.values(prod).filter((r) => r.Type === type);

  it('retains and protects the data', () => {
    const [table] = prodOf('AWS::DynamoDB::Table');
    expect(table?.DeletionPolicy).toBe('Retain');
    expect(table?.Properties?.['DeletionProtectionEnabled']).toBe(true);
    expect(prodOf('AWS::S3::Bucket')[0]?.DeletionPolicy).toBe('Retain');
  });
});
