/**
 * One endpoint's card on the webhooks page: its URL, events, state and failures; "Delete" with
 * the confirm step; "Send test" with the API key pasted into the page or, with none, a key the
 * page makes for that one request (`webhookTestKey.ts`); and its delivery log (`webhookLog.ts`).
 */
import { ApiError } from './api.ts';
import { webhookApi, webhookEventTypes, type WebhookEndpoint } from './webhookApi.ts';
import { actionButton, fact, showProblem } from './accountPage.ts';
import { confirmStep } from './confirmStep.ts';
import { announce, byId, element, errorBox, setVisible, timeElement } from './dom.ts';
import { t, tNodes } from './i18n.ts';
import { SignedOutError, withAccess } from './session.ts';
import { deliveryLog } from './webhookLog.ts';
import { sendTestWithSession, testKeyName, type TestQueued } from './webhookTestKey.ts';

const testKey = byId<HTMLInputElement>('test-key');
const testKeyError = byId('test-key-error');
/** How many test deliveries may wait per endpoint (the API's bound). */
const testQueueLimit = 5;

/** What a card tells the list it is in. */
export interface EndpointList {
  /** The endpoint was deleted on this page. */
  deleted(item: HTMLLIElement, endpoint: WebhookEndpoint): void;
  /** The endpoint was deleted elsewhere: the list is out of date. */
  gone(item: HTMLLIElement): Promise<void>;
}

export function endpointItem(endpoint: WebhookEndpoint, list: EndpointList): HTMLLIElement {
  const item = element('li', 'item');
  item.dataset.id = endpoint.id;
  item.dataset.enabled = String(endpoint.enabled);
  const head = element('div', 'item-head');
  const title = element('h3', 'item-title');
  title.tabIndex = -1;
  const url = element('code', '', endpoint.url);
  url.translate = false;
  title.append(url);
  const badge = element(
    'span',
    endpoint.enabled ? 'badge badge-active' : 'badge badge-locked',
    endpoint.enabled ? t('webhooks.endpoint.on') : t('webhooks.endpoint.switchedOff'),
  );
  badge.dataset.role = 'state';
  head.append(title, badge);

  const facts = element('dl', 'facts');
  const all = webhookEventTypes.every((type) => endpoint.events.includes(type));
  // The event types are the API's own names (code), listed as they are.
  const listed = element('span', '', endpoint.events.join(', '));
  listed.translate = false;
  const events = fact(t('webhooks.endpoint.events'), all ? t('webhooks.endpoint.allEvents') : listed);
  events.dataset.role = 'events';
  const failures = fact(t('webhooks.endpoint.failures'), t('webhooks.endpoint.inARow', { count: endpoint.consecutive_failures }));
  failures.dataset.role = 'failures';
  facts.append(events, failures);
  if (!endpoint.enabled) {
    const off = document.createDocumentFragment();
    if (endpoint.disabled_at) off.append(...tNodes('webhooks.endpoint.offSince', { time: timeElement(endpoint.disabled_at) }));
    else off.append(t('webhooks.endpoint.off'));
    facts.append(fact(t('webhooks.endpoint.state'), off));
  }
  facts.append(fact(t('webhooks.endpoint.added'), timeElement(endpoint.created_at)));

  const object = t('webhooks.endpoint.object', { url: endpoint.url });
  const actions = element('div', 'actions');
  const test = actionButton(t('webhooks.endpoint.test'), t('webhooks.endpoint.testObject', { url: endpoint.url }));
  test.dataset.action = 'test';
  const remove = actionButton(t('webhooks.endpoint.delete'), object, 'danger');
  remove.dataset.action = 'delete';
  actions.append(test, remove);

  const queued = element('p', 'notice notice-info');
  queued.dataset.role = 'test-result';
  queued.hidden = true;
  const error = errorBox('error');

  const log = deliveryLog(endpoint, () => list.gone(item));

  // The confirm step: nothing is deleted until "Yes, delete it".
  const confirm = confirmStep(
    remove,
    {
      action: 'delete',
      object,
      question: t('webhooks.endpoint.deleteQuestion'),
      yes: t('webhooks.endpoint.deleteYes'),
      no: t('webhooks.endpoint.deleteNo'),
    },
    (yes) => void deleteEndpoint(endpoint, item, yes, error, list),
  );
  confirm.box.dataset.role = 'confirm';
  test.addEventListener('click', () => void sendTest(endpoint, test, queued, error, () => log.show()));

  item.append(head, facts, actions, confirm.box, queued, error, log.details);
  return item;
}

async function deleteEndpoint(
  endpoint: WebhookEndpoint,
  item: HTMLLIElement,
  button: HTMLButtonElement,
  error: HTMLElement,
  list: EndpointList,
): Promise<void> {
  button.disabled = true;
  setVisible(error, false);
  announce(t('webhooks.endpoint.deleting'));
  try {
    await withAccess((token) => webhookApi.remove(token, endpoint.id));
  } catch (problem) {
    button.disabled = false;
    announce('');
    // Already gone (deleted elsewhere): the list is simply out of date.
    if (!(problem instanceof ApiError && problem.status === 404)) {
      showProblem(error, problem, t('webhooks.endpoint.deleteFailed'));
      return;
    }
  }
  list.deleted(item, endpoint);
}

// ---- Test deliveries (with the pasted API key, or one made for the test) ----

function keyProblem(message: string): void {
  testKeyError.textContent = message;
  setVisible(testKeyError, true);
  testKey.setAttribute('aria-invalid', 'true');
  testKey.focus();
}

async function sendTest(
  endpoint: WebhookEndpoint,
  button: HTMLButtonElement,
  queued: HTMLElement,
  error: HTMLElement,
  showLog: () => unknown,
): Promise<void> {
  setVisible(queued, false);
  setVisible(error, false);
  setVisible(testKeyError, false);
  testKey.removeAttribute('aria-invalid');
  const key = testKey.value.trim();
  // API keys start with hlk_; anything else (a signing secret, a token) is not sent anywhere.
  if (key && !key.startsWith('hlk_')) return keyProblem(t('webhooks.test.notAKey', { prefix: 'hlk_' }));
  button.disabled = true;
  announce(t('webhooks.test.queueing'));
  try {
    if (key) {
      showQueued(queued, await webhookApi.test(key, endpoint.id), null);
    } else {
      const { answer, revoked } = await sendTestWithSession(endpoint.id);
      showQueued(queued, answer, revoked);
    }
    showLog();
  } catch (problem) {
    announce('');
    if (problem instanceof SignedOutError) return showProblem(error, problem);
    if (key && problem instanceof ApiError && problem.status === 401) {
      keyProblem(t('webhooks.test.keyRefused'));
    } else if (problem instanceof ApiError && problem.status === 404) {
      showProblem(error, problem, t('webhooks.test.notSentGone'));
    } else {
      showProblem(error, problem, t('webhooks.test.notSent'));
    }
  } finally {
    button.disabled = false;
  }
}

/** `revoked`: null for a pasted key; else whether the key made for this test is revoked already. */
function showQueued(queued: HTMLElement, answer: TestQueued, revoked: boolean | null): void {
  // At most 5 test deliveries wait per endpoint; beyond that nothing is queued (202, queued: false).
  const values = { key: revoked === null ? 'pasted' : revoked ? 'revoked' : 'kept', count: testQueueLimit, name: testKeyName };
  queued.textContent = answer.queued ? t('webhooks.test.queued', values) : t('webhooks.test.notQueued', values);
  queued.dataset.deliveryId = answer.delivery_id;
  queued.dataset.queued = String(answer.queued);
  queued.dataset.keyRevoked = String(revoked);
  setVisible(queued, true);
  announce(answer.queued ? t('webhooks.test.queuedShort') : t('webhooks.test.notQueuedShort', { count: testQueueLimit }));
}
