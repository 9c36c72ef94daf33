/**
 * The workspace area end to end (issue 15) in Chromium against one local runtime, whose
 * `REGIONS` name a second region so a 421 is real: an owner signs in and creates a workspace in
 * `/workspaces` (a taken slug's 409 and another region's 421 said first), chooses it as current
 * (its id alone in localStorage); the test gives it the Team plan and seats (`setWorkspace`, until
 * billing exists); the owner invites in `/workspace?id=` (no free seat said, an invitation
 * revoked behind its confirm step); the invitation's link is read from the runtime's outbox and
 * opened in a second browser context, which signs in through the page and accepts; the owner
 * changes the new member's role; policy and branding are set in the page (the preview checked, a
 * low-contrast accent and an SVG logo refused before anything is sent); the audit trail is shown,
 * filtered and exported (the CSV parsed: its rows and the formula escaping of an address that
 * begins with `-`; a trail in two parts); transfer and leave; the join page's refusals; keyboard
 * only; 360 px light and dark. Every request is recorded: an invitation token appears only in the
 * body of `invitations/accept`, in no storage once used, and never in the address bar.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, Download } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { newEmail, signIn as signInOverApi, type SignedIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { invitationToken, setWorkspace } from '../support/workspaces.ts';
import {
  findLeaks,
  guard as guardValue,
  launchChromium,
  refreshCookie,
  Session,
  sessionMarker,
  sessionMarkerKey,
  settleTraffic,
  stopRuntimeAndBrowser,
  signInThroughPage,
  tabRefreshKey as refreshKey,
  typeSignInCode,
} from './harness.ts';

let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
/** Invitation tokens: only the accept's body may carry them. */
const guarded = new Map<string, string>();
const acceptRoute = { label: 'invitation token', method: 'POST', path: /^\/v1\/workspaces\/invitations\/accept$/ };
/** The invitation page's preview (ADR 0181) takes the token in its body too. */
const previewRoute = { label: 'invitation token', method: 'POST', path: /^\/v1\/workspaces\/invitations\/preview$/ };
const work = mkdtempSync(join(tmpdir(), 'hushlink-workspaces-e2e-'));
const workspaceKey = 'hushlink.workspace';
const invitationKey = 'hushlink.invitation';
const otherRegion = { id: 'eu-central-1', api_url: 'https://eu.hushlink.example' };

const ownerEmail = newEmail('owner');
/** Begins with `-`: a spreadsheet would read it as a formula, so the CSV escapes it. */
const inviteeEmail = `-${newEmail('invitee')}`;
const workspaceName = `Acme Security ${randomUUID().slice(0, 8)}`;
let owner: Session;
let invitee: Session;
let workspaceId = '';
let ownerApi: SignedIn;
/** The invitee's own API session (over HTTP), once joined. */
let inviteeApi: SignedIn;

beforeAll(async () => {
  [runtime, browser] = await Promise.all([
    startTestRuntime({ env: { REGIONS: JSON.stringify([{ id: 'local', api_url: 'http://127.0.0.1' }, otherRegion]) } }),
    launchChromium(),
  ]);
  api = apiClient(runtime);
  owner = await session('owner');
  await signIn(owner, ownerEmail, '/workspaces');
  ownerApi = await signInOverApi(runtime, ownerEmail);
}, 180_000);

afterAll(async () => {
  await stopRuntimeAndBrowser(runtime, browser);
  rmSync(work, { recursive: true, force: true });
});

const guard = (value: string) => guardValue(guarded, 'invitation token', value);

async function session(name: string, options: { narrow?: boolean; dark?: boolean } = {}): Promise<Session> {
  return Session.open(browser, name, {
    ...(options.narrow ? { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } : {}),
    ...(options.dark ? { colorScheme: 'dark' as const } : {}),
  });
}

/** Signs in through the page (the code from the outbox) and waits for the page `next` leads to. */
const signIn = (s: Session, email: string, next: string) => signInThroughPage(s, runtime, email, next);
const typeCodeFor = (s: Session, email: string) => typeSignInCode(s, runtime, email);

const ready = (s: Session, page: 'workspaces' | 'workspace' | 'join') => s.page.waitForSelector(`html[data-ready="${page}"]`);

async function openWorkspaces(s: Session): Promise<void> {
  await s.page.goto(`${runtime.url}/workspaces`);
  await ready(s, 'workspaces');
}

async function openWorkspace(s: Session): Promise<void> {
  await s.page.goto(`${runtime.url}/workspace?id=${workspaceId}`);
  await ready(s, 'workspace');
  await s.page.waitForSelector('#members > li');
}

const member = (s: Session, email: string) => s.page.locator('#members > li', { has: s.page.locator('.member-email', { hasText: email }) });
const invitation = (s: Session, email: string) =>
  s.page.locator('#invitations > li', { has: s.page.locator('.item-title', { hasText: email }) });
const focusedId = (s: Session) =>
  s.page.evaluate(
    () =>
      document.activeElement?.id ||
      document.activeElement?.getAttribute('data-action') ||
      document.activeElement?.tagName.toLowerCase() ||
      '',
  );
const apiWrites = (s: Session) => s.apiRequests().filter((request) => request.method !== 'GET');

/**
 * A signed-in browser's storage: in localStorage the session's marker (the refresh token is the
 * HttpOnly cookie, ADR 0178) and, for the owner, the chosen workspace's id; in sessionStorage at
 * most a shared computer's refresh token; no token or cookie value anywhere.
 */
async function checkStorage(s: Session, local: Record<string, string> = {}): Promise<void> {
  const stored = await s.webStorage();
  expect(stored.cookies, `cookies of ${s.name}`).toBe('');
  expect(stored.indexedDb, `IndexedDB of ${s.name}`).toEqual([]);
  expect(stored.local, `localStorage of ${s.name}`).toEqual({ ...sessionMarker, ...local });
  expect(
    Object.keys(stored.session).filter((key) => key !== refreshKey),
    `sessionStorage of ${s.name}`,
  ).toEqual([]);
  const everything = JSON.stringify(stored);
  for (const [label, value] of guarded) expect(everything.includes(value), `${label} in web storage of ${s.name}`).toBe(false);
  const cookie = await refreshCookie(s);
  if (cookie !== undefined) expect(everything.includes(cookie), `the refresh cookie in web storage of ${s.name}`).toBe(false);
}

async function finish(s: Session, local: Record<string, string> = {}): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  await checkStorage(s, local);
  expect(s.page.url(), 'the address bar keeps no fragment').not.toContain('#');
  await s.close();
}

/** A `size`×`size` PNG of one colour, built byte for byte. */
function png(size: number, rgba: [number, number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => rgba).flat())]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: size }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** RFC 4180: fields quoted or not, quotes doubled, CRLF between records. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') record.push(field), (field = '');
    else if (char === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      (record = []), (field = ''), i++;
    } else field += char;
  }
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records;
}

const downloadText = async (download: Download) => readFileSync((await download.path())!, 'utf8');

describe('workspaces in the web client', () => {
  it('serves the pages with the web headers, and nothing at near misses', async () => {
    for (const [path, script] of [
      ['/workspaces', 'workspaces'],
      ['/workspace?id=wks_x', 'workspace'],
      ['/join', 'join'],
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
      expect(html).toContain('<a href="/workspaces"');
    }
    for (const path of ['/workspaces/', '/workspace/wks_x', '/join/', '/join/hli_x'])
      expect((await fetch(`${runtime.url}${path}`)).status, path).toBe(404);
  });

  it('creates a workspace in the page: a taken slug (409) and another region (421) said first; then the current workspace chosen', async () => {
    const { page } = owner;
    await ready(owner, 'workspaces');
    expect(await page.getAttribute('header nav a[href="/workspaces"]', 'aria-current')).toBe('page');
    expect(await page.isVisible('#workspaces-empty')).toBe(true);
    expect(await page.isVisible('#current-box')).toBe(false);
    await owner.screenshot('workspaces-empty');

    // 409: a slug another workspace has.
    const taken = `taken-${randomUUID().slice(0, 8)}`;
    const other = await signInOverApi(runtime, newEmail('other-owner'));
    expect((await api.post('/v1/workspaces', { name: 'Someone else', slug: taken }, other.auth)).status).toBe(201);
    await page.fill('#workspace-name', workspaceName);
    await page.fill('#workspace-slug', taken);
    await page.click('#create-workspace');
    await page.waitForSelector('#workspace-slug-error:not([hidden])');
    expect(await page.textContent('#workspace-slug-error')).toContain('taken');
    expect(await page.getAttribute('#workspace-slug', 'aria-invalid')).toBe('true');
    expect(await focusedId(owner)).toBe('workspace-slug');

    // 421: another region's service makes it; the page links to its api_url.
    await page.fill('#workspace-slug', '');
    expect(await page.isVisible('#region-field')).toBe(true);
    expect(await page.inputValue('#workspace-region')).toBe('local');
    await page.selectOption('#workspace-region', otherRegion.id);
    await page.click('#create-workspace');
    await page.waitForSelector('#create-errors:not([hidden])');
    expect(await page.textContent('#create-errors')).toContain(
      `Workspaces in ${otherRegion.id} are made by that region’s own Hushlink service`,
    );
    expect(await page.getAttribute('#create-errors a', 'href')).toBe(otherRegion.api_url);
    expect(await page.isVisible('#workspace-region-error')).toBe(true);
    await owner.screenshot('workspaces-create-421');

    await page.selectOption('#workspace-region', 'local');
    await page.click('#create-workspace');
    await page.waitForSelector('#workspaces > li');
    const item = page.locator('#workspaces > li').first();
    workspaceId = (await item.getAttribute('data-id'))!;
    expect(workspaceId).toMatch(/^wks_/);
    expect(await focusedId(owner)).toBe('a');
    expect(await item.locator('.item-title a').textContent()).toBe(workspaceName);
    expect(await item.locator('[data-role="seats"] dd').textContent()).toBe('1 of 1 used by members');
    expect(await item.textContent()).toContain('Owner');
    expect(await item.textContent()).toContain('Free');
    const creates = apiWrites(owner).filter((request) => new URL(request.url).pathname === '/v1/workspaces');
    expect(creates.map((request) => JSON.parse(request.body))).toEqual([
      { name: workspaceName, slug: taken, region: 'local' },
      { name: workspaceName, region: otherRegion.id },
      { name: workspaceName, region: 'local' },
    ]);

    // The switcher: the id alone in localStorage, beside the session's marker.
    expect(await page.isVisible('#current-box')).toBe(true);
    await page.selectOption('#current-workspace', workspaceId);
    await expect.poll(() => owner.webStorage().then((stored) => stored.local)).toEqual({ ...sessionMarker, [workspaceKey]: workspaceId });
    expect(await item.locator('[data-role="current"]').textContent()).toBe('Current');
    await openWorkspaces(owner);
    expect(await page.inputValue('#current-workspace')).toBe(workspaceId);
    await owner.screenshot('workspaces-list');
  });

  it('invites in the page within the seats: no free seat said, an invitation revoked behind its confirm step', async () => {
    await setWorkspace(runtime, workspaceId, { plan: 'team', seats: 3 });
    const { page } = owner;
    await openWorkspace(owner);
    expect(await page.textContent('#workspace-title')).toBe(workspaceName);
    for (const id of ['#members-section', '#invite-form', '#policy-section', '#branding-section', '#audit-section'])
      expect(await page.isVisible(id), id).toBe(true);
    expect(await page.textContent('#seats-line')).toContain('1 of 3 seats used');

    const spare = newEmail('spare');
    for (const [email, role] of [
      [inviteeEmail, 'member'],
      [spare, 'admin'],
    ] as const) {
      await page.fill('#invite-email', email);
      await page.selectOption('#invite-role', role);
      await page.click('#invite-button');
      await invitation(owner, email).waitFor();
      expect(await page.textContent('#invite-sent')).toContain(`Invitation emailed to ${email}`);
      expect(await focusedId(owner)).toBe('invite-email');
    }
    guard(invitationToken(runtime, inviteeEmail));
    guard(invitationToken(runtime, spare));
    expect(await page.textContent('#seats-line')).toContain('3 of 3 seats used: 1 member and 2 pending invitations. No seat is free');

    // A fourth seat does not exist: 403 no_free_seat, said with the seats.
    await page.fill('#invite-email', newEmail('one-too-many'));
    await page.click('#invite-button');
    await page.waitForSelector('#invite-errors:not([hidden])');
    expect(await page.textContent('#invite-errors')).toContain('No free seat: 3 of 3 seats are taken by members and pending invitations');
    await owner.screenshot('workspaces-no-free-seat');

    // Revoke the spare one: "Keep it" sends nothing, "Yes" revokes.
    const writes = apiWrites(owner).length;
    const spareItem = invitation(owner, spare);
    await spareItem.locator('button[data-action="revoke"]').click();
    expect(await focusedId(owner)).toBe('confirm-revoke');
    expect(await spareItem.locator('[data-role="confirm-revoke"]').textContent()).toContain(`Revoke the invitation to ${spare}?`);
    await spareItem.locator('button[data-action="cancel-revoke"]').click();
    expect(await focusedId(owner)).toBe('revoke');
    expect(apiWrites(owner).length).toBe(writes);
    await spareItem.locator('button[data-action="revoke"]').click();
    await spareItem.locator('button[data-action="confirm-revoke"]').click();
    await expect.poll(() => invitation(owner, spare).count()).toBe(0);
    const revoke = apiWrites(owner).at(-1)!;
    expect(revoke.method).toBe('DELETE');
    expect(new URL(revoke.url).pathname).toMatch(new RegExp(`^/v1/workspaces/${workspaceId}/members/inv_`));
    // The row goes when the members are drawn again; focus moves once the whole page is read again (audit, domains too).
    await expect.poll(() => page.textContent('#seats-line')).toContain('2 of 3 seats used');
    await expect.poll(() => focusedId(owner)).toBe('members-title');
  });

  it('accepts in a second browser: /join#token names the invitation, signs in as its address (the token in sessionStorage meanwhile), then joins', async () => {
    const token = invitationToken(runtime, inviteeEmail);
    invitee = await session('invitee');
    const { page } = invitee;
    await page.goto(`${runtime.url}/join#${token}`);
    await page.waitForSelector('html[data-screen="invited"]');
    expect(await page.textContent('#join-title')).toBe(`${ownerEmail} invited you to ${workspaceName} as a member`);
    await page.click('#join-signin');
    await page.waitForURL((url) => url.pathname === '/signin');
    await invitee.ready('signin');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/join');
    expect(new URL(page.url()).searchParams.get('email')).toBe(inviteeEmail);
    expect(await page.textContent('#signin-reason')).toContain('Sign in with the address your invitation was sent to');
    expect((await invitee.webStorage()).session).toEqual({ [invitationKey]: token });
    expect(page.url()).not.toContain(token);
    await invitee.screenshot('workspaces-join-signin');

    await typeCodeFor(invitee, inviteeEmail);
    await page.waitForURL((url) => url.pathname === '/join');
    await page.waitForSelector('html[data-screen="joined"]');
    expect(await page.textContent('#join-title')).toBe(`You joined ${workspaceName} as member`);
    expect(page.url()).toBe(`${runtime.url}/join`);
    // Signed in by the cookie (ADR 0178): the marker alone, and the used token gone from sessionStorage.
    const stored = await invitee.webStorage();
    expect(stored.session).toEqual({});
    expect(stored.local).toEqual(sessionMarker);
    expect(JSON.stringify(stored)).not.toContain(token);
    const accepts = invitee.apiRequests().filter((request) => new URL(request.url).pathname === '/v1/workspaces/invitations/accept');
    expect(accepts.map((request) => [request.method, JSON.parse(request.body)])).toEqual([['POST', { token }]]);
    await invitee.screenshot('workspaces-joined');

    // A member sees the members, and does nothing but leave.
    await page.click('#join-link');
    await ready(invitee, 'workspace');
    await page.waitForSelector('#members > li');
    expect(await page.isVisible('#members-section')).toBe(true);
    for (const id of ['#invite-form', '#policy-section', '#branding-section', '#audit-section'])
      expect(await page.isVisible(id), id).toBe(false);
    expect(await page.locator('#members button[data-action="remove"], #members select, #invitations button').count()).toBe(0);
    expect(await member(invitee, inviteeEmail).locator('button[data-action="leave"]').count()).toBe(1);
    expect(await page.textContent('[data-role="your-role"] dd')).toContain('Member');
    await invitee.screenshot('workspaces-member-view');
    inviteeApi = await signInOverApi(runtime, inviteeEmail);
    expect((await api.get(`/v1/workspaces/${workspaceId}/audit`, inviteeApi.auth)).status).toBe(404);
  });

  it('the owner changes the member’s role in the page; the last owner stays owner (409 said)', async () => {
    await openWorkspace(owner);
    const card = member(owner, inviteeEmail);
    expect(await card.getAttribute('data-role')).toBe('member');
    expect(await card.locator('button[data-action="change-role"]').isDisabled()).toBe(true);
    await card.locator('select[data-action="role"]').selectOption('admin');
    await card.locator('button[data-action="change-role"]').click();
    await expect.poll(() => member(owner, inviteeEmail).getAttribute('data-role')).toBe('admin');
    expect(await member(owner, inviteeEmail).locator('[data-role="member-role"]').textContent()).toBe('Admin');
    const patch = apiWrites(owner).at(-1)!;
    expect([patch.method, JSON.parse(patch.body)]).toEqual(['PATCH', { role: 'admin' }]);
    const listed = await api.get(`/v1/workspaces/${workspaceId}/members`, ownerApi.auth);
    expect(listed.body.items.find((item: { email: string }) => item.email === inviteeEmail).role).toBe('admin');

    // The owner demoting themself: 409 last_owner, said on the card, the select put back.
    const self = member(owner, ownerEmail);
    await self.locator('select[data-action="role"]').selectOption('member');
    await self.locator('button[data-action="change-role"]').click();
    await self.locator('[data-role="member-error"]:not([hidden])').waitFor();
    expect(await self.locator('[data-role="member-error"]').textContent()).toContain('is the last owner, so they stay owner');
    expect(await self.locator('select[data-action="role"]').inputValue()).toBe('owner');
    await owner.screenshot('workspaces-members');

    // The new admin's page: the audit trail, no role select, no Remove on the owner.
    await openWorkspace(invitee);
    expect(await invitee.page.isVisible('#audit-section')).toBe(true);
    expect(await invitee.page.locator('#members select').count()).toBe(0);
    expect(await member(invitee, ownerEmail).locator('button[data-action="remove"]').count()).toBe(0);
  });

  it('sets the policy in the page: checked in the page, the server’s 400 by field and line, then saved', async () => {
    const { page } = owner;
    await openWorkspace(owner);
    expect(await page.isDisabled('#policy-save')).toBe(false);
    await page.selectOption('#policy-expiry', '86400');
    await page.fill('#policy-views', '0');
    const writes = apiWrites(owner).length;
    await page.click('#policy-save');
    await page.waitForSelector('#policy-views-error:not([hidden])');
    expect(await focusedId(owner)).toBe('policy-views');
    expect(apiWrites(owner).length, 'refused in the page').toBe(writes);

    await page.fill('#policy-views', '3');
    await page.check('#policy-passphrase');
    await page.fill('#policy-domains', 'Example.com\n\n*.bad.example');
    await page.uncheck('#policy-files');
    await page.click('#policy-save');
    await page.waitForSelector('#policy-domains-error:not([hidden])');
    expect(await page.textContent('#policy-domains-error')).toContain('Line 3: Must be a domain without wildcards');
    expect(await page.getAttribute('#policy-domains', 'aria-invalid')).toBe('true');
    await owner.screenshot('workspaces-policy-refused');

    await page.fill('#policy-domains', 'Example.com\nmail.example.org');
    await page.fill('#policy-file-size', '');
    await page.click('#policy-save');
    await page.waitForSelector('#policy-saved:not([hidden])');
    const put = apiWrites(owner).at(-1)!;
    expect(JSON.parse(put.body)).toEqual({
      max_expires_in: 86400,
      max_views: 3,
      require_passphrase: true,
      allowed_recipient_domains: ['Example.com', 'mail.example.org'],
      allow_files: false,
      max_file_bytes: null,
      allow_requests: null,
    });
    const listed = (await api.get('/v1/workspaces', ownerApi.auth)).body.items.find((item: { id: string }) => item.id === workspaceId);
    expect(listed.policy).toEqual({
      max_expires_in: 86400,
      max_views: 3,
      require_passphrase: true,
      allowed_recipient_domains: ['example.com', 'mail.example.org'],
      allow_files: false,
      max_file_bytes: null,
      allow_requests: null,
      scim_admin_group: null,
    });
    // The form shows what is now set.
    expect(await page.inputValue('#policy-domains')).toBe('example.com\nmail.example.org');
    expect(await page.isChecked('#policy-files')).toBe(false);
  });

  it('sets the branding with a live preview: the name in a bdi, the logo, the accent; SVG and low contrast refused before sending', async () => {
    const { page } = owner;
    const name = `Acme שלום ${randomUUID().slice(0, 4)}`;
    await page.fill('#brand-name', name);
    expect(await page.textContent('.brand-line')).toBe(`Sent from ${name} on Hushlink`);
    expect(await page.textContent('.brand-line bdi')).toBe(name);
    expect(await page.textContent('#preview-note')).toContain('cannot be replaced or hidden');
    expect(await page.textContent('.preview-heading')).toBe('Someone shared a secret with you');

    const writes = apiWrites(owner).length;
    // An SVG is refused in the page, whatever it is called.
    const svg = join(work, 'logo.svg');
    writeFileSync(svg, '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    await page.setInputFiles('#brand-logo', svg);
    await page.waitForSelector('#brand-logo-error:not([hidden])');
    expect(await page.textContent('#brand-logo-error')).toContain('SVG included, are never accepted');
    expect(await page.isVisible('#preview-logo')).toBe(false);
    // Too large, though a PNG.
    const large = join(work, 'large.png');
    writeFileSync(large, Buffer.concat([png(1, [0, 0, 0, 255]), Buffer.alloc(64 * 1024)]));
    await page.setInputFiles('#brand-logo', large);
    await expect.poll(() => page.textContent('#brand-logo-error')).toContain('a logo is at most 64 KB');
    // A PNG with bytes after its end: parseLogo refuses it in the page.
    const polyglot = join(work, 'polyglot.png');
    writeFileSync(polyglot, Buffer.concat([png(2, [0, 0, 0, 255]), Buffer.from('<html>')]));
    await page.setInputFiles('#brand-logo', polyglot);
    await expect.poll(() => page.textContent('#brand-logo-error')).toContain('cannot be used: the logo');
    const logo = join(work, 'logo.png');
    writeFileSync(logo, png(16, [31, 79, 191, 255]));
    await page.setInputFiles('#brand-logo', logo);
    await page.waitForSelector('#preview-logo:not([hidden])');
    expect(await page.getAttribute('#preview-logo', 'src')).toBe(`data:image/png;base64,${readFileSync(logo).toString('base64')}`);
    expect(await page.textContent('#brand-logo-note')).toContain('16×16 pixels');

    // A low-contrast accent: the contrast says so, and submitting sends nothing.
    await page.fill('#brand-accent', '#ffcc00');
    expect(await page.getAttribute('#brand-contrast-verdict', 'data-verdict')).toBe('low');
    expect(await page.locator('#brand-contrast li[data-ok="false"]').count()).toBeGreaterThan(0);
    expect(await page.inputValue('#brand-accent-picker')).toBe('#ffcc00');
    await owner.screenshot('workspaces-branding-low-contrast');
    await page.click('#branding-save');
    await page.waitForSelector('#brand-accent-error:not([hidden])');
    expect(await page.textContent('#brand-accent-error')).toContain('Too little contrast');
    expect(await page.textContent('#brand-accent-error')).toContain('Nothing was sent.');
    expect(await focusedId(owner)).toBe('brand-accent');
    expect(apiWrites(owner).length, 'nothing sent for an SVG or a low-contrast accent').toBe(writes);

    await page.fill('#brand-accent', '#1F4FBF');
    expect(await page.getAttribute('#brand-contrast-verdict', 'data-verdict')).toBe('ok');
    expect(await page.locator('#brand-contrast li[data-ok="true"]').count()).toBe(3);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('.preview-button')!).backgroundColor)).toBe(
      'rgb(31, 79, 191)',
    );
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('.preview-button')!).color)).toBe('rgb(255, 255, 255)');
    expect(
      await page.evaluate(() => getComputedStyle(document.querySelector('.brand-line bdi')!).color),
      'the name in the accent (light theme)',
    ).toBe('rgb(31, 79, 191)');
    await owner.screenshot('workspaces-branding');
    await page.click('#branding-save');
    await page.waitForSelector('#branding-saved:not([hidden])');
    expect(JSON.parse(apiWrites(owner).at(-1)!.body)).toEqual({
      display_name: name,
      logo: `data:image/png;base64,${readFileSync(logo).toString('base64')}`,
      accent: '#1f4fbf',
    });
    const listed = (await api.get('/v1/workspaces', ownerApi.auth)).body.items.find((item: { id: string }) => item.id === workspaceId);
    expect(listed.branding).toEqual({ display_name: name, logo: expect.stringMatching(/^data:image\/png;base64,/), accent: '#1f4fbf' });
    // After the reload the form and the preview show what is saved.
    expect(await page.inputValue('#brand-accent')).toBe('#1f4fbf');
    expect(await page.isVisible('#preview-logo')).toBe(true);
  });

  it('shows the audit trail newest first, filters it, and exports CSV (escaped) and JSON, a large one in parts', async () => {
    const { page } = owner;
    await openWorkspace(owner);
    await page.waitForSelector('#audit-rows > tr');
    const trail = (await api.get(`/v1/workspaces/${workspaceId}/audit?limit=200`, ownerApi.auth)).body.items as Array<{
      id: string;
      action: string;
    }>;
    expect(await page.locator('#audit-rows > tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-id')))).toEqual(
      trail.map((row) => row.id),
    );
    const actions = trail.map((row) => row.action);
    for (const action of [
      'workspace.created',
      'member.invited',
      'invitation.revoked',
      'member.joined',
      'member.role_changed',
      'policy.updated',
      'branding.updated',
    ])
      expect(actions).toContain(action);
    expect(actions[0]).toBe('branding.updated');

    await page.selectOption('#audit-action', 'member.joined');
    expect(await page.locator('#audit-rows > tr').count()).toBe(1);
    expect(await page.textContent('#audit-rows > tr')).toContain(inviteeEmail);
    await page.selectOption('#audit-action', '');
    await page.fill('#audit-actor', '-invitee');
    expect(await page.locator('#audit-rows > tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-action')))).toEqual([
      'member.joined',
    ]);
    expect(await page.textContent('#audit-count')).toContain('1 row of the');
    expect(await page.textContent('#audit-filter-hint')).toContain('only at the rows loaded in this page');
    await page.fill('#audit-actor', '');
    await owner.screenshot('workspaces-audit');

    // CSV: one file, parsed.
    const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-csv')]);
    expect(csvDownload.suggestedFilename()).toMatch(/^hushlink-audit-[a-z0-9-]+-\d{8}T\d{6}Z\.csv$/);
    const csv = parseCsv((await downloadText(csvDownload)).replace(/^\uFEFF/, ''));
    expect(csv[0]).toEqual(['id', 'at', 'actor_user_id', 'actor_email', 'via', 'action', 'target', 'details']);
    expect(csv.slice(1).map((row) => row[0])).toEqual(trail.map((row) => row.id));
    const joinedRow = csv.find((row) => row[5] === 'member.joined')!;
    expect(joinedRow[3], 'an address beginning with - is escaped against formulas').toBe(`'${inviteeEmail}`);
    const invitedRow = csv.find((row) => row[5] === 'member.invited' && row[7]!.includes('-invitee'))!;
    expect(JSON.parse(invitedRow[7]!).email).toBe(inviteeEmail);
    await page.waitForSelector('#export-status:not([hidden])');
    expect(await page.getAttribute('#export-status', 'data-parts')).toBe('1');
    const exportRequest = owner
      .apiRequests()
      .filter((request) => new URL(request.url).pathname.endsWith('/audit/export'))
      .at(-1)!;
    expect(exportRequest.headers.authorization).toMatch(/^Bearer eyJ/);
    expect(new URL(exportRequest.url).search).toBe('?format=csv');

    // JSON.
    const [jsonDownload] = await Promise.all([page.waitForEvent('download'), page.click('#export-json')]);
    expect(jsonDownload.suggestedFilename()).toMatch(/\.json$/);
    expect(JSON.parse(await downloadText(jsonDownload)).items.map((row: { id: string }) => row.id)).toEqual(trail.map((row) => row.id));

    // A trail in two parts: the first answer names a next part (as a trail over 4 MB would), which the page follows and saves.
    const exportPath = (url: URL) => url.pathname === `/v1/workspaces/${workspaceId}/audit/export`;
    await page.route(exportPath, async (route) => {
      const url = new URL(route.request().url());
      if (url.searchParams.get('cursor') === 'part-two') {
        url.searchParams.delete('cursor');
        return route.fulfill({ response: await route.fetch({ url: url.toString() }) });
      }
      const response = await route.fetch();
      return route.fulfill({
        response,
        headers: { ...response.headers(), link: `</v1/workspaces/${workspaceId}/audit/export?format=csv&cursor=part-two>; rel="next"` },
      });
    });
    const downloads: Download[] = [];
    page.on('download', (download) => downloads.push(download));
    await page.click('#export-csv');
    await expect.poll(() => downloads.length).toBe(2);
    expect(downloads.map((download) => download.suggestedFilename())).toEqual([
      expect.stringMatching(/-part-1\.csv$/),
      expect.stringMatching(/-part-2\.csv$/),
    ]);
    for (const download of downloads) expect(parseCsv((await downloadText(download)).replace(/^\uFEFF/, '')).length).toBe(trail.length + 1);
    await expect.poll(() => page.getAttribute('#export-status', 'data-parts')).toBe('2');
    await page.unroute(exportPath);
    await owner.screenshot('workspaces-export-parts');
  });

  it('transfers ownership behind a confirm step naming the person; the former owner, now an admin, leaves', async () => {
    const { page } = owner;
    const card = member(owner, inviteeEmail);
    await card.locator('button[data-action="transfer"]').click();
    expect(await card.locator('[data-role="confirm-transfer"] p').textContent()).toBe(
      `Make ${inviteeEmail} the owner of ${workspaceName}? They get every right over it, including roles and ownership; you stay in it as an admin.`,
    );
    await card.locator('button[data-action="confirm-transfer"]').click();
    await page.waitForSelector('#workspace-notice:not([hidden])');
    expect(await page.textContent('#workspace-notice')).toBe(`${inviteeEmail} now owns ${workspaceName}. You are an admin of it.`);
    expect(await page.textContent('[data-role="your-role"] dd')).toContain('Admin');
    expect(await page.locator('#members select').count()).toBe(0);
    expect(await member(owner, inviteeEmail).getAttribute('data-role')).toBe('owner');

    const self = member(owner, ownerEmail);
    await self.locator('button[data-action="leave"]').click();
    await self.locator('button[data-action="confirm-leave"]').click();
    await page.waitForSelector('#workspace-error:not([hidden])');
    expect(await page.textContent('#workspace-title')).toBe(`You left ${workspaceName}`);
    expect(await page.isVisible('#members-section')).toBe(false);
    // The current workspace's choice is forgotten with the membership; the session stays.
    expect((await owner.webStorage()).local).toEqual(sessionMarker);
    const listed = await api.get(`/v1/workspaces/${workspaceId}/members`, ownerApi.auth);
    expect(listed.status).toBe(404);
  });

  it('says plainly what a refused invitation link means: used, revoked, another address (then mended by signing in with it), unknown, no token', async () => {
    const { page } = invitee;
    const used = invitationToken(runtime, inviteeEmail);
    const revoked = [...guarded.values()].find((token) => token !== used)!;
    // The new owner invites someone else; the invitee's session is the wrong address for it.
    const elsewhere = newEmail('elsewhere');
    expect(
      (await api.post(`/v1/workspaces/${workspaceId}/invitations`, { email: elsewhere, role: 'member' }, inviteeApi.auth)).status,
    ).toBe(201);
    const wrong = invitationToken(runtime, elsewhere);
    guard(wrong);
    const unknown = `hli_${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '')}`;
    guard(unknown);
    for (const [token, screen, heading] of [
      [used, 'used', 'This invitation was used already'],
      [revoked, 'revoked', 'This invitation was revoked'],
      [wrong, 'wrong-address', 'This invitation is for another address'],
      [unknown, 'not-found', 'This invitation link is not known'],
    ] as const) {
      await page.goto(`${runtime.url}/join#${token}`);
      await page.waitForSelector(`html[data-screen="${screen}"]`);
      expect(await page.textContent('#join-title'), screen).toBe(heading);
      expect(page.url()).toBe(`${runtime.url}/join`);
      expect((await invitee.webStorage()).session[invitationKey], `${screen}: nothing kept`).toBeUndefined();
      // Another address is the one refusal that signing in again can mend.
      expect(await page.isVisible('#join-switch'), screen).toBe(screen === 'wrong-address');
      await invitee.screenshot(`workspaces-join-${screen}`);
    }
    await page.goto(`${runtime.url}/join`);
    await page.waitForSelector('html[data-screen="no-token"]');
    await page.goto(`${runtime.url}/join#not-a-token`);
    await page.waitForSelector('html[data-screen="no-token"]');
    expect(await page.textContent('#join-text')).toContain('This link is incomplete');
    // The refusals came from the preview: only the one join accepted anything.
    expect(invitee.apiRequests().filter((request) => request.url.includes('accept')).length).toBe(1);

    // Another address mended: the button signs this browser out, keeps the token for the sign-in, and the invited address joins.
    await page.goto(`${runtime.url}/join#${wrong}`);
    await page.waitForSelector('html[data-screen="wrong-address"]');
    await page.click('#join-switch');
    await page.waitForURL((url) => url.pathname === '/signin');
    await invitee.ready('signin');
    expect((await invitee.webStorage()).session).toEqual({ [invitationKey]: wrong });
    await typeCodeFor(invitee, elsewhere);
    await page.waitForSelector('html[data-screen="joined"]');
    expect(await page.textContent('#join-title')).toBe(`You joined ${workspaceName} as member`);
    const rejoined = await invitee.webStorage();
    expect(rejoined.session).toEqual({});
    expect(rejoined.local).toEqual(sessionMarker);
    expect(invitee.apiRequests().some((request) => new URL(request.url).pathname === '/v1/auth/logout')).toBe(true);
  });

  it('works with the keyboard alone: create a workspace, choose it, invite, revoke', async () => {
    const s = await session('keyboard');
    const { page } = s;
    // A fresh address: an address gets a new code only once a minute.
    await signIn(s, newEmail('keyboard'), '/workspaces');
    await ready(s, 'workspaces');
    await page.focus('#workspaces-title');
    const order: string[] = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      order.push(await focusedId(s));
    }
    expect(order).toEqual(['workspace-name', 'workspace-slug', 'workspace-region', 'create-workspace']);
    await page.focus('#workspace-name');
    const name = `Keyboard ${randomUUID().slice(0, 6)}`;
    await page.keyboard.type(name);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`#workspaces a:has-text("${name}")`);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(name);
    // The switcher comes first once there is a workspace; arrow keys choose.
    await page.focus('#workspaces-title');
    await page.keyboard.press('Tab');
    expect(await focusedId(s)).toBe('current-workspace');
    await page.keyboard.press('ArrowDown');
    await expect
      .poll(() => s.webStorage().then((stored) => Object.keys(stored.local).sort()))
      .toEqual([sessionMarkerKey, workspaceKey].sort());
    const chosen = (await s.webStorage()).local[workspaceKey]!;
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(name);
    // Seats to invite into (billing's, written by the test).
    expect(await page.evaluate(() => document.activeElement?.closest('li')?.dataset.id)).toBe(chosen);
    await setWorkspace(runtime, chosen, { seats: 3 });
    await page.keyboard.press('Enter');
    await ready(s, 'workspace');
    await page.waitForSelector('#members > li');
    await page.focus('#invite-email');
    const email = newEmail('keyboard-invitee');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    expect(await focusedId(s)).toBe('invite-role');
    await page.keyboard.press('Tab');
    expect(await focusedId(s)).toBe('invite-button');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#invite-sent:not([hidden])');
    expect(await focusedId(s)).toBe('invite-email');
    guard(invitationToken(runtime, email));
    await invitation(s, email).locator('button[data-action="revoke"]').focus();
    await page.keyboard.press('Enter');
    expect(await focusedId(s)).toBe('confirm-revoke');
    await page.keyboard.press('Enter');
    await expect.poll(() => invitation(s, email).count()).toBe(0);
    // Focus moves once the whole page is read again, after the row has gone.
    await expect.poll(() => focusedId(s)).toBe('members-title');
    await finish(s, { [workspaceKey]: chosen });
  });

  it('fits 360 px in light and dark', async () => {
    // The new owner's workspace, with its members, invitations, forms and audit trail; an admin joins for each look.
    await setWorkspace(runtime, workspaceId, { seats: 10 });
    for (const dark of [false, true]) {
      const s = await session(`narrow${dark ? '-dark' : ''}`, { narrow: true, dark });
      const email = newEmail(`narrow${dark ? '-dark' : ''}`);
      const admin = await signInOverApi(runtime, email);
      expect((await api.post(`/v1/workspaces/${workspaceId}/invitations`, { email, role: 'admin' }, inviteeApi.auth)).status).toBe(201);
      const token = invitationToken(runtime, email);
      guard(token);
      expect((await api.post('/v1/workspaces/invitations/accept', { token }, admin.auth)).status).toBe(200);
      // Past the address's minute between codes.
      runtime.clock.advance(61);
      if (dark) {
        // Signed out, a workspace's page goes to sign-in and comes back to itself, its id kept.
        await s.page.goto(`${runtime.url}/workspace?id=${workspaceId}`);
        await s.page.waitForURL((url) => url.pathname === '/signin');
        expect(new URL(s.page.url()).searchParams.get('next')).toBe(`/workspace?id=${workspaceId}`);
        await s.ready('signin');
        await typeCodeFor(s, email);
        await s.page.waitForURL((url) => url.pathname === '/workspace' && url.search === `?id=${workspaceId}`);
        await ready(s, 'workspace');
        await s.page.goto(`${runtime.url}/workspaces`);
      } else {
        await signIn(s, email, '/workspaces');
      }
      await ready(s, 'workspaces');
      expect(await s.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await s.screenshot(`workspaces-narrow${dark ? '-dark' : ''}`);
      await openWorkspace(s);
      await s.page.waitForSelector('#audit-rows > tr');
      expect(await s.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await s.screenshot(`workspaces-workspace-narrow${dark ? '-dark' : ''}`);
      await finish(s);
    }
  });

  it('never sent an invitation token but in the accept’s body; kept none; no CSP violation or page error', async () => {
    await finish(invitee);
    await finish(owner);
    const requests = await settleTraffic();
    expect(guarded.size).toBeGreaterThanOrEqual(5);
    expect(findLeaks(requests, guarded, [acceptRoute, previewRoute])).toEqual([]);
    // The check is not empty by accident: tokens did go, in the accept's body.
    expect(
      requests.some((request) => new URL(request.url).pathname === '/v1/workspaces/invitations/accept' && request.body.includes('hli_')),
    ).toBe(true);
    for (const request of requests) {
      expect(new URL(request.url).origin, `origin of ${request.url}`).toBe(runtime.url);
      expect(request.headers.referer ?? '', `referer of ${request.url}`).not.toContain('#');
    }
  });
});
