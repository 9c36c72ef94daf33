import type { SecretEventType } from '../secrets/model.ts';

/** Every kind a webhook endpoint can subscribe to; `webhook.test` is sent whatever it chose. */
export const secretEventTypes: readonly SecretEventType[] = [
  'secret.created',
  'secret.viewed',
  'secret.denied',
  'secret.burned',
  'secret.expired',
  'secret.revoked',
  'secret.locked',
  'secret.reported',
];
export type WebhookEventType = SecretEventType | 'webhook.test';

export interface WebhookEndpoint {
  id: string;
  userId: string;
  url: string;
  /** The kinds it receives; at creation, all of them unless the caller chose. */
  events: SecretEventType[];
  /** The signing secret, encrypted (SecretSealer) so deliveries can sign and nothing else reads it. */
  sealedSecret: string;
  enabled: boolean;
  /** Failed attempts since the last success; 20 switch the endpoint off. */
  consecutiveFailures: number;
  createdAt: number;
  disabledAt?: number;
}

/** The body a delivery posts (DESIGN.md §3): never content, the service has none. */
export interface WebhookEventBody {
  id: string;
  type: WebhookEventType;
  occurred_at: string;
  secret_id: string | null;
  views_left: number | null;
}

/**
 * pending: an attempt is due (now or at `nextAttemptAt`); delivered: a 2xx was recorded;
 * failed: every attempt of the retry schedule failed; cancelled: the endpoint was deleted or
 * switched off before it could be sent.
 */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

export interface DeliveryAttempt {
  number: number;
  at: number;
  /** The HTTP status the receiver answered, when it answered. */
  status?: number;
  durationMs: number;
  /** Why it failed without a status (timeout, refused destination, ...). */
  error?: string;
  /** The `service-signature` header this attempt carried (a MAC; the secret is not in it). */
  signature: string;
}

export interface Delivery {
  id: string;
  endpointId: string;
  userId: string;
  eventId: string;
  eventType: WebhookEventType;
  /** The exact JSON sent, the same bytes on every attempt. */
  body: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  createdAt: number;
  /** When the next attempt is due, while pending after a failure. */
  nextAttemptAt?: number;
}

/** Seconds to wait after attempt n fails before attempt n + 1 (DESIGN.md §3). */
export const retryDelaysSeconds = [60, 300, 1800, 7200, 21600, 43200, 86400] as const;
export const maxAttempts = retryDelaysSeconds.length + 1;
export const maxConsecutiveFailures = 20;
