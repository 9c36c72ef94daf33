/**
 * The invitation page and the workspace page's sections (issue 31, ADR 0181) in Chromium
 * against one local runtime: a signed-out invitee's `/join#<token>` names the workspace, the
 * inviter and the address, and its "Sign in as <address>" leads to the sign-in page with the
 * address in its `email` parameter, then joins; revoked and expired invitations say so; a Free
 * workspace shows no disabled form, one line per Team area instead; the index of sections works
 * by keyboard; a section's first read says it is loading, a failed one offers Retry; the audit
 * trail says "1 day" and the member's address, not 86400 and a user id. Screenshots at 1280×800
 * and 390×844, light and dark. No sleeps: every wait is for a condition.
 */
import type { Browser, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { workspaceLimits } from '../../shared/limits.ts';
import { newEmail, type SignedIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { invitationToken, joinAs, send, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';
import {
  findLeaks,
  guard as guardValue,
  launchChromium,
  Session,
  settleTraffic,
  signInThroughPage,
  stopRuntimeAndBrowser,
  typeSignInCode,
} from './harness.ts';

const invitationKey = 'hushlink.invitation';
const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
let team: TeamWorkspace & { name: string };
let owner: Session;
const guarded = new Map<string, string>();
const guard = (value: string) => guardValue(guarded, 'invitation token', value);
/** Only the preview's and the accept's bodies may carry a token. */
const tokenRoutes = [
  { label: 'invitation token', method: 'POST', path: /^\/v1\/workspaces\/invitations\/preview$/ },
  { label: 'invitation token', method: 'POST', path: /^\/v1\/workspaces\/invitations\/accept$/ },
];

beforeAll(async () => {
  [runtime, browser] = await Promise.all([startTestRuntime(), launchChromium()]);
  api = apiClient(runtime);
  const made = await teamWorkspace(runtime, 10);
  team = { ...made, name: (await api.get('/v1/workspaces', made.owner.auth)).body.items[0].name };
  owner = await Session.open(browser, 'owner', { viewport: desktop });
  await signInThroughPage(owner, runtime, team.owner.user.email);
}, 180_000);

afterAll(async () => {
  await settleTraffic();
  await stopRuntimeAndBrowser(runtime, browser);
});

async function invite(email: string, role: 'admin' | 'member' = 'member'): Promise<{ token: string; id: string }> {
  const answer = await api.post(`/v1/workspaces/${team.id}/invitations`, { email, role }, team.owner.auth);
  expect(answer.status).toBe(201);
  const token = invitationToken(runtime, email);
  guard(token);
  return { token, id: answer.body.id };
}

/** Four screenshots of what the page shows now: 1280×800 and 390×844, light and dark. */
async function screenshots(s: Session, name: string): Promise<void> {
  for (const [size, viewport] of [
    ['desktop', desktop],
    ['phone', phone],
  ] as const) {
    await s.page.setViewportSize(viewport);
    for (const scheme of ['light', 'dark'] as const) {
      await s.page.emulateMedia({ colorScheme: scheme });
      await s.screenshot(`${name}-${size}-${scheme}`);
    }
  }
  await s.page.emulateMedia({ colorScheme: 'light' });
  await s.page.setViewportSize(desktop);
}

async function finish(s: Session): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  const stored = await s.webStorage();
  expect(stored.session[invitationKey], `the invitation kept by ${s.name}`).toBeUndefined();
  for (const [label, value] of guarded) expect(JSON.stringify(stored).includes(value), `${label} in web storage`).toBe(false);
  await s.close();
}

const openWorkspace = async (s: Session, id: string) => {
  await s.page.goto(`${runtime.url}/workspace?id=${id}`);
  await s.page.waitForSelector('html[data-ready="workspace"]');
  await s.page.waitForSelector('#members > li');
};

describe('the invitation page', () => {
  it('names the workspace, the inviter and the address to a signed-out invitee; "Sign in as" fills the address and joins', async () => {
    const email = newEmail('invitee');
    const { token } = await invite(email);
    const s = await Session.open(browser, 'invitee', { viewport: desktop });
    const { page } = s;
    await page.goto(`${runtime.url}/join#${token}`);
    await page.waitForSelector('html[data-screen="invited"]');
    expect(page.url()).toBe(`${runtime.url}/join`);
    expect(await page.textContent('#join-title')).toBe(`${team.owner.user.email} invited you to ${team.name} as a member`);
    expect(await page.textContent('#join-workspace')).toBe(team.name);
    expect(await page.textContent('#join-inviter')).toBe(team.owner.user.email);
    expect(await page.textContent('#join-email')).toBe(email);
    expect(await page.textContent('#join-role')).toBe('Member');
    expect(await page.textContent('#join-signin')).toBe(`Sign in as ${email}`);
    expect((await s.webStorage()).session[invitationKey]).toBe(token);
    await screenshots(s, 'join-invited');

    await page.click('#join-signin');
    await page.waitForURL((url) => url.pathname === '/signin');
    const asked = new URL(page.url()).searchParams;
    expect([asked.get('email'), asked.get('next'), asked.get('reason')]).toEqual([email, '/join', 'invitation']);
    await page.waitForSelector('html[data-ready="signin"]');
    await typeSignInCode(s, runtime, email);
    await page.waitForURL((url) => url.pathname === '/join');
    await page.waitForSelector('html[data-screen="joined"]');
    expect(await page.textContent('#join-title')).toBe(`You joined ${team.name} as member`);
    const members = await api.get(`/v1/workspaces/${team.id}/members`, team.owner.auth);
    expect(members.body.items.map((member: { email: string }) => member.email)).toContain(email);
    await finish(s);
  });

  it('says a revoked invitation was revoked, and nothing is kept', async () => {
    const { token, id } = await invite(newEmail('revoked'));
    expect((await api.delete(`/v1/workspaces/${team.id}/members/${id}`, team.owner.auth)).status).toBe(200);
    const s = await Session.open(browser, 'revoked', { viewport: phone });
    await s.page.goto(`${runtime.url}/join#${token}`);
    await s.page.waitForSelector('html[data-screen="revoked"]');
    expect(await s.page.textContent('#join-title')).toBe('This invitation was revoked');
    expect(await s.page.isVisible('#join-signin')).toBe(false);
    expect(await s.page.isVisible('#join-invitation')).toBe(false);
    await screenshots(s, 'join-revoked');
    await finish(s);
  });
});

describe('the workspace page', () => {
  it('a Free workspace shows no disabled form: one line per Team area, each with how to get it', async () => {
    const made = await api.post('/v1/workspaces', { name: `Free ${Date.now().toString(36)}` }, team.owner.auth);
    expect(made.status).toBe(201);
    const { page } = owner;
    await openWorkspace(owner, made.body.id);
    await page.waitForSelector('#team-section:not([hidden])');
    for (const id of ['#policy-section', '#branding-section', '#domains-section', '#sso-section'])
      expect(await page.isVisible(id), id).toBe(false);
    expect(
      await page.locator('fieldset:disabled').evaluateAll((sets) => sets.filter((set) => set.getClientRects().length > 0).length),
    ).toBe(0);
    const lines = page.locator('#team-areas > li');
    expect(await lines.evaluateAll((items) => items.map((item) => item.getAttribute('data-area')))).toEqual([
      'policy',
      'branding',
      'domains',
      'sso',
    ]);
    for (const line of await lines.all()) {
      expect(await line.locator('a').getAttribute('href')).toBe('/plans');
      expect(await line.locator('a').textContent()).toBe('buy Team for this workspace');
    }
    expect(await page.textContent('#team-lede')).toContain('This workspace is on Free');
    // The index lists what shows, in the page's order: members, the Team areas' lines, the audit trail.
    expect(await page.locator('#workspace-index li:not([hidden]) a').allTextContents()).toEqual([
      'Members',
      'More with Team',
      'Audit trail',
    ]);
    await screenshots(owner, 'workspace-free');
  });

  it('the index of sections goes to each by keyboard, its heading focused', async () => {
    const { page } = owner;
    await openWorkspace(owner, team.id);
    const entries = await page.locator('#workspace-index li:not([hidden]) a').allTextContents();
    expect(entries).toEqual(['Members', 'Policy', 'Branding', 'Domains', 'Single sign-on', 'Audit trail']);
    await page.focus('#workspace-title');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Members');
    for (const [entry, heading] of [
      ['Policy', 'policy-title'],
      ['Audit trail', 'audit-title'],
    ] as const) {
      await page.focus('#workspace-title');
      await page.keyboard.press('Tab');
      while ((await page.evaluate(() => document.activeElement?.textContent)) !== entry) await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(heading);
      expect(new URL(page.url()).hash).toBe(`#${heading.replace('-title', '-section')}`);
      expect(await page.getAttribute(`#workspace-index a:text-is("${entry}")`, 'aria-current')).toBe('location');
    }
    await screenshots(owner, 'workspace-sections');
  });

  it('says a section is loading on its first read, and offers Retry when it failed', async () => {
    const { page } = owner;
    let held: Route | null = null;
    const isAudit = (url: URL) => url.pathname.endsWith('/audit');
    await page.route(isAudit, (route) => {
      held = route;
    });
    await page.goto(`${runtime.url}/workspace?id=${team.id}`);
    const loading = page.locator('#audit-section [role="status"].section-loading');
    await loading.waitFor();
    expect(await loading.textContent()).toBe('Loading audit trail…');
    await expect.poll(() => held !== null).toBe(true);
    await (held as Route | null)!.abort('failed');
    await page.waitForSelector('#audit-error:not([hidden])');
    expect(await loading.isVisible()).toBe(false);
    // The one fault here is the one made on purpose.
    expect(owner.diagnostics).toEqual(['console error: Failed to load resource: net::ERR_FAILED']);
    owner.diagnostics.length = 0;
    await page.unroute(isAudit);
    await page.click('button[data-action="retry-audit"]');
    await page.waitForSelector('#audit-rows > tr');
    expect(await page.isVisible('#audit-error')).toBe(false);
    expect(await page.isVisible('button[data-action="retry-audit"]')).toBe(false);
  });

  it('shows audit values in words: "1 day", the member’s address, roles and booleans', async () => {
    const joined: SignedIn = await joinAs(runtime, team, team.owner, 'admin');
    const policy = { max_expires_in: 86_400, require_passphrase: true, max_file_bytes: 5 * 1024 * 1024 };
    expect((await send(runtime, 'PUT', `/v1/workspaces/${team.id}/policy`, policy, team.owner.auth)).status).toBe(200);
    const { page } = owner;
    await openWorkspace(owner, team.id);
    const policyRow = page.locator('#audit-rows > tr[data-action="policy.updated"]').first();
    await policyRow.waitFor();
    const details = await policyRow.locator('.audit-details').textContent();
    expect(details).toContain('Longest expiry1 day');
    expect(details).toContain('Passphrase requiredYes');
    expect(details).toContain('Largest file5 MB');
    expect(details).not.toContain('86400');
    expect(await policyRow.locator('.audit-target').textContent()).toBe('This workspace');
    const joinedRow = page.locator('#audit-rows > tr[data-action="member.joined"]', { hasText: joined.user.email }).first();
    expect(await joinedRow.locator('.audit-target').textContent()).toBe(joined.user.email);
    expect(await joinedRow.locator('.audit-details').textContent()).toContain('RoleAdmin');
    expect(await page.locator('#audit-rows').textContent()).not.toMatch(/usr_[A-Za-z0-9_-]{12,}/);
    await page.click('#workspace-index a:text-is("Audit trail")');
    await screenshots(owner, 'workspace-audit');
  });
});

describe('an expired invitation', () => {
  // Last: the clock moves a week on, past every session's access token.
  it('says it expired, and offers nothing to sign in with', async () => {
    const { token } = await invite(newEmail('expired'));
    runtime.clock.advance(workspaceLimits.invitationSeconds * 1000 + 60_000);
    const s = await Session.open(browser, 'expired', { viewport: desktop });
    await s.page.goto(`${runtime.url}/join#${token}`);
    await s.page.waitForSelector('html[data-screen="expired"]');
    expect(await s.page.textContent('#join-title')).toBe('This invitation has expired');
    expect(await s.page.textContent('#join-text')).toContain('Ask whoever sent it for a new one');
    expect(await s.page.isVisible('#join-signin')).toBe(false);
    await screenshots(s, 'join-expired');
    await finish(s);
    expect(await owner.problems()).toEqual([]);
    await owner.close();
    expect(findLeaks(await settleTraffic(), guarded, tokenRoutes)).toEqual([]);
  });
});
