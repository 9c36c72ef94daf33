import * as z from 'zod/mini';
import { secretEventTypes } from '../domain/webhooks/model.ts';
import { nullableTimestamp, page, timestamp } from './output.ts';

const eventTypes = secretEventTypes as readonly [string, ...string[]];

const WebhookEndpoint = z.strictObject({
  id: z.string(),
  url: z.string(),
  events: z.array(z.enum(eventTypes)),
  enabled: z.boolean(),
  /** Attempts failed in a row; 20 switch the endpoint off, one success resets it. */
  consecutive_failures: z.int(),
  created_at: timestamp,
  disabled_at: nullableTimestamp,
});

/**
 * What the webhooks group's routes answer, by the names the route table uses: the types its
 * handlers are held to, and the document's. Never parsed at run time, so no function bundles it.
 */
export const webhooksReplies = {
  WebhookList: page(WebhookEndpoint),
  /** `secret` signs the deliveries (`service-signature`): shown here once. */
  RegisteredWebhook: z.strictObject({ ...WebhookEndpoint.def.shape, secret: z.string() }),
  WebhookDeleted: z.strictObject({ id: z.string(), deleted: z.literal(true) }),
  DeliveryLog: page(
    z.strictObject({
      id: z.string(),
      event_id: z.string(),
      type: z.enum([...eventTypes, 'webhook.test']),
      status: z.enum(['pending', 'delivered', 'failed', 'cancelled']),
      created_at: timestamp,
      next_attempt_at: nullableTimestamp,
      /** What was sent: the JSON body, byte for byte. */
      request: z.strictObject({ body: z.string() }),
      attempts: z.array(
        z.strictObject({
          number: z.int(),
          at: timestamp,
          /** The receiver's status, or null when none came (timeout, network, refused destination). */
          status: z.nullable(z.int()),
          duration_ms: z.int(),
          error: z.nullable(z.string()),
        }),
      ),
    }),
  ),
  /**
   * `queued: false` when the endpoint already has its limit of test deliveries pending: nothing
   * was written, and `delivery_id` is the newest of those.
   */
  TestDeliveryQueued: z.strictObject({ delivery_id: z.string(), queued: z.boolean() }),
};
