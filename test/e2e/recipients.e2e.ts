/**
 * Per-recipient links end to end: compose with personal links (one of them for one address
 * only), the gate of a restricted link passed with the code from the runtime's outbox, each
 * link revealed in a browser of its own, the owner's view of each link and of the receipts on
 * My secrets (plan-dependent columns), revoking one link, and the screens of 401, 403 and 410.
 * Every request is recorded: no key or plaintext ever reaches the server, a gate code only the
 * body of `gate/verify`, a gate token only the body of the claim.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { sealText, toBase64 } from '../../shared/envelope/index.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { mailsTo, newEmail } from '../support/accounts.ts';
import { apiClient } from '../support/runtime.ts';
import {
  findLeaks,
  cookieProblem,
  guard as guardValue,
  type LeakAllowance,
  Session,
  sessionMarker,
  sessionMarkerKey,
  settleTraffic,
  startRuntimeAndBrowser,
  stopRuntimeAndBrowser,
  signInThroughPage,
  tabRefreshKey as refreshKey,
} from './harness.ts';

let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
/** Link keys and plaintexts: no request may carry them. */
const guarded = new Map<string, string>();
/** Gate codes (mailed, and mistyped): only in the body of `gate/verify`. */
const gateCodes = new Map<string, string>();
/** Gate tokens the server issued to a browser: only in the body of a claim. */
const gateTokens = new Map<string, string>();
const answers: Array<{ context: string; method: string; path: string; status: number }> = [];
const pendingBodies: Promise<void>[] = [];

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser());
  api = apiClient(runtime);
}, 180_000);

afterAll(() => stopRuntimeAndBrowser(runtime, browser));

const guard = (label: string, value: string) => guardValue(guarded, label, value);

function guardPlaintext(text: string): void {
  guard('plaintext', text);
  const bytes = Buffer.from(text, 'utf8');
  guard('plaintext as base64', bytes.toString('base64').replace(/=+$/, ''));
  guard('plaintext as base64url', bytes.toString('base64url'));
  guard('plaintext URL-encoded', encodeURIComponent(text));
}

const newPlaintext = () => `recipients e2e ${randomUUID()} ${randomBytes(6).toString('hex')}`;

async function session(name: string, options: Parameters<typeof Session.open>[2] = {}): Promise<Session> {
  const s = await Session.open(browser, name, options);
  s.context.on('response', (response) => {
    const url = new URL(response.url());
    if (!url.pathname.startsWith('/v1/')) return;
    answers.push({ context: name, method: response.request().method(), path: url.pathname, status: response.status() });
    if (/\/gate\/verify$/.test(url.pathname) && response.status() === 200) {
      pendingBodies.push(
        response.json().then(
          (body: { gate_token: string }) => guardValue(gateTokens, 'gate token', body.gate_token),
          () => undefined,
        ),
      );
    }
  });
  return s;
}

/**
 * Nothing of a link, a code or a gate session in any storage; only a signed-in browser's marker
 * (its refresh token is the HttpOnly cookie) or a shared computer's tab's refresh token.
 */
async function checkStorage(s: Session): Promise<void> {
  await Promise.all(pendingBodies);
  const stored = await s.webStorage();
  expect(stored.cookies, `cookies of ${s.name}`).toBe('');
  expect(stored.indexedDb, `IndexedDB of ${s.name}`).toEqual([]);
  const local = { ...stored.local };
  if (local[sessionMarkerKey] !== undefined) expect(local[sessionMarkerKey], `marker in ${s.name}`).toBe(sessionMarker[sessionMarkerKey]);
  delete local[sessionMarkerKey];
  expect(Object.keys(local), `localStorage of ${s.name}`).toEqual([]);
  expect(
    Object.keys(stored.session).filter((key) => key !== refreshKey),
    `sessionStorage of ${s.name}`,
  ).toEqual([]);
  const everything = JSON.stringify(stored);
  for (const [label, value] of [...guarded, ...gateCodes, ...gateTokens])
    expect(everything.includes(value), `${label} in web storage of ${s.name}`).toBe(false);
}

async function finish(s: Session): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  await checkStorage(s);
  expect(s.page.url(), 'the address bar keeps no fragment').not.toContain('#');
  await s.close();
}

/** Signs in through the page, the code read from the outbox, and lands on My secrets. */
async function signIn(s: Session, email: string): Promise<void> {
  await signInThroughPage(s, runtime, email);
  await s.ready('account');
}

interface RecipientInput {
  label?: string;
  email?: string;
  restricted?: boolean;
}

interface ShownLink {
  name: string;
  recipientId: string;
  link: string;
}

/** Fills a recipient row (the `index`-th, from 0) of the compose form. */
async function fillRow(s: Session, index: number, recipient: RecipientInput): Promise<void> {
  const row = s.page.locator('#recipient-list > li').nth(index);
  if (recipient.label !== undefined) await row.locator('input[id$="-label"]').fill(recipient.label);
  if (recipient.email !== undefined) await row.locator('input[id$="-email"]').fill(recipient.email);
  if (recipient.restricted) await row.locator('input[id$="-restricted"]').check();
}

/** Composes on `/` with personal links and returns the secret's id, key and the links shown. */
async function composeWithLinks(
  s: Session,
  text: string,
  recipients: RecipientInput[],
  maxViews = 1,
  screenshot?: string,
): Promise<{ id: string; key: string; links: ShownLink[] }> {
  const { page } = s;
  await page.goto(`${runtime.url}/`);
  await s.ready('compose');
  await page.fill('#secret-text', text);
  await page.click('#more-options summary');
  await page.fill('#max-views', String(maxViews));
  for (const [index, recipient] of recipients.entries()) {
    await page.click('#add-recipient');
    await fillRow(s, index, recipient);
  }
  if (screenshot) await s.screenshot(screenshot);
  await page.click('#create-button');
  await page.waitForSelector('#result:not([hidden])');
  const links = await page.locator('#link-list > li').evaluateAll((items) =>
    items.map((item) => ({
      name: item.querySelector('.item-title')?.textContent ?? '',
      recipientId: (item as HTMLElement).dataset.recipientId ?? '',
      link: (item.querySelector('input[data-role="link"]') as HTMLInputElement).value,
    })),
  );
  expect(links).toHaveLength(recipients.length);
  const first = new URL(links[0]!.link);
  const id = first.pathname.split('/')[2]!;
  const key = first.hash.slice(1);
  expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
  guard('link key', key);
  for (const shown of links) {
    // One key for every link; each its own path.
    expect(shown.link).toBe(`${runtime.url}/s/${id}/r/${shown.recipientId}#${key}`);
    guard('full link', shown.link);
  }
  return { id, key, links };
}

/** A secret with personal links made through the API (as another client would), with its key. */
async function createWithLinks(
  text: string,
  recipients: RecipientInput[],
  maxViews = 1,
): Promise<{ id: string; key: string; urlBase: string; links: string[]; ids: string[] }> {
  guardPlaintext(text);
  const sealed = await sealText(text);
  guard('sealed key', sealed.key);
  const created = await api.post('/v1/secrets', {
    kind: 'text',
    envelope: toBase64(sealed.envelope),
    salt: sealed.salt,
    size_bytes: sealed.envelope.length,
    max_views: maxViews,
    claim_verifier: sealed.claimVerifier,
    link_verifier: sealed.linkVerifier,
    recipients,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const links = created.body.recipients as Array<{ url_base: string; recipient_id: string }>;
  return {
    id: created.body.id,
    key: sealed.key,
    urlBase: created.body.url_base,
    links: links.map((link) => `${link.url_base}#${sealed.key}`),
    ids: links.map((link) => link.recipient_id),
  };
}

/** Opens a link in the given (fresh) session and waits for the page to settle on a screen. */
async function openLink(s: Session, link: string): Promise<void> {
  await s.page.goto(link);
  await s.ready('reveal');
  await s.page.waitForFunction(
    () => document.documentElement.dataset.screen !== 'loading' && document.documentElement.dataset.screen !== undefined,
  );
  expect(s.page.url(), 'fragment removed from the address bar').toBe(link.split('#')[0]);
}

const claims = (s: Session) => s.apiRequests().filter((request) => request.method === 'POST' && request.url.endsWith('/claim'));
const focusedId = (s: Session) => s.page.evaluate(() => document.activeElement?.id ?? '');

/** The 6-digit gate code of the newest mail to `email`. */
function gateCode(email: string): string {
  const code = /\b(\d{6})\b/.exec(mailsTo(runtime, email)[0]?.text ?? '')?.[1];
  if (!code) throw new Error(`no gate code was mailed to ${email}`);
  guardValue(gateCodes, 'gate code', code);
  return code;
}

/** Passes the gate on an open restricted link's page: the address, then the mailed code. */
async function passGate(s: Session, email: string): Promise<void> {
  await s.page.waitForSelector('#screen-gate:not([hidden])[data-step="email"]');
  const mailed = mailsTo(runtime, email).length;
  await s.page.fill('#gate-email', email);
  await s.page.click('#gate-send');
  await s.page.waitForSelector('#screen-gate[data-step="code"]');
  expect(mailsTo(runtime, email).length).toBe(mailed + 1);
  await s.page.fill('#gate-code', gateCode(email));
  await s.page.click('#gate-verify');
  await s.page.waitForSelector('#screen-ready:not([hidden])');
}

async function reveal(s: Session, text: string): Promise<void> {
  await s.page.click('#reveal-button');
  await s.page.waitForSelector('#screen-revealed:not([hidden])');
  expect(await s.page.inputValue('#secret-text')).toBe(text);
}

async function setPlan(email: string, plan: string): Promise<void> {
  const user = await runtime.stores.users.findByEmail(email);
  const db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
  await db.send(
    new UpdateCommand({
      TableName: runtime.config.TABLE_NAME,
      Key: { pk: `USER#${user!.id}`, sk: 'PROFILE' },
      UpdateExpression: 'SET #plan = :plan',
      ExpressionAttributeNames: { '#plan': 'plan' },
      ExpressionAttributeValues: { ':plan': plan },
    }),
  );
  db.destroy();
}

/** The owner's My secrets item of `id`, its links and receipts panel opened and loaded. */
async function openDetails(s: Session, id: string) {
  await s.page.goto(`${runtime.url}/account`);
  await s.ready('account');
  const item = s.page.locator(`#secrets li[data-id="${id}"]`);
  await item.locator('[data-role="details"] > summary').click();
  await item.locator('[data-role="details"][data-loaded="true"]').waitFor();
  return item;
}

const ownerEmail = newEmail('links-owner');
let owner: Session;

describe('per-recipient links', () => {
  it('serves a link’s page like the secret’s own, with the hardening headers', async () => {
    const response = await fetch(`${runtime.url}/s/sec_AAAAAAAAAAAAAAAAAAAAAA/r/rcp_AAAAAAAAAAAAAAAAAAAAAA`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await response.text();
    expect(html).toContain('<script type="module" src="/assets/reveal.js"></script>');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    for (const path of ['/s/sec_A/r/', '/s/sec_A/r', '/s/sec_A/x/rcp_B', '/s/sec_A/r/rcp_B/more']) {
      expect((await fetch(`${runtime.url}${path}`)).status, path).toBe(404);
    }
  });

  it('composes two personal links, one for one address; each opens through its own link; the owner sees both used and both receipts', async () => {
    const text = newPlaintext();
    guardPlaintext(text);
    const annEmail = newEmail('ann');
    owner = await session('owner');
    await signIn(owner, ownerEmail);
    const { id, links } = await composeWithLinks(
      owner,
      text,
      [{ label: 'Ann', email: annEmail, restricted: true }, { label: 'Bob' }],
      1,
      'recipients-compose-form',
    );
    const [ann, bob] = links as [ShownLink, ShownLink];
    expect([ann.name, bob.name]).toEqual(['Ann', 'Bob']);

    // What was sent: the recipients, beside the usual fields; signed in, so it is owned.
    const create = owner
      .apiRequests()
      .filter((request) => request.method === 'POST' && request.url.endsWith('/v1/secrets'))
      .at(-1)!;
    expect(JSON.parse(create.body)).toMatchObject({
      max_views: 1,
      recipients: [{ label: 'Ann', email: annEmail, restricted: true }, { label: 'Bob' }],
      claim_verifier: expect.any(String),
      link_verifier: expect.any(String),
    });
    expect(create.headers.authorization).toMatch(/^Bearer eyJ/);

    // The result: one link per recipient, each with Copy and a QR code; no single link.
    const { page } = owner;
    expect(await page.isVisible('#result-single')).toBe(false);
    expect(await page.isVisible('#result-qr')).toBe(false);
    expect(await page.textContent('#result-title')).toBe('Your links are ready');
    expect(await page.textContent('#result-summary')).toContain('2 personal links: each can be opened once.');
    expect(await page.textContent('#revoke-button')).toBe('Revoke all links');
    const annItem = page.locator(`#link-list > li[data-recipient-id="${ann.recipientId}"]`);
    expect(await annItem.textContent()).toContain(`Only ${annEmail} can open it`);
    for (const shown of links) {
      const item = page.locator(`#link-list > li[data-recipient-id="${shown.recipientId}"]`);
      await item.locator('details.qr-toggle > summary').click();
      expect(await item.locator('.qr-code svg path').getAttribute('d')).toMatch(/^M\d/);
      expect(await item.locator('.qr-code svg').getAttribute('aria-label')).toBe(`QR code of the link for ${shown.name}`);
    }
    await owner.context.grantPermissions(['clipboard-write'], { origin: runtime.url });
    await annItem.locator('button[data-action="copy"]').click();
    await expect.poll(() => annItem.locator('button[data-action="copy"]').textContent()).toBe('Copied ✓');
    // The form is empty again: no text, no rows.
    expect(await page.inputValue('#secret-text')).toBe('');
    expect(await page.locator('#recipient-list > li').count()).toBe(0);
    await owner.screenshot('recipients-compose-links');

    // Ann's link asks for her address first; reading the page claimed nothing.
    const annPage = await session('ann');
    await openLink(annPage, ann.link);
    expect(await annPage.screen()).toBe('gate');
    expect(await focusedId(annPage)).toBe('gate-title');
    expect(
      annPage.apiRequests().map((request) => `${request.method} ${new URL(request.url).pathname}${new URL(request.url).search}`),
    ).toEqual([`GET /v1/secrets/${id}?recipient_id=${ann.recipientId}`]);
    await annPage.screenshot('recipients-gate-email');
    // Nothing typed: said in the page, nothing sent.
    await annPage.page.click('#gate-send');
    await annPage.page.waitForSelector('#gate-email-error:not([hidden])');
    expect(await annPage.page.textContent('#gate-email-error')).toContain('Enter your email address');
    expect(annPage.apiRequests()).toHaveLength(1);
    // Another address: the same answer, and no mail to it (nobody learns whose link it is).
    const stranger = newEmail('stranger');
    await annPage.page.fill('#gate-email', stranger);
    await annPage.page.click('#gate-send');
    await annPage.page.waitForSelector('#screen-gate[data-step="code"]');
    expect(await annPage.page.textContent('#gate-code-sent')).toContain(`If ${stranger} is the address`);
    expect(mailsTo(runtime, stranger)).toEqual([]);
    await annPage.page.click('#gate-other-email');
    expect(await focusedId(annPage)).toBe('gate-email');
    // Her address: a code is mailed; a wrong one first (401 with attempts left), then the right one.
    await annPage.page.fill('#gate-email', annEmail);
    await annPage.page.click('#gate-send');
    await annPage.page.waitForSelector('#screen-gate[data-step="code"]');
    expect(await focusedId(annPage)).toBe('gate-code');
    expect(await annPage.page.getAttribute('#gate-code', 'autocomplete')).toBe('one-time-code');
    await annPage.screenshot('recipients-gate-code');
    const code = gateCode(annEmail);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    guardValue(gateCodes, 'gate code (mistyped)', wrong);
    await annPage.page.fill('#gate-code', wrong);
    await annPage.page.click('#gate-verify');
    await annPage.page.waitForSelector('#gate-code-error:not([hidden])');
    expect(await annPage.page.textContent('#gate-code-error')).toContain('This code does not work');
    expect(await annPage.page.textContent('#gate-code-error')).toContain('4 attempts left');
    expect(await annPage.page.getAttribute('#gate-code', 'aria-invalid')).toBe('true');
    await annPage.screenshot('recipients-gate-wrong-code');
    await annPage.page.fill('#gate-code', `${code.slice(0, 3)} ${code.slice(3)}`);
    expect(await annPage.page.inputValue('#gate-code')).toBe(code);
    await annPage.page.click('#gate-verify');
    await annPage.page.waitForSelector('#screen-ready:not([hidden])');
    expect(await annPage.page.textContent('#gate-confirmed')).toContain(annEmail);
    expect(await annPage.page.textContent('#fact-views')).toBe('1 (this is the last one)');
    expect(claims(annPage)).toEqual([]);
    await annPage.screenshot('recipients-gate-ready');
    await reveal(annPage, text);
    expect(await annPage.page.textContent('#revealed-note')).toContain('This was the last view through your link');
    // The claim names the link, carries the gate session, and says it is the web client.
    const annClaim = claims(annPage)[0]!;
    await Promise.all(pendingBodies);
    expect(JSON.parse(annClaim.body)).toEqual({
      claim_token: expect.any(String),
      link_token: expect.any(String),
      recipient_id: ann.recipientId,
      gate_token: [...gateTokens.values()].at(-1),
    });
    expect(annClaim.headers['x-hushlink-client']).toBe('web');
    await annPage.screenshot('recipients-revealed');
    await finish(annPage);

    // Bob's link has no gate: straight to the reveal form.
    const bobPage = await session('bob');
    await openLink(bobPage, bob.link);
    expect(await bobPage.screen()).toBe('ready');
    expect(await bobPage.page.isVisible('#gate-confirmed')).toBe(false);
    await reveal(bobPage, text);
    expect(JSON.parse(claims(bobPage)[0]!.body)).toEqual({
      claim_token: expect.any(String),
      link_token: expect.any(String),
      recipient_id: bob.recipientId,
    });
    await finish(bobPage);

    // The owner: both links used, the secret gone with them, and a receipt for each (newest first).
    await runtime.drainWork();
    const item = await openDetails(owner, id);
    expect(await item.getAttribute('data-state')).toBe('burned');
    expect(await item.locator('[data-role="views"] dd').textContent()).toBe('0 in all (2 personal links, up to 1 each)');
    const shownLinks = item.locator('[data-role="links"] > li');
    expect(await shownLinks.count()).toBe(2);
    for (const shown of links) {
      const link = item.locator(`[data-role="links"] > li[data-recipient-id="${shown.recipientId}"]`);
      expect(await link.getAttribute('data-state')).toBe('used');
      expect(await link.locator('[data-role="link-state"]').textContent()).toBe('Used up');
      expect(await link.locator('[data-role="link-views"] dd').textContent()).toBe('0 of 1');
      expect(await link.locator('button[data-action="revoke-link"]').count()).toBe(0);
    }
    expect(await item.locator(`[data-role="links"] > li[data-recipient-id="${ann.recipientId}"]`).textContent()).toContain(
      `${annEmail} (only this address can open it)`,
    );
    const rows = item.locator('table[data-role="receipts"] tbody tr');
    expect(await rows.count()).toBe(2);
    expect(
      await rows.evaluateAll((trs) =>
        trs.map((tr) => [
          (tr as HTMLElement).dataset.recipientId,
          tr.querySelector('[data-role="link"]')?.textContent,
          tr.querySelector('[data-role="channel"]')?.textContent,
        ]),
      ),
    ).toEqual([
      [bob.recipientId, 'Bob', 'Web page'],
      [ann.recipientId, 'Ann', 'Web page'],
    ]);
    // Free plan: time, link and channel only.
    expect(await item.locator('table[data-role="receipts"] thead th').allTextContents()).toEqual(['Opened', 'Link', 'Channel']);
    expect(await item.locator('[data-role="details"] p.hint').first().isVisible()).toBe(true);
    await owner.screenshot('recipients-owner-details');

    // Pro: location and device columns (no CloudFront locally: location unknown).
    await setPlan(ownerEmail, 'pro');
    const pro = await openDetails(owner, id);
    expect(await pro.locator('table[data-role="receipts"] thead th').allTextContents()).toEqual([
      'Opened',
      'Link',
      'Channel',
      'Location',
      'Device',
    ]);
    const devices = await pro.locator('table[data-role="receipts"] [data-role="device"]').allTextContents();
    expect(devices).toHaveLength(2);
    for (const device of devices) expect(device).toMatch(/^Chrom.* on Linux$/);
    expect(await pro.locator('table[data-role="receipts"] [data-role="location"]').allTextContents()).toEqual(['Unknown', 'Unknown']);
    await owner.screenshot('recipients-owner-details-pro');
    await setPlan(ownerEmail, 'free');
  });

  it('revokes one link on My secrets (after a confirm step): its holder gets the 410 screen, the other link still opens', async () => {
    const text = newPlaintext();
    guardPlaintext(text);
    const daveEmail = newEmail('dave');
    const { id, links } = await composeWithLinks(owner, text, [{ label: 'Carol' }, { label: 'Dave', email: daveEmail }], 2);
    const [carol, dave] = links as [ShownLink, ShownLink];

    // Carol has her page open before the link is revoked.
    const early = await session('carol-early');
    await openLink(early, carol.link);
    expect(await early.page.textContent('#fact-views')).toBe('2 of 2. Opening it uses one.');

    const item = await openDetails(owner, id);
    expect(await item.getAttribute('data-state')).toBe('active');
    const carolItem = item.locator(`[data-role="links"] > li[data-recipient-id="${carol.recipientId}"]`);
    expect(await carolItem.locator('[data-role="link-state"]').textContent()).toBe('Active');
    expect(await item.locator('[data-role="receipts-empty"]').isVisible()).toBe(true);
    // "Keep it" sends nothing.
    const deletes = () => owner.apiRequests().filter((request) => request.method === 'DELETE').length;
    const before = deletes();
    await carolItem.locator('button[data-action="revoke-link"]').click();
    expect(await owner.page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.action)).toBe('confirm-revoke-link');
    await owner.screenshot('recipients-owner-revoke-confirm');
    await carolItem.locator('button[data-action="cancel-revoke-link"]').click();
    expect(await carolItem.locator('[data-role="confirm"]').isVisible()).toBe(false);
    expect(await owner.page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.action)).toBe('revoke-link');
    expect(deletes()).toBe(before);
    await carolItem.locator('button[data-action="revoke-link"]').click();
    await carolItem.locator('button[data-action="confirm-revoke-link"]').click();
    const revoked = item.locator(`[data-role="links"] > li[data-recipient-id="${carol.recipientId}"][data-state="revoked"]`);
    await revoked.waitFor();
    expect(await revoked.locator('[data-role="link-state"]').textContent()).toBe('Revoked');
    expect(await owner.page.evaluate(() => document.activeElement?.closest('li')?.dataset.recipientId)).toBe(carol.recipientId);
    const sent = owner
      .apiRequests()
      .filter((request) => request.method === 'DELETE')
      .at(-1)!;
    expect(new URL(sent.url).pathname).toBe(`/v1/secrets/${id}/recipients/${carol.recipientId}`);
    expect(sent.headers.authorization).toMatch(/^Bearer eyJ/);
    expect(await item.getAttribute('data-state')).toBe('active');
    expect(await item.locator('[data-role="views"] dd').textContent()).toBe('2 in all (2 personal links, up to 2 each)');
    expect((await api.get(`/v1/secrets/${id}?recipient_id=${carol.recipientId}`)).body.recipient).toMatchObject({
      state: 'revoked',
      views_left: 0,
    });
    await owner.screenshot('recipients-owner-revoked');

    // The open page learns it at its claim (410 recipient_revoked); a fresh one from the metadata.
    await early.page.click('#reveal-button');
    expect(await early.message()).toBe('recipient-revoked');
    expect(
      answers.filter((answer) => answer.context === 'carol-early' && answer.path.endsWith('/claim')).map((answer) => answer.status),
    ).toEqual([410]);
    await finish(early);
    const late = await session('carol-late');
    await openLink(late, carol.link);
    expect(await late.message()).toBe('recipient-revoked');
    expect(await late.page.textContent('#message-title')).toBe('The sender revoked this link');
    expect(claims(late)).toEqual([]);
    await late.screenshot('recipients-error-410-recipient-revoked');
    await finish(late);

    const davePage = await session('dave');
    await openLink(davePage, dave.link);
    await reveal(davePage, text);
    expect(await davePage.page.textContent('#revealed-note')).toContain('1 view left');
    await finish(davePage);
  });

  it('says to open the personal link: the secret’s own link (from metadata, and a 403 recipient_required), an unknown link (404), a used-up link (410)', async () => {
    const text = newPlaintext();
    const secret = await createWithLinks(text, [{ label: 'one' }, { label: 'two' }]);

    const own = await session('own-link');
    await openLink(own, `${secret.urlBase}#${secret.key}`);
    expect(await own.message()).toBe('personal-link');
    expect(await own.page.textContent('#message-title')).toBe('Open the link you were sent');
    expect(claims(own)).toEqual([]);
    await own.screenshot('recipients-error-personal-link');
    await finish(own);

    // A page that did not learn it from the metadata (as from an older server) learns it from the claim.
    const stale = await session('own-link-claim');
    await stale.page.route(`**/v1/secrets/${secret.id}`, async (route) => {
      const response = await route.fetch();
      const { has_recipients: _dropped, ...metadata } = await response.json();
      await route.fulfill({ response, json: metadata });
    });
    await openLink(stale, `${secret.urlBase}#${secret.key}`);
    expect(await stale.screen()).toBe('ready');
    await stale.page.click('#reveal-button');
    expect(await stale.message()).toBe('personal-link');
    expect(
      answers.filter((answer) => answer.context === 'own-link-claim' && answer.path.endsWith('/claim')).map((answer) => answer.status),
    ).toEqual([403]);
    await stale.screenshot('recipients-error-403-recipient-required');
    await finish(stale);

    const unknown = await session('unknown-link');
    await openLink(unknown, `${runtime.url}/s/${secret.id}/r/rcp_AAAAAAAAAAAAAAAAAAAAAA#${secret.key}`);
    expect(await unknown.message()).toBe('not-found');
    await finish(unknown);

    // Link one: a page open meanwhile is told at its claim, a fresh one by the metadata.
    const waiting = await session('used-waiting');
    await openLink(waiting, secret.links[0]!);
    const first = await session('used-first');
    await openLink(first, secret.links[0]!);
    await reveal(first, text);
    await finish(first);
    await waiting.page.click('#reveal-button');
    expect(await waiting.message()).toBe('link-used');
    await finish(waiting);
    const again = await session('used-again', { colorScheme: 'dark' });
    await openLink(again, secret.links[0]!);
    expect(await again.message()).toBe('link-used');
    expect(await again.page.textContent('#message-title')).toBe('This link has been used up');
    expect(claims(again)).toEqual([]);
    await again.screenshot('recipients-error-410-link-used-dark');
    await finish(again);
    // Link two still opens: it has views of its own.
    const other = await session('used-other');
    await openLink(other, secret.links[1]!);
    await reveal(other, text);
    await finish(other);
  });

  it('asks for the address again when the gate session has run out (401 gate_required), and refuses a session made for another link (403 gate_refused)', async () => {
    const text = newPlaintext();
    const [first, second] = [newEmail('gated-one'), newEmail('gated-two')];
    const secret = await createWithLinks(
      text,
      [
        { email: first, restricted: true },
        { email: second, restricted: true },
      ],
      2,
    );

    const s = await session('gate-expired');
    await openLink(s, secret.links[0]!);
    await passGate(s, first);
    // 16 minutes on the server: the 15-minute session has ended.
    runtime.clock.advance(16 * 60);
    await s.page.click('#reveal-button');
    await s.page.waitForSelector('#screen-gate:not([hidden])[data-reason="expired"]');
    expect(await s.page.textContent('#gate-notice')).toContain('Your confirmation has run out');
    expect(await s.page.inputValue('#gate-email')).toBe(first);
    expect(await focusedId(s)).toBe('gate-title');
    expect(
      answers.filter((answer) => answer.context === 'gate-expired' && answer.path.endsWith('/claim')).map((answer) => answer.status),
    ).toEqual([401]);
    expect((await api.get(`/v1/secrets/${secret.id}?recipient_id=${secret.ids[0]}`)).body.recipient.views_left).toBe(2);
    await s.screenshot('recipients-error-401-gate-required');
    await passGate(s, first);
    await reveal(s, text);
    await finish(s);

    // A session for the second link, presented through the first (the claim's body altered on the way).
    const start = await api.post(`/v1/secrets/${secret.id}/gate/start`, { recipient_id: secret.ids[1], email: second });
    expect(start.status).toBe(200);
    const verified = await api.post(`/v1/secrets/${secret.id}/gate/verify`, {
      recipient_id: secret.ids[1],
      email: second,
      code: gateCode(second),
    });
    const otherToken = verified.body.gate_token as string;
    guardValue(gateTokens, 'gate token (another link)', otherToken);
    const refused = await session('gate-refused', { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await refused.page.route('**/v1/secrets/*/claim', async (route) => {
      const body = JSON.parse(route.request().postData() ?? '{}');
      await route.continue({ postData: JSON.stringify({ ...body, gate_token: otherToken }) });
    });
    await openLink(refused, secret.links[0]!);
    await refused.screenshot('recipients-gate-narrow');
    expect(await refused.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await passGate(refused, first);
    await refused.page.click('#reveal-button');
    expect(await refused.message()).toBe('gate-refused');
    expect(
      answers.filter((answer) => answer.context === 'gate-refused' && answer.path.endsWith('/claim')).map((answer) => answer.status),
    ).toEqual([403]);
    expect(await refused.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await refused.screenshot('recipients-error-403-gate-refused-narrow');
    await refused.page.unroute('**/v1/secrets/*/claim');
    // "Confirm my address again" goes back to the gate; with a session of its own the link opens.
    await refused.page.click('#message-retry');
    await passGate(refused, first);
    await reveal(refused, text);
    await finish(refused);
  });

  it('works with the keyboard alone: adding and removing recipients, the gate, the reveal', async () => {
    const s = await session('keyboard');
    const { page } = s;
    await page.goto(`${runtime.url}/`);
    await s.ready('compose');
    await page.click('#more-options summary');
    await page.focus('#add-recipient');
    await page.keyboard.press('Enter');
    const firstLabel = await focusedId(s);
    expect(firstLabel).toMatch(/^recipient-\d+-label$/);
    await page.keyboard.press('Tab');
    expect(await focusedId(s)).toMatch(/^recipient-\d+-email$/);
    await page.keyboard.press('Tab');
    expect(await focusedId(s)).toMatch(/^recipient-\d+-restricted$/);
    await page.keyboard.press('Space');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Remove recipient 1');
    await page.keyboard.press('Tab');
    expect(await focusedId(s)).toBe('add-recipient');
    await page.keyboard.press('Enter');
    expect(await page.locator('#recipient-list > li').count()).toBe(2);
    // Removing the first: focus moves to the row that took its place, renumbered.
    await page.locator('#recipient-list > li').first().locator('button').focus();
    await page.keyboard.press('Enter');
    expect(await page.locator('#recipient-list > li').count()).toBe(1);
    expect(await page.locator('#recipient-list legend').textContent()).toBe('Recipient 1');
    expect(await focusedId(s)).toMatch(/^recipient-\d+-label$/);
    expect(await focusedId(s)).not.toBe(firstLabel);
    await page.locator('#recipient-list > li button').focus();
    await page.keyboard.press('Enter');
    expect(await focusedId(s)).toBe('add-recipient');
    await finish(s);

    const text = newPlaintext();
    const email = newEmail('keyboard-gate');
    const secret = await createWithLinks(text, [{ email, restricted: true }]);
    const r = await session('keyboard-gate');
    await openLink(r, secret.links[0]!);
    expect(await focusedId(r)).toBe('gate-title');
    await r.page.keyboard.press('Tab');
    expect(await focusedId(r)).toBe('gate-email');
    await r.page.keyboard.type(email);
    await r.page.keyboard.press('Enter');
    await r.page.waitForSelector('#screen-gate[data-step="code"]');
    expect(await focusedId(r)).toBe('gate-code');
    await r.page.keyboard.type(gateCode(email));
    await r.page.keyboard.press('Enter');
    await r.page.waitForSelector('#screen-ready:not([hidden])');
    expect(await focusedId(r)).toBe('ready-title');
    await r.page.keyboard.press('Tab');
    expect(await focusedId(r)).toBe('reveal-button');
    await r.page.keyboard.press('Space');
    await r.page.waitForSelector('#screen-revealed:not([hidden])');
    expect(await r.page.inputValue('#secret-text')).toBe(text);
    await finish(r);
  });

  it('checks recipients in the page and shows what the server refuses, by recipient', async () => {
    const s = await session('validation');
    const { page } = s;
    await page.goto(`${runtime.url}/`);
    await s.ready('compose');
    const text = newPlaintext();
    guardPlaintext(text);
    await page.fill('#secret-text', text);
    await page.click('#more-options summary');
    await page.click('#add-recipient');
    await fillRow(s, 0, { label: 'No address', restricted: true });
    await page.click('#add-recipient');
    await fillRow(s, 1, { email: 'not an address' });
    // Closed "More options" opens again to show the fields at fault.
    await page.click('#more-options summary');
    await page.click('#create-button');
    await page.waitForSelector('#compose-errors:not([hidden])');
    expect(await page.locator('#compose-error-list li').allTextContents()).toEqual([
      'Recipient 1, email address: enter the address that may open the link.',
      'Recipient 2, email address: this is not an email address.',
    ]);
    expect(await page.getAttribute('#more-options', 'open')).not.toBeNull();
    expect(await focusedId(s)).toMatch(/^recipient-\d+-email$/);
    expect(await page.locator('#recipient-list > li').first().locator('input[id$="-email"]').getAttribute('aria-invalid')).toBe('true');
    expect(s.apiRequests()).toEqual([]);
    await s.screenshot('recipients-compose-errors');
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await s.screenshot('recipients-compose-narrow');
    await page.setViewportSize({ width: 1000, height: 900 });

    // The server's own refusal, named by recipient (a label longer than it takes, sent anyway).
    await page.route('**/v1/secrets', async (route) => {
      const body = JSON.parse(route.request().postData() ?? '{}');
      await route.continue({ postData: JSON.stringify({ ...body, recipients: [{ label: 'x'.repeat(65) }] }) });
    });
    await fillRow(s, 0, { email: newEmail('fixed') });
    await page.locator('#recipient-list > li').nth(1).locator('button').click();
    await page.click('#create-button');
    await page.waitForSelector('#compose-errors:not([hidden])');
    expect(await page.textContent('#compose-error-list')).toMatch(/^Recipient 1, name: .+/);
    await page.unroute('**/v1/secrets');
    await finish(s);
  });

  it('never sent a key or plaintext; a gate code only to gate/verify, a gate token only in a claim', async () => {
    await owner.page.setViewportSize({ width: 360, height: 740 });
    expect(await owner.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await finish(owner);
    await Promise.all(pendingBodies);
    const requests = await settleTraffic();
    expect(gateCodes.size).toBeGreaterThanOrEqual(6);
    expect(gateTokens.size).toBeGreaterThanOrEqual(5);
    expect(findLeaks(requests, guarded)).toEqual([]);
    const verify: LeakAllowance = { label: 'gate code', method: 'POST', path: /^\/v1\/secrets\/sec_[\w-]+\/gate\/verify$/ };
    const claim: LeakAllowance = { label: 'gate token', method: 'POST', path: /^\/v1\/secrets\/sec_[\w-]+\/claim$/ };
    expect(findLeaks(requests, gateCodes, [verify])).toEqual([]);
    expect(findLeaks(requests, gateTokens, [claim])).toEqual([]);
    // And they did go where they belong (the allowance is not what keeps the check empty).
    expect(findLeaks(requests, gateCodes).length).toBeGreaterThan(0);
    expect(findLeaks(requests, gateTokens).length).toBeGreaterThan(0);
    for (const request of requests) {
      expect(new URL(request.url).origin, 'no third-party origin').toBe(runtime.url);
      // The sign-in cookie goes to /v1/auth/* alone: never with a secret's, a gate's or a page's request.
      expect(cookieProblem(request), `cookie of ${request.url}`).toBeNull();
      expect(request.headers.referer ?? '', `referer of ${request.url}`).not.toContain('#');
    }
  });
});
