import * as z from 'zod/mini';
import type { Queue } from '../queue.ts';
import type { Delivery } from './model.ts';

/**
 * What travels on the work queue. `deliver`: attempt number `attempt` of one delivery is due.
 * `chat_notice`: one event of a secret with a chat subscription, to be told to its chat user
 * once (shared/domain/chat/notices.ts); `opened` says whether any view was taken before it.
 * `billing_notice`: a payment provider's event about the subscription a plan follows, to be
 * mailed to its buyer once (shared/domain/billing/notices.ts): ids only, the worker reads the rest.
 */
export const workMessage = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('deliver'),
    user_id: z.string(),
    endpoint_id: z.string(),
    delivery_id: z.string(),
    attempt: z.int().check(z.minimum(1)),
  }),
  z.strictObject({
    kind: z.literal('chat_notice'),
    event_id: z.string(),
    secret_id: z.string(),
    team_id: z.string(),
    chat_user: z.string(),
    type: z.enum(['secret.viewed', 'secret.expired']),
    occurred_at: z.iso.datetime(),
    views_left: z.int().check(z.minimum(0)),
    opened: z.boolean(),
  }),
  z.strictObject({
    kind: z.literal('billing_notice'),
    event_id: z.string(),
    type: z.enum(['invoice.payment_failed', 'customer.subscription.deleted']),
    subscription_id: z.string(),
  }),
]);
export type WorkMessage = z.infer<typeof workMessage>;
export type DeliverMessage = Extract<WorkMessage, { kind: 'deliver' }>;
export type ChatNoticeMessage = Extract<WorkMessage, { kind: 'chat_notice' }>;
export type BillingNoticeMessage = Extract<WorkMessage, { kind: 'billing_notice' }>;

export const deliverMessage = (delivery: Pick<Delivery, 'id' | 'endpointId' | 'userId'>, attempt: number): DeliverMessage => ({
  kind: 'deliver',
  user_id: delivery.userId,
  endpoint_id: delivery.endpointId,
  delivery_id: delivery.id,
  attempt,
});

export const sendWork = (queue: Queue, message: WorkMessage, delaySeconds = 0): Promise<void> =>
  queue.send(JSON.stringify(message), delaySeconds > 0 ? { delaySeconds } : {});

/** A queue body this service wrote, or null for anything else (dropped, never retried). */
export function parseWorkMessage(body: string): WorkMessage | null {
  try {
    const parsed = workMessage.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
