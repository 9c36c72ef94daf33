import { patchOpSchema, userSchema } from '../../shared/domain/scim/model.ts';
import { world } from './workspaces-world.ts';

// What the SCIM use-case tests share: a User as Okta sends it, a PatchOp, and a directory's
// workspace on the workspace world.

export const oktaUser = (email: string, overrides: Record<string, unknown> = {}) => ({
  schemas: [userSchema],
  userName: email,
  name: { givenName: 'Ana', familyName: 'Tester' },
  emails: [{ value: email, type: 'work', primary: true }],
  displayName: 'Ana Tester',
  active: true,
  ...overrides,
});
export const patch = (...operations: unknown[]) => ({ schemas: [patchOpSchema], Operations: operations });

export async function directory(seats = 20) {
  const w = world();
  const owner = w.person('owner', 'acme.example');
  const id = await w.workspace(owner, { seats });
  const memberOf = (email: string) =>
    [...w.data.members.values()].find((member) => member.workspaceId === id && member.email === email.toLowerCase());
  return { w, owner, id, memberOf };
}
