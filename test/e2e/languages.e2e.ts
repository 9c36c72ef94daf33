/**
 * The pages in ten languages (issue 32, ADR 0183), in Chromium:
 * - the pseudo-locale (`?lang=en-XA`: every message accented, 40 % longer, between ⟦ ⟧) through
 *   the main flows; any visible text or accessible name without the marks is a hard-coded string;
 * - compose and reveal in Arabic at 390 px: right to left, mirrored, nothing wider than the screen;
 * - German at 390 px: no button clipped;
 * - Japanese: strict line breaking, nothing wider than the screen;
 * - the choice: `?lang=`, then the saved choice (the footer's switcher, by keyboard), then the
 *   browser's languages, then English; a refusal shown by its code in the page's language.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { newEmail } from '../support/accounts.ts';
import { apiClient } from '../support/runtime.ts';
import { Session, signInThroughPage, startRuntimeAndBrowser, stopRuntimeAndBrowser } from './harness.ts';

let runtime: Runtime;
let browser: Browser;
const sessions: Session[] = [];
const started = Date.now();

beforeAll(async () => {
  ({ runtime, browser } = await startRuntimeAndBrowser());
}, 180_000);

afterAll(async () => {
  console.log(`languages.e2e.ts: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const s of sessions) await s.close().catch(() => undefined);
  await stopRuntimeAndBrowser(runtime, browser);
});

async function session(name: string, options: Parameters<typeof Session.open>[2] = {}): Promise<Session> {
  const opened = await Session.open(browser, name, options);
  sessions.push(opened);
  return opened;
}

const phone = { width: 390, height: 844 };

/** A message of a catalogue, as written (for a message without arguments). */
function message(language: string, area: string, key: string): string {
  const catalogue = JSON.parse(readFileSync(new URL(`../../web/i18n/${language}/${area}.json`, import.meta.url), 'utf8'));
  const text = catalogue[key];
  if (typeof text !== 'string') throw new Error(`no ${key} in web/i18n/${language}/${area}.json`);
  return text;
}

/**
 * Every visible text node and every accessible name (aria-label, title, placeholder, alt) that
 * does not carry the pseudo-locale's marks. Data is exempt: what sits under `translate="no"`
 * (addresses, ids, links, code), form values, and text of digits and punctuation alone.
 */
async function unmarkedText(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const marked = (text: string) => /[⟦⟧·]/.test(text);
    const dataOnly = (text: string) => !/\p{L}/u.test(text);
    const exempt = (element: Element | null) =>
      !element || element.closest('[translate="no"], script, style, noscript, template, svg, textarea, select') !== null;
    const visible = (element: Element) => {
      const box = (element as HTMLElement).getBoundingClientRect?.();
      const style = getComputedStyle(element);
      const hiddenText = element.closest('.visually-hidden') !== null;
      return (hiddenText || (box && box.width > 0 && box.height > 0)) && style.visibility !== 'hidden' && !element.closest('[hidden]');
    };
    const found: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent?.trim() ?? '';
      const parent = node.parentElement;
      if (!text || dataOnly(text) || exempt(parent) || !visible(parent!)) continue;
      if (!marked(text))
        found.push(`text "${text.slice(0, 80)}" in <${parent!.tagName.toLowerCase()}${parent!.id ? `#${parent!.id}` : ''}>`);
    }
    for (const element of document.querySelectorAll('[aria-label], [title], [placeholder], img[alt]')) {
      if (exempt(element) && element.tagName !== 'SELECT') continue;
      if (!visible(element) && element.tagName !== 'TITLE') continue;
      for (const attribute of ['aria-label', 'title', 'placeholder', 'alt']) {
        const value = element.getAttribute(attribute)?.trim();
        if (value && !dataOnly(value) && !marked(value))
          found.push(`${attribute}="${value.slice(0, 80)}" on <${element.tagName.toLowerCase()}>`);
      }
    }
    if (!marked(document.title)) found.push(`title "${document.title}"`);
    return found;
  });
}

/** Whether anything is wider than the viewport (a page that scrolls sideways). */
async function overflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const wide: string[] = [];
    if (document.documentElement.scrollWidth > width + 1) wide.push(`the page is ${document.documentElement.scrollWidth} px wide`);
    for (const element of document.querySelectorAll<HTMLElement>('main *, header *, footer *')) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || getComputedStyle(element).position === 'fixed' || element.closest('.skip-link, .visually-hidden')) continue;
      if (box.left < -1 || box.right > width + 1)
        wide.push(
          `<${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}> spans ${Math.round(box.left)}…${Math.round(box.right)}`,
        );
    }
    return wide.slice(0, 10);
  });
}

/** Buttons whose label does not fit their box (cut off or spilling). */
async function clippedButtons(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('button, a.button, summary')]
      .filter((button) => button.getBoundingClientRect().width > 0 && !button.closest('[hidden]'))
      .filter((button) => button.scrollWidth > button.clientWidth + 1 || button.scrollHeight > button.clientHeight + 2)
      .map(
        (button) =>
          `"${button.textContent?.trim()}" ${button.scrollWidth}×${button.scrollHeight} in ${button.clientWidth}×${button.clientHeight}`,
      ),
  );
}

async function composeSecret(s: Session, query: string): Promise<string> {
  await s.page.goto(`${runtime.url}/${query}`);
  await s.ready('compose');
  await s.page.fill('#secret-text', `languages e2e ${Date.now()}`);
  await s.page.click('#create-button');
  await s.page.waitForSelector('#result:not([hidden])');
  return s.page.inputValue('#share-link');
}

/** The link with `?lang=` before its `#key`. */
const withLanguage = (link: string, language: string) => link.replace('#', `?lang=${language}#`);

async function openReady(s: Session, link: string): Promise<void> {
  await s.page.goto(link);
  await s.ready('reveal');
  await s.page.waitForFunction(() => !['loading', undefined].includes(document.documentElement.dataset.screen));
}

describe('the pseudo-locale finds every hard-coded string', () => {
  it('compose, its result, the reveal page before and after opening, and the 404 page', async () => {
    const sender = await session('pseudo-sender');
    await sender.page.goto(`${runtime.url}/?lang=en-XA`);
    await sender.ready('compose');
    expect(await sender.page.getAttribute('html', 'lang')).toBe('en-XA');
    expect(await unmarkedText(sender.page), 'compose').toEqual([]);
    await sender.page.click('#more-options summary');
    expect(await unmarkedText(sender.page), 'compose, its options open').toEqual([]);
    const link = await composeSecret(sender, '?lang=en-XA');
    expect(await unmarkedText(sender.page), 'the result').toEqual([]);

    const recipient = await session('pseudo-recipient');
    await openReady(recipient, withLanguage(link, 'en-XA'));
    expect(await unmarkedText(recipient.page), 'the reveal page').toEqual([]);
    await recipient.page.click('#reveal-button');
    await recipient.page.waitForSelector('#screen-revealed:not([hidden])');
    expect(await unmarkedText(recipient.page), 'the revealed secret').toEqual([]);

    const again = await session('pseudo-again');
    await openReady(again, withLanguage(link, 'en-XA'));
    expect(await unmarkedText(again.page), 'the gone screen').toEqual([]);

    await again.page.goto(`${runtime.url}/nope?lang=en-XA`);
    await again.page.waitForSelector('html[data-ready="not-found"]');
    expect(await unmarkedText(again.page), 'the 404 page').toEqual([]);
  });

  it('sign-in, then every account page', async () => {
    const email = newEmail('pseudo');
    const s = await session('pseudo-account');
    await s.page.goto(`${runtime.url}/signin?lang=en-XA`);
    await s.ready('signin');
    expect(await unmarkedText(s.page), 'sign-in').toEqual([]);
    await signInThroughPage(s, runtime, email);
    for (const [path, ready] of [
      ['/account', 'account'],
      ['/keys', 'keys'],
      ['/sessions', 'sessions'],
      ['/requests', 'requests'],
      ['/workspaces', 'workspaces'],
      ['/webhooks', 'webhooks'],
      ['/billing', 'billing'],
      ['/plans', 'plans'],
    ] as const) {
      await s.page.goto(`${runtime.url}${path}?lang=en-XA`);
      await s.page.waitForSelector(`html[data-ready="${ready}"]`);
      await settled(s.page);
      expect(await unmarkedText(s.page), path).toEqual([]);
    }

    // A workspace's page, every section of it (the owner's view).
    await s.page.goto(`${runtime.url}/workspaces?lang=en-XA`);
    await s.page.waitForSelector('html[data-ready="workspaces"]');
    await s.page.fill('#workspace-name', 'Pseudo Co');
    await s.page.click('#create-workspace');
    const workspaceLink = await s.page.waitForSelector('a[href^="/workspace?id="]');
    expect(await unmarkedText(s.page), 'a workspace made').toEqual([]);
    // The pseudo-locale is never saved: each page asks for it.
    await s.page.goto(`${runtime.url}${await workspaceLink.getAttribute('href')}&lang=en-XA`);
    await s.page.waitForSelector('html[data-ready="workspace"]');
    await settled(s.page);
    expect(await unmarkedText(s.page), '/workspace').toEqual([]);

    // A request made on /requests, then answered on the responder's page in a fresh browser.
    await s.page.goto(`${runtime.url}/requests?lang=en-XA`);
    await s.page.waitForSelector('html[data-ready="requests"]');
    await s.page.click('#create-request');
    await s.page.waitForSelector('#request-result:not([hidden])');
    expect(await unmarkedText(s.page), 'a new request').toEqual([]);
    const link = await s.page.inputValue('#request-link');
    const responder = await session('pseudo-responder');
    await responder.page.goto(withLanguage(link, 'en-XA'));
    await responder.page.waitForSelector('html[data-ready="respond"]');
    await responder.page.waitForFunction(() => document.documentElement.dataset.screen === 'ready');
    expect(await unmarkedText(responder.page), 'the responder’s page').toEqual([]);
    await responder.page.fill('#respond-text', `pseudo response ${Date.now()}`);
    await responder.page.click('#send-button');
    await responder.page.waitForSelector('#screen-sent:not([hidden])');
    expect(await unmarkedText(responder.page), 'sent').toEqual([]);
  });
});

/** The page's later reads done: nothing shown is still busy (the header's slot is hidden by then). */
const settled = (page: Page) =>
  page.waitForFunction(() => [...document.querySelectorAll('[aria-busy="true"]')].every((busy) => busy.closest('[hidden]') !== null));

describe('right to left, German and Japanese at 390 px', () => {
  it('compose and reveal in Arabic: rtl, mirrored, nothing wider than the screen', async () => {
    const sender = await session('arabic-sender', { viewport: phone });
    const link = await composeSecret(sender, '?lang=ar');
    expect(await sender.page.getAttribute('html', 'lang')).toBe('ar');
    expect(await sender.page.getAttribute('html', 'dir')).toBe('rtl');
    expect(await sender.page.textContent('#create-button')).toBe(message('ar', 'compose', 'compose.create'));
    expect(await overflow(sender.page), 'compose result in Arabic').toEqual([]);
    await sender.screenshot('languages-ar-compose-result-phone');
    // Mirrored: the brand sits at the right edge of the header.
    const brand = await sender.page.locator('.site-header .brand').boundingBox();
    expect(brand!.x + brand!.width).toBeGreaterThan(phone.width / 2);

    const recipient = await session('arabic-recipient', { viewport: phone });
    await openReady(recipient, withLanguage(link, 'ar'));
    expect(await overflow(recipient.page), 'reveal in Arabic').toEqual([]);
    await recipient.screenshot('languages-ar-reveal-phone');
    await recipient.page.click('#reveal-button');
    await recipient.page.waitForSelector('#screen-revealed:not([hidden])');
    expect(await overflow(recipient.page), 'revealed in Arabic').toEqual([]);
    await recipient.screenshot('languages-ar-revealed-phone');
  });

  it('German: no button clipped on compose, its result, sign-in and plans', async () => {
    const s = await session('german', { viewport: phone });
    await composeSecret(s, '?lang=de');
    expect(await s.page.getAttribute('html', 'lang')).toBe('de');
    expect(await clippedButtons(s.page), 'compose result').toEqual([]);
    for (const [path, ready] of [
      ['/', 'compose'],
      ['/signin', 'signin'],
      ['/plans', 'plans'],
    ] as const) {
      await s.page.goto(`${runtime.url}${path}`);
      await s.page.waitForSelector(`html[data-ready="${ready}"]`);
      expect(await s.page.getAttribute('html', 'lang'), 'the saved choice').toBe('de');
      expect(await clippedButtons(s.page), path).toEqual([]);
      expect(await overflow(s.page), path).toEqual([]);
    }
    await s.screenshot('languages-de-plans-phone');
  });

  it('Japanese: strict line breaking, and nothing wider than the screen', async () => {
    const s = await session('japanese', { viewport: phone, locale: 'ja-JP' });
    await s.page.goto(`${runtime.url}/`);
    await s.ready('compose');
    expect(await s.page.getAttribute('html', 'lang'), "the browser's language").toBe('ja');
    expect(await s.page.evaluate(() => getComputedStyle(document.querySelector('main p, main label')!).lineBreak)).toBe('strict');
    expect(await overflow(s.page)).toEqual([]);
    await s.screenshot('languages-ja-compose-phone');
  });
});

describe('choosing the language', () => {
  it('?lang= beats the saved choice, which beats the browser, which beats English; the switcher works by keyboard', async () => {
    const s = await session('choice', { locale: 'fr-FR' });
    await s.page.goto(`${runtime.url}/plans`);
    await s.page.waitForSelector('html[data-ready="plans"]');
    expect(await s.page.getAttribute('html', 'lang'), "the browser's language").toBe('fr');

    // The footer's switcher, by keyboard: focus it, pick Nederlands, and the page reloads in Dutch.
    await s.page.focus('#language-switcher');
    // A closed list takes a typed letter: N is Nederlands, the one language whose name starts with it.
    await Promise.all([s.page.waitForEvent('load'), s.page.keyboard.press('N')]);
    await s.page.waitForSelector('html[data-ready="plans"]');
    expect(await s.page.getAttribute('html', 'lang'), 'the saved choice').toBe('nl');
    expect(await s.page.textContent('.site-header a[href="/plans"]')).toBe(message('nl', 'common', 'common.nav.plans'));

    await s.page.goto(`${runtime.url}/plans?lang=ja`);
    await s.page.waitForSelector('html[data-ready="plans"]');
    expect(await s.page.getAttribute('html', 'lang'), '?lang=').toBe('ja');

    const english = await session('fallback', { locale: 'ko-KR' });
    await english.page.goto(`${runtime.url}/plans`);
    await english.page.waitForSelector('html[data-ready="plans"]');
    expect(await english.page.getAttribute('html', 'lang'), 'a language Hushlink does not speak').toBe('en');
  });

  it('never reloads a page that would lose its secret: the choice waits for the next page, and the footer says so', async () => {
    const sender = await session('hold-sender');
    const link = await composeSecret(sender, '');
    const recipient = await session('hold-recipient');
    await openReady(recipient, link);
    await recipient.page.click('#reveal-button');
    await recipient.page.waitForSelector('#screen-revealed:not([hidden])');
    const revealed = await recipient.page.inputValue('#secret-text');
    let navigated = false;
    recipient.page.on('framenavigated', () => {
      navigated = true;
    });
    await recipient.page.selectOption('#language-switcher', 'de');
    await recipient.page.waitForSelector('[data-language-note]:not([hidden])');
    expect(await recipient.page.textContent('[data-language-note]')).toBe(message('en', 'common', 'common.footer.languageNextPage'));
    expect(navigated, 'no reload').toBe(false);
    expect(await recipient.page.inputValue('#secret-text'), 'the secret still shown').toBe(revealed);
    expect(await recipient.page.evaluate(() => localStorage.getItem('hushlink.lang'))).toBe('de');
    // The next page is German.
    await recipient.page.goto(`${runtime.url}/plans`);
    await recipient.page.waitForSelector('html[data-ready="plans"]');
    expect(await recipient.page.getAttribute('html', 'lang')).toBe('de');
  });

  it('shows a refusal by its code in the page language, and sends the language with its requests', async () => {
    const s = await session('refusal', { locale: 'de-DE' });
    await s.page.goto(`${runtime.url}/s/sec_00000000000000000000000000?lang=de#${'A'.repeat(43)}`);
    await s.ready('reveal');
    const state = await s.message();
    expect(state).toBe('not-found');
    expect((await s.page.textContent('#message-title'))!.trim()).toBe(message('de', 'reveal', 'reveal.notFound.title'));
    expect(s.apiRequests()[0]!.headers['accept-language'], 'the page language, in the browser’s regional tag').toBe('de-DE');
    expect((await apiClient(runtime).get('/v1/secrets/sec_00000000000000000000000000')).body.detail).toMatch(/[a-z]/);
  });
});
