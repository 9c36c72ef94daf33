import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { listScimUsers } from '../../shared/domain/scim/listing.ts';
import type { ScimUser } from '../../shared/domain/scim/model.ts';
import { newScimUserId, newUserId, newWorkspaceId } from '../../shared/ids.ts';
import { toUserItem } from '../../shared/store/scimUserItems.ts';
import { DynamoScimUserStore } from '../../shared/store/workspaceScim.ts';
import { dynamoLocal } from './dynamoLocal.ts';
import { audit, t0 } from './workspaceFixtures.ts';

/**
 * What only the table shows of the SCIM store (the rest is scimUserStore.contract.ts, on both):
 * a listing in pages reads each User about once (issue 30), counted by the items its Queries
 * read; the count of a workspace's Users made once for Users stored before it; a manager stored
 * as a bare id read back as its object.
 */
const dynamo = dynamoLocal();

/** Items the Queries read (ScannedCount: what DynamoDB charges for, before any filter), and requests by command. */
const meter = { scanned: 0, requests: new Map<string, number>() };
beforeAll(() => {
  dynamo.db.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const command = context.commandName ?? '?';
      meter.requests.set(command, (meter.requests.get(command) ?? 0) + 1);
      if (command === 'QueryCommand') meter.scanned += (result.output as { ScannedCount?: number }).ScannedCount ?? 0;
      return result;
    },
    { step: 'initialize', name: 'scimReadMeter' },
  );
});
const resetMeter = () => {
  meter.scanned = 0;
  meter.requests.clear();
};

const aUser = (workspaceId: string, index: number, overrides: Partial<ScimUser> = {}): ScimUser => ({
  id: newScimUserId(),
  workspaceId,
  userId: newUserId(),
  userName: `user-${index}@example.com`,
  active: false,
  createdAt: t0 + index,
  lastModified: t0 + index,
  version: 1,
  ...overrides,
});

/** Users written as items straight to the table (as Users made before the count was kept were), 25 a request. */
async function seed(users: ScimUser[]): Promise<void> {
  for (let at = 0; at < users.length; at += 25) {
    const batch = users.slice(at, at + 25).map((user) => ({ PutRequest: { Item: toUserItem(user, user.userName) } }));
    await dynamo.db.send(new BatchWriteCommand({ RequestItems: { [dynamo.tableName]: batch } }));
  }
}

describe('DynamoScimUserStore: pages and counts', () => {
  const store = () => new DynamoScimUserStore(dynamo.db, dynamo.tableName);
  const clock = { now: () => t0 };

  it('lists 200 Users in pages of 10 reading each about once, every User once in id order', async () => {
    const ws = newWorkspaceId();
    const users = Array.from({ length: 200 }, (_, index) => aUser(ws, index));
    await seed(users);
    const ports = { scimUsers: store(), clock };
    resetMeter();
    const seen: string[] = [];
    const perPage: number[] = [];
    for (let startIndex = 1; startIndex <= 200; startIndex += 10) {
      const before = meter.scanned;
      const page = await listScimUsers(ws, `startIndex=${startIndex}&count=10`, ports);
      expect(page).toMatchObject({ totalResults: 200, startIndex, itemsPerPage: 10 });
      seen.push(...page.users.map((user) => user.id));
      perPage.push(meter.scanned - before);
    }
    expect(seen).toEqual(users.map((user) => user.id).sort());
    // The first page counts the Users once (no count was kept for Users stored before it); every
    // page after reads its 10 and one more, from where the page before ended.
    expect(perPage[0]).toBe(200 + 11);
    expect(Math.max(...perPage.slice(1))).toBe(11);
    // The listing that read every User for each page read 20 × 200 = 4,000.
    expect(meter.scanned).toBeLessThan(2 * 200 + 20 * 11);
  });

  it('reads a page asked without its start from the first User, and one from where a deleted User was', async () => {
    const ws = newWorkspaceId();
    const users = Array.from({ length: 30 }, (_, index) => aUser(ws, index));
    for (const user of users) {
      const account = { userId: user.userId, email: user.userName };
      await store().create(ws, user.id, { userName: user.userName, active: false }, account, t0, audit(ws, 'scim.user_created'));
    }
    const ids = users.map((user) => user.id).sort();
    const ports = { scimUsers: store(), clock };
    expect((await listScimUsers(ws, 'startIndex=21&count=10', ports)).users.map((user) => user.id)).toEqual(ids.slice(20));
    const first = await listScimUsers(ws, 'startIndex=1&count=10', ports);
    // The last User of the first page goes: the next page still starts after it, no one skipped.
    await store().delete(ws, first.users.at(-1)!.id, audit(ws, 'scim.user_deleted'));
    const second = await listScimUsers(ws, 'startIndex=11&count=10', ports);
    expect(second.users.map((user) => user.id)).toEqual(ids.slice(10, 20));
    expect(second.totalResults).toBe(29);
  });

  it('counts Users stored before the count once, then keeps it with each create and delete', async () => {
    const ws = newWorkspaceId();
    await seed(Array.from({ length: 5 }, (_, index) => aUser(ws, index)));
    const id = newScimUserId();
    // The create finds no count, counts the 5, and is made: 6, not 1.
    const made = await store().create(
      ws,
      id,
      { userName: 'late@example.com', active: false },
      { userId: newUserId(), email: 'late@example.com' },
      t0,
      audit(ws, 'scim.user_created'),
    );
    expect(made).toBe('created');
    expect(await store().count(ws)).toBe(6);
    expect(await store().delete(ws, id, audit(ws, 'scim.user_deleted'))).toBe('deleted');
    expect(await store().count(ws)).toBe(5);
    expect(await store().count(newWorkspaceId())).toBe(0);
  });

  it('forgets where a page ended after an hour', async () => {
    const ws = newWorkspaceId();
    await store().rememberPageStart(ws, '', 11, { afterId: 'scu_x' }, t0);
    expect(await store().pageStart(ws, '', 11, t0 + 3_599_000)).toEqual({ afterId: 'scu_x' });
    expect(await store().pageStart(ws, '', 11, t0 + 3_600_000)).toBeNull();
    expect(await store().pageStart(ws, 'userName eq "x"', 11, t0)).toBeNull();
  });

  it('reads a manager stored as a bare id (as it was kept before) as its object', async () => {
    const ws = newWorkspaceId();
    const user = aUser(ws, 0, { enterprise: { department: 'R&D', manager: 'scu_boss' } });
    await seed([user]);
    expect((await store().get(ws, user.id))!.enterprise).toEqual({ department: 'R&D', manager: { value: 'scu_boss' } });
  });
});
