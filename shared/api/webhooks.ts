import * as z from 'zod/mini';
import type { SecretEventType } from '../domain/secrets/model.ts';
import { secretEventTypes } from '../domain/webhooks/model.ts';
import { webhookLimits } from '../limits.ts';
import { pageQuery } from './input.ts';

// Here rather than beside registerEndpoint: the domain module brings the destination checks,
// which no function that only parses (or documents) the request should carry. The handler maps it
// onto the domain's NewWebhookEndpoint.
const registerWebhookRequest = z.strictObject({
  url: z.string().check(z.minLength(1), z.maxLength(2048)),
  events: z.optional(
    z.array(z.enum(secretEventTypes as readonly [SecretEventType, ...SecretEventType[]])).check(
      z.minLength(1),
      z.refine((list) => new Set(list).size === list.length, 'events must not repeat'),
    ),
  ),
});
export type RegisterWebhookRequest = z.infer<typeof registerWebhookRequest>;

/**
 * What the webhooks group's routes take (interface §4.5), by the names the route table uses;
 * the group handler parses with them. Its answers are in webhooksReplies.ts.
 */
export const webhooksRequests = {
  RegisterWebhookRequest: registerWebhookRequest,
  DeliveryLogQuery: pageQuery(webhookLimits.deliveriesPageSize),
};
