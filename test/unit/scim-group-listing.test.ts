import { describe, expect, it } from 'vitest';
import { listScimGroups, membersPerPage, membersShown } from '../../shared/domain/scim/groupListing.ts';
import type { ScimGroup, ScimGroupStore } from '../../shared/domain/scim/groupModel.ts';

describe('GET /Groups (issue 30)', () => {
  it('shows members unless excluded, or unless attributes names others only (members.value names them)', () => {
    expect(membersShown('')).toBe(true);
    expect(membersShown('excludedAttributes=members')).toBe(false);
    expect(membersShown('attributes=displayName')).toBe(false);
    expect(membersShown('attributes=displayName,members')).toBe(true);
    expect(membersShown('attributes=members.value')).toBe(true);
    expect(membersShown('attributes=membersx')).toBe(false);
  });

  it('reads no key for a displayName whose folded form is past a key’s size (İ folds to two characters)', async () => {
    const asked: string[] = [];
    const store = {
      byDisplayName: async (_workspace: string, name: string) => {
        asked.push(name);
        return null;
      },
    } as unknown as ScimGroupStore;
    const wide = 'İ'.repeat(500); // 1,000 bytes as sent, 1,500 folded
    const page = await listScimGroups('w1', `filter=${encodeURIComponent(`displayName eq "${wide}"`)}`, { scimGroups: store });
    expect(page).toMatchObject({ groups: [], totalResults: 0 });
    expect(asked).toEqual([]);
    await listScimGroups('w1', `filter=${encodeURIComponent('displayName eq "Admins"')}`, { scimGroups: store });
    expect(asked).toEqual(['Admins']);
  });

  it('answers fewer Groups than count when their members would pass a Lambda’s 6 MB answer; without members, count', async () => {
    const group = (id: string, size: number) => ({ id, members: Array.from({ length: size }, (_, i) => `u${i}`) }) as unknown as ScimGroup;
    const groups = [group('g1', 5000), group('g2', 5000), group('g3', 5000), group('g4', 5000), group('g5', 5000), group('g6', 1)];
    const store = { page: async () => ({ groups, totalResults: 6 }) } as unknown as ScimGroupStore;
    const full = await listScimGroups('w1', 'startIndex=1&count=6', { scimGroups: store });
    expect(full.groups.map((g) => g.id)).toEqual(['g1', 'g2', 'g3', 'g4']);
    expect(full).toMatchObject({ itemsPerPage: 4, totalResults: 6, startIndex: 1 });
    expect(full.groups.reduce((sum, g) => sum + g.members.length, 0)).toBeLessThanOrEqual(membersPerPage);
    const bare = await listScimGroups('w1', 'startIndex=1&count=6&excludedAttributes=members', { scimGroups: store });
    expect(bare.itemsPerPage).toBe(6);
    // One Group larger than a page's share is answered whole.
    const huge = { page: async () => ({ groups: [group('big', membersPerPage + 1)], totalResults: 1 }) } as unknown as ScimGroupStore;
    expect((await listScimGroups('w1', '', { scimGroups: huge })).itemsPerPage).toBe(1);
  });
});
