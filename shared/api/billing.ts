import * as z from 'zod/mini';
import { enterpriseInquiryLimits as inquiry, teamSeatLimits } from '../limits.ts';
import { pageQuery } from './input.ts';
import { nullableTimestamp, page, timestamp } from './output.ts';

const plans = ['free', 'pro', 'team', 'enterprise'] as const;
/** A return path of the web client (`/billing?checkout=done`): its own origin only. */
const returnPath = z
  .string()
  .check(z.minLength(1), z.maxLength(512), z.regex(/^\/(?!\/)[^\\\s]*$/, 'must be a path starting with a single /'));

const workspaceId = z.string().check(z.minLength(1), z.maxLength(64));

const checkoutRequest = z.strictObject({
  plan: z.enum(['pro', 'team']),
  workspace_id: z.optional(workspaceId),
  seats: z.optional(z.int().check(z.minimum(teamSeatLimits.min), z.maximum(teamSeatLimits.max))),
  success_path: z.optional(returnPath),
  cancel_path: z.optional(returnPath),
});

/** One line of a mail (a name, a company): no control characters, so nothing can start a header or a new line. */
const mailLine = (max: number) =>
  z
    .string()
    .check(
      z.trim(),
      z.minLength(1, 'must not be empty'),
      z.maxLength(max),
      z.regex(/^[^\p{Cc}\p{Zl}\p{Zp}]*$/u, 'must be one line of text'),
    );

/** What the billing group's routes take (interface §4.6). */
export const billingRequests = {
  CheckoutRequest: checkoutRequest,
  PortalRequest: z.strictObject({ return_path: z.optional(returnPath) }),
  InvoiceListQuery: pageQuery({ default: 10, max: 100 }),
  SeatsRequest: z.strictObject({
    workspace_id: workspaceId,
    seats: z.int().check(z.minimum(teamSeatLimits.min), z.maximum(teamSeatLimits.max)),
  }),
  EnterpriseInquiryRequest: z.strictObject({
    name: mailLine(inquiry.name.max),
    email: z.email().check(z.maxLength(254)),
    company: mailLine(inquiry.company.max),
    seats: z.optional(z.int().check(z.minimum(1), z.maximum(inquiry.seats.max))),
    message: z.string().check(z.trim(), z.minLength(1, 'must not be empty'), z.maxLength(inquiry.message.max)),
  }),
};

/** What they answer: types and the document only. */
export const billingReplies = {
  CheckoutCreated: z.strictObject({ id: z.string(), url: z.string() }),
  PortalCreated: z.strictObject({ url: z.string() }),
  SeatsChanged: z.strictObject({ workspace_id: z.string(), seats: z.int() }),
  EnterpriseInquiryAccepted: z.strictObject({ accepted: z.literal(true) }),
  /** The self-serve plans' prices as the payment provider has them (beyond the interface). */
  PlanPrices: z.strictObject({
    prices: z.array(
      z.strictObject({
        plan: z.enum(['pro', 'team']),
        interval: z.enum(['day', 'week', 'month', 'year']),
        /** In the currency's smallest unit (cents). */
        unit_amount: z.int(),
        /** Lower case, as the provider writes it (`usd`). */
        currency: z.string(),
        per: z.enum(['seat', 'workspace', 'account']),
      }),
    ),
  }),
  InvoiceList: page(
    z.strictObject({
      id: z.string(),
      number: z.nullable(z.string()),
      status: z.nullable(z.string()),
      /** In the currency's smallest unit (cents). */
      total: z.int(),
      currency: z.string(),
      created_at: timestamp,
      hosted_invoice_url: z.nullable(z.string()),
      invoice_pdf: z.nullable(z.string()),
    }),
  ),
  BillingSubscription: z.strictObject({
    /** The account's own plan; `tier` is what it uses (the highest of it and its workspaces'). */
    plan: z.enum(plans),
    tier: z.enum(plans),
    /** The provider's status of the account's subscription; null without one. */
    status: z.nullable(z.string()),
    seats: z.nullable(z.int()),
    current_period_end: nullableTimestamp,
    cancel_at_period_end: z.boolean(),
    usage: z.strictObject({ live_secrets: z.int(), bytes_stored: z.int(), calls_this_month: z.int() }),
  }),
};

/** What the billing webhook answers the provider once an event is taken (applied, a repeat, or one that changes nothing here). */
export const billingWebhookReplies = {
  ProviderEventReceived: z.strictObject({ received: z.literal(true) }),
};

/** The webhook reads its raw body itself (the signature is over its bytes): no schema parses it. */
export const billingWebhookRequests = {};
