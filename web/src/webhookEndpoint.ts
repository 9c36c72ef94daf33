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
import { SignedOutError, withAccess } from './session.ts';
import { deliveryLog } from './webhookLog.ts';
import { sendTestWithSession, type TestQueued } from './webhookTestKey.ts';

const testKey = byId<HTMLInputElement>('test-key');
const testKeyError = byId('test-key-error');

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
  title.append(element('code', '', endpoint.url));
  const badge = element('span', endpoint.enabled ? 'badge badge-active' : 'badge badge-locked', endpoint.enabled ? 'On' : 'Switched off');
  badge.dataset.role = 'state';
  head.append(title, badge);

  const facts = element('dl', 'facts');
  const all = webhookEventTypes.every((type) => endpoint.events.includes(type));
  const events = fact('Events', all ? 'All events' : endpoint.events.join(', '));
  events.dataset.role = 'events';
  const failures = fact('Failures', `${endpoint.consecutive_failures} in a row`);
  failures.dataset.role = 'failures';
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
  test.dataset.action = 'test';
  const remove = actionButton('Delete', `endpoint ${endpoint.url}`, 'danger');
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
      object: `endpoint ${endpoint.url}`,
      question: 'Delete this endpoint? Nothing more is sent to it, queued deliveries are cancelled and its delivery log goes with it.',
      yes: 'Yes, delete it',
      no: 'Keep it',
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
  if (key && !key.startsWith('hlk_'))
    return keyProblem('That is not an API key: keys start with hlk_. Leave this empty to let the page make one.');
  button.disabled = true;
  announce('Queueing a test delivery…');
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
      keyProblem('This API key was refused: it may be mistyped, revoked or expired. Leave the field empty to let the page make one.');
    } else if (problem instanceof ApiError && problem.status === 404) {
      showProblem(error, problem, 'Not sent: this endpoint no longer exists, or the key belongs to another account. ');
    } else {
      showProblem(error, problem, 'Not sent: ');
    }
  } finally {
    button.disabled = false;
  }
}

/** `revoked`: null for a pasted key; else whether the key made for this test is revoked already. */
function showQueued(queued: HTMLElement, answer: TestQueued, revoked: boolean | null): void {
  // At most 5 test deliveries wait per endpoint; beyond that nothing is queued (202, queued: false).
  const sentence = answer.queued
    ? 'Test delivery queued. It is sent within seconds: its attempt appears in the delivery log below.'
    : 'Not queued: 5 test deliveries to this endpoint are still waiting. The newest is in the delivery log below; try again once they are through.';
  const keyNote =
    revoked === null
      ? ''
      : revoked
        ? ' The page made a one-hour API key for it and revoked it straight after.'
        : ' The page made a one-hour API key for it but could not revoke it: it expires within the hour, or revoke “Webhook test (made by this page)” on the API keys page.';
  queued.textContent = sentence + keyNote;
  queued.dataset.deliveryId = answer.delivery_id;
  queued.dataset.queued = String(answer.queued);
  queued.dataset.keyRevoked = String(revoked);
  setVisible(queued, true);
  announce(answer.queued ? 'Test delivery queued.' : 'Test delivery not queued: 5 are still waiting.');
}
