import type { SubscriptionRecord } from '../../domain/billing/model.ts';
import { userPartition } from './accounts.ts';
import { workspacePartition } from './workspaces.ts';

// Billing: each target's link to the subscription its plan follows, the service's copy of the
// provider's subscriptions, and the provider's events applied. All written by the billing store
// (billing.ts); what a subscription gives (plan, seats) is written through the user's, the
// workspace's and the roster's own parts, in the same transaction.

export type BillingTargetKey = { kind: 'user'; userId: string } | { kind: 'workspace'; workspaceId: string };

/**
 * A target's billing (`USER#<id>` or `WORKSPACE#<id>` / `BILLING`): an account's customer at the
 * provider, and `subscription_id`, the one subscription the target's plan follows. Written by
 * the billing store (billing.ts).
 */
export const billingKey = (target: BillingTargetKey) => ({
  pk: target.kind === 'user' ? userPartition(target.userId) : workspacePartition(target.workspaceId),
  sk: 'BILLING',
});
export interface BillingItem {
  pk: string;
  sk: string;
  /** An account's customer at the payment provider (the first one made stays). */
  customer_id?: string;
  subscription_id?: string;
}

/** The service's copy of a subscription (`SUBSCRIPTION#<id>` / `SUBSCRIPTION`), never overwritten by an older read: written by the billing store (billing.ts). */
export const subscriptionKey = (id: string) => ({ pk: `SUBSCRIPTION#${id}`, sk: 'SUBSCRIPTION' });
export interface SubscriptionItem {
  pk: string;
  sk: string;
  type: 'subscription';
  id: string;
  customer_id: string;
  target_kind: SubscriptionRecord['target']['kind'];
  /** The account's id, or the workspace's owner's. */
  user_id: string;
  workspace_id?: string;
  plan: SubscriptionRecord['plan'];
  status: SubscriptionRecord['status'];
  seats: number;
  current_period_end: number;
  cancel_at_period_end: boolean;
  synced_at: number;
}

/** A buyer's notice's mark (`BILLING_NOTICE#<event id>` / `NOTICE`): leased while a worker holds the event, `sent_at` once mailed. Written by the notice marks' store (noticeMarks.ts). */
export const billingNoticeKey = (eventId: string) => ({ pk: `BILLING_NOTICE#${eventId}`, sk: 'NOTICE' });
export interface BillingNoticeItem {
  pk: string;
  sk: string;
  type: 'billing_notice';
  lease_until?: number;
  sent_at?: number;
  ttl: number;
}

/** A provider event applied (`PROVIDER_EVENT#<id>` / `PROVIDER_EVENT`), kept 30 days (the provider retries for 3): written by the billing store (billing.ts). */
export const providerEventKey = (id: string) => ({ pk: `PROVIDER_EVENT#${id}`, sk: 'PROVIDER_EVENT' });
export interface ProviderEventItem {
  pk: string;
  sk: string;
  type: 'provider_event';
  id: string;
  applied_at: number;
  ttl: number;
}
