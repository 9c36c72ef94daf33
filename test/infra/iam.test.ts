import { readdirSync, readFileSync } from 'node:fs';
import { App, Validations, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/config.ts';
import { FUNCTION_TAG } from '../../lib/lambda.ts';
import { fileAccess, HushlinkStack } from '../../lib/stack.ts';
import { prepareWebAssets } from '../../lib/web.ts';
import { groups } from '../../shared/routes.ts';
import type { SealingContext } from '../../shared/domain/webhooks/ports.ts';
import { cdkContext } from './context.ts';

const webAssetsDir = await prepareWebAssets();

/**
 * Least privilege, read off the synthesized template: for every function, the statements of its
 * role. The expected DynamoDB actions are written out here, independently of lib/stack.ts, from
 * the calls each function's code can reach (see the comment on `tableAccess` there), so widening
 * a grant is a visible change to this file.
 *
 * The checks apply to OUR roles: those of the functions tagged `hushlink:function` and the
 * EventBridge Scheduler role. CDK adds roles of its own for its custom resources (the web
 * client's BucketDeployment, the assets bucket's autoDeleteObjects on deletable stages); those
 * are only required to belong to those known constructs and, where cdk-nag reports them, to be
 * acknowledged (lib/web.ts; the findings themselves are checked by nag.test.ts).
 */

/** Logical id prefixes of the CDK constructs whose roles are not ours. */
const CDK_ROLE_PREFIXES = ['CustomCDKBucketDeployment', 'CustomS3AutoDeleteObjectsCustomResourceProvider'] as const;

type Resource = { Type: string; Properties?: Record<string, any> };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, any>; Principal?: unknown };

function synth(context: Record<string, unknown>): { stack: Stack; resources: Record<string, Resource> } {
  // Bundling is checked by stack.test.ts; policies do not depend on the bundle.
  const app = new App({ context: { ...cdkContext, 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new HushlinkStack(app, 'HushlinkIam', { settings: readSettings(app.node), webAssetsDir });
  return { stack, resources: Template.fromStack(stack).toJSON().Resources as Record<string, Resource> };
}

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

/** A resource as a comparable string: `<Id.Arn>` for a GetAtt, a Join flattened, literals as they are. */
function show(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Record<string, any>;
  if (v.Ref) return `<${v.Ref}>`;
  if (v['Fn::GetAtt']) return `<${v['Fn::GetAtt'][0]}.${v['Fn::GetAtt'][1]}>`;
  if (v['Fn::Join']) return (v['Fn::Join'][1] as unknown[]).map(show).join(v['Fn::Join'][0] as string);
  return JSON.stringify(value);
}

const actionsOf = (statement: Statement) => [statement.Action].flat();
const resourcesOf = (statement: Statement) => [statement.Resource].flat().map(show);

/** A condition block with every value shown as `show` does (tokens as `<Id>`, joins flattened). */
function showCondition(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(showCondition);
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (v.Ref || v['Fn::GetAtt'] || v['Fn::Join']) return show(value);
    return Object.fromEntries(Object.entries(v).map(([key, inner]) => [key, showCondition(inner)]));
  }
  return value;
}

/**
 * Every single permission the statements give on one service (`prefix`), one line per action,
 * resource and condition: `dynamodb:Query on <Table.Arn>/index/gsi1`, `kms:Decrypt on <Key.Arn>
 * if {...}`. CDK merges statements that share resources or actions
 * (`@aws-cdk/aws-iam:minimizePolicies`), so comparing statements would test CDK's merging;
 * comparing these lines tests what the role may do.
 */
function grantsOf(statements: Statement[], prefix: string): string[] {
  const lines = new Set<string>();
  for (const statement of statements) {
    for (const action of actionsOf(statement).filter((a) => a.startsWith(`${prefix}:`))) {
      expect(statement.Effect, action).toBe('Allow');
      for (const resource of resourcesOf(statement)) {
        lines.add(`${action} on ${resource}${statement.Condition ? ` if ${JSON.stringify(showCondition(statement.Condition))}` : ''}`);
      }
    }
  }
  return [...lines].sort();
}

/** `actions` × `resources`, each line with `condition` when given, sorted as grantsOf sorts. */
function lines(actions: readonly string[], resources: readonly string[], condition?: Record<string, unknown>): string[] {
  return actions.flatMap((action) =>
    resources.map((resource) => `${action} on ${resource}${condition ? ` if ${JSON.stringify(condition)}` : ''}`),
  );
}

const XRAY_ACTIONS = ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'];

interface Model {
  stack: Stack;
  resources: Record<string, Resource>;
  /** Roles of the tagged functions and the scheduler role. */
  ourRoleIds: Set<string>;
  /** Every other role: CDK's own custom-resource roles. */
  cdkRoleIds: string[];
  /** Policies attached to one of our roles. */
  ourPolicies(): [string, Resource][];
  ofType(type: string): [string, Resource][];
  /** Logical id of the Lambda tagged `hushlink:function=<name>`. */
  functionId(name: string): string;
  functionNames(): string[];
  /** Statements of every policy attached to a role, plus the role's inline policies. */
  statementsOfRole(roleId: string): Statement[];
  statementsOf(functionName: string): Statement[];
  tableArn: string;
  tableStreamArn: string;
  /** The work queue (the one with a redrive policy) and its dead-letter queue. */
  queueArn: string;
  deadLetterQueueArn: string;
  /** The key sealing webhook signing secrets: the one the functions get as WEBHOOK_KEY_ID. */
  signingKeyId: string;
  signingKeyArn: string;
  /** The customer-managed key (customerManagedKey=true): the one encrypting the table. */
  dataKeyArn: string | undefined;
  logGroupArnOf(functionName: string): string;
}

function model(context: Record<string, unknown>): Model {
  const { stack, resources } = synth(context);
  const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
  const byName = new Map<string, string>();
  for (const [id, fn] of ofType('AWS::Lambda::Function')) {
    const name = (fn.Properties?.Tags ?? []).find((tag: { Key: string }) => tag.Key === FUNCTION_TAG)?.Value;
    if (name) byName.set(name, id);
  }
  const functionId = (name: string) => {
    const id = byName.get(name);
    if (!id) throw new Error(`no function tagged ${name}`);
    return id;
  };
  const statementsOfRole = (roleId: string): Statement[] => [
    ...ofType('AWS::IAM::Policy')
      .filter(([, policy]) => (policy.Properties?.Roles ?? []).some((role: unknown) => referencedId(role) === roleId))
      .flatMap(([, policy]) => policy.Properties?.PolicyDocument?.Statement ?? []),
    ...(resources[roleId]?.Properties?.Policies ?? []).flatMap((policy: any) => policy.PolicyDocument?.Statement ?? []),
  ];
  const roleOf = (name: string) => referencedId(resources[functionId(name)]?.Properties?.Role)!;
  const [[tableId] = []] = ofType('AWS::DynamoDB::Table');
  const schedulerRoleIds = ofType('AWS::Scheduler::Schedule').map(([, s]) => referencedId(s.Properties?.Target?.RoleArn)!);
  const ourRoleIds = new Set([...[...byName.keys()].map(roleOf), ...schedulerRoleIds]);
  const cdkRoleIds = ofType('AWS::IAM::Role')
    .map(([id]) => id)
    .filter((id) => !ourRoleIds.has(id));
  const ourPolicies = () =>
    ofType('AWS::IAM::Policy').filter(([, policy]) =>
      (policy.Properties?.Roles ?? []).some((role: unknown) => ourRoleIds.has(referencedId(role)!)),
    );
  const [[queueId, queue] = []] = ofType('AWS::SQS::Queue').filter(([, q]) => q.Properties?.RedrivePolicy);
  const signingKeyIds = new Set(
    [...byName.values()].map((id) => referencedId(resources[id]?.Properties?.Environment?.Variables?.WEBHOOK_KEY_ID)).filter(Boolean),
  );
  if (signingKeyIds.size !== 1) throw new Error(`expected one WEBHOOK_KEY_ID key, got ${[...signingKeyIds].join(', ')}`);
  const dataKey = resources[tableId!]?.Properties?.SSESpecification?.KMSMasterKeyId;
  return {
    stack,
    resources,
    ourRoleIds,
    cdkRoleIds,
    ourPolicies,
    ofType,
    functionId,
    functionNames: () => [...byName.keys()].sort(),
    statementsOfRole,
    statementsOf: (name) => statementsOfRole(roleOf(name)),
    tableArn: `<${tableId}.Arn>`,
    tableStreamArn: `<${tableId}.StreamArn>`,
    queueArn: `<${queueId}.Arn>`,
    deadLetterQueueArn: show(queue?.Properties?.RedrivePolicy?.deadLetterTargetArn),
    signingKeyId: [...signingKeyIds][0]!,
    signingKeyArn: `<${[...signingKeyIds][0]}.Arn>`,
    dataKeyArn: dataKey ? show(dataKey) : undefined,
    logGroupArnOf: (name) => show(resources[functionId(name)]?.Properties?.LoggingConfig?.LogGroup).replace(/>$/, '.Arn>'),
  };
}

/**
 * What each function may do on the table: item actions on the table, Query where it queries.
 * webhooks: endpoints (a transaction of the count Update and a Put or Delete, Get, Query of the
 * owner's partition), the delivery log (Query), test deliveries (Put); relay: the owner's
 * endpoints (Query), deliveries (Put, Get when one exists), the owners' live usage (Put of
 * marks and Update of the counter, in a transaction); deliveries: attempts (Get, Update;
 * Get of the owner to mail a switch-off), chat notices (Get of the installation, Update to mark
 * it removed when Slack refused its token; Update of an event's mark to claim, give back, mark sent); schedule's webhook sweep: Query of gsi2 (due retries,
 * as for expiry); requests: links and responses (Put, Get, the count's Update), the owner's
 * listing (Query gsi1), the inbox (Query of the link's partition); a person's tier (secrets'
 * receipts, files' limits, account's usage and flags): Query gsi1 and BatchGet; workspaces: transactions
 * (Put, Update, Delete, and ConditionCheck of the actor's role), Get of its items, Query of a
 * workspace's roll and audit trail, the caller's memberships (Query gsi1, then BatchGet); scim:
 * the key's lookup and the workspace (Get), Users (Get, Query of the workspace's partition), a
 * new address's account and every change of a User (transactions of Put, Update, Delete, and a
 * ConditionCheck of the membership a User links to), Groups (issue 30: Get, Query of the partition,
 * Put of where a page ended, transactions with ConditionChecks of the policy's admin Group and of
 * members' roles; the workspaces function makes the same when an owner names the admin Group).
 */
const expectedTable = {
  secrets: {
    items: ['dynamodb:BatchGetItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    query: ['table', 'index/gsi1'],
  },
  gate: { items: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], query: [] },
  files: { items: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], query: ['index/gsi1'] },
  requests: { items: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], query: ['table', 'index/gsi1'] },
  account: {
    items: ['dynamodb:BatchGetItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    query: ['table', 'index/gsi1'],
  },
  webhooks: { items: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], query: ['table'] },
  workspaces: {
    items: [
      'dynamodb:BatchGetItem',
      'dynamodb:ConditionCheckItem',
      'dynamodb:DeleteItem',
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
    ],
    query: ['table', 'index/gsi1'],
  },
  billing: { items: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], query: ['index/gsi1'] },
  billingWebhook: { items: ['dynamodb:ConditionCheckItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], query: [] },
  scim: {
    items: ['dynamodb:ConditionCheckItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    // gsi1: a deactivated User's sessions (the listing), to end those this workspace's SSO opened.
    query: ['table', 'index/gsi1'],
  },
  chat: { items: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], query: ['table'] },
  openapi: { items: [], query: [] },
  schedule: {
    items: ['dynamodb:BatchGetItem', 'dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    // gsi1: the owner's tier when a large upload's completion is held to their plan.
    query: ['table', 'index/gsi1', 'index/gsi2'],
  },
  relay: { items: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], query: ['table'] },
  deliveries: { items: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], query: [] },
} as const;
type Name = keyof typeof expectedTable;
const names = Object.keys(expectedTable) as Name[];

/** The table's stream: read by the relay's event source mapping alone. */
const streamReaders: readonly Name[] = ['relay'];

/**
 * What each function may do on the work queue. The relay queues first attempts (test
 * deliveries' too), schedule's webhook sweep far retries, and deliveries its own retries. Only
 * deliveries consumes, through its event source mapping: the three actions AWS lists for a
 * Lambda poller, no GetQueueUrl (the functions get QUEUE_URL) and no ChangeMessageVisibility
 * (nothing calls it). The secrets and webhooks functions write to the table only.
 */
const expectedQueue: Record<Name, readonly string[]> = {
  secrets: [],
  gate: [],
  files: [],
  requests: [],
  account: [],
  openapi: [],
  webhooks: [],
  workspaces: [],
  billing: [],
  billingWebhook: ['sqs:SendMessage'],
  scim: [],
  chat: [],
  schedule: ['sqs:SendMessage'],
  relay: ['sqs:SendMessage'],
  deliveries: ['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage', 'sqs:SendMessage'],
};

/** The relay's stream mapping sends what it gives up on to the dead letters (a description, not records). */
const deadLetterSenders: readonly Name[] = ['relay'];

/** Sign-in codes (account); gate codes (gate); the owner's notice that an endpoint was switched off (deliveries); invitations and notices (workspaces). */
const mailers: readonly Name[] = ['account', 'gate', 'deliveries', 'workspaces', 'billing'];

/** The payment provider's secret key and webhook signing secret: read by the billing webhook alone. */
const paymentSecretReaders: readonly Name[] = ['billing', 'billingWebhook'];

/**
 * The one function that serves verified custom hostnames (issue 17) as CloudFront distribution
 * tenants: it makes them with a managed certificate, attaches it, disables and deletes them. Only
 * it may touch tenants or ACM; a tenant about to be made and a certificate about to be requested
 * have no ARN yet, so those two actions are on "*"; every other one names this account's tenants
 * or its us-east-1 certificates.
 */
const hostnameServers: readonly Name[] = ['schedule'];
const TENANTS = 'arn:<AWS::Partition>:cloudfront::<AWS::AccountId>:distribution-tenant/*';
const CERTIFICATES = 'arn:<AWS::Partition>:acm:us-east-1:<AWS::AccountId>:certificate/*';
const HOSTNAME_ACTIONS_ON_ANY = ['acm:RequestCertificate', 'cloudfront:CreateDistributionTenant'];
const hostnameGrants = [
  ...lines(HOSTNAME_ACTIONS_ON_ANY, ['*']),
  ...lines(
    [
      'cloudfront:DeleteDistributionTenant',
      'cloudfront:GetDistributionTenant',
      'cloudfront:GetManagedCertificateDetails',
      'cloudfront:UpdateDistributionTenant',
    ],
    [TENANTS],
  ),
  ...lines(['acm:AddTagsToCertificate', 'acm:DeleteCertificate', 'acm:DescribeCertificate'], [CERTIFICATES]),
].sort();

/**
 * The sealing key: webhooks seals a new endpoint's secret, deliveries opens it to sign; chat
 * seals a team's bot token, and deliveries opens it, in its own context, to send a chat notice
 * (and seals a rotating one it renewed); workspaces seals a workspace's SSO client secret, in its
 * own context (`sso_workspace`), and never opens one; account opens it to sign someone in through
 * the workspace's provider.
 */
const expectedSigningKey: Record<Name, readonly string[]> = {
  secrets: [],
  gate: [],
  files: [],
  requests: [],
  account: ['kms:Decrypt'],
  openapi: [],
  webhooks: ['kms:Encrypt'],
  workspaces: ['kms:Encrypt'],
  billing: [],
  billingWebhook: [],
  scim: [],
  chat: ['kms:Encrypt'],
  schedule: [],
  relay: [],
  deliveries: ['kms:Decrypt'],
};
/** The encryption context every use of the sealing key must carry, and nothing else: its kind's name (chat's is `chat_team`, SSO clients' `sso_workspace`). */
const sealingContext = (kind: SealingContext) => ({
  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [kind] },
  Null: { [`kms:EncryptionContext:${kind}`]: 'false' },
});
const contextOf = (name: Name) =>
  sealingContext(name === 'chat' ? 'chat_team' : name === 'workspaces' || name === 'account' ? 'sso_workspace' : 'webhook_endpoint');

/** The chat app's client and signing secrets: read by the chat function, and by the worker to renew rotating bot tokens (Slack takes the client credentials with the refresh token). */
const chatSecretReaders: readonly Name[] = ['chat', 'deliveries'];

const configurations = {
  plain: { stage: 'dev' },
  everything: { stage: 'prod', customerManagedKey: 'true', xray: 'true', alarmEmail: 'ops@example.com' },
} as const;

describe.each(Object.entries(configurations))('IAM (%s)', (configuration, context) => {
  const m = model(context);
  const xray = configuration === 'everything';
  const cmk = configuration === 'everything';

  it('covers every function of the stack', () => {
    expect(m.functionNames()).toEqual([...names].sort());
    expect([...groups, 'schedule', 'deliveries', 'relay'].sort()).toEqual([...names].sort());
  });

  it('tells the two keys apart: the signing-secrets key, and the customer-managed key only when asked for', () => {
    expect(
      m
        .ofType('AWS::KMS::Key')
        .map(([id]) => `<${id}.Arn>`)
        .sort(),
    ).toEqual([m.signingKeyArn, ...(cmk ? [m.dataKeyArn] : [])].sort());
    expect(m.dataKeyArn !== undefined).toBe(cmk);
    expect(m.dataKeyArn).not.toBe(m.signingKeyArn);
  });

  it('has a role for each function and the scheduler, and no other role but CDK custom-resource ones', () => {
    expect(m.ourRoleIds.size).toBe(names.length + 1);
    for (const id of m.ourRoleIds) expect(m.resources[id]?.Type, id).toBe('AWS::IAM::Role');
    for (const id of m.cdkRoleIds)
      expect(
        CDK_ROLE_PREFIXES.some((prefix) => id.startsWith(prefix)),
        `${id} is neither ours nor a known CDK custom resource's`,
      ).toBe(true);
    // Every policy is attached to a role of one kind or the other.
    for (const [id, policy] of m.ofType('AWS::IAM::Policy')) {
      const roles = (policy.Properties?.Roles ?? []).map(referencedId);
      expect(roles.length, id).toBeGreaterThan(0);
      for (const role of roles) expect(m.ourRoleIds.has(role) || m.cdkRoleIds.includes(role), `${id} on ${role}`).toBe(true);
    }
  });

  it("acknowledges in cdk-nag the findings on CDK's BucketDeployment role", () => {
    const deploymentRoles = m.cdkRoleIds.filter((id) => id.startsWith('CustomCDKBucketDeployment'));
    expect(deploymentRoles).toHaveLength(1);
    const role = m.stack.node
      .findAll()
      .find((c) => c.node.defaultChild && m.stack.resolve((c.node.defaultChild as any).logicalId) === deploymentRoles[0]);
    expect(role, 'construct of the BucketDeployment role').toBeDefined();
    const acked = role!.node.metadata
      .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
      .flatMap((entry) => Object.keys(entry.data as Record<string, unknown>).map((id) => id.replace(/^annotation::/i, '')));
    expect(acked.some((id) => id.startsWith('AwsSolutions-IAM4['))).toBe(true);
    expect(acked.some((id) => id.startsWith('AwsSolutions-IAM5['))).toBe(true);
  });

  it('has no wildcard action in any policy of our roles', () => {
    for (const [id, policy] of [...m.ourPolicies(), ...m.ofType('AWS::IAM::Role').filter(([roleId]) => m.ourRoleIds.has(roleId))]) {
      const statements: Statement[] = [
        ...(policy.Properties?.PolicyDocument?.Statement ?? []),
        ...(policy.Properties?.Policies ?? []).flatMap((p: any) => p.PolicyDocument?.Statement ?? []),
      ];
      for (const statement of statements) {
        for (const action of actionsOf(statement)) expect(action, `${id}: ${action}`).not.toContain('*');
      }
    }
  });

  it('uses Resource "*" only for the X-Ray actions that require it, and only with xray on (and files/* only for the files bucket’s objects, and the hostname server’s two actions that name nothing yet)', () => {
    const [[bucketId] = []] = m.ofType('AWS::S3::Bucket').filter(([, bucket]) => bucket.Properties?.CorsConfiguration);
    const hostnameRoles = new Set(hostnameServers.map((name) => referencedId(m.resources[m.functionId(name)]?.Properties?.Role)));
    for (const [id, policy] of m.ourPolicies()) {
      const servesHostnames = (policy.Properties?.Roles ?? []).every((role: unknown) => hostnameRoles.has(referencedId(role)));
      for (const statement of (policy.Properties?.PolicyDocument?.Statement ?? []) as Statement[]) {
        const resources = resourcesOf(statement);
        if (resources.every((resource) => resource === `<${bucketId}.Arn>/files/*`)) {
          for (const action of actionsOf(statement)) expect(action, id).toMatch(/^s3:/);
          continue;
        }
        if (servesHostnames && resources.every((resource) => resource === TENANTS || resource === CERTIFICATES)) continue;
        if (resources.some((resource) => resource.includes('*'))) {
          expect(resources, id).toEqual(['*']);
          // CDK merges the statements on "*" of one role (minimizePolicies): X-Ray's with the hostname server's.
          const allowed = [...(xray ? XRAY_ACTIONS : []), ...(servesHostnames ? HOSTNAME_ACTIONS_ON_ANY : [])];
          for (const action of actionsOf(statement)) expect(allowed, `${id}: ${action} on "*"`).toContain(action);
        }
      }
    }
  });

  it('attaches no AWS managed policy to our roles', () => {
    for (const [id, role] of m.ofType('AWS::IAM::Role').filter(([roleId]) => m.ourRoleIds.has(roleId)))
      expect(role.Properties?.ManagedPolicyArns, id).toBeUndefined();
  });

  it.each(names)(
    '%s may do exactly its DynamoDB actions, on the table and the indexes it queries (and the stream, for its reader)',
    (name) => {
      const { items, query } = expectedTable[name];
      const where = query.map((at) => (at === 'table' ? m.tableArn : `${m.tableArn}/${at}`));
      const stream = streamReaders.includes(name)
        ? lines(['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'], [m.tableStreamArn])
        : [];
      expect(grantsOf(m.statementsOf(name), 'dynamodb')).toEqual(
        [...lines(items, [m.tableArn]), ...lines(['dynamodb:Query'], where), ...stream].sort(),
      );
    },
  );

  it.each(names)('%s writes only to its own log group', (name) => {
    const logs = m.statementsOf(name).filter((s) => actionsOf(s).some((a) => a.startsWith('logs:')));
    expect(logs).toHaveLength(1);
    expect(actionsOf(logs[0]!).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    expect(resourcesOf(logs[0]!)).toEqual([m.logGroupArnOf(name)]);
  });

  it.each(names)(
    "%s may use no service but logs, DynamoDB (when it has table access), SES to mail, SQS on the work queue, S3 on the files bucket, the payment provider's secret, CloudFront tenants and ACM to serve hostnames, KMS and X-Ray when turned on",
    (name) => {
      const services = new Set(
        m
          .statementsOf(name)
          .flatMap(actionsOf)
          .map((action) => action.split(':')[0]),
      );
      const table = expectedTable[name].items.length + expectedTable[name].query.length > 0;
      const expected = new Set([
        'logs',
        ...(table ? ['dynamodb'] : []),
        ...(mailers.includes(name) ? ['ses'] : []),
        ...(expectedQueue[name].length > 0 ? ['sqs'] : []),
        ...(fileAccess[name].length > 0 ? ['s3'] : []),
        ...(paymentSecretReaders.includes(name) || chatSecretReaders.includes(name) ? ['secretsmanager'] : []),
        ...(hostnameServers.includes(name) ? ['cloudfront', 'acm'] : []),
        ...((cmk && table) || expectedSigningKey[name].length > 0 ? ['kms'] : []),
        ...(xray ? ['xray'] : []),
      ]);
      expect([...services].sort()).toEqual([...expected].sort());
    },
  );

  it.each(names)(
    '%s manages distribution tenants and their certificates only if it serves custom hostnames, on this account’s tenants and certificates',
    (name) => {
      const grants = [...grantsOf(m.statementsOf(name), 'cloudfront'), ...grantsOf(m.statementsOf(name), 'acm')].sort();
      expect(grants).toEqual(hostnameServers.includes(name) ? hostnameGrants : []);
    },
  );

  it('lets no role change or invalidate a distribution but CDK’s BucketDeployment (the main distribution’s invalidation), and no role of ours any other CloudFront or ACM action', () => {
    const deploymentRoles = m.cdkRoleIds.filter((id) => id.startsWith('CustomCDKBucketDeployment'));
    const hostnameRoles = new Set(hostnameServers.map((name) => referencedId(m.resources[m.functionId(name)]?.Properties?.Role)));
    for (const [id, policy] of m.ofType('AWS::IAM::Policy')) {
      const roles = (policy.Properties?.Roles ?? []).map(referencedId) as string[];
      for (const statement of (policy.Properties?.PolicyDocument?.Statement ?? []) as Statement[]) {
        for (const action of actionsOf(statement).filter((a) => /^(cloudfront|acm):/.test(a))) {
          if (/^cloudfront:(UpdateDistribution|CreateInvalidation|GetInvalidation)$/.test(action)) {
            expect(
              roles.every((role) => deploymentRoles.includes(role)),
              `${id}: ${action}`,
            ).toBe(true);
            continue;
          }
          expect(
            roles.every((role) => hostnameRoles.has(role)),
            `${id}: ${action}`,
          ).toBe(true);
        }
      }
    }
  });

  it.each([
    ['the billing functions', "the payment provider's", 'PaymentProviderSecrets', paymentSecretReaders],
    ['the chat function', "the chat app's", 'ChatAppSecrets', chatSecretReaders],
  ] as const)('lets only %s read %s secret: GetSecretValue and DescribeSecret on that secret alone', (_, __, prefix, readers) => {
    const [[secretId] = []] = m.ofType('AWS::SecretsManager::Secret').filter(([id]) => id.startsWith(prefix));
    for (const name of names) {
      const statements = m
        .statementsOf(name)
        .filter(
          (statement) =>
            actionsOf(statement).some((action) => action.startsWith('secretsmanager:')) && resourcesOf(statement).includes(`<${secretId}>`),
        );
      if (!readers.includes(name)) {
        expect(statements, name).toEqual([]);
        continue;
      }
      expect(statements).toHaveLength(1);
      expect(actionsOf(statements[0]!)).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue']);
      expect(resourcesOf(statements[0]!)).toEqual([`<${secretId}>`]);
    }
  });

  it('lets a function reach no secret in Secrets Manager but the ones it reads', () => {
    for (const name of names) {
      const statements = m
        .statementsOf(name)
        .filter((statement) => actionsOf(statement).some((action) => action.startsWith('secretsmanager:')));
      expect(statements.length, name).toBe(Number(paymentSecretReaders.includes(name)) + Number(chatSecretReaders.includes(name)));
    }
  });

  it('lets only the account, gate and deliveries functions send mail, from the configured identity and sender', () => {
    const settings = readSettings(new App({ context: { ...cdkContext, ...context } }).node);
    for (const name of names) {
      const ses = m.statementsOf(name).filter((s) => actionsOf(s).some((a) => a.startsWith('ses:')));
      if (!mailers.includes(name)) {
        expect(ses, name).toEqual([]);
        continue;
      }
      expect(ses).toHaveLength(1);
      expect(actionsOf(ses[0]!)).toEqual(['ses:SendEmail']);
      expect(resourcesOf(ses[0]!)).toHaveLength(1);
      expect(resourcesOf(ses[0]!)[0]).toMatch(new RegExp(`:ses:.*:identity/${settings.sesIdentity.replace(/\./g, '\\.')}$`));
      expect(ses[0]!.Condition).toEqual({ StringEquals: { 'ses:FromAddress': settings.mailFrom } });
    }
  });

  it.each(names)('%s may do exactly its actions on the work queue, and on the dead-letter queue only send (the relay)', (name) => {
    // SendMessage for the producers; the poller's three actions for deliveries alone. No
    // condition: the queue policy already refuses plain HTTP.
    expect(grantsOf(m.statementsOf(name), 'sqs')).toEqual(
      [
        ...lines(expectedQueue[name], [m.queueArn]),
        ...(deadLetterSenders.includes(name) ? lines(['sqs:SendMessage'], [m.deadLetterQueueArn]) : []),
      ].sort(),
    );
  });

  it("gives no role of ours more than the relay's SendMessage on the dead-letter queue (it is redriven by hand)", () => {
    const relayRole = referencedId(m.resources[m.functionId('relay')]?.Properties?.Role);
    for (const [id, policy] of m.ourPolicies()) {
      for (const statement of (policy.Properties?.PolicyDocument?.Statement ?? []) as Statement[]) {
        if (!resourcesOf(statement).includes(m.deadLetterQueueArn)) continue;
        expect((policy.Properties?.Roles ?? []).map(referencedId), id).toEqual([relayRole]);
        expect(actionsOf(statement), id).toEqual(['sqs:SendMessage']);
      }
    }
  });

  it.each(names)('%s may do exactly its actions on the files bucket, on its files/ objects only', (name) => {
    const [[bucketId] = []] = m.ofType('AWS::S3::Bucket').filter(([, bucket]) => bucket.Properties?.CorsConfiguration);
    const objects = `<${bucketId}.Arn>/files/*`;
    expect(grantsOf(m.statementsOf(name), 's3')).toEqual(
      lines(
        fileAccess[name].map((action) => `s3:${action}`),
        [objects],
      ).sort(),
    );
  });

  it.each(names)(
    '%s uses KMS exactly as it must: the signing key for its one action in the webhook context, the data key only through DynamoDB and SQS',
    (name) => {
      const viaService = (service: string) => ({ StringEquals: { 'kms:ViaService': `${service}.<AWS::Region>.amazonaws.com` } });
      const expected = [
        ...lines(expectedSigningKey[name], [m.signingKeyArn], contextOf(name)),
        // Opens bot tokens to send DMs, and seals rotating ones it renews.
        ...(name === 'deliveries' ? lines(['kms:Decrypt'], [m.signingKeyArn], sealingContext('chat_team')) : []),
        ...(name === 'deliveries' ? lines(['kms:Encrypt'], [m.signingKeyArn], sealingContext('chat_team')) : []),
        // Every function with table access writes to it, so DynamoDB may generate and encrypt data keys.
        ...(cmk && expectedTable[name].items.length > 0
          ? lines(['kms:Decrypt', 'kms:DescribeKey', 'kms:Encrypt', 'kms:GenerateDataKey'], [m.dataKeyArn!], viaService('dynamodb'))
          : []),
        // Sending to an encrypted queue needs a data key; receiving from it, Decrypt.
        ...(cmk && (expectedQueue[name].includes('sqs:SendMessage') || deadLetterSenders.includes(name))
          ? lines(['kms:Decrypt', 'kms:GenerateDataKey'], [m.dataKeyArn!], viaService('sqs'))
          : []),
        ...(cmk && expectedQueue[name].includes('sqs:ReceiveMessage') ? lines(['kms:Decrypt'], [m.dataKeyArn!], viaService('sqs')) : []),
        // The files bucket is encrypted with it too: reading an object needs Decrypt, writing a data key.
        ...(cmk && fileAccess[name].length > 0
          ? lines(
              ['kms:Decrypt', 'kms:DescribeKey', ...(fileAccess[name].includes('PutObject') ? ['kms:Encrypt', 'kms:GenerateDataKey'] : [])],
              [m.dataKeyArn!],
              viaService('s3'),
            )
          : []),
      ];
      expect(grantsOf(m.statementsOf(name), 'kms')).toEqual([...new Set(expected)].sort());
    },
  );

  it('names the sealing key in no policy but the webhooks, deliveries, chat, workspaces and account roles, and in its key policy only the account', () => {
    const allowed = new Set(
      [m.functionId('webhooks'), m.functionId('deliveries'), m.functionId('chat'), m.functionId('workspaces'), m.functionId('account')].map(
        (id) => referencedId(m.resources[id]?.Properties?.Role),
      ),
    );
    for (const [id, policy] of m.ofType('AWS::IAM::Policy')) {
      if (!JSON.stringify(policy.Properties?.PolicyDocument).includes(JSON.stringify(m.signingKeyId))) continue;
      const roles = (policy.Properties?.Roles ?? []).map(referencedId);
      expect(roles.length, id).toBe(1);
      expect(allowed.has(roles[0]), `${id} names the signing key`).toBe(true);
    }
    // No grant through the key policy: the account root statement CDK always writes, nothing else.
    expect(m.resources[m.signingKeyId]?.Properties?.KeyPolicy?.Statement).toEqual([
      {
        Action: 'kms:*',
        Effect: 'Allow',
        Principal: { AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::', { Ref: 'AWS::AccountId' }, ':root']] } },
        Resource: '*',
      },
    ]);
  });

  it('traces with X-Ray only when turned on', () => {
    for (const name of names) {
      const traced = m.statementsOf(name).filter((s) => actionsOf(s).some((a) => a.startsWith('xray:')));
      expect(traced.length > 0, name).toBe(xray);
      expect(m.resources[m.functionId(name)]?.Properties?.TracingConfig?.Mode ?? 'PassThrough', name).toBe(xray ? 'Active' : 'PassThrough');
    }
  });

  it('lets EventBridge Scheduler, for this schedule group and account only, invoke the schedule function and nothing else', () => {
    const schedules = m.ofType('AWS::Scheduler::Schedule');
    const roleIds = new Set(schedules.map(([, s]) => referencedId(s.Properties?.Target?.RoleArn)));
    expect(roleIds.size).toBe(1);
    const [roleId] = [...roleIds] as [string];
    const statements = m.statementsOfRole(roleId);
    expect(statements).toEqual([
      { Effect: 'Allow', Action: 'lambda:InvokeFunction', Resource: { 'Fn::GetAtt': [m.functionId('schedule'), 'Arn'] } },
    ]);
    const trust = m.resources[roleId]?.Properties?.AssumeRolePolicyDocument?.Statement as Statement[];
    expect(trust).toHaveLength(1);
    expect(trust[0]).toMatchObject({ Effect: 'Allow', Action: 'sts:AssumeRole', Principal: { Service: 'scheduler.amazonaws.com' } });
    const [[groupId] = []] = m.ofType('AWS::Scheduler::ScheduleGroup');
    expect(trust[0]!.Condition).toEqual({
      StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' }, 'aws:SourceArn': { 'Fn::GetAtt': [groupId, 'Arn'] } },
    });
    // No resource policy on the function for EventBridge: the role is the only way in.
    const permissions = m
      .ofType('AWS::Lambda::Permission')
      .filter(([, p]) => referencedId(p.Properties?.FunctionName) === m.functionId('schedule'));
    expect(permissions).toEqual([]);
  });

  it('lets API Gateway invoke the group functions, from this API only', () => {
    const [[apiId] = []] = m.ofType('AWS::ApiGatewayV2::Api');
    for (const [id, permission] of m.ofType('AWS::Lambda::Permission')) {
      expect(permission.Properties?.Principal, id).toBe('apigateway.amazonaws.com');
      expect(permission.Properties?.Action, id).toBe('lambda:InvokeFunction');
      expect(show(permission.Properties?.SourceArn), id).toContain(`<${apiId}>`);
    }
  });
});

describe('the DynamoDB calls of the stores', () => {
  // Kinds of calls the grants above know how to authorize. A store that starts using another one
  // (Scan, BatchWrite, TransactGet…) fails here until a function is granted it and this list says
  // which IAM action it needs.
  const known: Record<string, string[]> = {
    GetCommand: ['dynamodb:GetItem'],
    PutCommand: ['dynamodb:PutItem'],
    UpdateCommand: ['dynamodb:UpdateItem'],
    DeleteCommand: ['dynamodb:DeleteItem'],
    QueryCommand: ['dynamodb:Query'],
    BatchGetCommand: ['dynamodb:BatchGetItem'],
    // Authorized item by item: Put, Update, Delete, and ConditionCheck where the store is allowed one (below).
    TransactWriteCommand: [],
  };
  // Every store file, in subfolders too (items/ holds the table's keys and shapes, and no call).
  const dir = new URL('../../shared/store/', import.meta.url);
  const sources = (readdirSync(dir, { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .map((file) => ({ file, text: readFileSync(new URL(file, dir), 'utf8') }));

  it('are all of a kind the grants cover', () => {
    for (const { file, text } of sources) {
      for (const [, command] of text.matchAll(/new (\w+Command)\(/g)) {
        expect(Object.keys(known), `${file} sends ${command}`).toContain(command);
      }
    }
  });

  it('put a ConditionCheck in a transaction only in the workspaces stores, the SCIM Groups store and the billing store, whose functions (workspaces, scim; the payment webhook) are granted dynamodb:ConditionCheckItem', () => {
    for (const { file, text } of sources)
      if (!file.startsWith('workspace') && file !== 'billing.ts' && file !== 'scimGroups.ts')
        expect(text, file).not.toMatch(/ConditionCheck\s*:/);
    expect(expectedTable.workspaces.items).toContain('dynamodb:ConditionCheckItem');
    expect(expectedTable.scim.items).toContain('dynamodb:ConditionCheckItem');
    expect(expectedTable.billingWebhook.items).toContain('dynamodb:ConditionCheckItem');
  });

  it('are each granted to some function', () => {
    const m = model(configurations.plain);
    const granted = new Set(names.flatMap((name) => m.statementsOf(name).flatMap(actionsOf)));
    for (const { file, text } of sources) {
      for (const [, command] of text.matchAll(/new (\w+Command)\(/g)) {
        for (const action of known[command!] ?? []) expect(granted.has(action), `${file}: ${action}`).toBe(true);
      }
    }
  });
});
