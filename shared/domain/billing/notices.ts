import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { billingLimits } from '../../limits.ts';
import type { UserStore } from '../accounts/ports.ts';
import type { Language } from '../../languages.ts';
import type { Mailer, MailMessage } from '../mail.ts';
import { noticeMailLanguage, renderMail } from '../mailText.ts';
import type { NoticeMarks } from '../noticeMarks.ts';
import type { Queue } from '../queue.ts';
import { sendWork, type BillingNoticeMessage } from '../webhooks/work.ts';
import type { SubscriptionRecord } from './model.ts';
import type { BillingStore } from './ports.ts';

/**
 * What a subscription's buyer is told, and how: the webhook puts a notice on the work queue
 * (ids only) and answers; the delivery worker mails it once. So a mail service that fails is
 * retried by the queue, where a mail sent inside the webhook was lost: the provider's retry of the
 * event is a duplicate, answered 200 with nothing sent.
 */

/** The provider's events whose news the buyer hears, when they are about the subscription the plan follows. */
export const noticedEvents = new Set<BillingNoticeMessage['type']>(['invoice.payment_failed', 'customer.subscription.deleted']);

export const isNoticed = (type: string): type is BillingNoticeMessage['type'] => noticedEvents.has(type as BillingNoticeMessage['type']);

export function queueBillingNotice(
  eventId: string,
  type: BillingNoticeMessage['type'],
  subscriptionId: string,
  ports: { queue: Queue },
): Promise<void> {
  return sendWork(ports.queue, { kind: 'billing_notice', event_id: eventId, type, subscription_id: subscriptionId });
}

export interface BillingNoticePorts {
  clock: Clock;
  billing: Pick<BillingStore, 'subscription'>;
  users: Pick<UserStore, 'get'>;
  mailer: Mailer;
  billingNoticeMarks: NoticeMarks;
  config: Pick<Config, 'WEB_ORIGIN'>;
}

/** `sent`; `skipped`: sent already, or being sent by another delivery of the message; `no_buyer`: the subscription or its buyer is gone. */
export type BillingNoticeOutcome = 'sent' | 'skipped' | 'no_buyer';

/**
 * Mails one notice at most once: the event's mark is claimed before the mail service is called
 * and marked sent after. A failure gives the claim back and throws, so the queue retries the
 * message (and, after its redrive limit, sets it aside with an alarm).
 */
export async function sendBillingNotice(notice: BillingNoticeMessage, ports: BillingNoticePorts): Promise<BillingNoticeOutcome> {
  const record = await ports.billing.subscription(notice.subscription_id);
  const buyer = record && (await ports.users.get(record.target.kind === 'user' ? record.target.userId : record.target.ownerId));
  if (!record || !buyer) return 'no_buyer';
  const now = ports.clock.now();
  const leaseUntil = now + billingLimits.noticeLeaseSeconds * 1000;
  if (!(await ports.billingNoticeMarks.claim(notice.event_id, now, leaseUntil, now + billingLimits.noticeMarkSeconds * 1000)))
    return 'skipped';
  try {
    // Caused by the provider, not by a request: the buyer's saved language, else English.
    await ports.mailer.send(
      billingNoticeMail(notice.type, record, buyer.email, ports.config.WEB_ORIGIN, noticeMailLanguage(buyer, undefined)),
    );
  } catch (error) {
    await ports.billingNoticeMarks.release(notice.event_id, leaseUntil);
    throw error;
  }
  await ports.billingNoticeMarks.markSent(notice.event_id, ports.clock.now());
  return 'sent';
}

/** The mail, in `language` (English: exactly as the webhook sent it before it went through the queue). */
export function billingNoticeMail(
  type: BillingNoticeMessage['type'],
  record: SubscriptionRecord,
  to: string,
  webOrigin: string,
  language: Language = 'en',
): MailMessage {
  const link = `${webOrigin}/billing`;
  return type === 'invoice.payment_failed'
    ? { to, ...renderMail('paymentFailed', language, { plan: record.plan, until: { at: record.currentPeriodEnd, show: 'day' }, link }) }
    : { to, ...renderMail('subscriptionEnded', language, { plan: record.plan, link }) };
}
