import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startStripeEmulator, type LocalStripe } from '../../local/stripe/emulator.ts';
import { renderReport } from '../../scripts/doctor/report.ts';
import { checkStripe, type StripeTarget } from '../../scripts/doctor/stripe.ts';
import { stripeClient } from '../../shared/adapters/stripe.ts';
import { handledEvents } from '../../shared/domain/billing/webhook.ts';
import type { DoctorAwsAccount } from '../support/doctorAws.ts';

// `npm run doctor`'s Stripe checks (scripts/doctor/stripe.ts, issue 28) against the Stripe
// emulator, whose account is changed as an operator changes theirs, through the official SDK
// (webhook endpoints, the portal configuration) or its test control (the portal's settings
// unsaved). Then the whole command, as an operator runs it: a process of its own (tsx, as `npm
// run doctor` runs it) talking to the emulator through --stripe-api-url, with AWS mocked inside
// that process (test/support/doctorAws.ts). The AWS checks alone: test/unit/doctor.test.ts.

const root = fileURLToPath(new URL('../..', import.meta.url));
const webOrigin = 'https://secrets.example.com';
const webhookUrl = `${webOrigin}/v1/billing/webhook`;
/** Price ids of Stripe's shape: a deploy refuses the emulator's defaults (lib/config.ts). */
const prices = { pro: 'price_1QTestProMonthly', teamSeat: 'price_1QTestTeamSeat' };
const configurationId = 'bpc_1LocalDefaultConfiguration';

let emulator: LocalStripe;
/** The operator's SDK on the emulator's account (the doctor reads it with its own). */
let stripe: Stripe;
beforeEach(async () => {
  // A fresh account for each test: what one changes, the next does not see.
  emulator = await startStripeEmulator({
    webhookUrl,
    prices: [
      { id: prices.pro, unit_amount: 1200, currency: 'usd', nickname: 'Hushlink Pro' },
      { id: prices.teamSeat, unit_amount: 800, currency: 'usd', nickname: 'Hushlink Team seat' },
    ],
  });
  stripe = stripeClient({ secretKey: emulator.apiKey, apiUrl: emulator.url });
});
afterEach(async () => {
  await emulator?.stop();
});

const target = (changes: Partial<StripeTarget> = {}): StripeTarget => ({
  prices,
  webhookUrls: [webhookUrl],
  stage: 'dev',
  mode: 'test',
  ...changes,
});
const doctor = (changes: Partial<StripeTarget> = {}, key = emulator.apiKey) =>
  checkStripe(stripeClient({ secretKey: key, apiUrl: emulator.url }), target(changes));
const byName = async (changes: Partial<StripeTarget> = {}) =>
  Object.fromEntries((await doctor(changes)).map((check) => [check.name, check]));
const defaultEndpoint = async () => (await stripe.webhookEndpoints.list()).data.find((endpoint) => endpoint.url === webhookUrl)!;

describe('the Stripe checks', () => {
  it('all ok on an account set up as docs/deploy.md says (the emulator’s default: its endpoint sent every handled event)', async () => {
    const checks = await doctor();
    const endpoint = await defaultEndpoint();
    expect(checks).toEqual([
      { name: 'stripe key', status: 'ok', detail: 'accepted, test mode' },
      { name: 'stripe price pro', status: 'ok', detail: `pricePro ${prices.pro}: $12.00 a month (Hushlink Pro)` },
      { name: 'stripe price team seat', status: 'ok', detail: `priceTeamSeat ${prices.teamSeat}: $8.00 a month (Hushlink Team seat)` },
      {
        name: 'stripe portal',
        status: 'ok',
        detail: `saved (${configurationId}): payment methods, invoices, cancel; Team seats changed through Hushlink only`,
      },
      {
        name: 'stripe webhook',
        status: 'ok',
        detail: `${endpoint.id} at ${webhookUrl}: enabled, sent the 6 events the service handles (its signing secret cannot be read back to compare)`,
      },
    ]);
    // Read-only: the doctor only read the account.
    expect(new Set(emulator.requests().map((request) => request.method))).toEqual(new Set(['GET']));
  });

  it('prices missing → fail for each, naming the setting and how to fix it', async () => {
    const checks = await byName({ prices: { pro: 'price_1NoSuchPro', teamSeat: 'price_1NoSuchSeat' } });
    expect(checks['stripe key']!.status).toBe('ok');
    expect(checks['stripe price pro']).toMatchObject({
      status: 'fail',
      detail: "pricePro price_1NoSuchPro: no such price in test mode (No such price: 'price_1NoSuchPro'); every checkout of it fails",
      fix: expect.stringContaining('deploy with -c pricePro=price_…'),
    });
    expect(checks['stripe price team seat']).toMatchObject({
      status: 'fail',
      fix: expect.stringContaining('https://dashboard.stripe.com/test/products'),
    });
  });

  it('portal unconfigured → fail with the instruction; saved without some features → warn', async () => {
    emulator.configurePortal(false);
    expect((await byName())['stripe portal']).toEqual({
      name: 'stripe portal',
      status: 'fail',
      detail:
        'the customer portal settings are not saved in test mode: Stripe refuses every portal session, and POST /v1/billing/portal answers 409 portal_unconfigured',
      fix: 'open https://dashboard.stripe.com/test/settings/billing/portal: let customers update payment methods, see invoices and cancel (and, for seat changes there, add the Team seat price to its products), then Save',
    });

    emulator.configurePortal(true);
    await stripe.billingPortal.configurations.update(configurationId, {
      features: { invoice_history: { enabled: false }, subscription_cancel: { enabled: false } },
    });
    expect((await byName())['stripe portal']).toMatchObject({
      status: 'warn',
      detail: `saved (${configurationId}) without invoice history, cancel: customers cannot do that themselves`,
    });

    await stripe.billingPortal.configurations.update(configurationId, {
      features: {
        invoice_history: { enabled: true },
        subscription_cancel: { enabled: true },
        subscription_update: { enabled: true, products: [{ product: 'prod_1QTestTeamSeat', prices: [prices.teamSeat] }] },
      },
    });
    expect((await byName())['stripe portal']).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('Team seats changeable there too'),
    });
  });

  it('webhook endpoint missing → fail naming the URL and the events to add (and where the others point)', async () => {
    await stripe.webhookEndpoints.del((await defaultEndpoint()).id);
    await stripe.webhookEndpoints.create({ url: 'https://old.example.com/v1/billing/webhook', enabled_events: ['*'] });
    expect((await byName())['stripe webhook']).toEqual({
      name: 'stripe webhook',
      status: 'fail',
      detail: `no test-mode endpoint at ${webhookUrl}; 1 elsewhere (https://old.example.com/v1/billing/webhook): payments would give no plan`,
      fix: `add an endpoint at ${webhookUrl} for ${[...handledEvents].join(', ')} (https://dashboard.stripe.com/test/webhooks), then put its signing secret in PaymentProviderSecretsArn as webhook_secret`,
    });
  });

  it('webhook endpoint missing events → fail naming them; disabled → fail; all events (*) → ok; two at the URL → warn', async () => {
    const endpoint = await defaultEndpoint();
    await stripe.webhookEndpoints.update(endpoint.id, {
      enabled_events: [
        'checkout.session.completed',
        'customer.subscription.created',
        'customer.subscription.updated',
        'customer.subscription.deleted',
      ],
    });
    expect((await byName())['stripe webhook']).toMatchObject({
      status: 'fail',
      detail: `${endpoint.id} at ${webhookUrl} is not sent invoice.paid, invoice.payment_failed: the plan would not follow those events`,
      fix: `add invoice.paid, invoice.payment_failed to ${endpoint.id}'s events (https://dashboard.stripe.com/test/webhooks/${endpoint.id})`,
    });

    await stripe.webhookEndpoints.update(endpoint.id, { enabled_events: ['*'], disabled: true });
    expect((await byName())['stripe webhook']).toMatchObject({
      status: 'fail',
      detail: `${endpoint.id} at ${webhookUrl} is disabled: no event reaches the service`,
    });

    await stripe.webhookEndpoints.update(endpoint.id, { disabled: false });
    expect((await byName())['stripe webhook']).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('enabled, sent every event'),
    });

    const second = await stripe.webhookEndpoints.create({
      url: `${webhookUrl}/`,
      enabled_events: [...handledEvents] as Stripe.WebhookEndpointCreateParams.EnabledEvent[],
    });
    expect((await byName())['stripe webhook']).toMatchObject({
      status: 'warn',
      detail: expect.stringContaining(`2 enabled endpoints at ${webhookUrl} (${second.id}, ${endpoint.id})`),
    });
  });

  it('an endpoint on the distribution’s own URL counts when the deployment answers there too', async () => {
    const endpoint = await defaultEndpoint();
    await stripe.webhookEndpoints.update(endpoint.id, { url: 'https://d111111abcdef8.cloudfront.net/v1/billing/webhook' });
    expect((await byName())['stripe webhook']!.status).toBe('fail');
    expect(
      (await byName({ webhookUrls: [webhookUrl, 'https://d111111abcdef8.cloudfront.net/v1/billing/webhook'] }))['stripe webhook']!.status,
    ).toBe('ok');
  });

  it('a refused key is one fail, and nothing of the key is printed; a test key on prod is a warning', async () => {
    const wrongKey = 'sk_test_WrongKey0123456789abcdefXYZW';
    const checks = await doctor({}, wrongKey);
    expect(checks).toEqual([
      {
        name: 'stripe key',
        status: 'fail',
        detail: 'Stripe refused the secret key in PaymentProviderSecretsArn (401): revoked, rolled or mistyped',
        fix: 'put the current secret key (Dashboard → Developers → API keys) in PaymentProviderSecretsArn as secret_key',
      },
    ]);
    const { text } = renderReport(checks, [wrongKey]);
    expect(text).not.toMatch(/sk_test_Wr|XYZW/);

    expect((await byName({ stage: 'prod' }))['stripe key']).toMatchObject({
      status: 'warn',
      detail: 'accepted, in test mode on stage prod: no real payment is taken',
    });
  });
  it('a restricted key lacking permissions: each check a fail saying so, and no part of the key printed, masked or whole', async () => {
    const restrictedKey = `rk_live_51Hushlink${'x'.repeat(80)}Abcd`;
    const masked = `rk_live_${'*'.repeat(91)}Abcd`;
    // Stripe's 403 for a restricted key, its message word for word: it quotes the key masked, which
    // the report's redaction of the whole secret does not catch.
    const stripe403 = createServer((request, response) => {
      request.resume();
      response.writeHead(403, { 'content-type': 'application/json', 'request-id': 'req_restricted' });
      response.end(
        JSON.stringify({
          error: {
            type: 'invalid_request_error',
            message: `The provided key '${masked}' does not have the required permissions for this endpoint on account 'acct_1Hushlink'. Having the 'rak_plan_read' permission would allow this request to continue.`,
          },
        }),
      );
    });
    await new Promise<void>((resolve) => stripe403.listen(0, '127.0.0.1', resolve));
    try {
      const apiUrl = `http://127.0.0.1:${(stripe403.address() as AddressInfo).port}`;
      const checks = await checkStripe(stripeClient({ secretKey: restrictedKey, apiUrl }), target({ stage: 'prod', mode: 'live' }));
      // A 403 still shows the key was accepted.
      expect(checks[0]).toEqual({ name: 'stripe key', status: 'ok', detail: 'accepted, live mode' });
      expect(checks.slice(1)).toEqual(
        ['stripe price pro', 'stripe price team seat', 'stripe portal', 'stripe webhook'].map((name) => ({
          name,
          status: 'fail',
          detail: `the key may not read this: The provided key (key not shown) does not have the required permissions for this endpoint on account 'acct_1Hushlink'. Having the 'rak_plan_read' permission would allow this request to continue.`,
          fix: 'give the restricted key read access to Prices, Customer portal and Webhook endpoints',
        })),
      );
      const { text } = renderReport(checks, [restrictedKey]);
      expect(text).not.toMatch(/[rsp]k_(live|test)_|Abcd|\*\*\*/);
    } finally {
      stripe403.closeAllConnections();
      await new Promise<void>((resolve) => stripe403.close(() => resolve()));
    }
  });
});

describe('the emulator’s account API (local/stripe/account.ts), in Stripe’s wire format', () => {
  it('webhook endpoints: made with a secret shown once, listed newest first, updated, deleted; Stripe’s refusals', async () => {
    const made = await stripe.webhookEndpoints.create({
      url: 'https://hooks.example.com/x',
      enabled_events: ['invoice.paid'],
      description: 'mine',
    });
    expect(made).toMatchObject({
      object: 'webhook_endpoint',
      status: 'enabled',
      enabled_events: ['invoice.paid'],
      livemode: false,
      description: 'mine',
    });
    expect(made.id).toMatch(/^we_1/);
    expect(made.secret).toMatch(/^whsec_/);
    const listed = await stripe.webhookEndpoints.list();
    expect(listed.data.map((endpoint) => endpoint.url)).toEqual(['https://hooks.example.com/x', webhookUrl]);
    expect(listed.data[0]!.secret).toBeUndefined();
    expect((await stripe.webhookEndpoints.retrieve(made.id)).secret).toBeUndefined();
    expect((await defaultEndpoint()).enabled_events).toEqual([...handledEvents]);

    expect(await stripe.webhookEndpoints.del(made.id)).toEqual({ id: made.id, object: 'webhook_endpoint', deleted: true });
    await expect(stripe.webhookEndpoints.retrieve(made.id)).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
    await expect(stripe.webhookEndpoints.create({ url: 'not a url', enabled_events: ['*'] })).rejects.toMatchObject({
      statusCode: 400,
      param: 'url',
    });
    await expect(stripe.webhookEndpoints.create({ url: 'https://x.example.com', enabled_events: [] })).rejects.toMatchObject({
      statusCode: 400,
    });
    await expect(
      stripe.webhookEndpoints.create({ url: 'https://x.example.com', enabled_events: ['Not An Event' as never] }),
    ).rejects.toMatchObject({ statusCode: 400, param: 'enabled_events[0]' });
  });

  it('prices by id (404 for none); portal configurations listed only once the settings are saved', async () => {
    expect(await stripe.prices.retrieve(prices.pro)).toMatchObject({
      id: prices.pro,
      object: 'price',
      active: true,
      type: 'recurring',
      unit_amount: 1200,
    });
    await expect(stripe.prices.retrieve('price_1Nope')).rejects.toMatchObject({ statusCode: 404, code: 'resource_missing' });
    expect((await stripe.billingPortal.configurations.list({ is_default: true })).data).toMatchObject([
      { id: configurationId, is_default: true, active: true },
    ]);
    expect(await stripe.billingPortal.configurations.retrieve(configurationId)).toMatchObject({ object: 'billing_portal.configuration' });
    emulator.configurePortal(false);
    expect((await stripe.billingPortal.configurations.list()).data).toEqual([]);
    await expect(stripe.billingPortal.configurations.retrieve(configurationId)).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe('npm run doctor, the whole command', () => {
  interface Run {
    status: number;
    stdout: string;
    stderr: string;
  }
  const paymentArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:PaymentProviderSecrets-AbCdEf';
  const account = (changes: Partial<DoctorAwsAccount> = {}): DoctorAwsAccount => ({
    stackName: 'Hushlink-prod',
    stackStatus: 'UPDATE_COMPLETE',
    outputs: {
      PaymentProviderSecretsArn: paymentArn,
      ChatAppSecretsArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:ChatAppSecrets-AbCdEf',
      AlarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:Hushlink-prod-Alarms',
      WebWebUrl3F1C2A11: 'https://d111111abcdef8.cloudfront.net',
    },
    secrets: { [paymentArn]: JSON.stringify({ secret_key: emulator.apiKey, webhook_secret: emulator.signingSecret }) },
    sesIdentity: 'secrets.example.com',
    identityStatus: 'Success',
    max24HourSend: 50_000,
    subscriptions: [{ email: 'ops@example.com', arn: 'arn:aws:sns:eu-west-1:123456789012:Hushlink-prod-Alarms:1f2e' }],
    tenants: 2,
    ...changes,
  });

  /** The command as `npm run doctor` runs it, with AWS mocked in its process and no AWS settings of this machine. */
  function doctorCommand(aws: DoctorAwsAccount | null, ...args: string[]): Promise<Run> {
    const env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_'))),
      NODE_NO_WARNINGS: '1',
      HUSHLINK_DOCTOR_AWS: JSON.stringify(aws),
    };
    const preload = pathToFileURL(fileURLToPath(new URL('../support/doctorAws.ts', import.meta.url))).href;
    const argv = ['--import', 'tsx', ...(aws ? ['--import', preload] : []), 'scripts/doctor.ts', ...args];
    return new Promise((resolve) => {
      execFile(process.execPath, argv, { cwd: root, env }, (error, stdout, stderr) => {
        resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      });
    });
  }
  const deployArgs = (...more: string[]) => [
    '--stage',
    'prod',
    '-c',
    `pricePro=${prices.pro}`,
    '-c',
    `priceTeamSeat=${prices.teamSeat}`,
    '-c',
    `webOrigin=${webOrigin}`,
    '-c',
    'alarmEmail=ops@example.com',
    '--region',
    'eu-west-1',
    '--stripe-api-url',
    emulator.url,
    ...more,
  ];

  it('a healthy deployment: a line per check, exit 0 with a warning, and no secret on the terminal', async () => {
    const run = await doctorCommand(account(), ...deployArgs());
    expect(run.stderr).toBe('');
    const lines = run.stdout.trimEnd().split('\n');
    expect(
      lines
        .map((line) =>
          line
            .match(/^(ok|warn|fail) +(\S+(?: \S+)*?) {2}/)
            ?.slice(1, 3)
            .join(' '),
        )
        .filter(Boolean),
    ).toEqual([
      'ok config',
      'ok stack',
      'ok ses identity',
      'ok ses sending',
      'ok payment secrets',
      'warn stripe key',
      'ok stripe price pro',
      'ok stripe price team seat',
      'ok stripe portal',
      'ok stripe webhook',
      'ok slack secrets',
      'ok alarm email',
      'ok cloudfront tenants',
    ]);
    expect(run.stdout).toContain('      → put the live secret key (sk_live_…) in PaymentProviderSecretsArn');
    expect(lines.at(-1)).toBe('12 ok, 1 warn, 0 fail');
    expect(run.status).toBe(0);
    for (const secret of [emulator.apiKey, emulator.signingSecret, 'hushlink_local_emulator']) expect(run.stdout).not.toContain(secret);
  }, 60_000);

  it('exit 1 when a check fails, each with what to do', async () => {
    emulator.configurePortal(false);
    const run = await doctorCommand(
      account({ identityStatus: 'Pending', subscriptions: [{ email: 'ops@example.com', arn: 'PendingConfirmation' }] }),
      ...deployArgs(),
    );
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^fail {2}ses identity {2,}SES identity secrets\.example\.com .*verification pending/m);
    expect(run.stdout).toMatch(/^fail {2}stripe portal {2,}the customer portal settings are not saved in test mode/m);
    expect(run.stdout).toMatch(/^warn {2}alarm email {2,}ops@example\.com has not confirmed its subscription/m);
    expect(run.stdout).toContain('      → open https://dashboard.stripe.com/test/settings/billing/portal');
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('9 ok, 2 warn, 2 fail');
  }, 60_000);

  it('a context a deploy would refuse is a fail before anything is asked; a wrong command line exits 2', async () => {
    const refused = await doctorCommand(null, '--stage', 'prod', '--region', 'eu-west-1');
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(/^fail {2}config {2}context pricePro and priceTeamSeat must name your Stripe price ids/m);
    const wrong = await doctorCommand(null, '--region', 'eu-west-1');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('doctor: --stage is required');
  }, 60_000);
});
