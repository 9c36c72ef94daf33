import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CheckoutSession, Customer, Invoice, InvoiceLine, PortalSession, StripeEvent, Subscription } from './objects.ts';

/** A checkout session and what it was created with that Stripe does not show on the object. */
export interface SessionRecord {
  session: CheckoutSession;
  lineItems: Array<{ price: string; quantity: number }>;
  subscriptionMetadata: Record<string, string>;
}

export interface SubscriptionRecord {
  subscription: Subscription;
  /** Set by the test control: the next charge of this subscription is declined. */
  declineNextPayment: boolean;
  /** Prorations made with `create_prorations`, billed on the next invoice. */
  pendingProrations: InvoiceLine[];
}

/** One delivery attempt of an event to the webhook URL, as Stripe's dashboard lists them. */
export interface Delivery {
  /** Unix seconds, the signature's timestamp. */
  at: number;
  /** The receiver's status, or none when the request failed. */
  status?: number;
  error?: string;
}

export interface EventRecord {
  event: StripeEvent;
  deliveries: Delivery[];
}

/** A POST's answer kept under its Idempotency-Key, replayed for the same request. */
export interface IdempotentResult {
  method: string;
  path: string;
  /** The parameters, canonical (keys sorted), compared with a retry's. */
  params: string;
  status: number;
  body: string;
  requestId: string;
  /** Unix seconds; Stripe keeps keys 24 hours. */
  created: number;
}

export interface StripeData {
  customers: Record<string, Customer>;
  checkoutSessions: Record<string, SessionRecord>;
  portalSessions: Record<string, PortalSession>;
  subscriptions: Record<string, SubscriptionRecord>;
  /** In creation order, so lists are newest first even within one second. */
  invoices: Invoice[];
  events: EventRecord[];
  idempotency: Record<string, IdempotentResult>;
}

const emptyData = (): StripeData => ({
  customers: {},
  checkoutSessions: {},
  portalSessions: {},
  subscriptions: {},
  invoices: [],
  events: [],
  idempotency: {},
});

/**
 * The emulator's account: in memory, and written whole to `dataDir/state.json` after each change
 * when a folder is given, so a second `npm start` knows the customers and subscriptions the
 * service's table still names.
 */
export class StripeStore {
  readonly data: StripeData;
  private readonly file: string | undefined;

  constructor(dataDir?: string) {
    this.file = dataDir ? join(dataDir, 'state.json') : undefined;
    if (dataDir) mkdirSync(dataDir, { recursive: true });
    this.data =
      this.file && existsSync(this.file)
        ? { ...emptyData(), ...(JSON.parse(readFileSync(this.file, 'utf8')) as Partial<StripeData>) }
        : emptyData();
  }

  save(): void {
    if (!this.file) return;
    // Written beside it and renamed, so a stop mid-write leaves the previous state whole.
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, JSON.stringify(this.data));
    renameSync(temporary, this.file);
  }

  invoice(id: string): Invoice | undefined {
    return this.data.invoices.find((invoice) => invoice.id === id);
  }

  event(id: string): EventRecord | undefined {
    return this.data.events.find((record) => record.event.id === id);
  }
}
