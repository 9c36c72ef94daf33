/**
 * An endpoint's delivery log on the webhooks page: a `<details>` loaded when first opened,
 * newest first, with "Refresh" (the first page again) and "More" (the next page). Each delivery
 * shows its status, its attempts and the exact body sent.
 */
import { ApiError } from './api.ts';
import { webhookApi, type WebhookDelivery, type WebhookEndpoint } from './webhookApi.ts';
import { fact } from './accountPage.ts';
import { element, plural, timeElement } from './dom.ts';
import { pagedPanel } from './pagedPanel.ts';
import { withAccess } from './session.ts';

/** Deliveries per page of a log. */
const logPageSize = 10;

const deliveryStates: Record<string, { label: string; badge: string }> = {
  pending: { label: 'Pending', badge: 'badge-pending' },
  delivered: { label: 'Delivered', badge: 'badge-active' },
  failed: { label: 'Failed', badge: 'badge-locked' },
  cancelled: { label: 'Cancelled', badge: 'badge-locked' },
};

// ---- One delivery of a log ----

function attemptLine(attempt: WebhookDelivery['attempts'][number]): HTMLLIElement {
  const line = element('li', attempt.status !== null && attempt.status >= 200 && attempt.status < 300 ? 'ok' : 'failed');
  line.dataset.status = attempt.status === null ? 'error' : String(attempt.status);
  const outcome = attempt.status !== null ? `HTTP ${attempt.status}` : `no answer: ${attempt.error ?? 'unknown error'}`;
  line.append(`Attempt ${attempt.number}, `, timeElement(attempt.at), `: ${outcome}, ${attempt.duration_ms} ms`);
  if (attempt.status !== null && attempt.error) line.append(` (${attempt.error})`);
  return line;
}

function deliveryItem(delivery: WebhookDelivery): HTMLLIElement {
  const item = element('li', 'item');
  item.dataset.id = delivery.id;
  item.dataset.status = delivery.status;
  const head = element('div', 'item-head');
  const title = element('h4', 'item-title');
  title.tabIndex = -1;
  title.append(element('code', '', delivery.type));
  const state = deliveryStates[delivery.status] ?? { label: delivery.status, badge: '' };
  const badge = element('span', `badge ${state.badge}`.trim(), state.label);
  badge.dataset.role = 'status';
  head.append(title, badge);

  const facts = element('dl', 'facts');
  facts.append(fact('Created', timeElement(delivery.created_at)), fact('Event id', element('code', 'mono', delivery.event_id)));
  if (delivery.status === 'pending' && delivery.next_attempt_at) facts.append(fact('Next attempt', timeElement(delivery.next_attempt_at)));

  const attempts = element('ul', 'results');
  attempts.dataset.role = 'attempts';
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
  text.dataset.role = 'body';
  text.value = delivery.request.body;
  body.append(label, text);

  item.append(head, facts, attempts, body);
  return item;
}

// ---- The log of one endpoint ----

export interface DeliveryLog {
  details: HTMLDetailsElement;
  /** Opens the log and reads its first page again (after a test delivery is queued). */
  show(): void;
}

/** `gone` is called when the endpoint no longer exists (a 404: deleted elsewhere). */
export function deliveryLog(endpoint: WebhookEndpoint, gone: () => unknown): DeliveryLog {
  const logEmpty = element('p', '', 'No deliveries yet.');
  logEmpty.dataset.role = 'log-empty';
  logEmpty.hidden = true;
  const deliveries = element('ul', 'items');
  deliveries.dataset.role = 'deliveries';
  deliveries.setAttribute('aria-label', `Deliveries to ${endpoint.url}, newest first`);

  const log = pagedPanel({
    role: 'log',
    summary: 'Delivery log',
    refresh: { object: `delivery log of ${endpoint.url}`, action: 'refresh' },
    more: { object: `deliveries of ${endpoint.url}`, action: 'more' },
    content: [logEmpty, deliveries],
    list: deliveries,
    empty: logEmpty,
    loading: ['Loading the delivery log…', 'Loading more deliveries…'],
    async read(cursor) {
      const page = await withAccess((token) => webhookApi.deliveries(token, endpoint.id, logPageSize, cursor));
      return { items: page.items.map(deliveryItem), nextCursor: page.next_cursor };
    },
    shown: (added, next) =>
      next
        ? added.length > 0
          ? `${plural(added.length, 'more delivery', 'more deliveries')} shown.`
          : 'No more deliveries.'
        : `Delivery log: ${plural(deliveries.children.length, 'delivery', 'deliveries')} shown.`,
    failure: 'The delivery log could not be read: ',
    refused(problem) {
      if (!(problem instanceof ApiError && problem.status === 404)) return false;
      gone();
      return true;
    },
    refocusRefresh: true,
  });

  return {
    details: log.panel,
    show() {
      log.panel.open = true;
      void log.load(false);
    },
  };
}
