import { describe, expect, it } from 'vitest';
import { startCheckout, type CheckoutPorts, type NewCheckout } from '../../shared/domain/billing/checkout.ts';
import { listInvoices, type CustomerPorts } from '../../shared/domain/billing/customer.ts';
import type { ProviderSubscription, SubscriptionRecord } from '../../shared/domain/billing/model.ts';
import { InvalidSignature, UnknownCursor, type BillingPorts } from '../../shared/domain/billing/ports.ts';
import { changeSeats, type SeatsPorts } from '../../shared/domain/billing/seats.ts';
import { receiveProviderEvent } from '../../shared/domain/billing/webhook.ts';
import { Conflict, Forbidden, Invalid, NotFound, type Refusal, Unauthenticated } from '../../shared/domain/refusals.ts';
import type { Roster } from '../../shared/domain/workspaces/model.ts';
import { HttpError, problemBody } from '../../shared/http/errors.ts';
import { toHttpError } from '../../shared/http/refusals.ts';
import { StoppedClock } from '../support/clock.ts';

// The billing use cases refuse in the domain's words (issue 27); what a client reads of each
// refusal is exactly what the HttpError it replaced said: status, code, detail, problem members,
// field errors and headers. Each expectation is that former HttpError, verbatim.

async function refusalOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

async function expectRefusal(work: Promise<unknown>, kind: abstract new (...args: never[]) => Refusal, before: HttpError): Promise<void> {
  const error = await refusalOf(work);
  const after = toHttpError(error);
  expect(problemBody(after)).toEqual(problemBody(before));
  expect(after.extras.headers ?? {}).toEqual(before.extras.headers ?? {});
  expect(error).toBeInstanceOf(kind);
}

const unused = new Proxy(
  {},
  {
    get: (_, name) => {
      throw new Error(`unexpected call: ${String(name)}`);
    },
  },
);
const config = { WEB_ORIGIN: 'https://secrets.example.com', PRICE_PRO: 'price_pro', PRICE_TEAM_SEAT: 'price_team' };
const clock = new StoppedClock();
const roster = (members: number, seats = 5): Roster => ({ seats, used: members, owners: 1, members });
const teamRecord = (overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord => ({
  id: 'sub_team',
  customerId: 'cus_payer',
  target: { kind: 'workspace', workspaceId: 'ws_1', ownerId: 'usr_payer' },
  plan: 'team',
  status: 'active',
  seats: 5,
  currentPeriodEnd: clock.now() + 86_400_000,
  cancelAtPeriodEnd: false,
  syncedAt: clock.now(),
  ...overrides,
});

describe('checkout', () => {
  const ports = (
    overrides: {
      seat?: Awaited<ReturnType<CheckoutPorts['checkoutWorkspaces']['seatOf']>>;
      current?: SubscriptionRecord | null;
      customer?: string | null;
      user?: boolean;
    } = {},
  ): CheckoutPorts => ({
    provider: unused as never,
    config,
    users: { get: async () => (overrides.user === false ? null : { id: 'usr_1', email: 'ana@example.com', plan: 'free', createdAt: 0 }) },
    billing: {
      subscriptionOf: async () => overrides.current ?? null,
      customerOf: async () => overrides.customer ?? null,
      keepCustomer: unused as never,
    },
    checkoutWorkspaces: {
      seatOf: async () => (overrides.seat === undefined ? { role: 'owner', roster: roster(3), underContract: false } : overrides.seat),
    },
  });
  const checkout = (input: NewCheckout, p = ports()) => startCheckout(input, 'usr_1', p);
  const fieldError = (field: string, message: string, detail: string) =>
    new HttpError(400, 'invalid_request', detail, { errors: [{ path: `body.${field}`, message }] });

  it('names a return path of another site as the client sent it', async () => {
    const detail = 'A return path is a path of this site.';
    const message = 'must be a path starting with a single /';
    await expectRefusal(checkout({ plan: 'pro', successPath: '//evil.example' }), Invalid, fieldError('success_path', message, detail));
    await expectRefusal(checkout({ plan: 'pro', cancelPath: '/a\\b' }), Invalid, fieldError('cancel_path', message, detail));
  });

  it('refuses Pro with a workspace or seats, and Team without a workspace', async () => {
    await expectRefusal(
      checkout({ plan: 'pro', seats: 2 }),
      Invalid,
      fieldError('plan', 'pro takes no workspace_id or seats', 'Pro is bought for your account: no workspace or seats.'),
    );
    await expectRefusal(
      checkout({ plan: 'pro', workspaceId: 'ws_1' }),
      Invalid,
      fieldError('plan', 'pro takes no workspace_id or seats', 'Pro is bought for your account: no workspace or seats.'),
    );
    await expectRefusal(
      checkout({ plan: 'team' }),
      Invalid,
      fieldError('workspace_id', 'is required for team', 'Team is bought for a workspace.'),
    );
  });

  it('refuses Team to anyone but the owner, under a contract, and below the members', async () => {
    const notOwner = new HttpError(403, 'forbidden', 'Only the workspace’s owner buys its Team plan.', {
      members: { reason: 'not_owner' },
    });
    await expectRefusal(checkout({ plan: 'team', workspaceId: 'ws_1' }, ports({ seat: null })), Forbidden, notOwner);
    await expectRefusal(
      checkout({ plan: 'team', workspaceId: 'ws_1' }, ports({ seat: { role: 'admin', roster: roster(3), underContract: false } })),
      Forbidden,
      notOwner,
    );
    await expectRefusal(
      checkout({ plan: 'team', workspaceId: 'ws_1' }, ports({ seat: { role: 'owner', roster: roster(3), underContract: true } })),
      Conflict,
      new HttpError(409, 'conflict', 'This workspace is on an Enterprise contract: its seats are changed through sales.', {
        members: { reason: 'contract_plan' },
      }),
    );
    await expectRefusal(
      checkout({ plan: 'team', workspaceId: 'ws_1', seats: 2 }),
      Invalid,
      fieldError('seats', 'must be at least the member count, 3', 'At least 3 seats: one for each member.'),
    );
  });

  it('refuses a target already paid for, saying who pays for a workspace', async () => {
    const paying = (detail: string) => new HttpError(409, 'conflict', detail, { members: { reason: 'active_subscription' } });
    const byCaller = 'This already has an active subscription: change its seats, or manage it in the billing portal.';
    const pro = teamRecord({ plan: 'pro', seats: 1, target: { kind: 'user', userId: 'usr_1' } });
    await expectRefusal(checkout({ plan: 'pro' }, ports({ current: pro })), Conflict, paying(byCaller));
    await expectRefusal(
      checkout({ plan: 'team', workspaceId: 'ws_1' }, ports({ current: teamRecord(), customer: 'cus_payer' })),
      Conflict,
      paying(byCaller),
    );
    await expectRefusal(
      checkout({ plan: 'team', workspaceId: 'ws_1' }, ports({ current: teamRecord(), customer: 'cus_new_owner' })),
      Conflict,
      paying(
        'This workspace’s Team plan is paid by the account that bought it (its owner before a transfer): once they have cancelled it and it has ended, buy Team here.',
      ),
    );
  });

  it('asks an account that is gone to sign in, with no challenge header', async () => {
    await expectRefusal(
      checkout({ plan: 'pro' }, ports({ user: false })),
      Unauthenticated,
      new HttpError(401, 'unauthorized', 'Sign in first.'),
    );
  });
});

describe('invoices', () => {
  const ports = (customer: string | null, provider: Partial<CustomerPorts['provider']> = {}): CustomerPorts => ({
    config,
    billing: { customerOf: async () => customer },
    provider: { ...(unused as CustomerPorts['provider']), ...provider },
  });
  const notACursor = new HttpError(400, 'invalid_request', 'Not a cursor of this listing.', {
    errors: [{ path: 'query.cursor', message: 'is not a cursor this listing gave' }],
  });

  it('is not found for an account with no billing', async () => {
    await expectRefusal(
      listInvoices('usr_1', 10, null, ports(null)),
      NotFound,
      new HttpError(404, 'not_found', 'This account has no billing yet: buy a plan first.'),
    );
  });

  it('refuses a cursor that is not one of the caller’s invoices, in the query', async () => {
    await expectRefusal(listInvoices('usr_1', 10, 'not-an-invoice', ports('cus_1')), Invalid, notACursor);
    await expectRefusal(
      listInvoices('usr_1', 10, 'in_other', ports('cus_1', { invoiceCustomer: async () => 'cus_2' })),
      Invalid,
      notACursor,
    );
    const raced = ports('cus_1', {
      invoiceCustomer: async () => 'cus_1',
      listInvoices: async () => {
        throw new UnknownCursor('resource_missing');
      },
    });
    await expectRefusal(listInvoices('usr_1', 10, 'in_gone', raced), Invalid, notACursor);
  });
});

describe('seats', () => {
  const ports = (
    overrides: {
      seat?: Awaited<ReturnType<SeatsPorts['checkoutWorkspaces']['seatOf']>>;
      current?: SubscriptionRecord | null;
      customer?: string;
      members?: number;
      live?: ProviderSubscription | null;
    } = {},
  ): SeatsPorts => ({
    config,
    clock,
    checkoutWorkspaces: {
      seatOf: async () => (overrides.seat === undefined ? { role: 'owner', roster: roster(3), underContract: false } : overrides.seat),
    },
    billing: {
      subscriptionOf: async () => (overrides.current === undefined ? teamRecord() : overrides.current),
      customerOf: async () => overrides.customer ?? 'cus_payer',
      lowerSeats: async () => ({ lowered: false, members: overrides.members ?? 4 }),
      restoreSeats: unused as never,
      applySubscription: unused as never,
    },
    provider: { retrieveSubscription: async () => overrides.live ?? null, changeQuantity: unused as never },
  });
  const change = (seats: number, p = ports()) => changeSeats('ws_1', seats, 'usr_payer', p);
  const noSubscription = (detail: string) => new HttpError(404, 'not_found', detail, { members: { reason: 'no_subscription' } });
  const belowMembers = (members: number) =>
    new HttpError(400, 'invalid_request', `At least ${members} seats: one for each member. Remove members first to go lower.`, {
      errors: [{ path: 'body.seats', message: `must be at least the member count, ${members}` }],
    });

  it('is the owner’s or the payer’s, never under a contract', async () => {
    const notOwner = new HttpError(403, 'forbidden', 'Only the workspace’s owner changes its seats.', { members: { reason: 'not_owner' } });
    await expectRefusal(change(6, ports({ seat: null })), Forbidden, notOwner);
    await expectRefusal(
      change(6, ports({ seat: { role: 'member', roster: roster(3), underContract: false }, customer: 'cus_someone' })),
      Forbidden,
      notOwner,
    );
    await expectRefusal(
      change(6, ports({ seat: { role: 'owner', roster: roster(3), underContract: true } })),
      Forbidden,
      new HttpError(403, 'forbidden', 'This workspace is on an Enterprise contract: its seats are changed through sales.', {
        members: { reason: 'contract_plan' },
      }),
    );
  });

  it('refuses the owner after a transfer: the payer changes the seats', async () => {
    await expectRefusal(
      change(6, ports({ customer: 'cus_new_owner' })),
      Forbidden,
      new HttpError(
        403,
        'forbidden',
        'This workspace’s Team plan is paid by the account that bought it (its owner before a transfer): only they change its seats, or cancel it in their billing portal. Once it has ended, buy Team for the workspace to pay for it yourself.',
        { members: { reason: 'not_payer' } },
      ),
    );
  });

  it('is not found without a Team subscription, or once it has ended at the provider', async () => {
    await expectRefusal(
      change(6, ports({ current: null })),
      NotFound,
      noSubscription('This workspace has no Team subscription: buy Team for it first.'),
    );
    await expectRefusal(
      change(6, ports({ current: teamRecord({ status: 'canceled' }) })),
      NotFound,
      noSubscription('This workspace has no Team subscription: buy Team for it first.'),
    );
    await expectRefusal(change(8), NotFound, noSubscription('This workspace’s Team subscription has ended.'));
  });

  it('never goes below the members, counted before or at the write', async () => {
    await expectRefusal(change(2), Invalid, belowMembers(3));
    await expectRefusal(change(3), Invalid, belowMembers(4));
  });
});

describe('the payment provider’s webhook', () => {
  it('refuses a signature that does not verify, naming the header', async () => {
    const ports = {
      ...(unused as BillingPorts),
      provider: {
        ...(unused as BillingPorts['provider']),
        verifyEvent: async () => {
          throw new InvalidSignature('No signatures found matching the expected signature for payload');
        },
      },
      logger: unused as never,
      queue: unused as never,
    } as BillingPorts & { logger: never; queue: never };
    await expectRefusal(
      receiveProviderEvent(Buffer.from('{}'), 't=1,v1=00', ports),
      Invalid,
      new HttpError(400, 'invalid_request', 'The payment provider’s signature does not verify.', {
        errors: [{ path: 'header.stripe-signature', message: 'No signatures found matching the expected signature for payload' }],
      }),
    );
  });
});
