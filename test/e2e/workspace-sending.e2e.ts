/**
 * Sending inside a workspace (issue 15) end to end: the compose page's "Send in" for a member of
 * two Team workspaces (the current one chosen first), the policy's limits said before sending and
 * held in the form, a violation refused in the page and a forced one by the server (field by
 * field, sent once), a text and a file sent with `workspace_id`, and `not_a_member` once the
 * member is removed; then the reveal page of what was sent: the workspace's band ("Sent from
 * <name> on Hushlink", the logo, the accent on the primary button, as text in the light theme
 * only) above the page's own, unchanged content, a right-to-left name in its place, and no band
 * for a secret sent outside. Every request is recorded: no key, passphrase or plaintext leaves
 * the page.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { sealText, toBase64 } from '../../shared/envelope/index.ts';
import { mailsTo, newEmail, type SignedIn } from '../support/accounts.ts';
import { apiClient } from '../support/runtime.ts';
import { invitationToken, joinAs, send, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';
import {
  cookieProblem,
  findLeaks,
  guard as guardValue,
  Session,
  sessionMarker,
  sessionMarkerKey,
  settleTraffic,
  startRuntimeAndBrowser,
  stopRuntimeAndBrowser,
  signInThroughPage,
  tabRefreshKey,
} from './harness.ts';

const MiB = 1024 * 1024;
let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
/** Link keys, passphrases, plaintexts and file names: no request may carry them. */
const guarded = new Map<string, string>();
const work = mkdtempSync(join(tmpdir(), 'hushlink-workspace-e2e-'));

/**
 * What the browsers may keep: the current workspace's id, the marker of a browser-wide sign-in
 * (its refresh token is the HttpOnly cookie), and a shared computer's tab's refresh token.
 */
const storedKeys = { local: ['hushlink.workspace', sessionMarkerKey], session: [tabRefreshKey] };

/** A policy with every rule but files and requests; its branding has a logo and an accent. */
let acme: TeamWorkspace & { name: string };
/** Files not allowed; its branding's name is Arabic, with no logo. */
let files: TeamWorkspace & { name: string };
let member: SignedIn;
let memberPage: Session;
const acmeBranding = { display_name: 'Acme Security', accent: '#1d4ed8' };
const rtlName = 'مركز الأمان 24';
const rtlAccent = '#9a3412';

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser());
  api = apiClient(runtime);
  const [first, second] = await Promise.all([teamWorkspace(runtime), teamWorkspace(runtime)]);
  await put(first, 'policy', {
    max_expires_in: 86_400,
    max_views: 3,
    require_passphrase: true,
    allowed_recipient_domains: ['example.com'],
    max_file_bytes: 10 * MiB,
  });
  await put(first, 'branding', { ...acmeBranding, logo: `data:image/png;base64,${squarePng(48)}` });
  await put(second, 'policy', { allow_files: false });
  await put(second, 'branding', { display_name: rtlName, accent: rtlAccent });
  member = await joinAs(runtime, first, first.owner, 'member');
  // The same person joins the second workspace too.
  const invited = await api.post(
    `/v1/workspaces/${second.id}/invitations`,
    { email: member.user.email, role: 'member' },
    second.owner.auth,
  );
  expect(invited.status).toBe(201);
  expect(
    (await api.post('/v1/workspaces/invitations/accept', { token: invitationToken(runtime, member.user.email) }, member.auth)).status,
  ).toBe(200);
  const listed = await api.get('/v1/workspaces', member.auth);
  const nameOf = (id: string) => (listed.body.items as Array<{ id: string; name: string }>).find((item) => item.id === id)!.name;
  acme = { ...first, name: nameOf(first.id) };
  files = { ...second, name: nameOf(second.id) };
}, 180_000);

afterAll(async () => {
  await stopRuntimeAndBrowser(runtime, browser);
  rmSync(work, { recursive: true, force: true });
});

async function put(workspace: TeamWorkspace, what: 'policy' | 'branding', body: unknown): Promise<void> {
  const reply = await send(runtime, 'PUT', `/v1/workspaces/${workspace.id}/${what}`, body, workspace.owner.auth);
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
}

/** A `side`×`side` PNG (a blue square with a white diagonal), byte for byte: what a logo upload is. */
function squarePng(side: number): string {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc(side * (1 + side * 3));
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) rows.set(Math.abs(x - y) < 4 ? [255, 255, 255] : [29, 78, 216], y * (1 + side * 3) + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]).toString('base64');
}

const guard = (label: string, value: string) => guardValue(guarded, label, value);

function guardPlaintext(text: string): void {
  guard('plaintext', text);
  const bytes = Buffer.from(text, 'utf8');
  guard('plaintext as base64', bytes.toString('base64').replace(/=+$/, ''));
  guard('plaintext as base64url', bytes.toString('base64url'));
  guard('plaintext URL-encoded', encodeURIComponent(text));
}

const newPlaintext = () => `workspace e2e ${randomUUID()} ${randomBytes(6).toString('hex')}`;
const newPassphrase = () => {
  const passphrase = `pass ${randomUUID()}`;
  guard('passphrase', passphrase);
  return passphrase;
};

async function session(name: string, options: Parameters<typeof Session.open>[2] = {}): Promise<Session> {
  return Session.open(browser, name, options);
}

/** Only the current workspace's id and the sign-in (marker or tab token) are kept; nothing of a secret anywhere. */
async function checkStorage(s: Session): Promise<void> {
  const stored = await s.webStorage();
  if (stored.local[sessionMarkerKey] !== undefined) expect(stored.local[sessionMarkerKey]).toBe(sessionMarker[sessionMarkerKey]);
  expect(stored.cookies, `cookies of ${s.name}`).toBe('');
  expect(stored.indexedDb, `IndexedDB of ${s.name}`).toEqual([]);
  expect(
    Object.keys(stored.local).filter((key) => !storedKeys.local.includes(key)),
    `localStorage of ${s.name}`,
  ).toEqual([]);
  expect(
    Object.keys(stored.session).filter((key) => !storedKeys.session.includes(key)),
    `sessionStorage of ${s.name}`,
  ).toEqual([]);
  const everything = JSON.stringify(stored);
  for (const [label, value] of guarded) expect(everything.includes(value), `${label} in web storage of ${s.name}`).toBe(false);
}

async function finish(s: Session): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  await checkStorage(s);
  expect(s.page.url(), 'the address bar keeps no fragment').not.toContain('#');
  await s.close();
}

/** Signs in through the page, the code read from the outbox. */
async function signIn(s: Session, email: string): Promise<void> {
  await signInThroughPage(s, runtime, email);
  await s.ready('account');
}

/** The compose page, once its workspaces are offered. */
async function openCompose(s: Session): Promise<void> {
  await s.page.goto(`${runtime.url}/`);
  await s.ready('compose');
  await s.page.waitForSelector('#send-in-field:not([hidden])');
}

async function openLink(s: Session, link: string): Promise<void> {
  await s.page.goto(link);
  await s.ready('reveal');
  await s.page.waitForFunction(
    () => document.documentElement.dataset.screen !== 'loading' && document.documentElement.dataset.screen !== undefined,
  );
  expect(s.page.url(), 'fragment removed from the address bar').toBe(link.split('#')[0]);
}

/** Passes the gate of a restricted link with the code mailed to `email`. */
async function passGate(s: Session, email: string): Promise<void> {
  await s.page.waitForSelector('#screen-gate:not([hidden])[data-step="email"]');
  await s.page.fill('#gate-email', email);
  await s.page.click('#gate-send');
  await s.page.waitForSelector('#screen-gate[data-step="code"]');
  const code = /\b(\d{6})\b/.exec(mailsTo(runtime, email)[0]?.text ?? '')![1]!;
  await s.page.fill('#gate-code', code);
  await s.page.click('#gate-verify');
  await s.page.waitForSelector('#screen-ready:not([hidden])');
}

/** The summary box's lines: what belongs to no field (recipient rows, the personal links). */
const errorList = (s: Session) => s.page.locator('#compose-error-list li').allTextContents();
/** The messages shown beside the form's fields, by field (`expiry` for `#expiry-error`). */
const fieldMessages = (s: Session) =>
  s.page
    .locator('#compose-fields .field-error:not([hidden])')
    .evaluateAll((errors) => Object.fromEntries(errors.map((error) => [error.id.replace(/-error$/, ''), error.textContent])));
const invalidIds = (s: Session) =>
  s.page.locator('#compose-fields [aria-invalid="true"]').evaluateAll((fields) => fields.map((field) => field.id));
const creates = (s: Session, path = '/v1/secrets') =>
  s.apiRequests().filter((request) => request.method === 'POST' && new URL(request.url).pathname === path);
const focusedId = (s: Session) => s.page.evaluate(() => document.activeElement?.id ?? '');

/** The band as the page draws it: its text, whether it shows, its logo, and the colours the accent reaches. */
function band(s: Session) {
  return s.page.evaluate(() => {
    const root = document.documentElement;
    const element = document.getElementById('sent-from')!;
    const name = document.getElementById('sent-from-name')!;
    const logo = element.querySelector('img');
    const primary = [...document.querySelectorAll<HTMLButtonElement>('button.primary')].find((button) => button.offsetParent !== null)!;
    return {
      visible: !element.hidden,
      text: element.querySelector('p')!.textContent,
      nameTag: name.tagName.toLowerCase(),
      logo: logo && { alt: logo.getAttribute('alt'), src: logo.src.slice(0, 22), height: logo.getBoundingClientRect().height },
      firstInMain: document.querySelector('main')!.querySelector('[id]:not(noscript)') === element,
      brand: document.querySelector('.site-header .brand')!.textContent!.trim(),
      accent: root.dataset.brandAccent ?? null,
      linkColour: getComputedStyle(root).getPropertyValue('--accent').trim(),
      nameColour: getComputedStyle(name).color,
      textColour: getComputedStyle(document.body).color,
      button: { background: getComputedStyle(primary).backgroundColor, label: getComputedStyle(primary).color },
    };
  });
}

const acmeRgb = 'rgb(29, 78, 216)';
const white = 'rgb(255, 255, 255)';
/** The compose page's text and link of the last result, guarded. */
let acmeLink = '';
let acmeText = '';
let acmePassphrase = '';
const annEmail = newEmail('ann');

describe('sending inside a workspace', () => {
  it('offers “Send in” to a member, the current workspace first, and says its policy’s limits before anything is sent', async () => {
    memberPage = await session('member');
    const { page } = memberPage;
    await signIn(memberPage, member.user.email);
    await page.evaluate((id) => localStorage.setItem('hushlink.workspace', id), acme.id);
    await openCompose(memberPage);
    expect(await page.inputValue('#send-in')).toBe(acme.id);
    expect((await page.locator('#send-in option').allTextContents()).sort()).toEqual(['Personal', acme.name, files.name].sort());
    expect(await page.locator('#send-in option').first().textContent()).toBe('Personal');
    expect(await page.locator('#send-in-limit-list li').allTextContents()).toEqual([
      'Expires within 1 day at most',
      'At most 3 views',
      'A passphrase is required',
      'Recipients must be restricted to addresses at example.com',
      'Files up to 10 MB',
    ]);
    expect(await page.textContent('#send-in-branding')).toBe('Its link pages say “Sent from Acme Security on Hushlink”.');
    expect(await page.getAttribute('#send-in', 'aria-describedby')).toBe('send-in-hint send-in-limits send-in-error');

    // The form is held to it: longer expiries disabled, three views at most, the passphrase required.
    const disabledExpiries = () =>
      page.locator('#expiry option:disabled').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    expect(await disabledExpiries()).toEqual(['604800', '2592000']);
    expect(await page.inputValue('#expiry')).toBe('86400');
    expect(await page.getAttribute('#max-views', 'max')).toBe('3');
    expect(await page.textContent('#max-views-hint')).toBe('1 to 3 in this workspace. It is deleted after the last one.');
    expect(await page.evaluate(() => (document.getElementById('passphrase') as HTMLInputElement).required)).toBe(true);
    expect(await page.textContent('label[for="passphrase"]')).toBe('Passphrase (required in this workspace)');
    expect(await page.getAttribute('#more-options', 'open')).not.toBeNull();
    await memberPage.screenshot('workspace-compose-limits');

    // Personal lets it all go.
    await page.selectOption('#send-in', '');
    expect(await page.isVisible('#send-in-limits')).toBe(false);
    expect(await page.getAttribute('#send-in', 'aria-describedby')).toBe('send-in-hint send-in-error');
    expect(await disabledExpiries()).toEqual([]);
    expect(await page.getAttribute('#max-views', 'max')).toBe('100');
    expect(await page.textContent('label[for="passphrase"]')).toBe('Passphrase');
    expect(await page.isEnabled('#secret-file')).toBe(true);

    // Where files are not allowed, the file input is disabled.
    await page.selectOption('#send-in', files.id);
    expect(await page.locator('#send-in-limit-list li').allTextContents()).toEqual(['Files are not allowed']);
    expect(await page.isEnabled('#secret-file')).toBe(false);
    expect(await page.textContent('#send-in-branding')).toBe(`Its link pages say “Sent from ${rtlName} on Hushlink”.`);
    await memberPage.screenshot('workspace-compose-no-files');
    // Choosing here does not change the current workspace (the workspaces pages do).
    expect(await page.evaluate(() => localStorage.getItem('hushlink.workspace'))).toBe(acme.id);
  });

  it('refuses in the page what the policy does not allow, and shows the server’s refusal of a forced body by field, sent once', async () => {
    const { page } = memberPage;
    await openCompose(memberPage);
    acmeText = newPlaintext();
    guardPlaintext(acmeText);
    await page.fill('#secret-text', acmeText);
    await page.selectOption('#expiry', 'custom');
    await page.fill('#custom-expiry-amount', '2');
    await page.selectOption('#custom-expiry-unit', '86400');
    await page.fill('#max-views', '5');
    await page.click('#create-button');
    await page.waitForSelector('#compose-errors:not([hidden])');
    // Each beside its field, without its name; the box keeps what has no field of its own.
    const besideFields = {
      expiry: 'At most 1 day in this workspace.',
      'max-views': 'At most 3 in this workspace.',
      passphrase: 'Required in this workspace. Tell it to the recipient another way.',
    };
    expect(await fieldMessages(memberPage)).toEqual(besideFields);
    expect(await errorList(memberPage)).toEqual([
      'Personal links: this workspace sends only to restricted recipients at example.com. Add one, with “Only this address can open it”.',
    ]);
    expect(await invalidIds(memberPage)).toEqual(['custom-expiry-amount', 'max-views', 'passphrase', 'add-recipient']);
    expect(await focusedId(memberPage)).toBe('custom-expiry-amount');
    expect(creates(memberPage)).toEqual([]);
    await memberPage.screenshot('workspace-compose-refused');

    // A recipient at another domain, not restricted: both named on its row.
    await page.click('#add-recipient');
    const row = page.locator('#recipient-list > li').first();
    await row.locator('input[id$="-email"]').fill('someone@example.org');
    await page.click('#create-button');
    await page.waitForSelector('#compose-errors:not([hidden])');
    expect(await fieldMessages(memberPage)).toEqual(besideFields);
    expect(await errorList(memberPage)).toEqual([
      'Recipient 1, only this address: must be checked in this workspace.',
      'Recipient 1, email address: must be an address at example.com in this workspace.',
    ]);
    expect(creates(memberPage)).toEqual([]);

    // Within the policy in the page, but the body forced past it: the server refuses, by field, once.
    await page.selectOption('#expiry', '86400');
    await page.fill('#max-views', '2');
    acmePassphrase = newPassphrase();
    await page.fill('#passphrase', acmePassphrase);
    await row.locator('input[id$="-email"]').fill(annEmail);
    await row.locator('input[id$="-restricted"]').check();
    await page.route('**/v1/secrets', async (route) => {
      const body = JSON.parse(route.request().postData() ?? '{}');
      await route.continue({ postData: JSON.stringify({ ...body, max_views: 50 }) });
    });
    const refreshes = () => memberPage.apiRequests().filter((request) => request.url.endsWith('/v1/auth/refresh')).length;
    const [sendsBefore, refreshesBefore] = [creates(memberPage).length, refreshes()];
    const refused = page.waitForResponse((response) => response.url().endsWith('/v1/secrets') && response.request().method() === 'POST');
    await page.click('#create-button');
    expect((await refused).status()).toBe(403);
    // Beside its field, as the server words it; nothing else to say in the box.
    await page.waitForSelector('#max-views-error:not([hidden])');
    expect(await fieldMessages(memberPage)).toEqual({ 'max-views': 'At most 3 views in this workspace.' });
    expect(await page.isVisible('#compose-errors')).toBe(false);
    expect(await invalidIds(memberPage)).toEqual(['max-views']);
    expect(await focusedId(memberPage)).toBe('max-views');
    // No refresh and second send: the policy's 403 is not a stale token's.
    expect(creates(memberPage)).toHaveLength(sendsBefore + 1);
    expect(refreshes()).toBe(refreshesBefore);
    await page.unroute('**/v1/secrets');
    await memberPage.screenshot('workspace-compose-server-refused');

    await page.click('#create-button');
    await page.waitForSelector('#result:not([hidden])');
    const sent = JSON.parse(creates(memberPage).at(-1)!.body);
    expect(sent).toMatchObject({
      workspace_id: acme.id,
      expires_in: 86_400,
      max_views: 2,
      recipients: [{ email: annEmail, restricted: true }],
    });
    acmeLink = await page.locator('#link-list input[data-role="link"]').inputValue();
    const key = new URL(acmeLink).hash.slice(1);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    guard('link key', key);
    guard('full link', acmeLink);

    // "Create another": still in the workspace, the form held to it again.
    await page.click('#create-another');
    expect(await page.inputValue('#send-in')).toBe(acme.id);
    expect(await page.isVisible('#send-in-limits')).toBe(true);
    expect(await page.getAttribute('#max-views', 'max')).toBe('3');
    expect(await page.isDisabled('#expiry option[value="604800"]')).toBe(true);
  });

  it('reveals it under the workspace’s band (logo, name, accent) above the page’s own content: dark at 360 px, then light', async () => {
    const dark = await session('branded-dark', {
      viewport: { width: 360, height: 740 },
      isMobile: true,
      hasTouch: true,
      colorScheme: 'dark',
    });
    await openLink(dark, acmeLink);
    expect(await dark.screen()).toBe('gate');
    const darkBand = await band(dark);
    expect(darkBand).toMatchObject({
      visible: true,
      text: 'Sent from Acme Security on Hushlink',
      nameTag: 'bdi',
      logo: { alt: '', src: 'data:image/png;base64,' },
      firstInMain: true,
      brand: 'Hushlink',
      accent: acmeBranding.accent,
      // Dark: the accent fills the button under a white label; links and the name keep the theme's colours.
      linkColour: '#8f94ff',
      button: { background: acmeRgb, label: white },
    });
    expect(darkBand.nameColour).toBe(darkBand.textColour);
    expect(darkBand.logo!.height).toBeLessThanOrEqual(40);
    // The page's own heading and text, unchanged.
    expect(await dark.page.textContent('#gate-title')).toBe('Confirm your email address');
    expect(await dark.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await dark.screenshot('workspace-reveal-branded-narrow-dark');
    await finish(dark);

    const light = await session('branded-light');
    await openLink(light, acmeLink);
    const lightBand = await band(light);
    // Light: the accent is also the links' colour and the name's (its contrast with the card and page was checked).
    expect(lightBand).toMatchObject({
      visible: true,
      accent: acmeBranding.accent,
      linkColour: acmeBranding.accent,
      nameColour: acmeRgb,
      button: { background: acmeRgb, label: white },
    });
    await passGate(light, annEmail);
    expect(await light.page.textContent('#ready-title')).toBe('Someone shared a secret with you');
    expect(await light.page.isVisible('#sent-from')).toBe(true);
    await light.page.fill('#passphrase', acmePassphrase);
    await light.screenshot('workspace-reveal-branded');
    await light.page.click('#reveal-button');
    await light.page.waitForSelector('#screen-revealed:not([hidden])');
    expect(await light.page.inputValue('#secret-text')).toBe(acmeText);
    expect(await light.page.isVisible('#sent-from')).toBe(true);
    expect((await band(light)).button).toEqual({ background: acmeRgb, label: white });
    await light.screenshot('workspace-reveal-branded-revealed');
    await finish(light);
  });

  it('keeps “Sent from <name> on Hushlink” in order with a right-to-left name', async () => {
    const text = newPlaintext();
    guardPlaintext(text);
    const sealed = await sealText(text);
    guard('sealed key', sealed.key);
    const created = await api.post(
      '/v1/secrets',
      {
        kind: 'text',
        envelope: toBase64(sealed.envelope),
        salt: sealed.salt,
        size_bytes: sealed.envelope.length,
        max_views: 1,
        claim_verifier: sealed.claimVerifier,
        link_verifier: sealed.linkVerifier,
        workspace_id: files.id,
      },
      member.auth,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const s = await session('rtl');
    await openLink(s, `${created.body.url_base}#${sealed.key}`);
    expect(await s.screen()).toBe('ready');
    expect(await band(s)).toMatchObject({
      visible: true,
      text: `Sent from ${rtlName} on Hushlink`,
      nameTag: 'bdi',
      logo: null,
      accent: rtlAccent,
      button: { background: 'rgb(154, 52, 18)', label: white },
    });
    // Drawn in that order, left to right: the name's run stays between the two halves of the sentence.
    const boxes = await s.page.evaluate(() => {
      const [before, name, after] = [...document.querySelector('#sent-from p')!.childNodes];
      const box = (node: Node) => {
        const range = document.createRange();
        range.selectNodeContents(node);
        const rect = range.getBoundingClientRect();
        return { left: rect.left, right: rect.right, top: rect.top };
      };
      return {
        before: box(before!),
        name: box(name!),
        after: box(after!),
        texts: [before!.textContent, name!.textContent, after!.textContent],
      };
    });
    expect(boxes.texts).toEqual(['Sent from ', rtlName, ' on Hushlink']);
    expect(boxes.before.top).toBe(boxes.after.top);
    expect(boxes.before.right).toBeLessThanOrEqual(boxes.name.left + 0.5);
    expect(boxes.name.right).toBeLessThanOrEqual(boxes.after.left + 0.5);
    await s.page.setViewportSize({ width: 360, height: 740 });
    expect(await s.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await s.screenshot('workspace-reveal-rtl-narrow');
    await s.page.click('#reveal-button');
    await s.page.waitForSelector('#screen-revealed:not([hidden])');
    expect(await s.page.inputValue('#secret-text')).toBe(text);
    await finish(s);
  });

  it('shows no band for a secret sent outside any workspace: the page keeps its own colours', async () => {
    const { page } = memberPage;
    await openCompose(memberPage);
    await page.selectOption('#send-in', '');
    const text = newPlaintext();
    guardPlaintext(text);
    await page.fill('#secret-text', text);
    await page.click('#create-button');
    await page.waitForSelector('#result:not([hidden])');
    expect(JSON.parse(creates(memberPage).at(-1)!.body)).not.toHaveProperty('workspace_id');
    const link = await page.inputValue('#share-link');
    guard('link key', new URL(link).hash.slice(1));
    guard('full link', link);

    const s = await session('plain');
    await openLink(s, link);
    expect(await s.screen()).toBe('ready');
    expect(await band(s)).toMatchObject({
      visible: false,
      text: 'Sent from  on Hushlink',
      logo: null,
      accent: null,
      linkColour: '#3b3fbf',
      button: { background: 'rgb(59, 63, 191)', label: white },
    });
    expect(await s.page.evaluate(() => document.documentElement.style.getPropertyValue('--brand-accent'))).toBe('');
    await s.screenshot('workspace-reveal-plain');
    await finish(s);
  });

  it('sends a file in the workspace, held to its size there, and none where files are not allowed', async () => {
    const { page } = memberPage;
    const large = join(work, `large-${randomUUID()}.bin`);
    writeFileSync(large, '');
    truncateSync(large, 12 * MiB);
    guard('file name', large.split('/').at(-1)!);
    await openCompose(memberPage);
    expect(await page.inputValue('#send-in')).toBe(acme.id);
    await page.setInputFiles('#secret-file', large);
    await page.waitForSelector('#file-limit:not([hidden])');
    expect(await page.textContent('#file-limit')).toMatch(
      /^“large-[\w-]+\.bin” is 12 MB, and files are limited to 10 MB in this workspace\.$/,
    );

    // Another workspace, which takes no files: said under the input, and refused on sending.
    await page.selectOption('#send-in', files.id);
    await expect.poll(() => page.textContent('#file-limit')).toMatch(/cannot be sent here: this workspace allows no files/);
    expect(await page.isDisabled('#secret-file')).toBe(true);
    await page.click('#create-button');
    await page.waitForSelector('#secret-file-error:not([hidden])');
    expect(await page.textContent('#secret-file-error')).toMatch(
      /^“large-[\w-]+\.bin” cannot be sent here: this workspace allows no files\. Remove it to share text, or send it in Personal\.$/,
    );
    expect(creates(memberPage, '/v1/files/multipart')).toEqual([]);
    await page.click('#file-remove');

    // A file that fits, in the workspace that takes it, with its passphrase and a restricted recipient.
    const name = `small-${randomUUID()}.bin`;
    const marker = `workspace-e2e-plaintext-${randomUUID()}`;
    guard('file name', name);
    guard('plaintext marker', marker);
    const bytes = randomBytes(MiB);
    bytes.write(marker, 0, 'latin1');
    const small = join(work, name);
    writeFileSync(small, bytes);
    await page.selectOption('#send-in', acme.id);
    expect(await page.isEnabled('#secret-file')).toBe(true);
    await page.setInputFiles('#secret-file', small);
    expect(await page.isVisible('#file-limit')).toBe(false);
    await page.fill('#passphrase', newPassphrase());
    await page.click('#add-recipient');
    const row = page.locator('#recipient-list > li').first();
    await row.locator('input[id$="-email"]').fill(newEmail('bea'));
    await row.locator('input[id$="-restricted"]').check();
    await page.click('#create-button');
    await page.waitForSelector('#result:not([hidden])', { timeout: 60_000 });
    const opened = creates(memberPage, '/v1/files/multipart');
    expect(opened).toHaveLength(1);
    expect(JSON.parse(opened[0]!.body)).toMatchObject({
      workspace_id: acme.id,
      passphrase: true,
      expires_in: 86_400,
      max_views: 1,
      recipients: [{ restricted: true }],
    });
    const link = await page.locator('#link-list input[data-role="link"]').inputValue();
    guard('link key', new URL(link).hash.slice(1));
    guard('full link', link);
    expect(await page.textContent('#result-summary')).toContain(`The file “${name}” (1 MB), encrypted.`);
  });

  it('says so when the sender is no longer a member (403 not_a_member), once, and leaves Personal', async () => {
    const { page } = memberPage;
    await openCompose(memberPage);
    await page.selectOption('#send-in', files.id);
    const text = newPlaintext();
    guardPlaintext(text);
    await page.fill('#secret-text', text);
    const removed = await api.delete(`/v1/workspaces/${files.id}/members/${member.user.id}`, files.owner.auth);
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const before = creates(memberPage).length;
    await page.click('#create-button');
    await page.waitForSelector('#send-in-error:not([hidden])');
    expect(await fieldMessages(memberPage)).toEqual({
      'send-in': `You are not a member of “${files.name}” (any more), so nothing was sent. Choose Personal or another workspace.`,
    });
    expect(await invalidIds(memberPage)).toEqual(['send-in']);
    expect(await focusedId(memberPage)).toBe('send-in');
    expect(creates(memberPage)).toHaveLength(before + 1);
    // The list read again: the workspace is gone from the select, Personal chosen.
    await expect.poll(() => page.locator('#send-in option').allTextContents()).toEqual(['Personal', acme.name]);
    expect(await page.inputValue('#send-in')).toBe('');
    expect(await page.isVisible('#send-in-limits')).toBe(false);
    await memberPage.screenshot('workspace-compose-not-a-member');
  });

  it('works with the keyboard: the select, its limits, and the form after it', async () => {
    const { page } = memberPage;
    await page.evaluate(() => localStorage.removeItem('hushlink.workspace'));
    await openCompose(memberPage);
    expect(await page.inputValue('#send-in')).toBe('');
    const focused = () =>
      page.evaluate(() => {
        const element = document.activeElement;
        if (element instanceof HTMLAnchorElement)
          return element.classList.contains('brand') ? 'brand' : `link ${element.getAttribute('href')}`;
        return element?.id || element?.tagName.toLowerCase();
      });
    // The skip link, the header (signed in: every account page, Sign out), the signed-in note's
    // link to My secrets, then the select, first in the form.
    const walk: Array<string | undefined> = [];
    for (let i = 0; i < 14; i++) {
      await page.keyboard.press('Tab');
      walk.push(await focused());
    }
    expect(walk).toEqual([
      'link #main',
      'brand',
      'link /',
      'link /account',
      'link /requests',
      'link /workspaces',
      'link /keys',
      'link /sessions',
      'link /webhooks',
      'link /billing',
      'link /plans',
      'button',
      'link /account',
      'send-in',
    ]);
    await page.keyboard.press('ArrowDown');
    expect(await page.inputValue('#send-in')).toBe(acme.id);
    expect(await page.isVisible('#send-in-limits')).toBe(true);
    expect(await focused()).toBe('send-in');
    await expect
      .poll(() => page.textContent('#status'))
      .toBe(
        `Sending in ${acme.name}. Expires within 1 day at most. At most 3 views. A passphrase is required. Recipients must be restricted to addresses at example.com. Files up to 10 MB.`,
      );
    const order: Array<string | undefined> = [];
    for (let i = 0; i < 7; i++) {
      await page.keyboard.press('Tab');
      order.push(await focused());
    }
    // The passphrase is required here, so "Options" is open and in the walk (up to the date
    // field, whose parts each take a Tab).
    expect(order).toEqual(['secret-text', 'secret-file', 'summary', 'expiry', 'max-views', 'passphrase', 'not-before']);
    for (let i = 0; i < 7; i++) await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('send-in');
    await page.keyboard.press('ArrowUp');
    expect(await page.inputValue('#send-in')).toBe('');
    expect(await page.isVisible('#send-in-limits')).toBe(false);
    await expect.poll(() => page.textContent('#status')).toBe('Sending as Personal.');
    await finish(memberPage);
  });

  it('never sent a key, passphrase or plaintext', async () => {
    const requests = await settleTraffic();
    expect(guarded.size).toBeGreaterThan(15);
    expect(findLeaks(requests, guarded)).toEqual([]);
    const api = requests.filter((request) => new URL(request.url).pathname.startsWith('/v1/'));
    expect(api.filter((request) => request.method === 'POST' && request.url.endsWith('/claim')).length).toBeGreaterThanOrEqual(2);
    for (const request of requests) {
      expect([runtime.url, runtime.s3.endpoint], `origin of ${request.url}`).toContain(new URL(request.url).origin);
      // The sign-in cookie goes to /v1/auth/* alone: never with a secret's, a file's or a page's request.
      expect(cookieProblem(request), `cookie of ${request.url}`).toBeNull();
      expect(request.headers.referer ?? '', `referer of ${request.url}`).not.toContain('#');
    }
  });
});
