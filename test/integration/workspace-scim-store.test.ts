import { randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import type { ScimUserAttributes } from '../../shared/domain/scim/model.ts';
import type { ScimAccount } from '../../shared/domain/scim/ports.ts';
import type { AuditRow } from '../../shared/domain/workspaces/model.ts';
import { newAuditId, newUserId } from '../../shared/ids.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { DynamoUserStore } from '../../shared/store/users.ts';
import { DynamoScimUserStore } from '../../shared/store/workspaceScim.ts';
import { newEmail } from '../support/accounts.ts';
import { startTestRuntime } from '../support/runtime.ts';
import { joinAs, setWorkspace, teamWorkspace } from '../support/workspaces.ts';

/**
 * The SCIM Users store against DynamoDB Local: a User, its uniqueness items and its membership
 * with the seat are one transaction, so duplicates and seat races are settled by conditions.
 */

let runtime: Runtime;
let db: DynamoDBDocumentClient;
let store: DynamoScimUserStore;
let accounts: DynamoUserStore;
beforeAll(async () => {
  runtime = await startTestRuntime();
  db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
  store = new DynamoScimUserStore(db, runtime.config.TABLE_NAME);
  accounts = new DynamoUserStore(db, runtime.config.TABLE_NAME);
});
afterAll(async () => {
  db?.destroy();
  await runtime?.stop();
});

const now = () => runtime.clock.now();
const auditRow = (workspaceId: string, action: string, target: string): AuditRow => ({
  id: newAuditId(),
  workspaceId,
  at: now(),
  actor: { userId: null, email: null, via: 'scim' },
  action,
  target,
  details: {},
});

/** The account for an address, made as the route makes it: one per email, before the User. */
async function account(email = newEmail('scim')): Promise<ScimAccount> {
  const user = await accounts.createOrGet({ id: newUserId(), email, plan: 'free', createdAt: now() });
  return { userId: user.id, email: user.email };
}

const attributes = (userName: string, overrides: Partial<ScimUserAttributes> = {}): ScimUserAttributes => ({
  userName,
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [{ value: userName, type: 'work', primary: true }],
  active: true,
  ...overrides,
});

/** A User made at `at` (the runtime's clock also moves with real time: tests that compare times pass one). */
async function provision(
  workspaceId: string,
  userName: string,
  overrides: Partial<ScimUserAttributes> = {},
  who?: ScimAccount,
  at = now(),
) {
  const id = randomUUID();
  const outcome = await store.create(
    workspaceId,
    id,
    attributes(userName, overrides),
    who ?? (await account(userName)),
    at,
    auditRow(workspaceId, 'scim.user_created', id),
  );
  return { id, outcome };
}

async function roster(workspaceId: string) {
  const { Item } = await db.send(
    new GetCommand({ TableName: runtime.config.TABLE_NAME, Key: { pk: `WORKSPACE#${workspaceId}`, sk: 'ROSTER' }, ConsistentRead: true }),
  );
  return { seats: Number(Item!.seats), used: Number(Item!.used), members: Number(Item!.members) };
}

async function member(workspaceId: string, userId: string) {
  const { Item } = await db.send(
    new GetCommand({
      TableName: runtime.config.TABLE_NAME,
      Key: { pk: `WORKSPACE#${workspaceId}`, sk: `MEMBER#${userId}` },
      ConsistentRead: true,
    }),
  );
  return Item ?? null;
}

async function auditActions(workspaceId: string): Promise<Array<{ action: string; via: string }>> {
  const { Items } = await db.send(
    new QueryCommand({
      TableName: runtime.config.TABLE_NAME,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `AUDIT#${workspaceId}` },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).map((item) => ({ action: String(item.action), via: String(item.via) }));
}

describe('create, read, list', () => {
  it('keeps the User as sent, makes it a member (source scim) holding a seat, and writes the audit row via scim', async () => {
    const workspace = await teamWorkspace(runtime, 5);
    const email = newEmail('ada');
    const who = await account(email);
    const enterprise = { employeeNumber: '701984', manager: { value: '26118915-6090-4610-87e4-49d8ca9f808d' }, department: '' };
    const at = now();
    const { id, outcome } = await provision(
      workspace.id,
      email,
      { externalId: '00u1abc', displayName: 'Ada', extra: { locale: 'en-US', title: 'Eng' }, enterprise },
      who,
      at,
    );
    expect(outcome).toBe('created');

    const user = await store.get(workspace.id, id);
    expect(user).toEqual({
      id,
      workspaceId: workspace.id,
      userId: who.userId,
      userName: email,
      externalId: '00u1abc',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      displayName: 'Ada',
      emails: [{ value: email, type: 'work', primary: true }],
      active: true,
      extra: { locale: 'en-US', title: 'Eng' },
      enterprise,
      createdAt: at,
      lastModified: at,
      version: 1,
    });
    expect(await member(workspace.id, who.userId)).toMatchObject({ role: 'member', source: 'scim', email });
    expect(await roster(workspace.id)).toEqual({ seats: 5, used: 2, members: 2 });
    expect(await auditActions(workspace.id)).toContainEqual({ action: 'scim.user_created', via: 'scim' });
  });

  it('finds a User by userName in any case and by externalId; unknown ones are null', async () => {
    const workspace = await teamWorkspace(runtime, 5);
    const email = newEmail('Grace');
    const { id } = await provision(workspace.id, email, { externalId: 'ext-Grace' });
    expect((await store.byUserName(workspace.id, email.toUpperCase()))?.id).toBe(id);
    expect((await store.byUserName(workspace.id, email.toLowerCase()))?.id).toBe(id);
    expect((await store.byExternalId(workspace.id, 'ext-Grace'))?.id).toBe(id);
    expect(await store.byExternalId(workspace.id, 'EXT-GRACE')).toBeNull();
    expect(await store.get(workspace.id, '010101001010101011001010101011')).toBeNull();
    expect(await store.byUserName(workspace.id, 'nobody@example.com')).toBeNull();
    const other = await teamWorkspace(runtime, 5);
    expect(await store.get(other.id, id)).toBeNull();
    expect(await store.byUserName(other.id, email)).toBeNull();
  });

  it('lists every User by id (the sort key, issue 30), and only the Users', async () => {
    const workspace = await teamWorkspace(runtime, 10);
    const first = await provision(workspace.id, newEmail('first'));
    runtime.clock.advance(5);
    const tie = now();
    const same = await Promise.all([1, 2, 3].map(() => provision(workspace.id, newEmail('tie'), {}, undefined, tie)));
    runtime.clock.advance(5);
    const last = await provision(workspace.id, newEmail('last'), { active: false });
    const listed = await store.list(workspace.id);
    expect(listed.map((user) => user.id)).toEqual([first.id, ...same.map((user) => user.id), last.id].sort());
    expect(await store.list((await teamWorkspace(runtime)).id)).toEqual([]);
  });

  it('makes an inactive User without a membership or a seat', async () => {
    const workspace = await teamWorkspace(runtime, 2);
    const who = await account();
    const { outcome } = await provision(workspace.id, who.email, { active: false }, who);
    expect(outcome).toBe('created');
    expect(await member(workspace.id, who.userId)).toBeNull();
    expect(await roster(workspace.id)).toEqual({ seats: 2, used: 1, members: 1 });
  });

  it('links an account that is a member already to its membership, with no second seat', async () => {
    const workspace = await teamWorkspace(runtime, 5);
    const joined = await joinAs(runtime, workspace, workspace.owner, 'member');
    const before = await roster(workspace.id);
    const { outcome } = await provision(workspace.id, joined.user.email, {}, { userId: joined.user.id, email: joined.user.email });
    expect(outcome).toBe('already_member');
    expect(await roster(workspace.id)).toEqual(before);
    expect(await member(workspace.id, joined.user.id)).toMatchObject({ source: 'invitation' });
  });
});

describe('uniqueness', () => {
  it('refuses a second User with the same userName in another case, or the same externalId, as duplicate', async () => {
    const workspace = await teamWorkspace(runtime, 10);
    const email = newEmail('dup');
    expect((await provision(workspace.id, email, { externalId: 'x-1' })).outcome).toBe('created');
    expect((await provision(workspace.id, email.toUpperCase())).outcome).toBe('duplicate');
    expect((await provision(workspace.id, newEmail('other'), { externalId: 'x-1' })).outcome).toBe('duplicate');
    expect(await store.list(workspace.id)).toHaveLength(1);
    // A refused create takes nothing: only the owner and the first User hold seats.
    expect(await roster(workspace.id)).toMatchObject({ used: 2, members: 2 });
    // Another workspace may have the same userName.
    expect((await provision((await teamWorkspace(runtime, 5)).id, email)).outcome).toBe('created');
  });

  it('refuses a second User for the same account (another userName, the same address) until the first is deleted', async () => {
    const workspace = await teamWorkspace(runtime, 10);
    const who = await account(newEmail('shared'));
    const first = await provision(workspace.id, 'ada', {}, who);
    expect(first.outcome).toBe('created');
    // Two Users would share one membership: deactivating either would end it for both.
    expect((await provision(workspace.id, 'ada.lovelace', {}, who)).outcome).toBe('duplicate');
    expect((await provision(workspace.id, 'ada.inactive', { active: false }, who)).outcome).toBe('duplicate');
    expect(await store.list(workspace.id)).toHaveLength(1);
    expect(await store.delete(workspace.id, first.id, auditRow(workspace.id, 'scim.user_deleted', first.id))).toBe('deleted');
    expect((await provision(workspace.id, 'ada.lovelace', {}, who)).outcome).toBe('created');
  });

  it('makes exactly one of 20 concurrent creates of one userName', async () => {
    const workspace = await teamWorkspace(runtime, 30);
    const email = newEmail('race');
    const who = await account(email);
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => provision(workspace.id, i % 2 ? email.toUpperCase() : email, {}, who)),
    );
    expect(outcomes.filter((made) => made.outcome === 'created')).toHaveLength(1);
    expect(outcomes.filter((made) => made.outcome === 'duplicate')).toHaveLength(19);
    expect(await store.list(workspace.id)).toHaveLength(1);
    expect(await roster(workspace.id)).toMatchObject({ used: 2, members: 2 });
  });
});

describe('seats', () => {
  it('makes all of 100 concurrent creates within 100 free seats', async () => {
    const workspace = await teamWorkspace(runtime, 101);
    const outcomes = await Promise.all(Array.from({ length: 100 }, () => provision(workspace.id, newEmail('bulk'))));
    expect(outcomes.map((made) => made.outcome)).toEqual(Array(100).fill('created'));
    expect(await roster(workspace.id)).toEqual({ seats: 101, used: 101, members: 101 });
  }, 120_000);

  it('makes exactly 10 of 100 concurrent creates with 10 seats left; the others are no_seat and leave nothing', async () => {
    const workspace = await teamWorkspace(runtime, 11);
    const outcomes = await Promise.all(Array.from({ length: 100 }, () => provision(workspace.id, newEmail('bulk'))));
    expect(outcomes.filter((made) => made.outcome === 'created')).toHaveLength(10);
    expect(outcomes.filter((made) => made.outcome === 'no_seat')).toHaveLength(90);
    expect(await roster(workspace.id)).toEqual({ seats: 11, used: 11, members: 11 });
    expect(await store.list(workspace.id)).toHaveLength(10);
  }, 120_000);
});

describe('replace', () => {
  it('deactivating removes the membership and gives the seat back; the User stays, inactive', async () => {
    const workspace = await teamWorkspace(runtime, 2);
    const who = await account();
    const made = now();
    const { id } = await provision(workspace.id, who.email, {}, who, made);
    expect(await roster(workspace.id)).toMatchObject({ used: 2, members: 2 });
    runtime.clock.advance(60);
    const changed = now();
    const outcome = await store.replace(
      workspace.id,
      id,
      attributes(who.email, { active: false }),
      1,
      changed,
      auditRow(workspace.id, 'scim.user_deactivated', id),
    );
    expect(outcome).toBe('replaced');
    expect(await member(workspace.id, who.userId)).toBeNull();
    expect(await roster(workspace.id)).toEqual({ seats: 2, used: 1, members: 1 });
    expect(await store.get(workspace.id, id)).toMatchObject({ active: false, version: 2, lastModified: changed, createdAt: made });
    expect(await auditActions(workspace.id)).toContainEqual({ action: 'scim.user_deactivated', via: 'scim' });
  });

  it('reactivating takes a seat back, and is no_seat when the seats are full', async () => {
    const workspace = await teamWorkspace(runtime, 2);
    const who = await account();
    const { id } = await provision(workspace.id, who.email, { active: false }, who);
    const filler = await provision(workspace.id, newEmail('filler'));
    expect(filler.outcome).toBe('created');
    const reactivate = (version: number) =>
      store.replace(workspace.id, id, attributes(who.email), version, now(), auditRow(workspace.id, 'scim.user_reactivated', id));
    expect(await reactivate(1)).toBe('no_seat');
    expect(await store.get(workspace.id, id)).toMatchObject({ active: false, version: 1 });

    await setWorkspace(runtime, workspace.id, { seats: 3 });
    expect(await reactivate(1)).toBe('replaced');
    expect(await member(workspace.id, who.userId)).toMatchObject({ role: 'member', source: 'scim' });
    expect(await roster(workspace.id)).toEqual({ seats: 3, used: 3, members: 3 });
  });

  it('moves the uniqueness items when userName or externalId change', async () => {
    const workspace = await teamWorkspace(runtime, 5);
    const email = newEmail('mover');
    const { id } = await provision(workspace.id, email, { externalId: 'old-ext' });
    const renamed = newEmail('moved');
    expect(
      await store.replace(
        workspace.id,
        id,
        attributes(renamed, { externalId: 'new-ext' }),
        1,
        now(),
        auditRow(workspace.id, 'scim.user_updated', id),
      ),
    ).toBe('replaced');
    expect((await store.byUserName(workspace.id, renamed))?.id).toBe(id);
    expect(await store.byUserName(workspace.id, email)).toBeNull();
    expect((await store.byExternalId(workspace.id, 'new-ext'))?.id).toBe(id);
    expect(await store.byExternalId(workspace.id, 'old-ext')).toBeNull();
    // The names given up are free again (for another account: this one is the renamed User); the ones taken are not.
    expect((await provision(workspace.id, email, { externalId: 'old-ext' }, await account())).outcome).toBe('created');
    expect((await provision(workspace.id, renamed.toUpperCase(), {}, await account())).outcome).toBe('duplicate');
    // A change of case keeps the User's own item; taking another User's name is duplicate.
    expect(
      await store.replace(
        workspace.id,
        id,
        attributes(renamed.toUpperCase(), { externalId: 'new-ext' }),
        2,
        now(),
        auditRow(workspace.id, 'scim.user_updated', id),
      ),
    ).toBe('replaced');
    expect(
      await store.replace(
        workspace.id,
        id,
        attributes(email, { externalId: 'new-ext' }),
        3,
        now(),
        auditRow(workspace.id, 'scim.user_updated', id),
      ),
    ).toBe('duplicate');
    expect(await store.get(workspace.id, id)).toMatchObject({ userName: renamed.toUpperCase(), version: 3 });
  });

  it('is a conflict when the version is not the one read, or the User is gone; of two racing replaces one wins', async () => {
    const workspace = await teamWorkspace(runtime, 5);
    const email = newEmail('versions');
    const { id } = await provision(workspace.id, email);
    const replace = (displayName: string, version: number) =>
      store.replace(workspace.id, id, attributes(email, { displayName }), version, now(), auditRow(workspace.id, 'scim.user_updated', id));
    expect(await replace('Two', 2)).toBe('conflict');
    const racing = await Promise.all([replace('A', 1), replace('B', 1)]);
    expect(racing.sort()).toEqual(['conflict', 'replaced']);
    expect(await store.get(workspace.id, id)).toMatchObject({ version: 2 });
    expect(
      await store.replace(
        workspace.id,
        'no-such-user',
        attributes(email),
        1,
        now(),
        auditRow(workspace.id, 'scim.user_updated', 'no-such-user'),
      ),
    ).toBe('conflict');
  });

  it('never removes an admin’s membership: privileged', async () => {
    const workspace = await teamWorkspace(runtime, 5);
    const admin = await joinAs(runtime, workspace, workspace.owner, 'admin');
    const { id, outcome } = await provision(workspace.id, admin.user.email, {}, { userId: admin.user.id, email: admin.user.email });
    expect(outcome).toBe('already_member');
    expect(
      await store.replace(
        workspace.id,
        id,
        attributes(admin.user.email, { active: false }),
        1,
        now(),
        auditRow(workspace.id, 'scim.user_deactivated', id),
      ),
    ).toBe('privileged');
    expect(await member(workspace.id, admin.user.id)).toMatchObject({ role: 'admin' });
  });
});

describe('delete', () => {
  it('removes the User, its uniqueness items and its membership, gives the seat back, and keeps the account', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const who = await account();
    const { id } = await provision(workspace.id, who.email, { externalId: 'gone-ext' }, who);
    expect(await store.delete(workspace.id, id, auditRow(workspace.id, 'scim.user_deleted', id))).toBe('deleted');
    expect(await store.get(workspace.id, id)).toBeNull();
    expect(await store.byUserName(workspace.id, who.email)).toBeNull();
    expect(await store.byExternalId(workspace.id, 'gone-ext')).toBeNull();
    expect(await member(workspace.id, who.userId)).toBeNull();
    expect(await roster(workspace.id)).toEqual({ seats: 3, used: 1, members: 1 });
    expect((await accounts.findByEmail(who.email))?.id).toBe(who.userId);
    expect(await auditActions(workspace.id)).toContainEqual({ action: 'scim.user_deleted', via: 'scim' });
    expect(await store.delete(workspace.id, id, auditRow(workspace.id, 'scim.user_deleted', id))).toBe('gone');
    // Its names are free again, and the same account can be provisioned anew.
    expect((await provision(workspace.id, who.email, { externalId: 'gone-ext' }, who)).outcome).toBe('created');
  });

  it('deletes an inactive User without touching the seats', async () => {
    const workspace = await teamWorkspace(runtime, 3);
    const { id } = await provision(workspace.id, newEmail('inactive'), { active: false });
    expect(await store.delete(workspace.id, id, auditRow(workspace.id, 'scim.user_deleted', id))).toBe('deleted');
    expect(await roster(workspace.id)).toEqual({ seats: 3, used: 1, members: 1 });
  });
});
