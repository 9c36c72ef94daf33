/**
 * Billing end to end (issue 16) in Chromium against one local runtime and its Stripe emulator,
 * whose checkout and portal pages are the ones a payer sees locally: the plans page drawn from
 * the plan table (no amount of its own), signed out leading to sign-in and back; Pro bought
 * through the emulator's checkout page (Pay), back on /billing with Pro, its status and its
 * invoice, and a secret's receipts then showing the location and device columns a free account
 * does not see; the provider's portal opened and left; eleven invoices paged with "More"; Team
 * bought for a workspace (a cancelled checkout first, then the provider's events late), then its
 * seats changed on the workspace's page, fewer than the members refused in the page and, when
 * someone joined meanwhile, by the server; the Enterprise enquiry, refused in the page when
 * incomplete, then sent signed out and found in the outbox to sales; 360 px in light and dark.
 * No sleeps: every wait is on the page's state.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { planTable, plans } from '../../shared/domain/plans.ts';
import { newEmail, signIn as signInOverApi, type SignedIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { joinAs } from '../support/workspaces.ts';
import {
  launchChromium,
  Session,
  sessionMarker,
  signInThroughPage,
  stopRuntimeAndBrowser,
  tabRefreshKey as refreshKey,
  typeSignInCode,
} from './harness.ts';

let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;

beforeAll(async () => {
  [runtime, browser] = await Promise.all([startTestRuntime(), launchChromium()]);
  api = apiClient(runtime);
}, 180_000);

afterAll(() => stopRuntimeAndBrowser(runtime, browser));

type PageName = 'plans' | 'billing' | 'workspace' | 'account' | 'compose' | 'reveal';
const ready = (s: Session, page: PageName) => s.page.waitForSelector(`html[data-ready="${page}"]`);

async function session(name: string, options: { narrow?: boolean; dark?: boolean } = {}): Promise<Session> {
  return Session.open(browser, name, {
    ...(options.narrow ? { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } : {}),
    ...(options.dark ? { colorScheme: 'dark' as const } : {}),
  });
}

async function open(s: Session, path: string, page: PageName): Promise<void> {
  await s.page.goto(`${runtime.url}${path}`);
  await ready(s, page);
}

/**
 * No CSP violation or page error; nothing stored but, signed in, the browser's session marker (the
 * refresh token is the HttpOnly cookie, ADR 0178) or a shared computer's tab's refresh token.
 */
async function finish(s: Session): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  const stored = await s.webStorage();
  expect([{}, sessionMarker], `localStorage of ${s.name}`).toContainEqual(stored.local);
  expect(
    Object.keys(stored.session).filter((key) => key !== refreshKey),
    `sessionStorage of ${s.name}`,
  ).toEqual([]);
  expect(stored.cookies).toBe('');
  await s.close();
}

const focusedId = (s: Session) =>
  s.page.evaluate(
    () =>
      document.activeElement?.id ||
      document.activeElement?.getAttribute('data-action') ||
      document.activeElement?.tagName.toLowerCase() ||
      '',
  );
const checkouts = (s: Session) =>
  s.apiRequests().filter((request) => request.method === 'POST' && new URL(request.url).pathname === '/v1/billing/checkout');
const seatChanges = (s: Session) =>
  s.apiRequests().filter((request) => request.method === 'PATCH' && new URL(request.url).pathname === '/v1/billing/seats');
const fact = (s: Session, role: string) => s.page.textContent(`[data-role="${role}"] dd`);
const onEmulator = (url: URL, kind: 'checkout' | 'portal') =>
  url.origin === new URL(runtime.stripe.url).origin && url.pathname.startsWith(`/${kind}/`);

/** Composes a text secret in the signed-in page and opens it in a fresh browser: one receipt. */
async function secretOpenedOnce(owner: Session): Promise<string> {
  await open(owner, '/', 'compose');
  await owner.page.fill('#secret-text', 'a billing receipt');
  await owner.page.click('#create-button');
  await owner.page.waitForSelector('#result:not([hidden])');
  const link = await owner.page.inputValue('#share-link');
  const reader = await session('reader');
  await reader.page.goto(link);
  await ready(reader, 'reveal');
  await reader.page.click('#reveal-button');
  await reader.page.waitForSelector('#screen-revealed:not([hidden])');
  await reader.close();
  await runtime.drainWork();
  return new URL(link).pathname.split('/')[2]!;
}

/** The secret's "Links and receipts" on My secrets, loaded. */
async function receipts(s: Session, id: string) {
  await open(s, '/account', 'account');
  const item = s.page.locator(`#secrets li[data-id="${id}"]`);
  await item.locator('[data-role="details"] > summary').click();
  await item.locator('[data-role="details"][data-loaded="true"]').waitFor();
  return item;
}

const buyerEmail = newEmail('buyer');
let buyer: Session;

describe('billing in the web client', () => {
  it('serves /plans and /billing with the web headers, and nothing at near misses', async () => {
    for (const [path, script] of [
      ['/plans', 'plans'],
      ['/billing', 'billing'],
    ] as const) {
      const response = await fetch(`${runtime.url}${path}`);
      expect(response.status, path).toBe(200);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const html = await response.text();
      expect(html).toContain(`<script type="module" src="/assets/${script}.js"></script>`);
      expect(html).not.toMatch(/<style|\sstyle=/);
      expect(html).toContain(`<a href="${path}" aria-current="page" data-i18n=`);
    }
    for (const path of ['/plans/', '/billing/', '/billing/x']) expect((await fetch(`${runtime.url}${path}`)).status, path).toBe(404);
  });

  it('shows each plan from the plan table, with the provider’s prices and no amount of its own; signed out, upgrading goes to sign-in and back', async () => {
    buyer = await session('buyer');
    const { page } = buyer;
    await open(buyer, '/plans', 'plans');
    expect(await page.getAttribute('header nav a[href="/plans"]', 'aria-current')).toBe('page');
    expect(await page.isVisible('#plans-signed-out')).toBe(true);
    expect(await page.locator('#plans > li').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.plan))).toEqual([
      ...plans,
    ]);
    // Each card lists what its plan adds to the one before it in the table, and its file limit.
    for (const [index, plan] of plans.entries()) {
      const card = page.locator(`#plans > li[data-plan="${plan}"]`);
      const previous = index > 0 ? planTable[plans[index - 1]!].features : [];
      const added = planTable[plan].features.filter((feature) => !previous.includes(feature));
      expect(
        await card.locator('[data-role="features"] li').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.feature)),
        plan,
      ).toEqual(added);
      expect(await card.locator('[data-role="file-limit"] dd').textContent()).toMatch(/^\d+ (MB|GB)$/);
      // The paid plans' prices are the provider's (the emulator sells Pro at 12.00 and a Team seat at 8.00 USD a month); no amount is made up here.
      const price = { pro: 'US$12.00 a month, for your account', team: 'US$8.00 a month, per seat' }[plan as 'pro' | 'team'];
      if (price) expect(await card.locator('[data-role="price"] dd').textContent()).toBe(price);
      else expect(await card.locator('[data-role="price"] dd').textContent()).not.toMatch(/\d|\$|€|£/);
    }
    expect(await page.textContent('#plans > li[data-plan="pro"] [data-role="features"]')).toContain('where it was opened');
    expect(await page.isVisible('#plans > li[data-plan="free"] .actions')).toBe(false);
    expect(await page.textContent('#plans > li[data-plan="enterprise"] button[data-action="contact-sales"]')).toContain('Contact sales');
    await buyer.screenshot('billing-plans-signed-out');

    // Signed out: the upgrade goes to sign-in, which comes back here.
    await page.click('button[data-action="upgrade-pro"]');
    await page.waitForURL((url) => url.pathname === '/signin');
    const search = new URL(page.url()).searchParams;
    expect([search.get('reason'), search.get('next')]).toEqual(['upgrade', '/plans']);
    expect(await page.textContent('#signin-reason')).toContain('upgrade');
    await buyer.ready('signin');
    await typeSignInCode(buyer, runtime, buyerEmail);
    await page.waitForURL((url) => url.pathname === '/plans');
    await ready(buyer, 'plans');
    expect(await page.isVisible('#plans-signed-out')).toBe(false);
    expect(await page.textContent('button[data-action="upgrade-pro"]')).toBe('Upgrade to Pro');
    expect(await page.textContent('#plans > li[data-plan="free"] [data-role="your-plan"]')).toBe('Your plan');
    expect(
      buyer.apiRequests().filter((request) => request.method === 'POST' && new URL(request.url).pathname.startsWith('/v1/billing/')),
    ).toEqual([]);
  });

  it('buys Pro through the emulator’s checkout page: /billing shows Pro and its invoice, receipts gain location and device, invoices page with More', async () => {
    const { page } = buyer;
    // A free account's receipts: when, which link, which channel.
    const secretId = await secretOpenedOnce(buyer);
    const free = await receipts(buyer, secretId);
    expect(await free.locator('table[data-role="receipts"] thead th').allTextContents()).toEqual(['Opened', 'Link', 'Channel']);
    expect(await free.locator('[data-role="details"] p.hint').first().isVisible()).toBe(true);

    // Billing before: Free, no invoices (the 404 of an account without billing is no error), no portal.
    await open(buyer, '/billing', 'billing');
    expect(await fact(buyer, 'plan')).toBe('Free');
    expect(await page.isVisible('#invoices-empty')).toBe(true);
    expect(await page.isVisible('#invoices-error')).toBe(false);
    expect(await page.isVisible('#manage-billing')).toBe(false);

    await open(buyer, '/plans', 'plans');
    await page.click('button[data-action="upgrade-pro"]');
    await page.waitForURL((url) => onEmulator(url, 'checkout'));
    const sessionId = new URL(page.url()).pathname.split('/')[2]!;
    expect(JSON.parse(checkouts(buyer).at(-1)!.body)).toEqual({ plan: 'pro' });
    expect(await page.textContent('body')).toContain(`Paying as ${buyerEmail}`);
    await buyer.screenshot('billing-emulator-checkout');
    await page.click('form[action$="/pay"] button');

    // Back on /billing: the return said once (and taken off the address), Pro, its status, its invoice.
    await page.waitForURL((url) => url.origin === runtime.url && url.pathname === '/billing');
    await ready(buyer, 'billing');
    expect(new URL(page.url()).search).toBe('');
    expect(await page.getAttribute('#checkout-notice', 'data-checkout')).toBe('success');
    expect(await page.textContent('#checkout-notice-title')).toBe('Thank you: payment received');
    expect(await page.textContent('#checkout-notice-text')).toBe('Pro for your account is active now.');
    expect(await focusedId(buyer)).toBe('checkout-notice');
    expect(await page.isVisible('#checkout-check')).toBe(false);
    expect(await fact(buyer, 'plan')).toBe('Pro');
    expect(await fact(buyer, 'status')).toBe('Active');
    expect(await fact(buyer, 'seats')).toBe('1');
    expect(await fact(buyer, 'cancel-at-period-end')).toBe('It renews, and is paid for again.');
    expect(await fact(buyer, 'live-secrets')).toBe('0');
    const invoices = page.locator('#invoices > li');
    expect(await invoices.count()).toBe(1);
    expect(await invoices.first().getAttribute('data-status')).toBe('paid');
    expect(await invoices.first().locator('[data-role="invoice-status"]').textContent()).toBe('Paid');
    expect(await invoices.first().locator('[data-role="total"] dd').textContent()).toMatch(/12\.00/);
    expect(await invoices.first().locator('a[data-role="pdf"]').getAttribute('href')).toMatch(
      new RegExp(`^${runtime.stripe.url}/invoices/in_\\w+/pdf$`),
    );
    expect(await page.isVisible('#manage-billing')).toBe(true);
    expect(await page.isVisible('#invoices-more')).toBe(false);
    await buyer.screenshot('billing-pro');

    // The same secret's receipts now show where and on what device (no CloudFront locally: where is unknown).
    const pro = await receipts(buyer, secretId);
    expect(await pro.locator('table[data-role="receipts"] thead th').allTextContents()).toEqual([
      'Opened',
      'Link',
      'Channel',
      'Location',
      'Device',
    ]);
    expect(await pro.locator('table[data-role="receipts"] [data-role="device"]').allTextContents()).toEqual([
      expect.stringMatching(/^Chrom.* on Linux$/),
    ]);
    expect(await pro.locator('table[data-role="receipts"] [data-role="location"]').allTextContents()).toEqual(['Unknown']);
    expect(await pro.locator('[data-role="details"] p.hint').first().isVisible()).toBe(false);

    // The plans page knows: Pro is the account's, nothing to buy there.
    await open(buyer, '/plans', 'plans');
    expect(await page.textContent('#plans > li[data-plan="pro"] [data-role="your-plan"]')).toBe('Your plan');
    expect(await page.locator('button[data-action="upgrade-pro"]').count()).toBe(0);

    // "Manage billing" opens the provider's portal for this customer, whose Back comes here.
    await open(buyer, '/billing', 'billing');
    await page.click('#manage-billing');
    await page.waitForURL((url) => onEmulator(url, 'portal'));
    expect(
      buyer
        .apiRequests()
        .filter((request) => new URL(request.url).pathname === '/v1/billing/portal')
        .map((request) => JSON.parse(request.body)),
    ).toEqual([{ return_path: '/billing' }]);
    expect(await page.textContent('body')).toContain('Hushlink Pro');
    await page.click('a:has-text("Back")');
    await page.waitForURL((url) => url.origin === runtime.url && url.pathname === '/billing');
    await ready(buyer, 'billing');
    expect(await page.isVisible('#checkout-notice')).toBe(false);

    // Ten renewals later: ten invoices, newest first, then "More" for the first one, which takes the focus.
    const firstInvoice = await invoices.first().getAttribute('data-id');
    const completed = runtime.stripe
      .events()
      .find(
        (record) => record.event.type === 'checkout.session.completed' && (record.event.data.object as { id: string }).id === sessionId,
      );
    const subscriptionId = (completed!.event.data.object as { subscription: string }).subscription;
    for (let renewal = 0; renewal < 10; renewal++) await runtime.stripe.endPeriod(subscriptionId);
    await open(buyer, '/billing', 'billing');
    expect(await invoices.count()).toBe(10);
    expect(await invoices.evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.id))).not.toContain(firstInvoice);
    await page.click('#invoices-more');
    await expect.poll(() => invoices.count()).toBe(11);
    expect(await invoices.last().getAttribute('data-id')).toBe(firstInvoice);
    expect(await page.evaluate(() => document.activeElement?.closest('li')?.dataset.id)).toBe(firstInvoice);
    expect(await page.isVisible('#invoices-more')).toBe(false);
    const lastRead = buyer
      .apiRequests()
      .filter((request) => new URL(request.url).pathname === '/v1/billing/invoices')
      .at(-1)!;
    expect(new URL(lastRead.url).searchParams.get('cursor')).toMatch(/^in_/);
    await finish(buyer);
  });

  it('buys Team for a workspace (a cancelled checkout first), then changes its seats on its page: fewer than the members refused by the page, and by the server when someone joined meanwhile', async () => {
    const ownerEmail = newEmail('team-owner');
    const ownerApi: SignedIn = await signInOverApi(runtime, ownerEmail);
    const name = `Team ${Date.now().toString(36)}`;
    const made = await api.post('/v1/workspaces', { name }, ownerApi.auth);
    expect(made.status).toBe(201);
    const workspaceId: string = made.body.id;
    runtime.clock.advance(61);
    const owner = await session('team-owner');
    const { page } = owner;
    await signInThroughPage(owner, runtime, ownerEmail, '/plans');
    await ready(owner, 'plans');

    // The form opens under the Team plan: the owned workspace, a seat for each member by default.
    const buyTeam = page.locator('button[data-action="buy-team"]');
    expect(await buyTeam.getAttribute('aria-expanded')).toBe('false');
    await buyTeam.click();
    await page.waitForSelector('#team-fields:not([hidden]):not([disabled])');
    expect(await buyTeam.getAttribute('aria-expanded')).toBe('true');
    expect(await focusedId(owner)).toBe('team-workspace');
    expect(
      await page.locator('#team-workspace option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value)),
    ).toEqual([workspaceId]);
    expect(await page.inputValue('#team-seats')).toBe('1');
    // Fewer than the members: said in the page, nothing sent.
    await page.fill('#team-seats', '0');
    await page.click('#team-checkout');
    await page.waitForSelector('#team-seats-error:not([hidden])');
    expect(await page.textContent('#team-seats-error')).toContain('At least 1 seat');
    expect(await page.getAttribute('#team-seats', 'aria-invalid')).toBe('true');
    expect(await focusedId(owner)).toBe('team-seats');
    expect(checkouts(owner)).toEqual([]);

    // A checkout cancelled on the provider's page: nothing paid, said on /billing.
    await page.fill('#team-seats', '3');
    await page.click('#team-checkout');
    await page.waitForURL((url) => onEmulator(url, 'checkout'));
    const successPath = `/billing?checkout=success&workspace=${workspaceId}`;
    expect(JSON.parse(checkouts(owner).at(-1)!.body)).toEqual({
      plan: 'team',
      workspace_id: workspaceId,
      seats: 3,
      success_path: successPath,
    });
    expect(await page.textContent('tbody')).toContain('Hushlink Team seat');
    await page.click('form[action$="/cancel"] button');
    await page.waitForURL((url) => url.origin === runtime.url && url.pathname === '/billing');
    await ready(owner, 'billing');
    expect(await page.getAttribute('#checkout-notice', 'data-checkout')).toBe('cancelled');
    expect(await page.textContent('#checkout-notice-text')).toBe('Nothing was paid, and your plan is as it was.');
    expect(await page.isVisible('#owned-section')).toBe(false);

    // Paid: back on /billing, Team for the workspace, a link to its page.
    await open(owner, '/plans', 'plans');
    await page.click('button[data-action="buy-team"]');
    await page.waitForSelector('#team-fields:not([hidden]):not([disabled])');
    await page.fill('#team-seats', '3');
    await page.click('#team-checkout');
    await page.waitForURL((url) => onEmulator(url, 'checkout'));
    // The provider's events held back, as they may reach the service after the payer is back: the page says it waits.
    await runtime.stripe.holdEvents(true);
    await page.click('form[action$="/pay"] button');
    await page.waitForURL((url) => url.origin === runtime.url && url.pathname === '/billing');
    await ready(owner, 'billing');
    expect(await page.textContent('#checkout-notice-title')).toBe('Payment received: waiting for confirmation');
    expect(await page.textContent('#checkout-notice-text')).toBe(
      'Team for your workspace shows here once the payment provider confirms the payment, usually within seconds.',
    );
    expect(await page.isVisible('#checkout-check')).toBe(true);
    await runtime.stripe.holdEvents(false);
    await page.click('#checkout-check');
    await page.waitForFunction(() => document.getElementById('checkout-notice-title')?.textContent === 'Thank you: payment received');
    expect(await page.isVisible('#checkout-check')).toBe(false);
    expect(await focusedId(owner)).toBe('checkout-notice');
    expect(await page.textContent('#checkout-notice-text')).toBe(`Team for ${name} is active now. Its seats change on its page: ${name}.`);
    expect(await page.getAttribute('#checkout-notice a', 'href')).toBe(`/workspace?id=${workspaceId}`);
    // The account's own plan stays Free; it uses Team through the workspace.
    expect(await fact(owner, 'plan')).toBe('Free');
    expect(await fact(owner, 'tier')).toBe('Team, through a workspace you are in');
    expect(await page.textContent(`#owned-workspaces li[data-id="${workspaceId}"] [data-role="seats"] dd`)).toBe(
      '1 of 3 seats used by members',
    );
    expect(await page.locator('#invoices > li').count()).toBe(1);
    await owner.screenshot('billing-team');

    // Two people join; the owner's page shows the members and the seats.
    await joinAs(runtime, { id: workspaceId }, ownerApi, 'member');
    await joinAs(runtime, { id: workspaceId }, ownerApi, 'member');
    await page.click('#checkout-notice a');
    await ready(owner, 'workspace');
    await page.waitForSelector('#seats-control:not([hidden])');
    expect(await fact(owner, 'seats-members')).toBe('3');
    expect(await fact(owner, 'seats-paid')).toBe('3');
    expect(await page.inputValue('#seats-count')).toBe('3');
    expect(await page.isVisible('#seats-buy')).toBe(false);

    // Fewer seats than members: refused in the page, nothing sent.
    await page.fill('#seats-count', '2');
    await page.click('#seats-save');
    await page.waitForSelector('#seats-count-error:not([hidden])');
    expect(await page.textContent('#seats-count-error')).toBe(
      'At least 3 seats: one for each member. Remove members first to have fewer. Nothing was sent.',
    );
    expect(await page.getAttribute('#seats-count', 'aria-invalid')).toBe('true');
    expect(await focusedId(owner)).toBe('seats-count');
    expect(seatChanges(owner)).toEqual([]);

    // More seats: sent, billed by the provider, shown.
    await page.fill('#seats-count', '5');
    await page.click('#seats-save');
    await page.waitForSelector('#seats-saved:not([hidden])');
    expect(await page.textContent('#seats-saved')).toBe(`${name} has 5 seats now.`);
    expect(await focusedId(owner)).toBe('seats-saved');
    expect(seatChanges(owner).map((request) => JSON.parse(request.body))).toEqual([{ workspace_id: workspaceId, seats: 5 }]);
    expect(await fact(owner, 'seats-paid')).toBe('5');
    const listed = await api.get('/v1/workspaces', ownerApi.auth);
    expect(listed.body.items.find((item: { id: string }) => item.id === workspaceId)).toMatchObject({ plan: 'team', seats: 5, members: 3 });
    expect(
      runtime.stripe
        .requests()
        .filter((request) => request.method === 'POST' && /^\/v1\/subscriptions\/sub_/.test(request.path))
        .at(-1)?.form,
    ).toMatchObject({ items: [{ quantity: '5' }] });

    // Someone joins while the page still says 3 members: the page lets 3 through, the server refuses it (400), the page reads again.
    await joinAs(runtime, { id: workspaceId }, ownerApi, 'member');
    await page.fill('#seats-count', '3');
    await page.click('#seats-save');
    await page.waitForSelector('#seats-count-error:not([hidden])');
    expect(await page.textContent('#seats-count-error')).toBe(
      'The service refused it: seats must be at least the member count, 4. Nothing was changed.',
    );
    expect(seatChanges(owner)).toHaveLength(2);
    expect(await fact(owner, 'seats-members')).toBe('4');
    expect(await fact(owner, 'seats-paid')).toBe('5');
    expect(await page.inputValue('#seats-count')).toBe('3');
    expect(await page.getAttribute('#seats-count', 'min')).toBe('4');
    await owner.screenshot('billing-workspace-seats');
    await finish(owner);
  });

  it('sends an Enterprise enquiry signed out: refused in the page when incomplete, then mailed to sales', async () => {
    const visitor = await session('visitor');
    const { page } = visitor;
    await open(visitor, '/plans', 'plans');
    await page.click('button[data-action="contact-sales"]');
    expect(await focusedId(visitor)).toBe('enquiry-name');
    expect(await page.inputValue('#enquiry-email')).toBe('');

    await page.fill('#enquiry-seats', '0');
    await page.click('#enquiry-send');
    await page.waitForSelector('#enquiry-message-error:not([hidden])');
    for (const field of ['name', 'email', 'company', 'seats', 'message']) {
      expect(await page.getAttribute(`#enquiry-${field}`, 'aria-invalid'), field).toBe('true');
    }
    expect(await focusedId(visitor)).toBe('enquiry-name');
    const enquiries = () => visitor.apiRequests().filter((request) => new URL(request.url).pathname === '/v1/billing/enterprise-inquiry');
    expect(enquiries()).toEqual([]);

    const company = `Acme ${Date.now().toString(36)}`;
    const from = newEmail('cto');
    await page.fill('#enquiry-name', 'Ana Smith');
    await page.fill('#enquiry-email', from);
    await page.fill('#enquiry-company', company);
    await page.fill('#enquiry-seats', '250');
    await page.fill('#enquiry-message', 'We need SSO for 250 people.');
    await page.click('#enquiry-send');
    await page.waitForSelector('#enquiry-sent:not([hidden])');
    expect(await page.textContent('#enquiry-sent-text')).toBe(`Sales have it, and will write to ${from}.`);
    expect(await focusedId(visitor)).toBe('enquiry-sent');
    expect(await page.inputValue('#enquiry-company')).toBe('');
    const [sent] = enquiries();
    expect(JSON.parse(sent!.body)).toEqual({ name: 'Ana Smith', email: from, company, seats: 250, message: 'We need SSO for 250 people.' });
    expect(sent!.headers.authorization).toBeUndefined();

    // The outbox, as /_dev/mail lists it: to the sales address, answerable to the sender.
    const mail = (await (await fetch(`${runtime.url}/_dev/mail`, { headers: { accept: 'application/json' } })).json()) as Array<{
      to: string;
      subject: string;
      text: string;
    }>;
    const toSales = mail.find((entry) => entry.subject.includes(company));
    expect(toSales).toMatchObject({ to: runtime.config.SALES_EMAIL });
    expect(toSales!.text).toContain('Seats: 250');
    expect(toSales!.text).toContain('We need SSO for 250 people.');
    await visitor.screenshot('billing-enquiry-sent');
    await finish(visitor);
  });

  it('fits 360 px in light and dark', async () => {
    for (const dark of [false, true]) {
      const s = await session(`narrow${dark ? '-dark' : ''}`, { narrow: true, dark });
      const email = newEmail(`narrow${dark ? '-dark' : ''}`);
      // Signed out, /billing goes to sign-in and comes back to itself.
      await s.page.goto(`${runtime.url}/billing`);
      await s.page.waitForURL((url) => url.pathname === '/signin');
      expect(new URL(s.page.url()).searchParams.get('next')).toBe('/billing');
      await s.ready('signin');
      await typeSignInCode(s, runtime, email);
      await s.page.waitForURL((url) => url.pathname === '/billing');
      await ready(s, 'billing');
      expect(await s.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await s.screenshot(`billing-narrow${dark ? '-dark' : ''}`);
      await open(s, '/plans', 'plans');
      await s.page.click('button[data-action="buy-team"]');
      await s.page.waitForSelector('#team-none:not([hidden])');
      expect(await s.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await s.screenshot(`billing-plans-narrow${dark ? '-dark' : ''}`);
      await finish(s);
    }
  });
});
