import * as z from 'zod/mini';

/** What the billing webhook answers the provider once an event is taken (applied, a repeat, or one that changes nothing here). */
export const billingWebhookReplies = {
  ProviderEventReceived: z.strictObject({ received: z.literal(true) }),
};

/** The webhook reads its raw body itself (the signature is over its bytes): no schema parses it. */
export const billingWebhookRequests = {};
