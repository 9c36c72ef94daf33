/**
 * Custom domains and single sign-on (issue 17) end to end in Chromium against one local runtime
 * and its DNS server (local/dns.ts): a domain claimed on the workspace's page (a name that is
 * not a hostname and a second claim refused under the field), its TXT record read from the page
 * (copied) and published at the runtime's DNS server, "Verify now" before it is there, with
 * another value, then verified; a member seeing the list only; single sign-on set for the
 * verified domain (an http issuer refused in the page), the directory key shown once, copied,
 * hidden, absent after a reload that still shows the settings, and rotated behind a confirm
 * step; the sign-in page telling an address at that domain which identity provider its workspace
 * uses, asking once per address and never for an invalid one, and signing in with the emailed
 * code all the same; and links on a second verified hostname (Chromium maps it to the runtime
 * with `--host-resolver-rules`, and treats its http origin as secure so WebCrypto is there)
 * stopping when its domain is deleted: the open reveal and respond pages say the address no
 * longer serves links, and a fresh visit gets the local edge's page. No sleeps.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { encodePublicKey, generateRequesterKeys, sealText, toBase64 } from '../../shared/envelope/index.ts';
import { latestCode, newEmail } from '../support/accounts.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';
import { joinAs, teamWorkspace, type TeamWorkspace } from '../support/workspaces.ts';
import {
  findLeaks,
  guard as guardValue,
  launchChromium,
  Session,
  settleTraffic,
  signInThroughPage,
  stopRuntimeAndBrowser,
} from './harness.ts';

/** The organization's email domain, verified for single sign-on. */
const orgDomain = 'acme-e2e.example';
/** A second hostname, verified to carry links, then deleted. */
const linksHost = `links.${orgDomain}`;
const issuer = `https://login.${orgDomain}/oauth2/default`;
const refreshKey = 'hushlink.refresh-token';

let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
let workspace: TeamWorkspace & { name: string };
let linksOrigin: string;
let owner: Session;
/** Directory keys, link keys and plaintexts: no request may carry them. */
const guarded = new Map<string, string>();
const guard = (label: string, value: string) => guardValue(guarded, label, value);

beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  linksOrigin = `http://${linksHost}:${runtime.port}`;
  // The hostname reaches the runtime, and its http origin counts as secure (as https would in a deployment).
  browser = await launchChromium([
    `--host-resolver-rules=MAP ${linksHost} 127.0.0.1`,
    `--unsafely-treat-insecure-origin-as-secure=${linksOrigin}`,
  ]);
  const made = await teamWorkspace(runtime);
  const listed = await api.get('/v1/workspaces', made.owner.auth);
  workspace = { ...made, name: (listed.body.items as Array<{ id: string; name: string }>).find((item) => item.id === made.id)!.name };
}, 180_000);

afterAll(() => stopRuntimeAndBrowser(runtime, browser));

async function session(name: string, options: { narrow?: boolean; dark?: boolean } = {}): Promise<Session> {
  return Session.open(browser, name, {
    ...(options.narrow ? { viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true } : {}),
    ...(options.dark ? { colorScheme: 'dark' as const } : {}),
  });
}

const ready = (s: Session, page: 'workspace' | 'signin' | 'reveal' | 'account') => s.page.waitForSelector(`html[data-ready="${page}"]`);
const focusedId = (s: Session) =>
  s.page.evaluate(
    () =>
      document.activeElement?.id ||
      document.activeElement?.getAttribute('data-role') ||
      document.activeElement?.tagName.toLowerCase() ||
      '',
  );
const domainCard = (s: Session, hostname: string) =>
  s.page.locator('#domains > li', { has: s.page.locator('.item-title', { hasText: new RegExp(`^${hostname.replaceAll('.', '\\.')}$`) }) });
const writes = (s: Session, path: RegExp) =>
  s.apiRequests().filter((request) => request.method !== 'GET' && path.test(new URL(request.url).pathname));
const discoveries = (s: Session) =>
  s
    .apiRequests()
    .filter((request) => new URL(request.url).pathname === '/v1/workspaces/sso/discover')
    .map((request) => new URL(request.url).searchParams.get('email'));
/** What the page last wrote to the clipboard (the pages' permissions policy keeps `readText` from any document). */
const clipboard = (s: Session) => s.page.evaluate(() => (window as unknown as { __copied?: string }).__copied);

/** Records what the page writes to the clipboard, and still writes it. */
async function recordCopies(s: Session): Promise<void> {
  await s.context.grantPermissions(['clipboard-write'], { origin: runtime.url });
  await s.context.addInitScript(() => {
    const write = navigator.clipboard.writeText.bind(navigator.clipboard);
    navigator.clipboard.writeText = (text: string) => {
      (window as unknown as { __copied?: string }).__copied = text;
      return write(text);
    };
  });
}

async function openWorkspace(s: Session): Promise<void> {
  await s.page.goto(`${runtime.url}/workspace?id=${workspace.id}`);
  await ready(s, 'workspace');
}

/** No CSP violation or page error; nothing stored but a signed-in tab's refresh token, and nothing guarded anywhere in storage. */
async function finish(s: Session): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  const stored = await s.webStorage();
  // The one key signing in leaves (ADR 0178): a marker that the session cookie exists, no token.
  const { 'hushlink.session': marker, ...local } = stored.local;
  expect(local, `localStorage of ${s.name}`).toEqual({});
  expect([undefined, 'cookie']).toContain(marker);
  expect(
    Object.keys(stored.session).filter((key) => key !== refreshKey),
    `sessionStorage of ${s.name}`,
  ).toEqual([]);
  expect(stored.cookies).toBe('');
  const everything = JSON.stringify(stored);
  for (const [label, value] of guarded) expect(everything.includes(value), `${label} in web storage of ${s.name}`).toBe(false);
  await s.close();
}

/** Claims `hostname` in the page (typed, then Enter) and answers its card once listed. */
async function claimInPage(s: Session, hostname: string) {
  await s.page.fill('#domain-hostname', hostname);
  await s.page.press('#domain-hostname', 'Enter');
  const card = domainCard(s, hostname.toLowerCase());
  await card.waitFor();
  return card;
}

/** "Verify now" on a card, and what the page said of the check: its notice on the card drawn anew, which takes the focus. */
async function verifyInPage(s: Session, card: ReturnType<typeof domainCard>): Promise<string> {
  await card.locator('button[data-action="verify"]').click();
  await s.page.waitForFunction(() => (document.activeElement as HTMLElement | null)?.dataset.role === 'domain-check');
  return (await card.locator('[data-role="domain-check"]').textContent()) ?? '';
}

describe('custom domains and single sign-on in the web client', () => {
  it('claims a domain, publishes its TXT record at the local DNS server and verifies it in the page', async () => {
    owner = await session('owner');
    const { page } = owner;
    await recordCopies(owner);
    await signInThroughPage(owner, runtime, workspace.owner.user.email, `/workspace?id=${workspace.id}`);
    await ready(owner, 'workspace');
    expect(await page.isVisible('#domains-section')).toBe(true);
    expect(await page.isVisible('#domains-empty')).toBe(true);
    // Single sign-on waits for a verified domain.
    expect(await page.isVisible('#sso-section')).toBe(true);
    expect(await page.isVisible('#sso-no-domains')).toBe(true);
    expect(await page.isDisabled('#sso-save')).toBe(true);
    // The domain the owner's own address uses is named, with a way to claim it (no CNAME needed for it).
    const ownDomain = workspace.owner.user.email.split('@')[1]!;
    expect(await page.textContent('#sso-own-domain')).toBe(
      `Your address is at ${ownDomain}, which this workspace has not verified, so it cannot be chosen here yet. Verifying it needs only a TXT record, no CNAME. Claim ${ownDomain}`,
    );
    await page.click('button[data-action="claim-own-domain"]');
    expect(await page.inputValue('#domain-hostname')).toBe(ownDomain);
    expect(await focusedId(owner)).toBe('domain-hostname');
    await page.fill('#domain-hostname', '');

    // Not a hostname: the server's reason under the field, which takes the focus.
    await page.fill('#domain-hostname', 'intranet');
    await page.click('#domain-claim');
    await page.waitForSelector('#domain-hostname-error:not([hidden])');
    expect(await page.textContent('#domain-hostname-error')).toMatch(
      /^That is not a hostname a workspace can claim: .+\. Nothing was claimed\.$/,
    );
    expect(await page.getAttribute('#domain-hostname', 'aria-invalid')).toBe('true');
    expect(await focusedId(owner)).toBe('domain-hostname');

    // Claimed in mixed case: listed lower-cased, pending, with its TXT record to publish, which takes the focus.
    const card = await claimInPage(owner, 'Acme-E2E.example');
    expect(await page.isVisible('#domain-hostname-error')).toBe(false);
    expect(await card.locator('[data-role="domain-state"]').textContent()).toBe('Pending');
    expect(await card.locator('[data-role="last-check"]').textContent()).toBe('Not checked yet.');
    const listed = (await api.get(`/v1/domains?workspace_id=${workspace.id}`, workspace.owner.auth)).body.items as Array<{
      id: string;
      verification: { name: string; value: string };
    }>;
    expect(listed).toHaveLength(1);
    const { id, verification } = listed[0]!;
    expect(await focusedId(owner)).toBe(`domain-${id}-record`);
    expect(await page.inputValue(`#domain-${id}-name`)).toBe(`_hushlink-challenge.${orgDomain}`);
    expect(await page.inputValue(`#domain-${id}-name`)).toBe(verification.name);
    expect(await page.inputValue(`#domain-${id}-value`)).toBe(verification.value);
    await card.locator('button[data-action="copy-value"]').click();
    expect(await clipboard(owner)).toBe(verification.value);
    await card.locator('button[data-action="copy-name"]').click();
    expect(await clipboard(owner)).toBe(verification.name);
    await owner.screenshot('domains-claimed');

    // The same hostname again: said under the field, nothing claimed.
    await page.fill('#domain-hostname', orgDomain);
    await page.click('#domain-claim');
    await page.waitForSelector('#domain-hostname-error:not([hidden])');
    expect(await page.textContent('#domain-hostname-error')).toBe(
      `This workspace has claimed ${orgDomain} already: it is in the list above. Nothing was claimed.`,
    );
    await page.fill('#domain-hostname', '');

    // Checked before the record is published, then with another value: pending, and why, in words.
    expect(await verifyInPage(owner, card)).toBe(
      `Checked now: not verified yet. No TXT record was found at ${verification.name}. A record just published can take a few minutes (at some providers longer) to be seen: check again later.`,
    );
    expect(await card.locator('[data-role="last-check"]').getAttribute('data-error')).toBe('txt_not_found');
    runtime.dns.setRecords(verification.name, [{ type: 'TXT', data: 'hushlink-verification=someone-elses' }]);
    expect(await verifyInPage(owner, card)).toContain(`TXT records are at ${verification.name}, but none has this claim’s value.`);
    expect(await card.locator('[data-role="domain-state"]').textContent()).toBe('Pending');

    // Published as the page gave it (the clipboard's value, beside another record): verified.
    runtime.dns.setRecords(verification.name, [
      { type: 'TXT', data: 'v=spf1 -all' },
      { type: 'TXT', data: verification.value },
    ]);
    expect(await verifyInPage(owner, card)).toBe(`Checked now: ${orgDomain} is verified.`);
    expect(await card.getAttribute('data-state')).toBe('verified');
    expect(await card.locator('[data-role="domain-state"]').textContent()).toBe('Verified');
    expect(await card.locator('[data-role="txt-record"]').count()).toBe(0);
    expect(await card.locator('button[data-action="verify"]').count()).toBe(0);
    // An apex: what it is good for already, and how links could use it (no CNAME advice it cannot follow).
    expect(await card.locator('[data-role="cname"]').textContent()).toBe(
      `Addresses at ${orgDomain} can now use this workspace’s single sign-on: nothing more to publish for that. To open links on ${orgDomain} itself, its DNS provider needs an ALIAS (or ANAME) record pointing to your Hushlink operator’s custom-domain address, since a domain’s apex cannot hold a CNAME; or serve links on a subdomain such as secrets.${orgDomain} (claim it here too).`,
    );
    expect(writes(owner, /^\/v1\/domains/).map((request) => `${request.method} ${new URL(request.url).pathname}`)).toEqual([
      'POST /v1/domains',
      'POST /v1/domains',
      'POST /v1/domains',
      `POST /v1/domains/${id}/verify`,
      `POST /v1/domains/${id}/verify`,
      `POST /v1/domains/${id}/verify`,
    ]);

    // The second hostname, for links.
    const links = await claimInPage(owner, linksHost);
    const linksRecord = await links.locator('input[id$="-value"]').inputValue();
    runtime.dns.setRecords(`_hushlink-challenge.${linksHost}`, [{ type: 'TXT', data: linksRecord }]);
    expect(await verifyInPage(owner, links)).toBe(`Checked now: ${linksHost} is verified.`);
    expect(await links.locator('[data-role="cname"]').textContent()).toBe(
      `Next, at your DNS provider: a CNAME record for ${linksHost} pointing to your Hushlink operator’s custom-domain address (ask whoever runs this Hushlink for it). Links on ${linksHost} open once it resolves there.`,
    );
    // Now single sign-on can be set, for either verified domain.
    expect(await page.isVisible('#sso-no-domains')).toBe(false);
    expect(
      (
        await page.locator('#sso-domain option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))
      ).sort(),
    ).toEqual([orgDomain, linksHost].sort());
    await owner.screenshot('domains-verified');
  });

  it('shows a member the domains and nothing to change', async () => {
    const joined = await joinAs(runtime, workspace, workspace.owner, 'member');
    const member = await session('member');
    await signInThroughPage(member, runtime, joined.user.email, `/workspace?id=${workspace.id}`);
    await ready(member, 'workspace');
    const { page } = member;
    expect(await page.locator('#domains > li').evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.state))).toEqual([
      'verified',
      'verified',
    ]);
    expect(await page.isVisible('#domain-form')).toBe(false);
    expect(await page.locator('#domains button').count()).toBe(0);
    expect(await page.locator('#domains [data-role="txt-record"]').count()).toBe(0);
    expect(await page.isVisible('#sso-section')).toBe(false);
    // The sign-in page asked about the member's own address; the workspace page asks nothing of a member.
    expect(discoveries(member)).toEqual([joined.user.email]);
    await finish(member);
  });

  it('sets single sign-on: the directory key shown once, copied and hidden; the settings read back; the key rotated behind a confirm step', async () => {
    const { page } = owner;
    expect(await page.textContent('#sso-none')).toBe('Not set up: no verified domain of this workspace names an identity provider yet.');
    expect(await page.isVisible('#sso-rotate')).toBe(false);

    // Refused in the page: an issuer that is not https. Nothing sent.
    await page.fill('#sso-issuer', `http://login.${orgDomain}`);
    await page.selectOption('#sso-domain', orgDomain);
    await page.click('#sso-save');
    await page.waitForSelector('#sso-issuer-error:not([hidden])');
    expect(await page.textContent('#sso-issuer-error')).toBe(
      'The issuer must be an https address: an identity provider is reached over TLS. Nothing was sent.',
    );
    expect(await focusedId(owner)).toBe('sso-issuer');
    expect(writes(owner, /\/sso$/)).toEqual([]);

    await page.fill('#sso-issuer', issuer);
    await page.click('#sso-save');
    await page.waitForSelector('#sso-key:not([hidden])');
    expect(await focusedId(owner)).toBe('sso-key-title');
    const key = await page.inputValue('#sso-key-value');
    expect(key).toMatch(/^hlscim_[A-Za-z0-9_-]{43}$/);
    guard('directory key', key);
    expect(await page.textContent('#sso-key')).toContain('you will not see it again');
    expect(await page.inputValue('#sso-scim-url')).toBe(`${runtime.config.WEB_ORIGIN}/scim/v2`);
    expect(JSON.parse(writes(owner, /\/sso$/)[0]!.body)).toEqual({ issuer, email_domain: orgDomain });
    expect(await page.textContent('#sso-current [data-role="sso-issuer"] dd')).toBe(issuer);
    expect(await page.getAttribute('#sso-current [data-role="sso-issuer"] a', 'href')).toBe(issuer);
    expect(await page.textContent('#sso-current [data-role="sso-email-domain"] dd')).toBe(orgDomain);
    await page.click('#sso-key-value-copy');
    expect(await clipboard(owner)).toBe(key);
    await owner.screenshot('domains-sso-key');

    // Hidden: gone from the page, and a reload finds the settings (through discovery) and no key.
    await page.click('#sso-key-done');
    expect(await page.isVisible('#sso-key')).toBe(false);
    expect(await page.inputValue('#sso-key-value')).toBe('');
    expect(await focusedId(owner)).toBe('sso-issuer');
    await openWorkspace(owner);
    expect(await page.textContent('#sso-current [data-role="sso-issuer"] dd')).toBe(issuer);
    expect(await page.inputValue('#sso-issuer')).toBe(issuer);
    expect(await page.inputValue('#sso-domain')).toBe(orgDomain);
    expect(await page.isVisible('#sso-key')).toBe(false);
    expect(
      await page.evaluate(
        (value) =>
          document.documentElement.outerHTML.includes(value) ||
          [...document.querySelectorAll('input')].some((input) => input.value === value),
        key,
      ),
    ).toBe(false);

    // Rotation: "Keep the current key" sends nothing; "Yes" shows another key, once.
    await page.click('#sso-rotate');
    expect(await page.textContent('[data-role="confirm-rotate"]')).toContain('The current key stops working at once');
    await page.click('button[data-action="cancel-rotate"]');
    expect(await focusedId(owner)).toBe('sso-rotate');
    expect(writes(owner, /\/sso$/)).toHaveLength(1);
    await page.click('#sso-rotate');
    await page.click('button[data-action="confirm-rotate"]');
    await page.waitForSelector('#sso-key:not([hidden])');
    const rotated = await page.inputValue('#sso-key-value');
    expect(rotated).toMatch(/^hlscim_[A-Za-z0-9_-]{43}$/);
    expect(rotated).not.toBe(key);
    guard('rotated directory key', rotated);
    expect(JSON.parse(writes(owner, /\/sso$/)[1]!.body)).toEqual({ issuer, email_domain: orgDomain, rotate_directory_key: true });
    await page.click('#sso-key-done');
  });

  it('tells an address at the directory’s domain which identity provider its workspace uses, and still signs in with the emailed code', async () => {
    const person = await session('person');
    const { page } = person;
    await page.goto(`${runtime.url}/signin`);
    await ready(person, 'signin');
    const address = `ana-${randomUUID().slice(0, 8)}@${orgDomain}`;

    // Typing asks nothing; leaving the field asks once.
    await page.fill('#email', address);
    expect(discoveries(person)).toEqual([]);
    await page.press('#email', 'Tab');
    await page.waitForSelector('#sso-discovery:not([hidden])');
    expect(await page.textContent('#sso-discovery [data-role="sso-uses"]')).toBe(
      `Your workspace ${workspace.name} uses login.${orgDomain} for single sign-on.`,
    );
    expect(await page.getAttribute('#sso-discovery a', 'href')).toBe(issuer);
    expect(await page.textContent('#sso-discovery')).toContain('still done with a code emailed to this address');
    expect(await page.getAttribute('#sso-discovery', 'data-workspace-id')).toBe(workspace.id);
    await person.screenshot('domains-signin-discovery');

    // An address that is not one asks nothing (and the notice goes with the address it was for); another domain's says nothing.
    await page.fill('#email', 'ana@');
    expect(await page.isVisible('#sso-discovery')).toBe(false);
    await page.press('#email', 'Tab');
    const elsewhere = newEmail('elsewhere');
    await page.fill('#email', elsewhere);
    const answered = page.waitForResponse((response) => response.url().includes('/v1/workspaces/sso/discover'));
    await page.press('#email', 'Tab');
    expect(await (await answered).json()).toEqual({ sso: false });
    expect(await page.isVisible('#sso-discovery')).toBe(false);
    expect(discoveries(person)).toEqual([address, elsewhere]);

    // Back to the first address and sent: asked already, so not again; the code step keeps the notice, and the code signs in.
    await page.fill('#email', address);
    await page.click('#send-code');
    await page.waitForSelector('html[data-step="code"]');
    await page.waitForSelector('#sso-discovery:not([hidden])');
    expect(discoveries(person)).toEqual([address, elsewhere]);
    await person.screenshot('domains-signin-code');
    await page.fill('#code', latestCode(runtime, address)!);
    await page.click('#verify-button');
    await page.waitForURL((url) => url.pathname === '/account');
    await ready(person, 'account');
    await finish(person);
  });

  it('stops links on a hostname at once when its domain is deleted: the open pages say so, and a fresh visit gets the edge’s page', async () => {
    // A secret and a request link made on the hostname (from Node, as a client would).
    const text = `on the custom hostname ${randomUUID()}`;
    guard('plaintext', text);
    const sealed = await sealText(text);
    guard('link key', sealed.key);
    const secret = await api.post(
      '/v1/secrets',
      {
        kind: 'text',
        envelope: toBase64(sealed.envelope),
        salt: sealed.salt,
        size_bytes: sealed.envelope.length,
        max_views: 1,
        claim_verifier: sealed.claimVerifier,
        link_verifier: sealed.linkVerifier,
        workspace_id: workspace.id,
        hostname: linksHost,
      },
      workspace.owner.auth,
    );
    expect(secret.status, JSON.stringify(secret.body)).toBe(201);
    expect(new URL(secret.body.url_base).origin).toBe(linksOrigin);
    const keys = await generateRequesterKeys();
    const request = await api.post(
      '/v1/requests',
      { public_key: encodePublicKey(keys.publicKey), kem: keys.kem, workspace_id: workspace.id, hostname: linksHost },
      workspace.owner.auth,
    );
    expect(request.status, JSON.stringify(request.body)).toBe(201);
    expect(new URL(request.body.url_base).origin).toBe(linksOrigin);
    const linkSecret = randomBytes(32).toString('base64url');
    guard('request link secret', linkSecret);
    const requestLink = `${request.body.url_base}#${createHash('sha256').update(keys.publicKey).digest('base64url')}.${linkSecret}`;

    // Opened while the hostname is verified: both pages are ready.
    const reader = await session('reader');
    await reader.page.goto(`${secret.body.url_base}#${sealed.key}`);
    await ready(reader, 'reveal');
    await reader.page.waitForSelector('html[data-screen="ready"]');
    const responder = await session('responder');
    await responder.page.goto(requestLink);
    await responder.page.waitForSelector('html[data-screen="ready"]');

    // Deleted on the workspace's page, behind its confirm step.
    const { page } = owner;
    const card = domainCard(owner, linksHost);
    await card.locator('button[data-action="delete"]').click();
    expect(await card.locator('[data-role="confirm-delete"]').textContent()).toContain(
      `Delete ${linksHost}? Links already sent on it stop working at once, for everyone who has them, and single sign-on no longer speaks for addresses at it.`,
    );
    await card.locator('button[data-action="cancel-delete"]').click();
    expect(writes(owner, /^\/v1\/domains\/[^/]+$/)).toEqual([]);
    await card.locator('button[data-action="delete"]').click();
    await card.locator('button[data-action="confirm-delete"]').click();
    await page.waitForSelector('#domains-changed:not([hidden])');
    expect(await page.textContent('#domains-changed')).toBe(`${linksHost} is deleted: links on it no longer open.`);
    expect(await focusedId(owner)).toBe('domains-changed');
    expect(await page.locator('#domains > li .item-title').allTextContents()).toEqual([orgDomain]);
    // The directory speaks for the other domain: untouched.
    expect(await page.textContent('#sso-current [data-role="sso-email-domain"] dd')).toBe(orgDomain);
    await owner.screenshot('domains-deleted');

    // Every function's cache of the hostname has run out (domainLimits.hostCacheSeconds).
    runtime.clock.advance(5.001);
    await reader.page.click('#reveal-button');
    expect(await reader.message()).toBe('not-served-here');
    expect(await reader.page.textContent('#message-title')).toBe('This address no longer serves Hushlink links');
    expect(await reader.page.textContent('#message-text')).toContain(
      `${linksHost} was removed from the workspace that used it for its links`,
    );
    await reader.screenshot('domains-reveal-not-served');
    // Nothing was used: the secret still has its view, on this service's own host.
    expect((await api.get(`/v1/secrets/${secret.body.id}`)).body).toMatchObject({ state: 'active', views_left: 1 });
    await responder.page.fill('#respond-text', `an answer ${randomUUID()}`);
    await responder.page.click('#send-button');
    await responder.page.waitForSelector('html[data-screen="message"]');
    expect(await responder.page.getAttribute('#screen-message', 'data-message')).toBe('not-served-here');
    expect(await responder.page.textContent('#message-text')).toContain('Nothing was sent');

    // A fresh visit never gets the page: the edge answers for the hostname.
    const late = await session('late');
    const response = await late.page.goto(`${secret.body.url_base}#${sealed.key}`);
    expect(response?.status()).toBe(404);
    expect(await late.page.textContent('h1')).toBe('This address serves no Hushlink links');
    for (const s of [reader, responder, late, owner]) await finish(s);
  });

  it('lays the sections out at 360 px in the dark theme', async () => {
    const narrow = await session('narrow', { narrow: true, dark: true });
    await signInThroughPage(narrow, runtime, workspace.owner.user.email, `/workspace?id=${workspace.id}`);
    await ready(narrow, 'workspace');
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await narrow.screenshot('domains-narrow-dark');
    await finish(narrow);
  });

  it('sends no directory key, link key or plaintext in any request', async () => {
    expect(findLeaks(await settleTraffic(), guarded)).toEqual([]);
  });
});
