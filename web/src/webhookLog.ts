/**
 * An endpoint's delivery log on the webhooks page: a `<details>` loaded when first opened,
 * newest first, with "Refresh" (the first page again) and "More" (the next page). Each delivery
 * shows its status, its attempts and the exact body sent.
 */
import { ApiError } from './api.ts';
import { webhookApi, type WebhookDelivery, type WebhookEndpoint } from './webhookApi.ts';
import { fact } from './accountPage.ts';
import { element, timeElement } from './dom.ts';
import { t, tNodes } from './i18n.ts';
import { pagedPanel } from './pagedPanel.ts';
import { withAccess } from './session.ts';

/** Deliveries per page of a log. */
const logPageSize = 10;

const deliveryStates: Record<string, { label: string; badge: string }> = {
  pending: { label: t('webhooks.delivery.pending'), badge: 'badge-pending' },
  delivered: { label: t('webhooks.delivery.delivered'), badge: 'badge-active' },
  failed: { label: t('webhooks.delivery.failed'), badge: 'badge-locked' },
  cancelled: { label: t('webhooks.delivery.cancelled'), badge: 'badge-locked' },
};

// ---- One delivery of a log ----

function attemptLine(attempt: WebhookDelivery['attempts'][number]): HTMLLIElement {
  const line = element('li', attempt.status !== null && attempt.status >= 200 && attempt.status < 300 ? 'ok' : 'failed');
  line.dataset.status = attempt.status === null ? 'error' : String(attempt.status);
  // The HTTP status and the error are the receiver's and the network's own words, shown as they came.
  const values = { attempt: attempt.number, time: timeElement(attempt.at), ms: attempt.duration_ms };
  if (attempt.status === null)
    line.append(...tNodes('webhooks.attempt.noAnswer', { ...values, error: attempt.error ?? t('webhooks.attempt.unknownError') }));
  else if (attempt.error)
    line.append(...tNodes('webhooks.attempt.answerWithError', { ...values, status: String(attempt.status), error: attempt.error }));
  else line.append(...tNodes('webhooks.attempt.answer', { ...values, status: String(attempt.status) }));
  return line;
}

function deliveryItem(delivery: WebhookDelivery): HTMLLIElement {
  const item = element('li', 'item');
  item.dataset.id = delivery.id;
  item.dataset.status = delivery.status;
  const head = element('div', 'item-head');
  const title = element('h4', 'item-title');
  title.tabIndex = -1;
  const type = element('code', '', delivery.type);
  type.translate = false;
  title.append(type);
  const state = deliveryStates[delivery.status] ?? { label: delivery.status, badge: '' };
  const badge = element('span', `badge ${state.badge}`.trim(), state.label);
  badge.dataset.role = 'status';
  head.append(title, badge);

  const facts = element('dl', 'facts');
  const eventId = element('code', 'mono', delivery.event_id);
  eventId.translate = false;
  facts.append(fact(t('webhooks.delivery.created'), timeElement(delivery.created_at)), fact(t('webhooks.delivery.eventId'), eventId));
  if (delivery.status === 'pending' && delivery.next_attempt_at)
    facts.append(fact(t('webhooks.delivery.nextAttempt'), timeElement(delivery.next_attempt_at)));

  const attempts = element('ul', 'results');
  attempts.dataset.role = 'attempts';
  attempts.setAttribute('aria-label', t('webhooks.delivery.attemptsLabel', { id: delivery.id }));
  if (delivery.attempts.length === 0) attempts.append(element('li', '', t('webhooks.delivery.noAttempt')));
  else attempts.append(...delivery.attempts.map(attemptLine));

  // The exact bytes that were signed and sent, in a read-only field (it wraps and scrolls).
  const body = element('div', 'field');
  const bodyId = `body-${delivery.id}`;
  const label = element('label', '', t('webhooks.delivery.body'));
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
  const logEmpty = element('p', '', t('webhooks.log.empty'));
  logEmpty.dataset.role = 'log-empty';
  logEmpty.hidden = true;
  const deliveries = element('ul', 'items');
  deliveries.dataset.role = 'deliveries';
  deliveries.setAttribute('aria-label', t('webhooks.log.label', { url: endpoint.url }));

  const log = pagedPanel({
    role: 'log',
    summary: t('webhooks.log.summary'),
    refresh: { object: t('webhooks.log.refreshObject', { url: endpoint.url }), action: 'refresh' },
    more: { object: t('webhooks.log.moreObject', { url: endpoint.url }), action: 'more' },
    content: [logEmpty, deliveries],
    list: deliveries,
    empty: logEmpty,
    loading: [t('webhooks.log.loading'), t('webhooks.log.loadingMore')],
    async read(cursor) {
      const page = await withAccess((token) => webhookApi.deliveries(token, endpoint.id, logPageSize, cursor));
      return { items: page.items.map(deliveryItem), nextCursor: page.next_cursor };
    },
    shown: (added, next) =>
      next
        ? added.length > 0
          ? t('webhooks.log.moreShown', { count: added.length })
          : t('webhooks.log.noMore')
        : t('webhooks.log.shown', { count: deliveries.children.length }),
    failure: t('webhooks.log.failed'),
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
