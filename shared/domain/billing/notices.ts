import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { billingLimits } from '../../limits.ts';
import type { UserStore } from '../accounts/ports.ts';
import type { Mailer, MailMessage } from '../mail.ts';
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
    await ports.mailer.send(billingNoticeMail(notice.type, record, buyer.email, ports.config.WEB_ORIGIN));
  } catch (error) {
    await ports.billingNoticeMarks.release(notice.event_id, leaseUntil);
    throw error;
  }
  await ports.billingNoticeMarks.markSent(notice.event_id, ports.clock.now());
  return 'sent';
}

/** The mail, exactly as the webhook sent it before it went through the queue. */
export function billingNoticeMail(
  type: BillingNoticeMessage['type'],
  record: SubscriptionRecord,
  to: string,
  webOrigin: string,
): MailMessage {
  const what = record.plan === 'team' ? 'your workspace’s Team plan' : 'your Pro plan';
  const until = new Date(record.currentPeriodEnd).toISOString().slice(0, 10);
  return type === 'invoice.payment_failed'
    ? {
        to,
        subject: 'Hushlink: a payment failed',
        text: `The payment for ${what} failed. Nothing changes until ${until}; if the payment still fails then, the plan falls back to Free. Update the card in the billing portal: ${webOrigin}/billing`,
      }
    : {
        to,
        subject: 'Hushlink: your subscription ended',
        text: `${what[0]!.toUpperCase()}${what.slice(1)} has ended, and falls back to Free. Secrets already sent are untouched. You can subscribe again at ${webOrigin}/billing`,
      };
}
