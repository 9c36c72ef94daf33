/**
 * The webhooks page's API calls (`call` of `api.ts`, same origin): endpoints and their delivery
 * log take the session's access token, the test delivery an API key.
 */
import type { SecretEventType } from '../../shared/domain/secrets/model.ts';
import { call, type Page } from './api.ts';

/** The kinds of event a webhook endpoint can subscribe to: the service's own list. */
export { secretEventTypes as webhookEventTypes } from '../../shared/domain/webhooks/model.ts';
export type WebhookEventType = SecretEventType;

export interface WebhookEndpoint {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  consecutive_failures: number;
  created_at: string;
  disabled_at: string | null;
}

export interface CreatedWebhook extends WebhookEndpoint {
  /** The signing secret (`whsec_…`): in this answer only. */
  secret: string;
}

export interface WebhookAttempt {
  number: number;
  at: string;
  /** The receiver's HTTP status, null when it did not answer. */
  status: number | null;
  duration_ms: number;
  error: string | null;
}

export interface WebhookDelivery {
  id: string;
  event_id: string;
  type: string;
  status: 'pending' | 'delivered' | 'failed' | 'cancelled' | string;
  created_at: string;
  next_attempt_at: string | null;
  /** The exact JSON that was (or will be) posted. */
  request: { body: string };
  attempts: WebhookAttempt[];
}

const webhookPath = (id: string) => `/v1/webhooks/${encodeURIComponent(id)}`;

/** The test delivery takes an API key: the route refuses a session with 401 `api_key_required`. */
export const webhookApi = {
  list: (token: string) => call<Page<WebhookEndpoint>>('GET', '/v1/webhooks', { token }),
  create: (token: string, body: { url: string; events?: WebhookEventType[] }) => call<CreatedWebhook>('POST', '/v1/webhooks', { json: body, token }),
  remove: (token: string, id: string) => call<unknown>('DELETE', webhookPath(id), { token }),
  deliveries: (token: string, id: string, limit: number, cursor: string | null) =>
    call<Page<WebhookDelivery>>('GET', `${webhookPath(id)}/deliveries?${new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) }).toString()}`, { token }),
  test: (apiKey: string, id: string) => call<{ delivery_id: string; queued: boolean }>('POST', `${webhookPath(id)}/test`, { token: apiKey }),
};
