import { describe, expect, it } from 'vitest';
import { listScimGroups, membersShown } from '../../shared/domain/scim/groupListing.ts';
import type { ScimGroupStore } from '../../shared/domain/scim/groupModel.ts';

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
});
