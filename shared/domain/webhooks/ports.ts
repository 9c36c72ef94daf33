import type { Mailer } from '../mail.ts';
import type { Queue } from '../queue.ts';
import type { Clock } from '../../clock.ts';
import type { AppLogger } from '../../logger.ts';
import type { AppMetrics } from '../../metrics.ts';
import type { HostResolver } from '../../webhooks/destination.ts';
import type { WebhookRequest, WebhookResult } from '../../webhooks/send.ts';
import type { UserStore } from '../accounts/ports.ts';
import type { Delivery, DeliveryAttempt, DeliveryStatus, WebhookEndpoint } from './model.ts';

/** What settling a delivery needs to know of it: where it is, and whether it is a test. */
export type SettlingDelivery = Pick<Delivery, 'id' | 'endpointId' | 'eventType'>;

export interface WebhookStore {
  /** Adds the endpoint unless the user already has `maxEndpoints`; false when at the limit. */
  insertEndpoint(endpoint: WebhookEndpoint, maxEndpoints: number): Promise<boolean>;
  getEndpoint(userId: string, id: string): Promise<WebhookEndpoint | null>;
  /** The user's endpoints, oldest first (strongly consistent: a new one gets the next event). */
  listEndpoints(userId: string): Promise<WebhookEndpoint[]>;
  deleteEndpoint(userId: string, id: string): Promise<boolean>;
  /** A success: the failure count goes back to 0. */
  recordSuccess(userId: string, id: string): Promise<void>;
  /**
   * A failure: counts it, and switches the endpoint off when the count reaches `max`. `disabled`
   * is true for exactly one caller, the one whose write switched it off.
   */
  recordFailure(userId: string, id: string, max: number, now: number): Promise<{ failures: number; disabled: boolean } | null>;

  /** Adds the delivery unless its id exists; returns what is stored either way. */
  insertDelivery(delivery: Delivery): Promise<Delivery>;
  /**
   * Adds a test delivery unless its endpoint already has `max` test deliveries pending, in one
   * transaction with the endpoint's pending list, so no interleaving of callers passes the cap.
   * Pending ones written before `lostBefore` are taken off the list first (their messages were
   * lost). Refused, it names the newest test delivery still pending.
   */
  insertTestDelivery(
    delivery: Delivery,
    max: number,
    lostBefore: number,
  ): Promise<{ queued: true } | { queued: false; newestPendingId: string }>;
  getDelivery(endpointId: string, deliveryId: string): Promise<Delivery | null>;
  /**
   * Claims attempt `number` of a pending delivery: only if `number - 1` attempts are recorded
   * and no other claim of it is live (`leaseUntil`). Null when the attempt is not this caller's
   * to make (already made, delivery settled, or another worker holds it).
   */
  claimAttempt(endpointId: string, deliveryId: string, number: number, now: number, leaseUntil: number): Promise<Delivery | null>;
  /**
   * Records the claimed attempt and the delivery's new status; a test delivery that settles
   * leaves its endpoint's pending list in the same write. `swept`: the next attempt waits longer
   * than the queue can hold, so it goes on the retry index for `dueRetries` to find (off it otherwise).
   */
  recordAttempt(delivery: SettlingDelivery, attempt: DeliveryAttempt, next: NextAttempt): Promise<void>;
  /** Settles a pending delivery without an attempt (endpoint gone or off), as `recordAttempt` settles. */
  cancelDelivery(delivery: SettlingDelivery): Promise<void>;
  /** An endpoint's deliveries, newest first. */
  listDeliveries(endpointId: string, limit: number, cursor: string | null): Promise<{ items: Delivery[]; nextCursor: string | null }>;
  /** Pending deliveries whose next attempt is due at or before `now` (the ones SQS could not delay). */
  dueRetries(now: number, limit: number): Promise<Array<{ endpointId: string; deliveryId: string; userId: string; attempt: number }>>;
}

/** A delivery's status after an attempt, and when its next attempt is due (only a pending one has one). */
export type NextAttempt =
  | { status: DeliveryStatus; nextAttemptAt?: never; swept?: never }
  | { status: 'pending'; nextAttemptAt: number; swept: boolean };

/** Encrypts signing secrets at rest, bound to the endpoint they belong to. KMS in AWS. */
/** What a sealed secret is bound to: a webhook endpoint's id, a chat team's (issue 19), or a workspace's (its SSO client secret, issue 29). */
export type SealingContext = 'webhook_endpoint' | 'chat_team' | 'sso_workspace';

export interface SecretSealer {
  seal(plaintext: string, endpointId: string): Promise<string>;
  open(sealed: string, endpointId: string): Promise<string>;
}

/** How a delivery reaches its receiver: resolve and check the address, then post to exactly it. */
export interface WebhookTransport {
  resolver: HostResolver;
  post(request: WebhookRequest): Promise<WebhookResult>;
}

export interface WebhookPorts {
  clock: Clock;
  logger: AppLogger;
  metrics: AppMetrics;
  webhooks: WebhookStore;
  users: UserStore;
  mailer: Mailer;
  queue: Queue;
  sealer: SecretSealer;
  transport: WebhookTransport;
  /** Local mode allows http to loopback receivers. */
  local: boolean;
}
