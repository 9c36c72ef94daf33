import type { Mailer } from '../mail.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Plan } from '../accounts/model.ts';
import type { UserStore } from '../accounts/ports.ts';
import type { Role, Roster } from '../workspaces/model.ts';
import type { ProviderEvent, ProviderSubscription, SubscriptionRecord } from './model.ts';

/** A checkout of a subscription, as the provider is asked for one. */
export interface CheckoutRequest {
  customerId: string;
  priceId: string;
  quantity: number;
  successUrl: string;
  cancelUrl: string;
  /** Who pays and for what: on the session and on the subscription it makes. */
  metadata: Record<string, string>;
  clientReferenceId: string;
  /** So a retry of the same request makes no second session. */
  idempotencyKey: string;
}

/** An invoice as the provider lists it. */
export interface ProviderInvoice {
  id: string;
  number: string | null;
  status: string | null;
  /** In the currency's smallest unit (cents). */
  total: number;
  currency: string;
  createdAt: number;
  hostedInvoiceUrl: string | null;
  invoicePdf: string | null;
}

/** The payment provider, as the service uses it (shared/adapters/stripe.ts). */
export interface PaymentProvider {
  /** A customer for an account (`idempotencyKey` of the attempt: the SDK's own retries of it make no second one). */
  createCustomer(email: string, userId: string, idempotencyKey: string): Promise<string>;
  createCheckoutSession(request: CheckoutRequest): Promise<{ id: string; url: string }>;
  /** The provider's billing portal for a customer, coming back to `returnUrl`. */
  createPortalSession(customerId: string, returnUrl: string): Promise<{ url: string }>;
  /** A customer's invoices, newest first, after `startingAfter` (an invoice id). */
  listInvoices(customerId: string, limit: number, startingAfter: string | null): Promise<{ items: ProviderInvoice[]; hasMore: boolean }>;
  /** The event in a webhook's raw body, if its signature holds for the body and is within the tolerance; else throws `InvalidSignature`. */
  verifyEvent(rawBody: Buffer, signature: string | null): Promise<ProviderEvent>;
  /** The subscription as the provider has it now; null when the provider has none by this id. */
  retrieveSubscription(id: string): Promise<ProviderSubscription | null>;
  /** Sets the quantity of a subscription's item, prorated for the rest of the period; the subscription as it is then. */
  changeQuantity(subscriptionId: string, itemId: string, quantity: number, idempotencyKey: string): Promise<ProviderSubscription>;
  /**
   * Ends a subscription now, its unused time credited to its customer on a final invoice; the
   * subscription as it is then (ended already counts), null when the provider has none by this id.
   */
  cancelSubscription(id: string): Promise<ProviderSubscription | null>;
  /** The customer's checkout sessions still open (payable), with the metadata they were made with. */
  openCheckouts(customerId: string): Promise<Array<{ id: string; metadata: Record<string, string> }>>;
  /** Closes an open checkout session so it can no longer be paid; false when it was not open any more. */
  expireCheckout(id: string): Promise<boolean>;
  /** The customer an invoice belongs to; null when the provider has no invoice by this id. */
  invoiceCustomer(id: string): Promise<string | null>;
}

/** A listing's cursor names nothing the provider can page from. */
export class UnknownCursor extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UnknownCursor';
  }
}

/** The provider refuses portal sessions until its operator saves the portal's settings (Stripe's Dashboard). */
export class PortalUnconfigured extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'PortalUnconfigured';
  }
}

export class InvalidSignature extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'InvalidSignature';
  }
}

/**
 * The seats following a subscription gives a workspace, in the order the domain prefers them
 * (live.ts, `grantOf`): a number of seats, the roster's members (`members`: no one new joins), or
 * the seats as they are (`unchanged`: a contract's). The store writes the first its roster's
 * conditions allow: the members within the seats, and no contract's seats (sales' alone); when
 * none is allowed it writes nothing and answers `stale` (a grant ends with `unchanged`).
 */
export type SeatChoice = number | 'members' | 'unchanged';

/** What following a subscription gives its target, decided by the domain: the plan the provider's `plan` attribute holds, and a workspace's seats. */
export interface Grant {
  plan: Plan;
  seats: readonly SeatChoice[];
}

/**
 * How a subscription's state is written (shared/domain/billing/live.ts decides): `follow` makes it
 * the one the target's plan follows and gives what `grant` says; `record` keeps its state only.
 * Either holds only while the target still links `linked` (null: none yet).
 */
export type LinkWrite = { mode: 'follow'; linked: string | null; grant: Grant } | { mode: 'record'; linked: string | null };

export interface BillingStore {
  /**
   * Records the subscription's state, with the event's id, in one transaction, and when `follow`
   * links it to its target and gives the target what its grant says (the plan, a workspace's seats): `applied`
   * (followed) or `recorded`; `duplicate` when the event was applied before, `stale` when a
   * newer read of the subscription was applied meanwhile, `contested` when the target's link is
   * no longer `linked` (nothing is written for these three).
   */
  applySubscription(
    record: SubscriptionRecord,
    eventId: string,
    now: number,
    link: LinkWrite,
  ): Promise<'applied' | 'recorded' | 'duplicate' | 'stale' | 'contested'>;
  /** The subscription a target's plan follows (its one live subscription, or the last one that was). */
  linkedSubscription(target: { kind: 'user'; userId: string } | { kind: 'workspace'; workspaceId: string }): Promise<string | null>;
  /** Records an event that changes nothing here (so a repeat is recognised); false when it was recorded before. */
  recordEvent(eventId: string, now: number): Promise<boolean>;
  subscription(id: string): Promise<SubscriptionRecord | null>;
  /** An account's customer at the provider, and the subscription that pays for a target (an account's Pro, a workspace's Team). */
  customerOf(userId: string): Promise<string | null>;
  /** Keeps the account's customer unless it has one already; the one kept. */
  keepCustomer(userId: string, customerId: string): Promise<string>;
  subscriptionOf(target: { kind: 'user'; userId: string } | { kind: 'workspace'; workspaceId: string }): Promise<SubscriptionRecord | null>;
  /**
   * Lowers a workspace's seats before the provider is told, in the one condition joins are
   * checked against (members within the seats): no one joins into a seat about to go.
   * `members` (the count now) when more members than that are in it.
   */
  lowerSeats(workspaceId: string, seats: number): Promise<{ lowered: true; previous: number } | { lowered: false; members: number }>;
  /** Gives back seats lowered for a change the provider then refused. */
  restoreSeats(workspaceId: string, lowered: number, previous: number): Promise<void>;
}

/** What a Team checkout and a seat change need to know of the workspace: the caller's role in it, its roster, and whether an Enterprise contract sets its seats. */
export interface CheckoutWorkspaces {
  seatOf(workspaceId: string, userId: string): Promise<{ role: Role; roster: Roster; underContract: boolean } | null>;
}

export interface BillingPorts {
  provider: PaymentProvider;
  billing: BillingStore;
  users: Pick<UserStore, 'get'>;
  mailer: Mailer;
  clock: Clock;
  config: Pick<Config, 'PRICE_PRO' | 'PRICE_TEAM_SEAT' | 'WEB_ORIGIN'>;
}
