import { App, Validations, type Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../lib/config.ts';
import { HushlinkStack } from '../../lib/stack.ts';
import { prepareWebAssets } from '../../lib/web.ts';
import { cdkContext } from './context.ts';

const webAssetsDir = await prepareWebAssets();

/**
 * cdk-nag's AwsSolutions pack over the whole stack, in the plain configuration and in the one
 * with every option on. Nothing may be left unacknowledged: a finding is either fixed in lib/ or
 * acknowledged there, on the resource it concerns, with a written reason (checked below).
 *
 * cdk-nag 3 runs as a CDK policy-validation plugin; `validateScope` is its entry point for tests
 * (the same rules, on a construct tree), and acknowledgments are CDK's own `Validations.of(x)
 * .acknowledge({ id, reason })`, which lib/ records without depending on cdk-nag.
 */

function build(context: Record<string, unknown>): HushlinkStack {
  // Bundling is what stack.test.ts checks; the rules only read the resources.
  const app = new App({ context: { ...cdkContext, 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new HushlinkStack(app, 'HushlinkNag', { settings: readSettings(app.node), webAssetsDir });
  app.synth();
  return stack;
}

type Violation = { ruleName: string; severity?: string; description: string; violatingResources: { constructPath?: string }[] };

function check(stack: Stack): Violation[] {
  return new AwsSolutionsChecks(undefined, { verbose: true }).validateScope(stack).violations as Violation[];
}

const describeViolation = (v: Violation) =>
  `${v.severity} ${v.ruleName} at ${v.violatingResources.map((r) => r.constructPath).join(', ')}: ${v.description}`;

/** Every acknowledgment recorded in the tree: rule id → reasons. */
function acknowledgments(scope: IConstruct): { path: string; id: string; reason: string }[] {
  const found: { path: string; id: string; reason: string }[] = [];
  for (const node of scope.node.findAll()) {
    for (const entry of node.node.metadata) {
      if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
      for (const [id, reason] of Object.entries(entry.data as Record<string, unknown>)) {
        found.push({ path: node.node.path, id: id.replace(/^annotation::/i, ''), reason: String(reason) });
      }
    }
  }
  return found;
}

const configurations = {
  'dev, defaults': { stage: 'dev' },
  'prod, customer-managed key, X-Ray, alarm email, regions': {
    stage: 'prod',
    customerManagedKey: 'true',
    xray: 'true',
    alarmEmail: 'ops@example.com',
    region: 'eu-west-1',
    regions: JSON.stringify([{ id: 'eu-west-1', api_url: 'https://eu.hushlink.test' }]),
  },
} as const;

describe.each(Object.entries(configurations))('AwsSolutions checks (%s)', (_name, context) => {
  const stack = build(context);
  const violations = check(stack);

  it('leaves no error unacknowledged', () => {
    const errors = violations.filter((v) => v.severity === 'error');
    expect(errors.map(describeViolation)).toEqual([]);
  });

  it('leaves no warning unacknowledged either', () => {
    // Reported so a new warning is seen; AwsSolutions has few warnings and none apply today.
    const warnings = violations.filter((v) => v.severity !== 'error');
    console.info(`cdk-nag AwsSolutions (${_name}): ${warnings.length} warning(s)`);
    expect(warnings.map(describeViolation)).toEqual([]);
  });

  it('acknowledges each rule with a written reason on the resource it concerns', () => {
    const acks = acknowledgments(stack).filter((ack) => ack.id.startsWith('AwsSolutions-'));
    expect(acks.length).toBeGreaterThan(0);
    for (const ack of acks) {
      expect(ack.reason.length, `${ack.id} at ${ack.path}`).toBeGreaterThanOrEqual(60);
      // Not on the stack as a blanket: on the construct the finding is about.
      expect(ack.path, ack.id).not.toBe(stack.node.path);
    }
  });
});

describe('acknowledgments', () => {
  const plain = acknowledgments(build(configurations['dev, defaults']));
  const full = acknowledgments(build(configurations['prod, customer-managed key, X-Ray, alarm email, regions']));
  const ids = (list: string[]) => [...new Set(list)].sort();

  // lib/web.ts: the distributions' (no geo restriction, no WAF ACL unless webAclId, no access
  // logs, no custom domain here so the *.cloudfront.net TLS policy, and the custom hostnames'
  // distribution has no certificate of its own), and CDK's BucketDeployment
  // handler (its runtime, its managed basic execution policy, its wildcard grants).
  const web = [
    'AwsSolutions-CFR1',
    'AwsSolutions-CFR2',
    'AwsSolutions-CFR3',
    'AwsSolutions-CFR4',
    'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
  ];
  /** The IAM5 ids under CDK's BucketDeployment handler, which name its policy's wildcards. */
  const isDeploymentIam5 = (ack: { path: string; id: string }) =>
    /\/Custom::CDKBucketDeployment[^/]*\//.test(ack.path) && ack.id.startsWith('AwsSolutions-IAM5[');
  const withoutDeploymentIam5 = (list: { path: string; id: string }[]) =>
    ids(list.filter((ack) => !isDeploymentIam5(ack)).map((ack) => ack.id));

  // lib/stack.ts: the schedule serves custom hostnames (issue 17). A tenant and a certificate are
  // made at run time (their ids cannot be named), and the calls that make them name none yet.
  const hostnames = [
    'AwsSolutions-IAM5[Resource::*]',
    'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:acm:us-east-1:<AWS::AccountId>:certificate/*]',
    'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:cloudfront::<AWS::AccountId>:distribution-tenant/*]',
  ];

  it('are exactly the findings there is no fix for', () => {
    // The files bucket's objects are named at run time, under files/ (the grant names that prefix).
    const files = 'AwsSolutions-IAM5[Resource::<DataFilesC1590605.Arn>/files/*]';
    expect(withoutDeploymentIam5(plain)).toEqual(
      ids(['AwsSolutions-APIG4', files, 'AwsSolutions-L1', 'AwsSolutions-SMG4', ...web, ...hostnames]),
    );
    // X-Ray's two actions need Resource "*" (on every role; the schedule's already had it).
    expect(withoutDeploymentIam5(full)).toEqual(
      ids(['AwsSolutions-APIG4', files, 'AwsSolutions-IAM5[Resource::*]', 'AwsSolutions-L1', 'AwsSolutions-SMG4', ...web, ...hostnames]),
    );
    const schedule = (list: { path: string; id: string }[]) =>
      list.filter((ack) => hostnames.slice(1).includes(ack.id)).map((ack) => ack.path);
    // On the schedule's role alone.
    for (const list of [plain, full]) expect([...new Set(schedule(list))]).toEqual([expect.stringMatching(/\/Jobs\/Schedule\/Role$/)]);
    for (const list of [plain, full]) expect(list.filter(isDeploymentIam5).length).toBeGreaterThan(0);
  });

  it('need nothing of their own for the webhook relay and worker, their mappings or the signing-secrets key, but the relay’s files/ grant', () => {
    // Relay and worker are HushlinkFunctions like the others: their runtime (L1) and, with
    // X-Ray on, the two X-Ray actions on Resource "*" (IAM5) are acknowledged there; the key
    // rotates (KMS5); the stream is read on its own ARN only, with no wildcard.
    const webhooks = (list: { path: string; id: string }[]) =>
      ids(list.filter((ack) => ack.path.includes('/Webhooks/')).map((ack) => ack.id));
    // The relay deletes ended files' objects (files/ of the files bucket: acknowledged where granted).
    const files = 'AwsSolutions-IAM5[Resource::<DataFilesC1590605.Arn>/files/*]';
    expect(webhooks(plain)).toEqual(ids([files, 'AwsSolutions-L1']));
    expect(webhooks(full)).toEqual(ids([files, 'AwsSolutions-IAM5[Resource::*]', 'AwsSolutions-L1']));
    for (const ack of [...plain, ...full].filter((a) => a.path.includes('/Webhooks/')))
      expect(ack.path).toMatch(/\/Webhooks\/(Worker|Relay)\/(Function|Role)$/);
  });

  it('do not hide a finding the rules would not report anyway', () => {
    // Each acknowledged id, removed, must come back as a violation: an acknowledgment for a
    // fixed finding is stale and is deleted rather than kept "just in case".
    for (const context of Object.values(configurations)) {
      const stack = build(context);
      const acked = new Set(acknowledgments(stack).map((ack) => ack.id));
      // The same pack with acknowledgments ignored (cdk-nag has no switch for it).
      const pack = new AwsSolutionsChecks(undefined, { verbose: false });
      (pack as unknown as { isAcknowledged: () => boolean }).isAcknowledged = () => false;
      const all = pack.validateScope(stack).violations as Violation[];
      const reported = new Set(all.map((v) => v.ruleName));
      for (const id of acked) expect(reported.has(id), `${id} is acknowledged but not reported`).toBe(true);
    }
  });
});
