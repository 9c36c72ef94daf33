/**
 * Named secrets and requests (issue 31 items 4, 5 and 12; docs/adr/0180) in Chromium against one
 * local runtime: a label typed on compose is sealed in this browser and My secrets shows it,
 * while another browser of the same account reads "Label kept in another browser"; a secret
 * with two personal links counts its views over both; a request with a label and one named by
 * its question; a response sent from another browser appears in the requester's open page
 * without a reload; revoking asks first; compose's refusals stand beside their fields. No label
 * or question is ever sent in the clear.
 */
import { randomUUID } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { newEmail, signIn as signInOverApi } from '../support/accounts.ts';
import { apiClient, textSecretBody } from '../support/runtime.ts';
import {
  findLeaks,
  guard as guardValue,
  Session,
  settleTraffic,
  signInThroughPage,
  startRuntimeAndBrowser,
  stopRuntimeAndBrowser,
} from './harness.ts';

let runtime: Runtime;
let browser: Browser;
let api: ReturnType<typeof apiClient>;
/** Labels, questions and answers typed in the pages: none may be sent as they are. */
const guarded = new Map<string, string>();
const owner = newEmail('labels');
/** The owner's first browser: it sealed the labels, so it keeps their key. */
let first: Session;

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser());
  api = apiClient(runtime);
}, 180_000);

afterAll(async () => {
  const leaks = findLeaks(await settleTraffic(), guarded);
  await stopRuntimeAndBrowser(runtime, browser);
  expect(leaks, 'a label, question or answer was sent in the clear').toEqual([]);
});

const guard = (label: string, value: string) => guardValue(guarded, label, value);
const focusedId = (s: Session) => s.page.evaluate(() => document.activeElement?.id ?? '');
const focusedAction = (s: Session) => s.page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.action ?? '');
const secretCard = (s: Session, id: string) => s.page.locator(`#secrets > li[data-id="${id}"]`);
const requestCard = (s: Session, id: string) => s.page.locator(`#requests > li[data-id="${id}"]`);

const sessionMarker = 'hushlink.session';

/** What the page keeps: the label key's and request keys' databases only, no token in web storage, no label in the clear. */
async function finish(s: Session, indexedDb: string[] = []): Promise<void> {
  expect(await s.problems(), `CSP violations or page errors in ${s.name}`).toEqual([]);
  const stored = await s.webStorage();
  expect(stored.indexedDb.sort(), `IndexedDB of ${s.name}`).toEqual([...indexedDb].sort());
  // The session's marker (one sign-in per browser) is the only key expected in localStorage.
  expect(
    Object.keys(stored.local).filter((key) => key !== sessionMarker),
    `localStorage of ${s.name}`,
  ).toEqual([]);
  const everything = JSON.stringify(stored);
  expect(everything, `no JWT in the storage of ${s.name}`).not.toMatch(/eyJ[\w-]+\.[\w-]+\.[\w-]+/);
  for (const [label, value] of guarded) expect(everything.includes(value), `${label} in web storage`).toBe(false);
  await s.close();
}

/** Screenshots of the page at a desktop's and a phone's size, light and dark. */
async function screenshots(s: Session, name: string): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    await s.page.setViewportSize({ width, height });
    for (const scheme of ['light', 'dark'] as const) {
      await s.page.emulateMedia({ colorScheme: scheme });
      await s.screenshot(`${name}-${width}-${scheme}`);
    }
  }
  await s.page.emulateMedia({ colorScheme: 'light' });
  await s.page.setViewportSize({ width: 1000, height: 900 });
}

async function openCompose(s: Session): Promise<void> {
  await s.page.goto(`${runtime.url}/`);
  await s.ready('compose');
}

/** Opens the folded options (a no-op when open). */
async function openOptions(s: Session): Promise<void> {
  if ((await s.page.getAttribute('#more-options', 'open')) === null) await s.page.click('#more-options > summary');
}

/** Composes a text with a label and returns the secret's id from the page's create call. */
async function composeLabelled(s: Session, label: string): Promise<string> {
  const text = `the staging password ${randomUUID()}`;
  guard('text', text);
  guard('label', label);
  await openCompose(s);
  await s.page.fill('#secret-text', text);
  await openOptions(s);
  await s.page.fill('#secret-label', label);
  const created = s.page.waitForResponse((response) => response.url().endsWith('/v1/secrets') && response.request().method() === 'POST');
  await s.page.click('#create-button');
  const response = await created;
  expect(response.status()).toBe(201);
  const body = response.request().postDataJSON() as { label_envelope?: string };
  // Sealed: a version byte, a 12-byte IV, the label and a 16-byte tag, as standard base64.
  expect(Buffer.from(body.label_envelope ?? '', 'base64').length).toBe(1 + 12 + new TextEncoder().encode(label).length + 16);
  await s.page.waitForSelector('#result:not([hidden])');
  return ((await response.json()) as { id: string }).id;
}

describe('labels', () => {
  let labelledId: string;
  let twoLinksId: string;
  const label = `Staging DB for Ana ${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    first = await Session.open(browser, 'labels-first');
    await signInThroughPage(first, runtime, owner, '/account');
  });

  it('a label typed on compose is sealed here and names the secret in My secrets', async () => {
    labelledId = await composeLabelled(first, label);
    await first.page.goto(`${runtime.url}/account`);
    await first.ready('account');
    const card = secretCard(first, labelledId);
    expect(await card.locator('[data-role="name"]').textContent()).toBe(label);
    expect(await card.locator('[data-role="id"]').textContent()).toBe(labelledId);
    expect(await card.locator('[data-role="views"] dd').textContent()).toBe('1 of 1');
  });

  it('views over two personal links are counted over both; a secret without a label is named by its kind and time', async () => {
    const session = await signInOverApi(runtime, owner);
    const created = await api.post(
      '/v1/secrets',
      textSecretBody({ max_views: 1, recipients: [{ label: 'Ana' }, { label: 'Ben' }] }),
      session.auth,
    );
    expect(created.status).toBe(201);
    twoLinksId = created.body.id as string;
    const ana = (created.body.recipients as Array<{ recipient_id: string }>)[0]!.recipient_id;
    expect((await api.post(`/v1/secrets/${twoLinksId}/claim`, { recipient_id: ana })).status).toBe(200);
    await first.page.reload();
    await first.ready('account');
    const card = secretCard(first, twoLinksId);
    expect(await card.locator('[data-role="views"] dd').textContent()).toBe('1 in all (2 personal links, up to 1 each)');
    expect(await card.locator('[data-role="name"]').textContent()).toMatch(/^Text secret, /);
    await screenshots(first, 'labels-my-secrets');
  });

  it('another browser of the same account cannot read the label, and says so', async () => {
    const other = await Session.open(browser, 'labels-other');
    await signInThroughPage(other, runtime, owner, '/account');
    await other.ready('account');
    expect(await secretCard(other, labelledId).locator('[data-role="name"]').textContent()).toBe('Label kept in another browser');
    await finish(other);
  });

  it('revoking in My secrets asks first: "No" sends nothing and gives focus back, "Yes" revokes', async () => {
    const card = secretCard(first, twoLinksId);
    await card.locator('button[data-action="revoke"]').click();
    expect(await card.locator('[data-role="confirm-revoke"]').isVisible()).toBe(true);
    expect(await focusedAction(first)).toBe('confirm-revoke');
    await card.locator('button[data-action="cancel-revoke"]').click();
    expect(await focusedAction(first)).toBe('revoke');
    expect((await api.get(`/v1/secrets/${twoLinksId}`)).body.state).toBe('active');
    await card.locator('button[data-action="revoke"]').click();
    await card.locator('button[data-action="confirm-revoke"]').click();
    await first.page.waitForSelector(`#secrets > li[data-id="${twoLinksId}"][data-state="revoked"]`);
    expect((await api.get(`/v1/secrets/${twoLinksId}`)).body.state).toBe('revoked');
  });

  it('"Revoke now" on the compose result asks first too', async () => {
    const id = await composeLabelled(first, `Second ${randomUUID().slice(0, 8)}`);
    await first.page.click('#revoke-button');
    expect(await first.page.isVisible('[data-role="confirm-revoke"]')).toBe(true);
    expect(await focusedAction(first)).toBe('confirm-revoke');
    expect((await api.get(`/v1/secrets/${id}`)).body.state).toBe('active');
    await first.page.click('button[data-action="confirm-revoke"]');
    await first.page.waitForSelector('#result-revoked:not([hidden])');
    expect((await api.get(`/v1/secrets/${id}`)).body.state).toBe('revoked');
  });
});

describe('compose’s refusals beside their fields', () => {
  it('views 0 or 101 and a custom expiry out of range: each under its field, marked, focus on the first, nothing sent', async () => {
    const s = await Session.open(browser, 'labels-compose-errors');
    await openCompose(s);
    expect(await s.page.textContent('#options-summary')).toBe('1 day, 1 view');
    await s.page.fill('#secret-text', 'refused before anything is sent');
    await openOptions(s);
    await s.page.selectOption('#expiry', 'custom');
    await s.page.fill('#custom-expiry-amount', '31');
    await s.page.selectOption('#custom-expiry-unit', '86400');
    await s.page.fill('#max-views', '0');
    await s.page.click('#create-button');
    await s.page.waitForSelector('#max-views-error:not([hidden])');
    expect(await s.page.textContent('#expiry-error')).toBe('Choose between 1 minute and 30 days.');
    expect(await s.page.textContent('#max-views-error')).toBe('A whole number from 1 to 100.');
    expect(await s.page.getAttribute('#custom-expiry-amount', 'aria-invalid')).toBe('true');
    expect(await s.page.getAttribute('#max-views', 'aria-invalid')).toBe('true');
    expect(await focusedId(s)).toBe('custom-expiry-amount');
    expect(await s.page.isVisible('#compose-errors'), 'no summary for what has a field').toBe(false);
    await s.screenshot('labels-compose-field-errors');

    // Changing a field takes its message away; 101 is refused as 0 was.
    await s.page.fill('#custom-expiry-amount', '2');
    expect(await s.page.isVisible('#expiry-error')).toBe(false);
    expect(await s.page.getAttribute('#custom-expiry-amount', 'aria-invalid')).toBeNull();
    await s.page.fill('#max-views', '101');
    await s.page.click('#create-button');
    await s.page.waitForSelector('#max-views-error:not([hidden])');
    expect(await focusedId(s)).toBe('max-views');
    expect(s.apiRequests().filter((request) => request.method === 'POST')).toEqual([]);

    // The folded options say what they hold, as it changes.
    await s.page.fill('#max-views', '3');
    expect(await s.page.textContent('#options-summary')).toBe('2 days, 3 views');
    await finish(s);
  });
});

describe('requests', () => {
  let requester: Session;
  let labelledId: string;
  let questionId: string;
  let questionLink: string;
  const requestLabel = `Laptop recovery key ${randomUUID().slice(0, 8)}`;
  const question = `What is the VPN password? ${randomUUID().slice(0, 8)}`;

  async function makeRequest(options: { prompt?: string; label?: string }): Promise<{ id: string; link: string }> {
    const { page } = requester;
    if (options.prompt) {
      guard('question', options.prompt);
      await page.fill('#request-prompt', options.prompt);
    }
    if (options.label) {
      guard('request label', options.label);
      await page.fill('#request-label', options.label);
    }
    const previous = await page.inputValue('#request-link');
    await page.click('#create-request');
    await page.waitForSelector('#request-result:not([hidden])');
    await expect.poll(() => page.inputValue('#request-link')).not.toBe(previous);
    const link = await page.inputValue('#request-link');
    guard('request link', link);
    const id = new URL(link).pathname.split('/')[2]!;
    await page.waitForSelector(`#requests > li[data-id="${id}"]`);
    return { id, link };
  }

  beforeAll(async () => {
    requester = await Session.open(browser, 'labels-requester');
    await signInThroughPage(requester, runtime, newEmail('requester'), '/requests');
    await requester.page.waitForSelector('html[data-ready="requests"]');
  });

  it('a request is named by its label, else by its question opened in this browser', async () => {
    ({ id: labelledId } = await makeRequest({ prompt: 'Send the recovery key, please', label: requestLabel }));
    ({ id: questionId, link: questionLink } = await makeRequest({ prompt: question }));
    expect(await requestCard(requester, labelledId).locator('[data-role="name"]').textContent()).toBe(requestLabel);
    const named = requestCard(requester, questionId).locator('[data-role="name"]');
    expect(await named.textContent()).toBe(question);
    expect(await named.getAttribute('data-from')).toBe('question');
    expect(await requestCard(requester, questionId).locator('[data-role="id"]').textContent()).toBe(questionId);
    await screenshots(requester, 'labels-your-requests');
  });

  it('a response sent from another browser appears in the requester’s open page without a reload', async () => {
    const card = requestCard(requester, questionId);
    expect(await card.locator('[data-role="responses"] dd').textContent()).toBe('0 of 10');
    const answer = `the VPN password ${randomUUID()}`;
    guard('answer', answer);
    const responder = await Session.open(browser, 'labels-responder');
    await responder.page.goto(questionLink);
    await responder.page.waitForSelector('html[data-ready="respond"]');
    await responder.page.waitForFunction(() => document.documentElement.dataset.screen === 'ready');
    await responder.page.fill('#respond-text', answer);
    await responder.page.click('#send-button');
    await responder.page.waitForSelector('#screen-sent:not([hidden])');
    await finish(responder);
    // The page reads its list again every 15 s while visible: wait for the count, not for a time.
    const navigations: string[] = [];
    requester.page.on('framenavigated', (frame) => navigations.push(frame.url()));
    await expect.poll(() => card.locator('[data-role="responses"] dd').textContent(), { timeout: 40_000, interval: 500 }).toBe('1 of 10');
    expect(navigations, 'no reload').toEqual([]);
    expect(await card.locator('details[data-role="inbox"] > summary').textContent()).toContain('Responses (1)');
    await card.locator('details[data-role="inbox"] > summary').click();
    await expect.poll(() => card.locator('[data-role="responses"] li[data-outcome="opened"]').count(), { timeout: 20_000 }).toBe(1);
    await finish(requester, ['hushlink-labels', 'hushlink-requests']);
  }, 90_000);

  afterAll(async () => {
    if (first) await finish(first, ['hushlink-labels']);
  });
});
