import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Invalid } from '../../shared/domain/refusals.ts';
import { applyGroupPatch, parseGroupBody } from '../../shared/domain/scim/groupBody.ts';
import { parseGroupFilter } from '../../shared/domain/scim/groupListing.ts';
import { createScimGroup, deleteScimGroup, patchScimGroup, replaceScimGroup } from '../../shared/domain/scim/groups.ts';
import type { ScimUser } from '../../shared/domain/scim/model.ts';
import { createScimUser, deleteScimUser, patchScimUser } from '../../shared/domain/scim/users.ts';
import { setPolicy } from '../../shared/domain/workspaces/settings.ts';
import { MemoryScimGroupStore } from '../fakes/scimGroupStore.ts';
import { propertyRuns } from '../support/property/suite.ts';
import { directory, oktaUser, patch } from '../usecases/scim-world.ts';

// Groups (issue 30) under generated input, on the fakes (the HTTP property suite of the scim
// group, test/property/scim.test.ts, sends generated requests to the Groups routes too):
// - whatever a body or a PATCH is, reading it is a Group or a 400 (Invalid), never another error;
// - whatever a sequence of directory changes and policy namings, every member's role is what
//   the admin Group says (admin inside it, member outside), owners stay owners, and no seat moves.

const runs = Math.max(50, Math.floor(propertyRuns() / 10));

const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constantFrom(null, true, false, 0, -1, 1.5, '', 'members', 'displayName', 'value', 'scu_x', '[value eq "x"]'),
    fc.string({ maxLength: 12 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.constantFrom('op', 'path', 'value', 'Operations', 'displayName', 'members', 'externalId', 'schemas', 'id', 'Op'),
      tie('value'),
      {
        maxKeys: 5,
      },
    ),
  ),
})).value;

const op = fc.record({
  op: fc.constantFrom('add', 'Add', 'remove', 'Remove', 'replace', 'Replace', 'move'),
  path: fc.option(
    fc.constantFrom(
      'members',
      'displayName',
      'externalId',
      'members[value eq "scu_a"]',
      'members[display eq "x"]',
      'urn:ietf:params:scim:schemas:core:2.0:Group:displayName',
      'meta',
      'id',
      'emails',
    ),
    { nil: undefined },
  ),
  value: json,
});

describe('reading Group bodies and PATCHes', () => {
  it('is a Group or Invalid, never another error', () => {
    fc.assert(
      fc.property(json, (body) => {
        try {
          const group = parseGroupBody(body);
          expect(typeof group.displayName).toBe('string');
        } catch (error) {
          expect(error).toBeInstanceOf(Invalid);
        }
      }),
      { numRuns: runs },
    );
    fc.assert(
      fc.property(
        fc.oneof(
          json,
          fc.array(op, { minLength: 1, maxLength: 5 }).map((Operations) => ({ Operations })),
        ),
        (body) => {
          const current = { displayName: 'G', members: ['scu_a', 'scu_b'] };
          try {
            const next = applyGroupPatch(current, body);
            expect(new Set(next.members).size).toBe(next.members.length);
            expect(next.displayName.trim()).not.toBe('');
          } catch (error) {
            expect(error).toBeInstanceOf(Invalid);
          }
          expect(current.members).toEqual(['scu_a', 'scu_b']);
        },
      ),
      { numRuns: runs },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (text) => {
        try {
          const filter = parseGroupFilter(text);
          expect(['displayName', 'externalId']).toContain(filter.attribute);
        } catch (error) {
          expect(error).toBeInstanceOf(Invalid);
        }
      }),
      { numRuns: runs },
    );
  });
});

type Step =
  | { kind: 'add' | 'remove'; group: number; users: number[] }
  | { kind: 'replace'; group: number; users: number[] }
  | { kind: 'delete' | 'recreate'; group: number }
  | { kind: 'name'; group: number | null }
  | { kind: 'deactivate' | 'reactivate' | 'deleteUser'; user: number };

const users = fc.uniqueArray(fc.nat({ max: 5 }), { minLength: 1, maxLength: 3 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom('add' as const, 'remove' as const, 'replace' as const), group: fc.nat({ max: 1 }), users }),
  fc.record({ kind: fc.constantFrom('delete' as const, 'recreate' as const), group: fc.nat({ max: 1 }) }),
  fc.record({ kind: fc.constant('name' as const), group: fc.option(fc.nat({ max: 1 }), { nil: null }) }),
  fc.record({ kind: fc.constantFrom('deactivate' as const, 'reactivate' as const, 'deleteUser' as const), user: fc.nat({ max: 5 }) }),
);

describe('roles from the admin Group', () => {
  it('are what the admin Group says after any sequence of changes, owners and seats untouched', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), fc.nat({ max: 3 }), async (steps, conflicts) => {
        const d = await directory(20);
        const scimGroups = new MemoryScimGroupStore(d.w.data);
        const ports = { ...d.w.ports, scimGroups };
        const workspacePorts = { ...d.w.ports, scimAdminRoles: { scimGroups, scimUsers: d.w.ports.scimUsers } };
        const people: ScimUser[] = [];
        for (let i = 0; i < 6; i++) people.push(await createScimUser(d.id, oktaUser(`p${i}@acme.example`), ports));
        const groups: (string | null)[] = [];
        for (let i = 0; i < 2; i++) groups.push((await createScimGroup(d.id, { displayName: `G${i}` }, ports)).id);
        const seats = d.w.roster(d.id);
        const gone = new Set<number>();
        const values = (list: number[]) => list.filter((i) => !gone.has(i)).map((i) => ({ value: people[i]!.id }));
        scimGroups.conflicts = conflicts;
        for (const each of steps) {
          const id = 'group' in each && each.group !== null ? groups[each.group] : null;
          if (each.kind === 'add' || each.kind === 'remove') {
            if (!id) continue;
            const operations =
              each.kind === 'add'
                ? [{ op: 'add', path: 'members', value: values(each.users) }]
                : values(each.users).map((member) => ({ op: 'remove', path: `members[value eq "${member.value}"]` }));
            if (operations.length > 0) await patchScimGroup(d.id, id, patch(...operations), ports);
          } else if (each.kind === 'replace') {
            if (id) await replaceScimGroup(d.id, id, { displayName: `G${each.group}`, members: values(each.users) }, ports);
          } else if (each.kind === 'delete') {
            if (id) await deleteScimGroup(d.id, id, ports);
            groups[each.group] = null;
          } else if (each.kind === 'recreate') {
            if (!id) groups[each.group] = (await createScimGroup(d.id, { displayName: `G${each.group}` }, ports)).id;
          } else if (each.kind === 'name') {
            const named = each.group === null ? null : groups[each.group];
            if (each.group === null || named) await setPolicy(d.id, d.owner.id, { scimAdminGroup: named ?? null }, workspacePorts);
          } else if ((each.kind === 'deactivate' || each.kind === 'reactivate' || each.kind === 'deleteUser') && !gone.has(each.user)) {
            const person = people[each.user]!;
            if (each.kind === 'deleteUser') {
              await deleteScimUser(d.id, person.id, ports);
              gone.add(each.user);
            } else {
              const active = each.kind === 'reactivate';
              await patchScimUser(d.id, person.id, patch({ op: 'replace', path: 'active', value: active }), ports);
            }
          }
        }
        const adminGroupId = await scimGroups.adminGroupOf(d.id);
        const adminGroup = adminGroupId === null ? null : await scimGroups.get(d.id, adminGroupId);
        for (const [index, person] of people.entries()) {
          const role = d.w.roleOf(d.id, person.userId);
          const user = await d.w.ports.scimUsers.get(d.id, person.id);
          if (!user?.active) {
            expect(role, `p${index}`).toBeNull();
            continue;
          }
          expect(role, `p${index}`).toBe(adminGroup?.members.includes(person.id) ? 'admin' : 'member');
        }
        // A deleted User is in no Group.
        for (const index of gone) for (const group of scimGroups.groups.values()) expect(group.members).not.toContain(people[index]!.id);
        expect(d.w.roleOf(d.id, d.owner.id)).toBe('owner');
        // Seats move with Users' activity alone: the owner and the active Users, whatever the Groups did.
        let active = 0;
        for (const person of people) if ((await d.w.ports.scimUsers.get(d.id, person.id))?.active) active++;
        expect(d.w.roster(d.id)).toMatchObject({ seats: seats.seats, members: 1 + active });
      }),
      { numRuns: runs },
    );
  });
});
