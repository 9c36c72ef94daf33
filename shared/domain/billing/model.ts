import type { Plan } from '../accounts/model.ts';

/**
 * Billing (issue 16, interface §4.6): Pro is bought by an account, Team for a workspace, per
 * seat. The provider (Stripe) is the source of truth for a subscription; the service keeps a
 * copy of what it needs (the plan it gives, the seats) and applies the provider's latest state
 * whenever an event says something changed.
 */

/** What a subscription pays for: an account's Pro, or a workspace's Team. */
export type BillingTarget = { kind: 'user'; userId: string } | { kind: 'workspace'; workspaceId: string; ownerId: string };

/** The provider's subscription statuses (Stripe's names). */
export type SubscriptionStatus =
  | 'incomplete'
  | 'incomplete_expired'
  | 'trialing'
  | 'active'
  | 'past_due'
  | 'canceled'
  | 'unpaid'
  | 'paused';

/** A subscription as the provider says it is now. */
export interface ProviderSubscription {
  id: string;
  customerId: string;
  status: SubscriptionStatus;
  /** The price of its one item, and how many (seats for Team; 1 for Pro). */
  priceId: string;
  quantity: number;
  /** The item carrying that price (a change of seats names it). */
  itemId: string;
  currentPeriodEnd: number;
  cancelAtPeriodEnd: boolean;
  /** The metadata the checkout gave it: `target`, `user_id`, `workspace_id`. */
  metadata: Record<string, string>;
}

/** An event the provider sent, once its signature was checked. */
export interface ProviderEvent {
  id: string;
  type: string;
  /** The subscription the event concerns, when it names one. */
  subscriptionId: string | null;
}

/** Statuses in which the subscription's plan is given: a failed payment keeps it until the provider ends the subscription. */
export const givesPlan = (status: SubscriptionStatus): boolean => status === 'active' || status === 'trialing' || status === 'past_due';

/** The service's copy of a subscription, and what it gave. */
export interface SubscriptionRecord {
  id: string;
  customerId: string;
  target: BillingTarget;
  plan: Extract<Plan, 'pro' | 'team'>;
  status: SubscriptionStatus;
  seats: number;
  currentPeriodEnd: number;
  cancelAtPeriodEnd: boolean;
  /** When the provider was read for this state (ms): an older read never overwrites a newer one. */
  syncedAt: number;
}
