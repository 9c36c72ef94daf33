/**
 * Webhooks `/webhooks`: add an endpoint (its signing secret is shown once, with Copy), list
 * them (events, on or switched off, failures in a row), delete (after a confirm step), send a
 * test delivery, and read each endpoint's delivery log (attempts and the body sent), page by
 * page.
 *
 * The test route takes an API key, not the session: with none pasted, the page makes one for the
 * one test and revokes it at once (`webhookTestKey.ts`, ADR 0182). A key pasted into the password
 * field stays in that field only (this page's memory), is sent only as the bearer of
 * `POST /v1/webhooks/{id}/test`, and is cleared when the page is left, like the signing secret.
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { language, t, tNodes } from './i18n.ts';
import { ApiError, problemMessages } from './api.ts';
import { webhookApi, type WebhookEndpoint, type WebhookEventType } from './webhookApi.ts';
import { markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { announce, byId, copyField, element, focusHeading, setVisible } from './dom.ts';
import { listLoading } from './listLoading.ts';
import { SignedOutError, withAccess } from './session.ts';
import { endpointItem, type EndpointList } from './webhookEndpoint.ts';
import { testKeyName } from './webhookTestKey.ts';

const section = byId('webhooks-page');
const form = byId<HTMLFormElement>('webhook-form');
const fields = byId<HTMLFieldSetElement>('webhook-fields');
const url = byId<HTMLInputElement>('webhook-url');
const urlError = byId('webhook-url-error');
const eventsBox = byId<HTMLFieldSetElement>('webhook-events');
const eventsError = byId('webhook-events-error');
const eventBoxes = [...document.querySelectorAll<HTMLInputElement>('#webhook-events input[type="checkbox"]')];
const errors = byId('webhook-errors');
const errorList = byId<HTMLUListElement>('webhook-error-list');

const newSecret = byId('new-secret');
const newSecretTitle = byId('new-secret-title');
const newSecretValue = byId<HTMLInputElement>('new-secret-value');
const copySecret = byId<HTMLButtonElement>('copy-secret');
const newSecretDone = byId<HTMLButtonElement>('new-secret-done');

// The API key for test deliveries: the cards read it (webhookEndpoint.ts), the page enables and clears it.
const testKey = byId<HTMLInputElement>('test-key');
const testKeyError = byId('test-key-error');

const listError = byId('webhooks-error');
const listEmpty = byId('webhooks-empty');
const list = byId<HTMLUListElement>('webhooks');
const listTitle = byId('webhooks-list-title');

// ---- Sentences with code or a link in them, written around it in the page's language ----

function mono(text: string): HTMLElement {
  const span = element('span', 'mono', text);
  span.translate = false;
  return span;
}

byId('new-secret-why').replaceChildren(...tNodes('webhooks.secret.why', { header: mono('service-signature') }));
byId('webhook-url-hint').replaceChildren(...tNodes('webhooks.form.urlHint', { scheme: mono('https://') }));
byId('test-key-about-send').replaceChildren(...tNodes('webhooks.test.aboutSend', { event: mono('webhook.test') }));
{
  const keysLink = byId<HTMLAnchorElement>('test-key-about-link');
  keysLink.textContent = t('webhooks.test.aboutLink');
  byId('test-key-about-key').replaceChildren(...tNodes('webhooks.test.aboutKey', { link: keysLink, name: testKeyName }));
}

// ---- The list ----

const cards: EndpointList = {
  deleted(item, endpoint) {
    item.remove();
    setVisible(listEmpty, list.children.length === 0);
    announce(t('webhooks.deleted', { url: endpoint.url }));
    focusHeading(listTitle);
  },
  async gone(item) {
    item.remove();
    setVisible(listEmpty, list.children.length === 0);
    announce(t('webhooks.gone'));
    await load();
    focusHeading(listTitle);
  },
};

function render(endpoints: WebhookEndpoint[]): void {
  list.replaceChildren(...endpoints.map((endpoint) => endpointItem(endpoint, cards)));
  setVisible(listEmpty, endpoints.length === 0);
}

const endpoints = listLoading(
  {
    error: listError,
    failed: t('webhooks.list.failed'),
    object: t('webhooks.list.object'),
    loading: t('webhooks.list.loading'),
  },
  async () => render((await withAccess((token) => webhookApi.list(token))).items),
);
const load = () => endpoints.load();

// ---- Adding an endpoint ----

function clearErrors(): void {
  for (const box of [urlError, eventsError, errors]) setVisible(box, false);
  errorList.replaceChildren();
  url.removeAttribute('aria-invalid');
  eventsBox.removeAttribute('aria-invalid');
}

function showFieldError(box: HTMLElement, field: HTMLElement, messages: string[]): void {
  box.textContent = messages.join(' ');
  setVisible(box, true);
  field.setAttribute('aria-invalid', 'true');
}

/** Puts each refusal next to its field (`body.url`, `body.events…`), the rest in the box. */
function showErrors(messages: { url: string[]; events: string[]; other: string[] }): void {
  if (messages.url.length > 0) showFieldError(urlError, url, messages.url);
  if (messages.events.length > 0) showFieldError(eventsError, eventsBox, messages.events);
  if (messages.other.length > 0) {
    errorList.replaceChildren(...messages.other.map((message) => element('li', '', message)));
    setVisible(errors, true);
  }
  if (messages.url.length > 0) url.focus();
  else if (messages.events.length > 0) eventBoxes[0]!.focus();
  else errors.focus();
}

function sortProblem(error: ApiError): { url: string[]; events: string[]; other: string[] } {
  const sorted = { url: [] as string[], events: [] as string[], other: [] as string[] };
  for (const entry of error.problem.errors ?? []) {
    if (typeof entry?.message !== 'string') continue;
    if (entry.path === 'body.url') sorted.url.push(entry.message);
    else if (entry.path === 'body.events' || entry.path?.startsWith('body.events.')) sorted.events.push(entry.message);
    else sorted.other.push(entry.path ? `${entry.path.replace(/^body\./, '')}: ${entry.message}` : entry.message);
  }
  if (sorted.url.length + sorted.events.length + sorted.other.length === 0) return { ...sorted, other: problemMessages(error) };
  // The server's words are English: other languages say what was refused in their own, once per place.
  if (language !== 'en') {
    const once = (list: string[], sentence: string) => (list.length > 0 ? [sentence] : []);
    return {
      url: once(sorted.url, t('webhooks.form.urlRefused')),
      events: once(sorted.events, t('webhooks.form.eventsRefused')),
      other: once(sorted.other, t('webhooks.form.refused')),
    };
  }
  return sorted;
}

async function add(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  clearErrors();
  const target = url.value.trim();
  if (!target) return showErrors({ url: [t('webhooks.form.urlMissing')], events: [], other: [] });
  const events = eventBoxes.filter((box) => box.checked).map((box) => box.value as WebhookEventType);

  fields.disabled = true;
  announce(t('webhooks.form.adding'));
  try {
    const created = await withAccess((token) => webhookApi.create(token, { url: target, ...(events.length > 0 ? { events } : {}) }));
    form.reset();
    newSecretValue.value = created.secret;
    setVisible(newSecret, true);
    announce(t('webhooks.form.added'));
    focusHeading(newSecretTitle);
    await load();
  } catch (error) {
    announce('');
    // Enabled again first: a disabled field cannot take the focus the errors move to it.
    fields.disabled = false;
    if (error instanceof SignedOutError) return showProblem(errors, error);
    if (error instanceof ApiError) return showErrors(sortProblem(error));
    showErrors({ url: [], events: [], other: [t('webhooks.form.pageError')] });
  } finally {
    fields.disabled = false;
  }
}

function hideSecret(): void {
  newSecretValue.value = '';
  setVisible(newSecret, false);
}

form.addEventListener('submit', (event) => void add(event));
copySecret.addEventListener('click', () => void copyField(newSecretValue, copySecret, t('webhooks.secret.what')));
newSecretValue.addEventListener('focus', () => newSecretValue.select());
newSecretDone.addEventListener('click', () => {
  hideSecret();
  announce(t('webhooks.secret.hidden'));
  url.focus();
});
testKey.addEventListener('input', () => {
  setVisible(testKeyError, false);
  testKey.removeAttribute('aria-invalid');
});
// Leaving the page (or it going into the back/forward cache) takes the secret and the key off it.
window.addEventListener('pagehide', () => {
  hideSecret();
  testKey.value = '';
});

async function main(): Promise<void> {
  const user = await startSignedInPage(listError);
  if (!user) return;
  fields.disabled = false;
  testKey.disabled = false;
  await load();
  markReady('webhooks', section);
}

void main();
