import { describe, expect, it } from 'vitest';
import type { Session } from '../../shared/domain/accounts/model.ts';
import { newSessionId } from '../../shared/ids.ts';
import { patchScimUser, createScimUser, deleteScimUser } from '../../shared/domain/scim/users.ts';
import { directory, oktaUser, patch } from './scim-world.ts';

// A User the directory deactivates or deletes loses the sessions its workspace's single sign-on
// opened (issue 29), and only those: a session opened by an emailed code, or through another
// workspace's sign-in, stays. On the fakes; the same end to end: test/integration/sso-signin.test.ts.

const session = (userId: string, at: number, sso?: string): Session => ({
  id: newSessionId(),
  userId,
  deviceName: 'Firefox on Linux',
  createdAt: at,
  lastUsedAt: at,
  refreshHash: 'hash',
  rotatedHashes: [],
  refreshExpiresAt: at + 30 * 86_400_000,
  ...(sso ? { sso: { workspaceId: sso } } : {}),
});

describe('SCIM and single sign-on sessions', () => {
  it.each([
    ['deactivated (PATCH active false)', 'deactivate'],
    ['deleted', 'delete'],
  ] as const)('a User %s loses the sessions this workspace’s SSO opened, and keeps the others', async (_, how) => {
    const { w, id } = await directory();
    const user = await createScimUser(id, oktaUser('ivy@acme.example'), w.ports);
    const now = w.clock.now();
    const [throughSso, byCode, otherWorkspace] = [
      session(user.userId, now, id),
      session(user.userId, now),
      session(user.userId, now, 'wks_other'),
    ];
    for (const made of [throughSso, byCode, otherWorkspace]) await w.ports.sessions.insert(made);
    const someoneElse = session('usr_someone_else', now, id);
    await w.ports.sessions.insert(someoneElse);

    if (how === 'deactivate') await patchScimUser(id, user.id, patch({ op: 'replace', path: 'active', value: false }), w.ports);
    else await deleteScimUser(id, user.id, w.ports);

    const revoked = async (made: Session) => (await w.ports.sessions.get(made.id))?.revokedAt !== undefined;
    expect(await revoked(throughSso)).toBe(true);
    expect(await revoked(byCode)).toBe(false);
    expect(await revoked(otherWorkspace)).toBe(false);
    expect(await revoked(someoneElse)).toBe(false);
  });

  it('keeps them through a change that does not deactivate', async () => {
    const { w, id } = await directory();
    const user = await createScimUser(id, oktaUser('joe@acme.example'), w.ports);
    const throughSso = session(user.userId, w.clock.now(), id);
    await w.ports.sessions.insert(throughSso);
    await patchScimUser(id, user.id, patch({ op: 'replace', path: 'displayName', value: 'Joe' }), w.ports);
    expect((await w.ports.sessions.get(throughSso.id))?.revokedAt).toBeUndefined();
  });
});
