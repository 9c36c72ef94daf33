import { CloudFormationClient, DescribeStacksCommand, type Stack } from '@aws-sdk/client-cloudformation';
import { CloudFrontClient, ListDistributionTenantsCommand } from '@aws-sdk/client-cloudfront';
import { DescribeSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ListAWSDefaultServiceQuotasCommand, ListServiceQuotasCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import {
  GetAccountSendingEnabledCommand,
  GetIdentityVerificationAttributesCommand,
  GetSendQuotaCommand,
  SESClient,
} from '@aws-sdk/client-ses';
import { ListSubscriptionsByTopicCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkAlarmEmail } from '../../scripts/doctor/alarms.ts';
import { parseDoctorArgs } from '../../scripts/doctor/cli.ts';
import { checkTenantQuota } from '../../scripts/doctor/cloudfront.ts';
import { fail, guarded, ok, renderReport, warn, type Check } from '../../scripts/doctor/report.ts';
import { runDoctor, type DoctorClients } from '../../scripts/doctor/run.ts';
import { checkChatSecret, checkPaymentSecret } from '../../scripts/doctor/secrets.ts';
import { checkSesIdentity, checkSesSending } from '../../scripts/doctor/ses.ts';
import { doctorTarget, projectContext, type DoctorTarget } from '../../scripts/doctor/settings.ts';
import { checkStack, outputsOf } from '../../scripts/doctor/stack.ts';

// `npm run doctor` (scripts/doctor.ts, issue 28): each AWS check's ok, warn and fail against
// aws-sdk-client-mock, the command line, the settings and the report. The Stripe checks run
// against the Stripe emulator in test/integration/doctor-stripe.test.ts, with the whole command.

const cloudformation = mockClient(CloudFormationClient);
afterAll(() => cloudformation.restore());
const ses = mockClient(SESClient);
afterAll(() => ses.restore());
const sns = mockClient(SNSClient);
afterAll(() => sns.restore());
const secretsManager = mockClient(SecretsManagerClient);
afterAll(() => secretsManager.restore());
const cloudfront = mockClient(CloudFrontClient);
afterAll(() => cloudfront.restore());
const quotas = mockClient(ServiceQuotasClient);
afterAll(() => quotas.restore());
const all = [cloudformation, ses, sns, secretsManager, cloudfront, quotas];
beforeEach(() => {
  for (const mock of all) mock.reset();
});
afterEach(() => {
  for (const mock of all) mock.reset();
});

const region = 'eu-west-1';
const prices = { pricePro: 'price_1QTestProMonthly', priceTeamSeat: 'price_1QTestTeamSeat' };
const paymentArn = `arn:aws:secretsmanager:${region}:123456789012:secret:PaymentProviderSecrets-AbCdEf`;
const chatArn = `arn:aws:secretsmanager:${region}:123456789012:secret:ChatAppSecrets-AbCdEf`;
const topicArn = `arn:aws:sns:${region}:123456789012:Hushlink-prod-ObservabilityAlarms-X`;
const liveKey = `sk_live_${'a'.repeat(40)}`;
const webhookSecret = `whsec_${'b'.repeat(32)}`;
const slackSecret = 'c'.repeat(32);

function target(context: Record<string, string> = {}, stage = 'prod'): DoctorTarget {
  const made = doctorTarget({ stage, context: { ...prices, webOrigin: 'https://secrets.example.com', ...context }, region }, {}, {});
  if (!made.target) throw new Error(made.check.detail);
  return made.target;
}

const clients = (): DoctorClients => ({
  cloudformation: new CloudFormationClient({ region }),
  ses: new SESClient({ region }),
  sns: new SNSClient({ region }),
  secrets: new SecretsManagerClient({ region }),
  cloudfront: new CloudFrontClient({ region: 'us-east-1' }),
  quotas: new ServiceQuotasClient({ region: 'us-east-1' }),
  stripe: () => {
    throw new Error('no Stripe in the unit tests');
  },
});

const awsError = (name: string, message: string) => Object.assign(new Error(message), { name });

describe('the command line', () => {
  it('needs --stage, takes -c as cdk does (the value may hold =), and refuses what it cannot use', () => {
    expect(parseDoctorArgs(['--help'])).toEqual({ kind: 'help' });
    expect(parseDoctorArgs([])).toMatchObject({ kind: 'usage_error', message: expect.stringContaining('--stage is required') });
    expect(parseDoctorArgs(['--stage', 'prod', '-c', 'pricePro=price_1', '--context', 'rateLimits={"a":1}', '--region', region])).toEqual({
      kind: 'run',
      stage: 'prod',
      context: { pricePro: 'price_1', rateLimits: '{"a":1}' },
      region,
      tenantQuota: undefined,
      stripeApiUrl: undefined,
    });
    expect(parseDoctorArgs(['--stage', 'prod', '-c', 'pricePro'])).toMatchObject({
      kind: 'usage_error',
      message: '-c: "pricePro" is not key=value.',
    });
    expect(parseDoctorArgs(['--stage', 'prod', '-c', 'stage=dev'])).toMatchObject({ kind: 'usage_error' });
    expect(parseDoctorArgs(['--stage', 'prod', '--tenant-quota', '0'])).toMatchObject({ kind: 'usage_error' });
    expect(parseDoctorArgs(['--stage', 'prod', '--tenant-quota', '20000'])).toMatchObject({ kind: 'run', tenantQuota: 20_000 });
    expect(parseDoctorArgs(['--stage', 'prod', '--stripe-api-url', 'nope'])).toMatchObject({ kind: 'usage_error' });
    expect(parseDoctorArgs(['--stage', 'prod', '--bogus'])).toMatchObject({ kind: 'usage_error' });
  });
});

describe('the settings', () => {
  it("are lib/config.ts's, from cdk.json's context, then -c: a context a synth refuses is a fail naming the key", () => {
    expect(projectContext(new URL('../..', import.meta.url).pathname)).toMatchObject({ '@aws-cdk/core:checkSecretUsage': true });
    const refused = doctorTarget({ stage: 'prod', context: {}, region }, {}, {});
    expect(refused.target).toBeNull();
    expect(refused.check).toMatchObject({ name: 'config', status: 'fail', detail: expect.stringContaining('pricePro and priceTeamSeat') });
    const made = doctorTarget(
      { stage: 'prod', context: { ...prices, alarmEmail: 'ops@example.com' }, region: undefined },
      { webOrigin: 'https://s.example.com' },
      {
        AWS_REGION: 'eu-central-1',
      },
    );
    expect(made.target).toMatchObject({ stackName: 'Hushlink-prod', region: 'eu-central-1' });
    expect(made.target!.settings).toMatchObject({
      stage: 'prod',
      webOrigin: 'https://s.example.com',
      alarmEmail: 'ops@example.com',
      sesIdentity: 's.example.com',
    });
    expect(made.check.status).toBe('ok');
  });

  it('need a region: --region, then context region, then AWS_REGION, then AWS_DEFAULT_REGION', () => {
    const run = { stage: 'dev', context: prices };
    expect(doctorTarget({ ...run, region: undefined }, {}, {}).check).toMatchObject({
      status: 'fail',
      detail: 'no region for Hushlink-dev',
    });
    expect(doctorTarget({ ...run, region: undefined }, {}, { AWS_DEFAULT_REGION: 'us-west-2' }).target?.region).toBe('us-west-2');
    expect(doctorTarget({ ...run, region: undefined }, { region: 'ap-south-1' }, { AWS_REGION: 'us-west-2' }).target?.region).toBe(
      'ap-south-1',
    );
    expect(doctorTarget({ ...run, region: 'eu-north-1' }, { region: 'ap-south-1' }, {}).target?.region).toBe('eu-north-1');
  });
});

describe('the report', () => {
  it('prints a line per check, an arrow with what to do under a warn or a fail, a count, and exits 1 only on a fail', () => {
    const checks: Check[] = [
      ok('stack', 'fine'),
      warn('alarm email', 'pending', 'confirm it'),
      fail('ses identity', 'not verified', 'verify it'),
    ];
    const { text, status } = renderReport(checks);
    expect(text).toBe(
      [
        'ok    stack         fine',
        'warn  alarm email   pending',
        '      → confirm it',
        'fail  ses identity  not verified',
        '      → verify it',
        '',
        '1 ok, 1 warn, 1 fail',
        '',
      ].join('\n'),
    );
    expect(status).toBe(1);
    expect(renderReport([ok('a', 'b'), warn('c', 'd', 'e')]).status).toBe(0);
  });

  it('blanks every secret value wherever it appears, error messages included', () => {
    const { text } = renderReport([fail('x', `could not check: ${liveKey} refused`, `put ${webhookSecret}`)], [liveKey, webhookSecret]);
    expect(text).not.toContain(liveKey);
    expect(text).not.toContain(webhookSecret);
    expect(text).toContain('could not check: [secret] refused');
  });

  it('turns a check that throws into a fail that says it could not check, and what permission to give', async () => {
    const [check] = await guarded('ses identity', 'allow ses:GetSendQuota', async () => {
      throw awsError('AccessDenied', 'User is not authorized to perform: ses:GetSendQuota\nmore');
    });
    expect(check).toEqual(
      fail('ses identity', 'could not check: AccessDenied: User is not authorized to perform: ses:GetSendQuota', 'allow ses:GetSendQuota'),
    );
  });
});

const stackOf = (status: string, outputs: Record<string, string> = {}): Stack => ({
  StackName: 'Hushlink-prod',
  StackStatus: status as Stack['StackStatus'],
  CreationTime: new Date('2026-11-01T10:00:00Z'),
  LastUpdatedTime: new Date('2026-11-20T09:30:00Z'),
  Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
});
const deployedOutputs = {
  PaymentProviderSecretsArn: paymentArn,
  ChatAppSecretsArn: chatArn,
  AlarmTopicArn: topicArn,
  WebWebUrl3F1C2A11: 'https://d111111abcdef8.cloudfront.net',
  WebCustomHostnameTarget9E8B7A66: 'd222222abcdef8.cloudfront.net',
  TableName: 'Hushlink-prod-DataTable',
};

describe('the stack (cloudformation:DescribeStacks)', () => {
  it('ok when complete, with its outputs: the top-level ones by key, the web URL by prefix', async () => {
    cloudformation
      .on(DescribeStacksCommand, { StackName: 'Hushlink-prod' })
      .resolves({ Stacks: [stackOf('UPDATE_COMPLETE', deployedOutputs)] });
    const { check, outputs } = await checkStack(new CloudFormationClient({ region }), 'Hushlink-prod', region);
    expect(check).toEqual(ok('stack', 'Hushlink-prod UPDATE_COMPLETE (2026-11-20 09:30 UTC)'));
    expect(outputs).toEqual({
      paymentSecretsArn: paymentArn,
      chatSecretsArn: chatArn,
      alarmTopicArn: topicArn,
      webUrl: 'https://d111111abcdef8.cloudfront.net',
    });
  });

  it('fail when there is none, saying how to deploy it; nothing is read from it', async () => {
    cloudformation.on(DescribeStacksCommand).rejects(awsError('ValidationError', 'Stack with id Hushlink-prod does not exist'));
    const { check, outputs } = await checkStack(new CloudFormationClient({ region }), 'Hushlink-prod', region);
    expect(check).toMatchObject({
      status: 'fail',
      detail: `no stack Hushlink-prod in ${region}`,
      fix: expect.stringContaining('npx cdk deploy -c stage=prod'),
    });
    expect(outputs).toBeNull();
  });

  it('warn while a change is under way or after an update rolled back; fail when a first deploy rolled back or an operation failed', async () => {
    const status = async (stackStatus: string) => {
      cloudformation.reset();
      cloudformation.on(DescribeStacksCommand).resolves({ Stacks: [stackOf(stackStatus, deployedOutputs)] });
      return checkStack(new CloudFormationClient({ region }), 'Hushlink-prod', region);
    };
    expect((await status('UPDATE_IN_PROGRESS')).check.status).toBe('warn');
    expect((await status('UPDATE_ROLLBACK_COMPLETE')).check).toMatchObject({
      status: 'warn',
      fix: expect.stringContaining('describe-stack-events'),
    });
    const rolledBack = await status('ROLLBACK_COMPLETE');
    expect(rolledBack.check).toMatchObject({ status: 'fail', fix: expect.stringContaining('must be deleted') });
    expect(rolledBack.outputs).toBeNull();
    expect((await status('UPDATE_ROLLBACK_FAILED')).check.status).toBe('fail');
  });

  it('lets any other refusal through, for the report to say it could not check', async () => {
    cloudformation.on(DescribeStacksCommand).rejects(awsError('AccessDenied', 'not authorized to perform: cloudformation:DescribeStacks'));
    await expect(checkStack(new CloudFormationClient({ region }), 'Hushlink-prod', region)).rejects.toThrow('DescribeStacks');
    expect(outputsOf(stackOf('CREATE_COMPLETE'))).toEqual({
      paymentSecretsArn: undefined,
      chatSecretsArn: undefined,
      alarmTopicArn: undefined,
      webUrl: undefined,
    });
  });
});

describe('SES: the identity (ses:GetIdentityVerificationAttributes)', () => {
  const identity = (status?: string) =>
    ses.on(GetIdentityVerificationAttributesCommand, { Identities: ['secrets.example.com'] }).resolves({
      VerificationAttributes: status ? { 'secrets.example.com': { VerificationStatus: status as 'Success' } } : {},
    });

  it('ok when sesIdentity (mailFrom’s domain by default) is verified', async () => {
    identity('Success');
    expect(await checkSesIdentity(new SESClient({ region }), target().settings, region)).toEqual(
      ok('ses identity', `SES identity secrets.example.com (mailFrom no-reply@secrets.example.com) in ${region}: verified`),
    );
  });

  it('fail while pending, saying which record to publish; fail when failed or unknown, saying how to verify', async () => {
    identity('Pending');
    expect(await checkSesIdentity(new SESClient({ region }), target().settings, region)).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('verification pending'),
      fix: expect.stringContaining('_amazonses.secrets.example.com'),
    });
    ses.reset();
    identity('Failed');
    expect(await checkSesIdentity(new SESClient({ region }), target().settings, region)).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('failed'),
    });
    ses.reset();
    identity();
    expect(await checkSesIdentity(new SESClient({ region }), target().settings, region)).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('not an identity of this account and region'),
      fix: `aws ses verify-domain-identity --domain secrets.example.com --region ${region}, then publish the TXT record _amazonses.secrets.example.com it names (or verify it with Easy DKIM in the SES console)`,
    });
  });

  it('an address identity is verified by the link SES mails to it', async () => {
    const settings = target({ mailFrom: 'codes@secrets.example.com', sesIdentity: 'codes@secrets.example.com' }).settings;
    ses.on(GetIdentityVerificationAttributesCommand).resolves({
      VerificationAttributes: { 'codes@secrets.example.com': { VerificationStatus: 'Pending' } },
    });
    expect((await checkSesIdentity(new SESClient({ region }), settings, region)).fix).toContain(
      'open the verification link SES mailed to codes@secrets.example.com',
    );
  });
});

describe('SES: sending (ses:GetAccountSendingEnabled, ses:GetSendQuota)', () => {
  const account = (max: number, sent = 0, enabled = true) => {
    ses.on(GetAccountSendingEnabledCommand).resolves({ Enabled: enabled });
    ses.on(GetSendQuotaCommand).resolves({ Max24HourSend: max, MaxSendRate: max <= 200 ? 1 : 14, SentLast24Hours: sent });
  };

  it('ok out of the sandbox, with the day’s use', async () => {
    account(50_000, 120);
    expect(await checkSesSending(new SESClient({ region }), 'prod', region)).toEqual(
      ok('ses sending', `out of the sandbox in ${region}: 120 of 50,000 sent in the last 24 hours, 14 a second`),
    );
  });

  it('the sandbox (a quota of 200 a day) is a fail on prod and a warning elsewhere, with how to leave it', async () => {
    account(200);
    const prod = await checkSesSending(new SESClient({ region }), 'prod', region);
    expect(prod).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('in the SES sandbox'),
      fix: expect.stringContaining('Request production access'),
    });
    expect((await checkSesSending(new SESClient({ region }), 'dev', region)).status).toBe('warn');
  });

  it('warn at 80% of the day’s quota; fail when sending is paused', async () => {
    account(50_000, 45_000);
    expect((await checkSesSending(new SESClient({ region }), 'prod', region)).status).toBe('warn');
    ses.reset();
    account(50_000, 0, false);
    expect(await checkSesSending(new SESClient({ region }), 'prod', region)).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('sending is paused'),
    });
  });
});

describe('Secrets Manager: the payment secrets (DescribeSecret, GetSecretValue through the functions’ adapter)', () => {
  const stored = (value: string, described: Record<string, unknown> = {}) => {
    secretsManager
      .on(DescribeSecretCommand, { SecretId: paymentArn })
      .resolves({ ARN: paymentArn, LastChangedDate: new Date('2026-11-21T08:00:00Z'), ...described });
    secretsManager.on(GetSecretValueCommand, { SecretId: paymentArn }).resolves({ SecretString: value });
  };

  it('ok when it holds {secret_key, webhook_secret}, saying the mode, and hands the values to the Stripe checks', async () => {
    stored(JSON.stringify({ secret_key: liveKey, webhook_secret: webhookSecret }));
    const { check, stripe } = await checkPaymentSecret(new SecretsManagerClient({ region }), paymentArn, region);
    expect(check).toEqual(ok('payment secrets', 'PaymentProviderSecretsArn holds a live-mode key and a webhook secret (set 2026-11-21)'));
    expect(stripe).toMatchObject({ secretKey: liveKey, webhookSecret });
  });

  it('fail while it holds the random value made at deploy, with the command that sets it', async () => {
    stored('Xq8v2LrT0pZs9MkW4nYb7JcH1dGe5FaQ');
    const { check, stripe } = await checkPaymentSecret(new SecretsManagerClient({ region }), paymentArn, region);
    expect(check).toMatchObject({
      status: 'fail',
      detail: 'PaymentProviderSecretsArn is not {secret_key, webhook_secret}: it is not JSON: still the random value made at deploy',
      fix: expect.stringContaining(`aws secretsmanager put-secret-value --secret-id ${paymentArn}`),
    });
    expect(check.detail + check.fix).not.toContain('Xq8v2LrT');
    expect(stripe).toBeNull();
  });

  it('fail naming each wrong field, quoting none of the value', async () => {
    const publishable = `pk_live_${'d'.repeat(30)}`;
    stored(JSON.stringify({ secret_key: publishable }));
    const { check } = await checkPaymentSecret(new SecretsManagerClient({ region }), paymentArn, region);
    expect(check.detail).toBe(
      'PaymentProviderSecretsArn is not {secret_key, webhook_secret}: secret_key is not a secret or restricted key, sk_… or rk_…; webhook_secret is missing',
    );
    expect(JSON.stringify(check)).not.toContain(publishable);
  });

  it('fail when scheduled for deletion, saying how to restore it; a refused read is thrown (could not check)', async () => {
    stored('{}', { DeletedDate: new Date('2026-12-01T00:00:00Z') });
    expect((await checkPaymentSecret(new SecretsManagerClient({ region }), paymentArn, region)).check).toMatchObject({
      status: 'fail',
      detail: 'PaymentProviderSecretsArn is scheduled for deletion on 2026-12-01',
      fix: `restore it: aws secretsmanager restore-secret --secret-id ${paymentArn}`,
    });
    secretsManager.reset();
    secretsManager.on(DescribeSecretCommand).resolves({});
    secretsManager
      .on(GetSecretValueCommand)
      .rejects(awsError('AccessDeniedException', 'not authorized to perform: secretsmanager:GetSecretValue'));
    await expect(checkPaymentSecret(new SecretsManagerClient({ region }), paymentArn, region)).rejects.toThrow('GetSecretValue');
  });
});

describe('Secrets Manager: the Slack app’s secrets', () => {
  it('ok without a Slack app (no slackClientId), reading nothing', async () => {
    expect(await checkChatSecret(new SecretsManagerClient({ region }), chatArn, region, undefined)).toEqual(
      ok('slack secrets', 'no Slack app (no slackClientId): the chat routes answer 403 chat_not_configured'),
    );
    expect(secretsManager.calls()).toHaveLength(0);
  });

  it('ok when set for the app; fail when still the deploy’s value or malformed, naming the field', async () => {
    secretsManager.on(DescribeSecretCommand, { SecretId: chatArn }).resolves({ CreatedDate: new Date('2026-11-20T00:00:00Z') });
    secretsManager
      .on(GetSecretValueCommand, { SecretId: chatArn })
      .resolves({ SecretString: JSON.stringify({ client_secret: slackSecret, signing_secret: slackSecret }) });
    expect(await checkChatSecret(new SecretsManagerClient({ region }), chatArn, region, '123.456')).toEqual(
      ok('slack secrets', 'ChatAppSecretsArn holds the client and signing secrets of Slack app 123.456 (set 2026-11-20)'),
    );
    secretsManager
      .on(GetSecretValueCommand, { SecretId: chatArn })
      .resolves({ SecretString: JSON.stringify({ client_secret: slackSecret, signing_secret: 'xoxb-nope' }) });
    const bad = await checkChatSecret(new SecretsManagerClient({ region }), chatArn, region, '123.456');
    expect(bad).toMatchObject({ status: 'fail', detail: expect.stringContaining('signing_secret is not 32 hex characters') });
    expect(JSON.stringify(bad)).not.toContain(slackSecret);
  });
});

describe('SNS: the alarm email (sns:ListSubscriptionsByTopic)', () => {
  const subscription = (endpoint: string, arn: string, protocol = 'email') => ({
    Protocol: protocol,
    Endpoint: endpoint,
    SubscriptionArn: arn,
    TopicArn: topicArn,
  });

  it('ok once alarmEmail confirmed, found on a later page', async () => {
    sns
      .on(ListSubscriptionsByTopicCommand, { TopicArn: topicArn, NextToken: undefined })
      .resolves({ Subscriptions: [subscription('someone@example.com', 'PendingConfirmation')], NextToken: 'next' })
      .on(ListSubscriptionsByTopicCommand, { TopicArn: topicArn, NextToken: 'next' })
      .resolves({ Subscriptions: [subscription('Ops@Example.com', `${topicArn}:1f2e`)] });
    expect(await checkAlarmEmail(new SNSClient({ region }), topicArn, 'ops@example.com')).toEqual(
      ok('alarm email', 'ops@example.com confirmed on the alarm topic'),
    );
  });

  it('warn while the subscription waits for confirmation, or when alarmEmail is not subscribed at all', async () => {
    sns.on(ListSubscriptionsByTopicCommand).resolves({ Subscriptions: [subscription('ops@example.com', 'PendingConfirmation')] });
    expect(await checkAlarmEmail(new SNSClient({ region }), topicArn, 'ops@example.com')).toMatchObject({
      status: 'warn',
      detail: 'ops@example.com has not confirmed its subscription: alarms reach nobody until it does',
      fix: expect.stringContaining(`aws sns subscribe --topic-arn ${topicArn} --protocol email --notification-endpoint ops@example.com`),
    });
    sns.reset();
    sns.on(ListSubscriptionsByTopicCommand).resolves({ Subscriptions: [] });
    expect(await checkAlarmEmail(new SNSClient({ region }), topicArn, 'ops@example.com')).toMatchObject({
      status: 'warn',
      fix: expect.stringContaining('-c alarmEmail=ops@example.com'),
    });
  });

  it('without alarmEmail: ok when someone subscribed by hand, else warn', async () => {
    sns
      .on(ListSubscriptionsByTopicCommand)
      .resolves({ Subscriptions: [subscription('https://hooks.example.com/x', `${topicArn}:9`, 'https')] });
    expect((await checkAlarmEmail(new SNSClient({ region }), topicArn, undefined)).status).toBe('ok');
    sns.reset();
    sns.on(ListSubscriptionsByTopicCommand).resolves({ Subscriptions: [subscription('ops@example.com', 'PendingConfirmation')] });
    expect(await checkAlarmEmail(new SNSClient({ region }), topicArn, undefined)).toMatchObject({
      status: 'warn',
      fix: expect.stringContaining('-c alarmEmail='),
    });
  });
});

describe('CloudFront: the distribution tenant quota', () => {
  const tenants = (count: number) => {
    const items = Array.from({ length: count }, (_, index) => ({ Id: `dt_${index}`, Name: `t-${index}` }));
    const pages = [];
    for (let start = 0; start < count || start === 0; start += 100) pages.push(items.slice(start, start + 100));
    pages.forEach((page, index) => {
      cloudfront
        .on(ListDistributionTenantsCommand, { MaxItems: 100, Marker: index === 0 ? undefined : `m${index}` })
        .resolves({ DistributionTenantList: page as never, NextMarker: index < pages.length - 1 ? `m${index + 1}` : undefined });
    });
  };
  const check = (given?: number) =>
    checkTenantQuota(new CloudFrontClient({ region: 'us-east-1' }), new ServiceQuotasClient({ region: 'us-east-1' }), given);

  it('ok well under the quota Service Quotas applies, counting every page of tenants', async () => {
    tenants(250);
    quotas.on(ListServiceQuotasCommand).resolves({
      Quotas: [
        { QuotaName: 'Distributions per AWS account', Value: 500 },
        { QuotaName: 'Distribution tenants per AWS account', QuotaCode: 'L-TENANTS', Value: 20_000 },
      ],
    });
    expect(await check()).toEqual(
      ok('cloudfront tenants', '250 of 20,000 distribution tenants in the account (quota: Service Quotas, L-TENANTS)'),
    );
  });

  it('warn from 80% of the quota; fail at it, saying how to raise it', async () => {
    tenants(8_000);
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [] });
    quotas
      .on(ListAWSDefaultServiceQuotasCommand)
      .resolves({ Quotas: [{ QuotaName: 'Maximum number of distribution tenants per AWS account', QuotaCode: 'L-DEF', Value: 10_000 }] });
    expect(await check()).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining('80% used'),
      fix: expect.stringContaining('--tenant-quota'),
    });
    cloudfront.reset();
    tenants(300);
    expect(await check(300)).toMatchObject({ status: 'fail', detail: expect.stringContaining('no new workspace hostname can be served') });
  });

  it('falls back to the documented 10,000 when Service Quotas lists none or refuses; --tenant-quota wins', async () => {
    tenants(3);
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [] });
    quotas.on(ListAWSDefaultServiceQuotasCommand).resolves({ Quotas: [] });
    expect((await check()).detail).toBe(
      '3 of 10,000 distribution tenants in the account (quota: the documented default; Service Quotas lists none)',
    );
    quotas.reset();
    quotas.on(ListServiceQuotasCommand).rejects(awsError('AccessDeniedException', 'no servicequotas:ListServiceQuotas'));
    expect((await check()).detail).toContain('Service Quotas: AccessDeniedException: no servicequotas:ListServiceQuotas');
    expect((await check(50_000)).detail).toBe('3 of 50,000 distribution tenants in the account (quota: --tenant-quota)');
  });
});

describe('runDoctor', () => {
  const healthyAws = () => {
    ses
      .on(GetIdentityVerificationAttributesCommand)
      .resolves({ VerificationAttributes: { 'secrets.example.com': { VerificationStatus: 'Success' } } });
    ses.on(GetAccountSendingEnabledCommand).resolves({ Enabled: true });
    ses.on(GetSendQuotaCommand).resolves({ Max24HourSend: 50_000, MaxSendRate: 14, SentLast24Hours: 0 });
    cloudfront.on(ListDistributionTenantsCommand).resolves({ DistributionTenantList: [] });
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [] });
    quotas.on(ListAWSDefaultServiceQuotasCommand).resolves({ Quotas: [] });
  };

  it('without a stack checks what needs none (SES, the tenant quota) and nothing the stack would name', async () => {
    healthyAws();
    cloudformation.on(DescribeStacksCommand).rejects(awsError('ValidationError', 'Stack with id Hushlink-prod does not exist'));
    const { checks } = await runDoctor(target(), clients());
    expect(checks.map((check) => [check.name, check.status])).toEqual([
      ['stack', 'fail'],
      ['ses identity', 'ok'],
      ['ses sending', 'ok'],
      ['cloudfront tenants', 'ok'],
    ]);
    expect(secretsManager.calls()).toHaveLength(0);
    expect(sns.calls()).toHaveLength(0);
  });

  it('in order; a payment secret not set yet leaves Stripe unchecked (a warning beside its fail); a refused call is a fail that says so', async () => {
    healthyAws();
    ses.on(GetSendQuotaCommand).rejects(awsError('AccessDenied', 'User is not authorized to perform: ses:GetSendQuota'));
    cloudformation.on(DescribeStacksCommand).resolves({ Stacks: [stackOf('UPDATE_COMPLETE', deployedOutputs)] });
    secretsManager.on(DescribeSecretCommand).resolves({});
    secretsManager.on(GetSecretValueCommand, { SecretId: paymentArn }).resolves({ SecretString: 'placeholder-made-at-deploy-0123456789' });
    sns
      .on(ListSubscriptionsByTopicCommand)
      .resolves({ Subscriptions: [{ Protocol: 'email', Endpoint: 'ops@example.com', SubscriptionArn: `${topicArn}:1` }] });
    const { checks, secrets } = await runDoctor(target({ alarmEmail: 'ops@example.com' }), clients());
    expect(checks.map((check) => [check.name, check.status])).toEqual([
      ['stack', 'ok'],
      ['ses identity', 'ok'],
      ['ses sending', 'fail'],
      ['payment secrets', 'fail'],
      ['stripe', 'warn'],
      ['slack secrets', 'ok'],
      ['alarm email', 'ok'],
      ['cloudfront tenants', 'ok'],
    ]);
    expect(checks[2]).toMatchObject({
      detail: expect.stringContaining('could not check: AccessDenied'),
      fix: expect.stringContaining('ses:GetSendQuota'),
    });
    expect(secrets).toEqual([]);
  });

  it('a stack without an output the checks need (an older version) is a fail asking for a deploy', async () => {
    healthyAws();
    cloudformation.on(DescribeStacksCommand).resolves({ Stacks: [stackOf('UPDATE_COMPLETE', { AlarmTopicArn: topicArn })] });
    sns.on(ListSubscriptionsByTopicCommand).resolves({ Subscriptions: [] });
    const { checks } = await runDoctor(target(), clients());
    expect(checks.find((check) => check.name === 'payment secrets')).toMatchObject({
      status: 'fail',
      detail: 'Hushlink-prod has no output PaymentProviderSecretsArn',
    });
    expect(checks.find((check) => check.name === 'slack secrets')).toMatchObject({
      status: 'fail',
      detail: 'Hushlink-prod has no output ChatAppSecretsArn',
    });
  });
});
