/**
 * The webhooks page's API calls (`call` of `api.ts`, same origin): endpoints and their delivery
 * log take the session's access token, the test delivery an API key.
 */
import type * as z from 'zod/mini';
import type { webhooksRequests } from '../../shared/api/webhooks.ts';
import type { webhooksReplies } from '../../shared/api/webhooksReplies.ts';
import type { SecretEventType } from '../../shared/domain/secrets/model.ts';
import { call, pageQuery } from './api.ts';

/** The kinds of event a webhook endpoint can subscribe to: the service's own list. */
export { secretEventTypes as webhookEventTypes } from '../../shared/domain/webhooks/model.ts';
export type WebhookEventType = SecretEventType;

type Reply<K extends keyof typeof webhooksReplies> = z.output<(typeof webhooksReplies)[K]>;

export type WebhookEndpoint = Reply<'WebhookList'>['items'][number];
/** `secret` is the signing secret (`whsec_…`): in this answer only. */
export type CreatedWebhook = Reply<'RegisteredWebhook'>;
export type WebhookDelivery = Reply<'DeliveryLog'>['items'][number];

const webhookPath = (id: string) => `/v1/webhooks/${encodeURIComponent(id)}`;

/** The test delivery takes an API key: the route refuses a session with 401 `api_key_required`. */
export const webhookApi = {
  list: (token: string) => call<Reply<'WebhookList'>>('GET', '/v1/webhooks', { token }),
  create: (token: string, body: z.input<typeof webhooksRequests.RegisterWebhookRequest>) =>
    call<CreatedWebhook>('POST', '/v1/webhooks', { json: body, token }),
  remove: (token: string, id: string) => call<Reply<'WebhookDeleted'>>('DELETE', webhookPath(id), { token }),
  deliveries: (token: string, id: string, limit: number, cursor: string | null) =>
    call<Reply<'DeliveryLog'>>('GET', `${webhookPath(id)}/deliveries?${pageQuery(limit, cursor)}`, { token }),
  test: (apiKey: string, id: string) => call<Reply<'TestDeliveryQueued'>>('POST', `${webhookPath(id)}/test`, { token: apiKey }),
};
