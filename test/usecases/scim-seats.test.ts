import { describe, expect, it } from 'vitest';
import { Forbidden, Unauthenticated } from '../../shared/domain/refusals.ts';
import { directoryWorkspace } from '../../shared/domain/scim/directoryKey.ts';
import { patchOpSchema, userSchema } from '../../shared/domain/scim/model.ts';
import { createScimUser, deleteScimUser, patchScimUser, readScimUser, replaceScimUser } from '../../shared/domain/scim/users.ts';
import { setSso } from '../../shared/domain/sso/directory.ts';
import { world } from './workspaces-world.ts';

// The directory key, the Team tier and seats as the SCIM use cases meet them (issue 18): only the
// workspace's own key names it; an active User is a member holding a seat, an inactive one none;
// the directory never removes an owner's or an admin's membership; every change is on the trail.

const user = (email: string, overrides: Record<string, unknown> = {}) => ({
  schemas: [userSchema],
  userName: email,
  emails: [{ value: email, type: 'work', primary: true }],
  active: true,
  ...overrides,
});
const active = (value: boolean | 'True' | 'False') => ({
  schemas: [patchOpSchema],
  Operations: [{ op: 'Replace', path: 'active', value }],
});

/** A Team workspace of `seats` with a verified domain and its directory: the key as SCIM clients send it. */
async function directory(seats: number) {
  const w = world();
  const owner = w.person('owner', 'acme.example');
  const id = await w.workspace(owner, { seats });
  await w.verifiedDomain(id, owner, 'acme.example.com');
  const { directoryKey } = await setSso(id, owner.id, { issuer: 'https://acme.okta.com', emailDomain: 'acme.example.com' }, w.ports);
  const members = () => [...w.data.members.values()].filter((member) => member.workspaceId === id);
  const memberFor = (email: string) => members().find((member) => member.email === email.toLowerCase());
  /** The roster agrees with the roll: one seat per member, never more members than seats. */
  const expectConsistent = (count: number) => {
    const roster = w.roster(id);
    expect([roster.members, members().length]).toEqual([count, count]);
    expect(roster.members).toBeLessThanOrEqual(roster.seats);
  };
  return { w, owner, id, authorization: `Bearer ${directoryKey!}`, memberFor, expectConsistent };
}

describe('directoryWorkspace (the directory key)', () => {
  it('names the key’s workspace, the Bearer scheme in any case', async () => {
    const { w, id, authorization } = await directory(3);
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'BeArEr'])
      expect((await directoryWorkspace(authorization.replace('Bearer', scheme), w.ports)).id).toBe(id);
  });

  it('refuses (unauthenticated, directory challenge) no key, no scheme, a malformed, wrong or rotated key, and a session’s token', async () => {
    const { w, owner, id, authorization } = await directory(3);
    const key = authorization.slice(7);
    for (const header of [
      undefined,
      'non-token',
      key,
      `Basic ${Buffer.from(`x:${key}`).toString('base64')}`,
      'Bearer',
      `${authorization} extra`,
      `Bearer hlscim_${'A'.repeat(43)}`,
      'Bearer eyJhbGciOiJFUzI1NiJ9.e30.sig',
    ]) {
      const refused = directoryWorkspace(header, w.ports);
      await expect(refused).rejects.toBeInstanceOf(Unauthenticated);
      await expect(directoryWorkspace(header, w.ports)).rejects.toMatchObject({
        kind: 'unauthenticated',
        code: 'unauthorized',
        challenge: 'directory',
      });
    }
    const { directoryKey } = await setSso(
      id,
      owner.id,
      { issuer: 'https://acme.okta.com', emailDomain: 'acme.example.com', rotateDirectoryKey: true },
      w.ports,
    );
    await expect(directoryWorkspace(authorization, w.ports)).rejects.toMatchObject({ kind: 'unauthenticated' });
    expect((await directoryWorkspace(`Bearer ${directoryKey!}`, w.ports)).id).toBe(id);
  });

  it('needs Team, or an Enterprise contract whatever the subscription says: forbidden on free and pro', async () => {
    const { w, id, authorization } = await directory(3);
    for (const plan of ['free', 'pro'] as const) {
      w.setWorkspace(id, { plan });
      await expect(directoryWorkspace(authorization, w.ports)).rejects.toBeInstanceOf(Forbidden);
    }
    w.data.workspaces.get(id)!.contractPlan = 'enterprise';
    expect((await directoryWorkspace(authorization, w.ports)).plan).toBe('enterprise');
  });

  it('acts on its own workspace only: another workspace’s Users are not found through it, and its userNames are its own', async () => {
    const ours = await directory(5);
    const mine = await createScimUser(ours.id, user('ana@acme.example'), ours.w.ports);
    const otherOwner = ours.w.person('bo');
    const other = await ours.w.workspace(otherOwner);
    await expect(readScimUser(other, mine.id, ours.w.ports)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(patchScimUser(other, mine.id, active(false), ours.w.ports)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(deleteScimUser(other, mine.id, ours.w.ports)).rejects.toMatchObject({ kind: 'not_found' });
    expect((await createScimUser(other, user('ana@acme.example'), ours.w.ports)).id).not.toBe(mine.id);
    expect((await readScimUser(ours.id, mine.id, ours.w.ports)).active).toBe(true);
  });
});

describe('seats', () => {
  it('an active User takes one, an inactive one none; deactivating frees it and reactivating needs a free one', async () => {
    const { w, id, memberFor, expectConsistent } = await directory(3);
    const a = await createScimUser(id, user('a@acme.example'), w.ports);
    const b = await createScimUser(id, user('b@acme.example'), w.ports);
    expectConsistent(3);
    // Full: an active User is refused (forbidden), and nothing of it is kept.
    const full = createScimUser(id, user('c@acme.example'), w.ports);
    await expect(full).rejects.toBeInstanceOf(Forbidden);
    await expect(createScimUser(id, user('c@acme.example'), w.ports)).rejects.toMatchObject({ kind: 'forbidden', code: 'forbidden' });
    expect(await w.ports.scimUsers.byUserName(id, 'c@acme.example')).toBeNull();
    // An inactive one takes no seat, and cannot be activated while none is free.
    const d = await createScimUser(id, user('d@acme.example', { active: false }), w.ports);
    expect(memberFor('d@acme.example')).toBeUndefined();
    for (const body of [active(true), active('True')])
      await expect(patchScimUser(id, d.id, body, w.ports)).rejects.toBeInstanceOf(Forbidden);
    expectConsistent(3);
    // A deactivated by PUT frees its seat; D takes it; A cannot come back.
    expect((await replaceScimUser(id, a.id, user('a@acme.example', { active: false }), w.ports)).active).toBe(false);
    expectConsistent(2);
    expect((await patchScimUser(id, d.id, active('True'), w.ports)).active).toBe(true);
    expect(memberFor('d@acme.example')).toMatchObject({ role: 'member', source: 'scim' });
    await expect(patchScimUser(id, a.id, active(true), w.ports)).rejects.toBeInstanceOf(Forbidden);
    expect((await readScimUser(id, a.id, w.ports)).active).toBe(false);
    // B leaves (Entra's disable), and A is back.
    await patchScimUser(id, b.id, active('False'), w.ports);
    expect((await patchScimUser(id, a.id, active(true), w.ports)).active).toBe(true);
    expectConsistent(3);
    // A PUT without `active` keeps the User as it is: no seat taken by surprise.
    const { active: _active, ...withoutActive } = user('b@acme.example');
    expect((await replaceScimUser(id, b.id, withoutActive, w.ports)).active).toBe(false);
    expectConsistent(3);
  });
});

describe('memberships the directory did not make', () => {
  it('links the owner’s and an admin’s address with no second seat, and never removes them (forbidden); other changes are the directory’s', async () => {
    const { w, owner, id, memberFor, expectConsistent } = await directory(5);
    const admin = await w.join(id, owner, 'admin', w.person('admin', 'acme.example'));
    expectConsistent(2);
    for (const [person, role, source] of [
      [owner, 'owner', 'owner'],
      [admin, 'admin', 'invitation'],
    ] as const) {
      const linked = await createScimUser(id, user(person.email), w.ports);
      expect(linked.active).toBe(true);
      expectConsistent(2);
      for (const change of [
        () => patchScimUser(id, linked.id, active(false), w.ports),
        () => patchScimUser(id, linked.id, active('False'), w.ports),
        () => replaceScimUser(id, linked.id, user(person.email, { active: false }), w.ports),
        () => deleteScimUser(id, linked.id, w.ports),
      ]) {
        await expect(change()).rejects.toBeInstanceOf(Forbidden);
      }
      expect((await readScimUser(id, linked.id, w.ports)).active).toBe(true);
      expect(memberFor(person.email)).toMatchObject({ userId: person.id, role, source });
      expect(
        (
          await patchScimUser(
            id,
            linked.id,
            { schemas: [patchOpSchema], Operations: [{ op: 'replace', path: 'displayName', value: 'Still here' }] },
            w.ports,
          )
        ).displayName,
      ).toBe('Still here');
    }
    expectConsistent(2);
  });

  it('links an invited member’s address with no second seat; deactivating removes that membership, reactivating makes it the directory’s', async () => {
    const { w, owner, id, memberFor, expectConsistent } = await directory(5);
    const member = await w.join(id, owner, 'member', w.person('member', 'acme.example'));
    const linked = await createScimUser(id, user(member.email), w.ports);
    expectConsistent(2);
    expect(memberFor(member.email)).toMatchObject({ userId: member.id, source: 'invitation' });
    await patchScimUser(id, linked.id, active(false), w.ports);
    expect(memberFor(member.email)).toBeUndefined();
    expectConsistent(1);
    await patchScimUser(id, linked.id, active(true), w.ports);
    expect(memberFor(member.email)).toMatchObject({ userId: member.id, role: 'member', source: 'scim' });
    expectConsistent(2);
  });
});

describe('the audit trail', () => {
  it('shows a User’s life, each change via scim, and nothing of a refused change', async () => {
    const { w, id } = await directory(2);
    const step = () => w.clock.advance(1);
    const ana = await createScimUser(id, user('life@acme.example'), w.ports);
    step();
    await expect(createScimUser(id, user('LIFE@acme.example'), w.ports)).rejects.toMatchObject({ facts: { scimType: 'uniqueness' } });
    await expect(
      patchScimUser(id, ana.id, { schemas: [patchOpSchema], Operations: [{ op: 'move', path: 'displayName', value: 'x' }] }, w.ports),
    ).rejects.toMatchObject({ kind: 'invalid' });
    await patchScimUser(
      id,
      ana.id,
      { schemas: [patchOpSchema], Operations: [{ op: 'Replace', path: 'name.givenName', value: 'Renamed' }] },
      w.ports,
    );
    step();
    await patchScimUser(id, ana.id, active(false), w.ports);
    step();
    const other = await createScimUser(id, user('other@acme.example'), w.ports);
    step();
    await expect(patchScimUser(id, ana.id, active(true), w.ports)).rejects.toBeInstanceOf(Forbidden);
    await deleteScimUser(id, other.id, w.ports);
    step();
    await patchScimUser(id, ana.id, active(true), w.ports);
    step();
    await deleteScimUser(id, ana.id, w.ports);
    const rows = (await w.ports.workspaces.auditPage(id, 100, null)).items.filter((row) => row.action.startsWith('scim.')).reverse();
    expect(rows.map((row) => [row.action, row.details.scim_id, row.details.active])).toEqual([
      ['scim.user_created', ana.id, true],
      ['scim.user_updated', ana.id, true],
      ['scim.user_deactivated', ana.id, false],
      ['scim.user_created', other.id, true],
      ['scim.user_deleted', other.id, true],
      ['scim.user_reactivated', ana.id, true],
      ['scim.user_deleted', ana.id, true],
    ]);
    for (const row of rows) expect(row.actor).toEqual({ userId: null, email: null, via: 'scim' });
    expect(
      rows
        .filter((row) => row.details.scim_id === ana.id)
        .every((row) => row.target === ana.userId && row.details.user_name === 'life@acme.example'),
    ).toBe(true);
  });
});
