/**
 * Webhooks `/webhooks`: add an endpoint (its signing secret is shown once, with Copy), list
 * them (events, on or switched off, failures in a row), delete (after a confirm step), send a
 * test delivery, and read each endpoint's delivery log (attempts and the body sent), page by
 * page.
 *
 * The test route takes an API key, not the session: the person pastes one into a password
 * field. It stays in that field only (this page's memory), is sent only as the bearer of
 * `POST /v1/webhooks/{id}/test`, and is cleared when the page is left, like the signing secret.
 */
import { ApiError, problemMessages, webhookApi, webhookEventTypes, type WebhookDelivery, type WebhookEndpoint, type WebhookEventType } from './api.ts';
import { actionButton, fact, markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { announce, byId, copyField, focusHeading, plural, setVisible, timeElement } from './dom.ts';
import { SignedOutError, withAccess } from './session.ts';

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

const testKey = byId<HTMLInputElement>('test-key');
const testKeyError = byId('test-key-error');

const listError = byId('webhooks-error');
const listEmpty = byId('webhooks-empty');
const list = byId<HTMLUListElement>('webhooks');
const listTitle = byId('webhooks-list-title');

/** Deliveries per page of a log. */
const logPageSize = 10;

const deliveryStates: Record<string, { label: string; badge: string }> = {
  pending: { label: 'Pending', badge: 'badge-pending' },
  delivered: { label: 'Delivered', badge: 'badge-active' },
  failed: { label: 'Failed', badge: 'badge-locked' },
  cancelled: { label: 'Cancelled', badge: 'badge-locked' },
};

const element = <K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text = ''): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
};

function errorBox(role: string): HTMLElement {
  const box = element('p', 'notice notice-error');
  box.dataset['role'] = role;
  box.setAttribute('role', 'alert');
  box.tabIndex = -1;
  box.hidden = true;
  return box;
}

// ---- One delivery of a log ----

function attemptLine(attempt: WebhookDelivery['attempts'][number]): HTMLLIElement {
  const line = element('li', attempt.status !== null && attempt.status >= 200 && attempt.status < 300 ? 'ok' : 'failed');
  line.dataset['status'] = attempt.status === null ? 'error' : String(attempt.status);
  const outcome = attempt.status !== null ? `HTTP ${attempt.status}` : `no answer: ${attempt.error ?? 'unknown error'}`;
  line.append(`Attempt ${attempt.number}, `, timeElement(attempt.at), `: ${outcome}, ${attempt.duration_ms} ms`);
  if (attempt.status !== null && attempt.error) line.append(` (${attempt.error})`);
  return line;
}

function deliveryItem(delivery: WebhookDelivery): HTMLLIElement {
  const item = element('li', 'item');
  item.dataset['id'] = delivery.id;
  item.dataset['status'] = delivery.status;
  const head = element('div', 'item-head');
  const title = element('h4', 'item-title');
  title.tabIndex = -1;
  title.append(element('code', '', delivery.type));
  const state = deliveryStates[delivery.status] ?? { label: delivery.status, badge: '' };
  const badge = element('span', `badge ${state.badge}`.trim(), state.label);
  badge.dataset['role'] = 'status';
  head.append(title, badge);

  const facts = element('dl', 'facts');
  facts.append(fact('Created', timeElement(delivery.created_at)), fact('Event id', element('code', 'mono', delivery.event_id)));
  if (delivery.status === 'pending' && delivery.next_attempt_at) facts.append(fact('Next attempt', timeElement(delivery.next_attempt_at)));

  const attempts = element('ul', 'results');
  attempts.dataset['role'] = 'attempts';
  attempts.setAttribute('aria-label', `Attempts of delivery ${delivery.id}`);
  if (delivery.attempts.length === 0) attempts.append(element('li', '', 'No attempt yet.'));
  else attempts.append(...delivery.attempts.map(attemptLine));

  // The exact bytes that were signed and sent, in a read-only field (it wraps and scrolls).
  const body = element('div', 'field');
  const bodyId = `body-${delivery.id}`;
  const label = element('label', '', 'Body sent');
  label.htmlFor = bodyId;
  const text = element('textarea');
  text.id = bodyId;
  text.readOnly = true;
  text.rows = 3;
  text.spellcheck = false;
  text.dataset['role'] = 'body';
  text.value = delivery.request.body;
  body.append(label, text);

  item.append(head, facts, attempts, body);
  return item;
}

// ---- One endpoint ----

interface Log {
  cursor: string | null;
  loaded: boolean;
  busy: boolean;
}

function endpointItem(endpoint: WebhookEndpoint): HTMLLIElement {
  const item = element('li', 'item');
  item.dataset['id'] = endpoint.id;
  item.dataset['enabled'] = String(endpoint.enabled);
  const head = element('div', 'item-head');
  const title = element('h3', 'item-title');
  title.tabIndex = -1;
  title.append(element('code', '', endpoint.url));
  const badge = element('span', endpoint.enabled ? 'badge badge-active' : 'badge badge-locked', endpoint.enabled ? 'On' : 'Switched off');
  badge.dataset['role'] = 'state';
  head.append(title, badge);

  const facts = element('dl', 'facts');
  const all = webhookEventTypes.every((type) => endpoint.events.includes(type));
  const events = fact('Events', all ? 'All events' : endpoint.events.join(', '));
  events.dataset['role'] = 'events';
  const failures = fact('Failures', `${endpoint.consecutive_failures} in a row`);
  failures.dataset['role'] = 'failures';
  facts.append(events, failures);
  if (!endpoint.enabled) {
    const off = document.createDocumentFragment();
    off.append('switched off ');
    if (endpoint.disabled_at) off.append(timeElement(endpoint.disabled_at), ' ');
    off.append('after too many failed attempts; a successful test switches it back on');
    facts.append(fact('State', off));
  }
  facts.append(fact('Added', timeElement(endpoint.created_at)));

  const actions = element('div', 'actions');
  const test = actionButton('Send test', `delivery to ${endpoint.url}`);
  test.dataset['action'] = 'test';
  const remove = actionButton('Delete', `endpoint ${endpoint.url}`, 'danger');
  remove.dataset['action'] = 'delete';
  actions.append(test, remove);

  // The confirm step: nothing is deleted until "Yes, delete it".
  const confirm = element('div', 'notice notice-warning');
  confirm.dataset['role'] = 'confirm';
  confirm.hidden = true;
  const question = element('p', '', 'Delete this endpoint? Nothing more is sent to it, queued deliveries are cancelled and its delivery log goes with it.');
  const confirmActions = element('div', 'actions');
  const yes = actionButton('Yes, delete it', `endpoint ${endpoint.url}`, 'danger');
  yes.dataset['action'] = 'confirm-delete';
  const no = actionButton('Keep it', `endpoint ${endpoint.url}`);
  no.dataset['action'] = 'cancel-delete';
  confirmActions.append(yes, no);
  confirm.append(question, confirmActions);

  const queued = element('p', 'notice notice-info');
  queued.dataset['role'] = 'test-result';
  queued.hidden = true;
  const error = errorBox('error');

  const log = element('details', 'options');
  log.dataset['role'] = 'log';
  const summary = element('summary', '', 'Delivery log');
  const logActions = element('div', 'actions');
  const refresh = actionButton('Refresh', `delivery log of ${endpoint.url}`);
  refresh.dataset['action'] = 'refresh';
  logActions.append(refresh);
  const logError = errorBox('log-error');
  const logEmpty = element('p', '', 'No deliveries yet.');
  logEmpty.dataset['role'] = 'log-empty';
  logEmpty.hidden = true;
  const deliveries = element('ul', 'items');
  deliveries.dataset['role'] = 'deliveries';
  deliveries.setAttribute('aria-label', `Deliveries to ${endpoint.url}, newest first`);
  const moreActions = element('div', 'actions');
  const more = actionButton('More', `deliveries of ${endpoint.url}`);
  more.dataset['action'] = 'more';
  more.hidden = true;
  moreActions.append(more);
  log.append(summary, logActions, logError, logEmpty, deliveries, moreActions);

  const state: Log = { cursor: null, loaded: false, busy: false };

  async function loadLog(next: boolean): Promise<void> {
    if (state.busy) return;
    state.busy = true;
    refresh.disabled = true;
    more.disabled = true;
    setVisible(logError, false);
    announce(next ? 'Loading more deliveries…' : 'Loading the delivery log…');
    try {
      const page = await withAccess((token) => webhookApi.deliveries(token, endpoint.id, logPageSize, next ? state.cursor : null));
      const added = page.items.map(deliveryItem);
      if (next) deliveries.append(...added);
      else deliveries.replaceChildren(...added);
      state.loaded = true;
      // A cursor can come back although nothing follows: an empty next page ends the log too.
      state.cursor = page.items.length > 0 ? page.next_cursor : null;
      setVisible(more, state.cursor !== null);
      setVisible(logEmpty, deliveries.children.length === 0);
      announce(next ? (added.length > 0 ? `${plural(added.length, 'more delivery', 'more deliveries')} shown.` : 'No more deliveries.') : `Delivery log: ${plural(deliveries.children.length, 'delivery', 'deliveries')} shown.`);
      if (next && added[0]) added[0].querySelector<HTMLElement>('.item-title')?.focus();
      else if (next) refresh.focus();
    } catch (problem) {
      announce('');
      if (problem instanceof ApiError && problem.status === 404) return void endpointGone(item);
      showProblem(logError, problem, 'The delivery log could not be read: ');
    } finally {
      state.busy = false;
      refresh.disabled = false;
      more.disabled = false;
    }
  }

  log.addEventListener('toggle', () => {
    if (log.open && !state.loaded) void loadLog(false);
  });
  refresh.addEventListener('click', () => void loadLog(false));
  more.addEventListener('click', () => void loadLog(true));

  remove.addEventListener('click', () => {
    setVisible(confirm, true);
    yes.focus();
  });
  no.addEventListener('click', () => {
    setVisible(confirm, false);
    remove.focus();
  });
  yes.addEventListener('click', () => void deleteEndpoint(endpoint, item, yes, error));
  test.addEventListener('click', () =>
    void sendTest(endpoint, test, queued, error, () => {
      log.open = true;
      void loadLog(false);
    }),
  );

  item.append(head, facts, actions, confirm, queued, error, log);
  return item;
}

/** The endpoint was deleted elsewhere: the list is out of date. */
async function endpointGone(item: HTMLLIElement): Promise<void> {
  item.remove();
  setVisible(listEmpty, list.children.length === 0);
  announce('That endpoint no longer exists (deleted elsewhere); the list is updated.');
  await load();
  focusHeading(listTitle);
}

async function deleteEndpoint(endpoint: WebhookEndpoint, item: HTMLLIElement, button: HTMLButtonElement, error: HTMLElement): Promise<void> {
  button.disabled = true;
  setVisible(error, false);
  announce('Deleting…');
  try {
    await withAccess((token) => webhookApi.remove(token, endpoint.id));
  } catch (problem) {
    button.disabled = false;
    announce('');
    // Already gone (deleted elsewhere): the list is simply out of date.
    if (!(problem instanceof ApiError && problem.status === 404)) {
      showProblem(error, problem, 'Could not delete: ');
      return;
    }
  }
  item.remove();
  setVisible(listEmpty, list.children.length === 0);
  announce(`Endpoint ${endpoint.url} deleted: nothing more is sent to it.`);
  focusHeading(listTitle);
}

// ---- Test deliveries (with the pasted API key) ----

function keyProblem(message: string): void {
  testKeyError.textContent = message;
  setVisible(testKeyError, true);
  testKey.setAttribute('aria-invalid', 'true');
  testKey.focus();
}

async function sendTest(endpoint: WebhookEndpoint, button: HTMLButtonElement, queued: HTMLElement, error: HTMLElement, showLog: () => unknown): Promise<void> {
  setVisible(queued, false);
  setVisible(error, false);
  setVisible(testKeyError, false);
  testKey.removeAttribute('aria-invalid');
  const key = testKey.value.trim();
  if (!key) return keyProblem('Paste an API key here first: a test delivery is sent only with one (see above why).');
  // API keys start with hlk_; anything else (a signing secret, a token) is not sent anywhere.
  if (!key.startsWith('hlk_')) return keyProblem('That is not an API key: keys start with hlk_. Make one on the API keys page.');
  button.disabled = true;
  announce('Queueing a test delivery…');
  try {
    const answer = await webhookApi.test(key, endpoint.id);
    queued.textContent = 'Test delivery queued. It is sent within seconds: refresh the delivery log below to see how your receiver answered.';
    queued.dataset['deliveryId'] = answer.delivery_id;
    setVisible(queued, true);
    announce('Test delivery queued.');
    showLog();
  } catch (problem) {
    announce('');
    if (problem instanceof ApiError && problem.status === 401) {
      keyProblem('This API key was refused: it may be mistyped, revoked or expired.');
    } else if (problem instanceof ApiError && problem.status === 404) {
      showProblem(error, problem, 'Not sent: this endpoint no longer exists, or the key belongs to another account. ');
    } else {
      showProblem(error, problem, 'Not sent: ');
    }
  } finally {
    button.disabled = false;
  }
}

// ---- The list ----

function render(endpoints: WebhookEndpoint[]): void {
  list.replaceChildren(...endpoints.map(endpointItem));
  setVisible(listEmpty, endpoints.length === 0);
}

async function load(): Promise<void> {
  setVisible(listError, false);
  try {
    render((await withAccess((token) => webhookApi.list(token))).items);
  } catch (error) {
    showProblem(listError, error, 'Your endpoints could not be listed: ');
  }
}

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
  if (sorted.url.length + sorted.events.length + sorted.other.length === 0) sorted.other.push(...problemMessages(error));
  return sorted;
}

async function add(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  clearErrors();
  const target = url.value.trim();
  if (!target) return showErrors({ url: ['Enter the URL your receiver listens on.'], events: [], other: [] });
  const events = eventBoxes.filter((box) => box.checked).map((box) => box.value as WebhookEventType);

  fields.disabled = true;
  announce('Adding the endpoint…');
  try {
    const created = await withAccess((token) => webhookApi.create(token, { url: target, ...(events.length > 0 ? { events } : {}) }));
    form.reset();
    newSecretValue.value = created.secret;
    setVisible(newSecret, true);
    announce('Endpoint added. Copy its signing secret now: it is shown only once.');
    focusHeading(newSecretTitle);
    await load();
  } catch (error) {
    announce('');
    // Enabled again first: a disabled field cannot take the focus the errors move to it.
    fields.disabled = false;
    if (error instanceof SignedOutError) return showProblem(errors, error);
    if (error instanceof ApiError) return showErrors(sortProblem(error));
    showErrors({ url: [], events: [], other: ['Something went wrong in this page. Reload it and try again.'] });
  } finally {
    fields.disabled = false;
  }
}

function hideSecret(): void {
  newSecretValue.value = '';
  setVisible(newSecret, false);
}

form.addEventListener('submit', (event) => void add(event));
copySecret.addEventListener('click', () => void copyField(newSecretValue, copySecret, 'Signing secret'));
newSecretValue.addEventListener('focus', () => newSecretValue.select());
newSecretDone.addEventListener('click', () => {
  hideSecret();
  announce('The signing secret is hidden. It cannot be shown again.');
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
