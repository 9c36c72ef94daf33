import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { followWrite, grantOf } from '../../shared/domain/billing/live.ts';
import type { SubscriptionRecord } from '../../shared/domain/billing/model.ts';
import type { Grant } from '../../shared/domain/billing/ports.ts';
import { DynamoBillingStore } from '../../shared/store/billing.ts';

// What following a subscription gives its target is the domain's decision (issue 27: "business
// rules leave the stores"): the plan, and a workspace's seats in the order they are preferred.
// The billing store writes what it is given, the first seats its roster's conditions allow.

const record = (overrides: Partial<SubscriptionRecord> = {}): SubscriptionRecord => ({
  id: 'sub_1',
  customerId: 'cus_1',
  target: { kind: 'workspace', workspaceId: 'ws_1', ownerId: 'usr_1' },
  plan: 'team',
  status: 'active',
  seats: 7,
  currentPeriodEnd: 1_800_000_000_000,
  cancelAtPeriodEnd: false,
  syncedAt: 1_790_000_000_000,
  ...overrides,
});
const pro = (status: SubscriptionRecord['status']) => record({ plan: 'pro', seats: 1, status, target: { kind: 'user', userId: 'usr_1' } });

describe('grantOf', () => {
  it('gives an account Pro while its subscription runs (a failed payment too), Free once it has ended; never seats', () => {
    for (const status of ['active', 'trialing', 'past_due'] as const)
      expect(grantOf(pro(status))).toEqual({ plan: 'pro', seats: ['unchanged'] });
    for (const status of ['canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused'] as const)
      expect(grantOf(pro(status))).toEqual({ plan: 'free', seats: ['unchanged'] });
  });

  it('gives a workspace Team and the seats paid for, else its members, else (a contract’s) the seats as they are', () => {
    expect(grantOf(record())).toEqual({ plan: 'team', seats: [7, 'members', 'unchanged'] });
    expect(grantOf(record({ status: 'past_due', seats: 3 }))).toEqual({ plan: 'team', seats: [3, 'members', 'unchanged'] });
  });

  it('leaves an ended Team its members, no one new', () => {
    expect(grantOf(record({ status: 'canceled' }))).toEqual({ plan: 'free', seats: ['members', 'unchanged'] });
  });

  it('follows a subscription only while the link read is still the target’s', () => {
    expect(followWrite(record(), 'sub_0')).toEqual({
      mode: 'follow',
      linked: 'sub_0',
      grant: { plan: 'team', seats: [7, 'members', 'unchanged'] },
    });
  });
});

describe('DynamoBillingStore.applySubscription writes the grant it is given', () => {
  const dynamo = mockClient(DynamoDBDocumentClient);
  afterAll(() => dynamo.restore());
  afterEach(() => dynamo.reset());
  const store = new DynamoBillingStore(DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'eu-west-1' })), 'hushlink');
  const refusedAt = (index: number) =>
    Object.assign(new Error('Transaction cancelled'), {
      name: 'TransactionCanceledException',
      CancellationReasons: Array.from({ length: index + 1 }, (_, at) => ({ Code: at === index ? 'ConditionalCheckFailed' : 'None' })),
    });
  const apply = (grant: Grant, subscription = record()) =>
    store.applySubscription(subscription, 'evt_1', 1_790_000_000_000, { mode: 'follow', linked: null, grant });
  const writes = () => dynamo.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems!);

  it('sets the plan granted, whatever the subscription’s own status', async () => {
    dynamo.on(TransactWriteCommand).resolves({});
    expect(await apply({ plan: 'enterprise', seats: ['unchanged'] }, record({ status: 'canceled' }))).toBe('applied');
    const [items] = writes();
    expect(items).toHaveLength(4);
    expect(items![3]!.Update).toMatchObject({
      Key: { pk: 'WORKSPACE#ws_1', sk: 'WORKSPACE' },
      ExpressionAttributeValues: { ':plan': 'enterprise' },
    });
  });

  it('writes the seats granted, not the subscription’s quantity, and the next choice when the roster refuses one', async () => {
    dynamo.on(TransactWriteCommand).rejectsOnce(refusedAt(4)).rejectsOnce(refusedAt(4)).resolves({});
    expect(await apply({ plan: 'team', seats: [12, 'members', 'unchanged'] })).toBe('applied');
    const [paid, members, unchanged] = writes();
    expect(paid![4]!.Update).toMatchObject({
      Key: { pk: 'WORKSPACE#ws_1', sk: 'ROSTER' },
      UpdateExpression: 'SET seats = :seats',
      ExpressionAttributeValues: { ':seats': 12 },
    });
    expect(members![4]!.Update).toMatchObject({
      UpdateExpression: 'SET seats = members',
      ConditionExpression: 'attribute_not_exists(contract_seats)',
    });
    expect(unchanged).toHaveLength(4);
  });

  it('writes no seats for an account, and no plan when only recording', async () => {
    dynamo.on(TransactWriteCommand).resolves({});
    expect(await store.applySubscription(pro('active'), 'evt_2', 0, followWrite(pro('active'), null))).toBe('applied');
    expect(await store.applySubscription(record(), 'evt_3', 0, { mode: 'record', linked: 'sub_0' })).toBe('recorded');
    const [account, recorded] = writes();
    expect(account).toHaveLength(4);
    expect(account![3]!.Update).toMatchObject({ Key: { pk: 'USER#usr_1', sk: 'PROFILE' }, ExpressionAttributeValues: { ':plan': 'pro' } });
    expect(recorded).toHaveLength(3);
    expect(recorded![2]!.ConditionCheck).toBeDefined();
  });
});
