import { beforeEach, describe, expect, it } from 'vitest';
import type { SecretStore } from '../../shared/domain/secrets/ports.ts';
import { fileLimits } from '../../shared/limits.ts';
import { aLink, aPendingFile, aSecret, event, hour, minute, t0, type MakeSecretStores } from './secretFixtures.ts';

const stale = t0 + fileLimits.staleUploadSeconds * 1000;
const revoke = (now: number) => ({ state: 'revoked' as const, now, event: event('secret.revoked', now), tombstoneUntil: now + hour });

/**
 * The SecretStore contract, continued: the work the sweeps find (expiry, stale uploads, purges),
 * a file's activation, and an owner's listing. `make` must give an empty store: the work
 * indexes are the whole table's.
 */
export function describeSecretWorkContract(name: string, make: MakeSecretStores): void {
  describe(`SecretStore contract (work indexes, files, listing): ${name}`, () => {
    let secrets: SecretStore;
    beforeEach(async () => {
      ({ secrets } = await make());
    });

    it('finds active secrets due for expiry, oldest first, at most `limit`, the instant of expiry included', async () => {
      const [late, early, later] = [
        aSecret({ expiresAt: t0 + 2 * hour }),
        aSecret({ expiresAt: t0 + hour }),
        aSecret({ expiresAt: t0 + 3 * hour }),
      ];
      for (const secret of [late, early, later, aPendingFile()]) await secrets.insert(secret);
      expect(await secrets.dueForExpiry(t0 + hour - 1, 10)).toEqual([]);
      expect(await secrets.dueForExpiry(t0 + 2 * hour, 10)).toEqual([early.id, late.id]);
      expect(await secrets.dueForExpiry(t0 + 5 * hour, 2)).toEqual([early.id, late.id]);
      await secrets.end(early.id, revoke(t0));
      expect(await secrets.dueForExpiry(t0 + 5 * hour, 10)).toEqual([late.id, later.id]);
    });

    it('finds uploads gone stale, oldest first; an activated file leaves them for the expiry index', async () => {
      const [older, newer] = [aPendingFile('up-1', { createdAt: t0 - minute }), aPendingFile('up-2')];
      for (const secret of [newer, older, aSecret()]) await secrets.insert(secret);
      expect(await secrets.staleUploads(stale - minute - 1, 10)).toEqual([]);
      expect(await secrets.staleUploads(stale, 10)).toEqual([older.id, newer.id]);
      expect(await secrets.staleUploads(stale, 1)).toEqual([older.id]);
      expect(await secrets.activateFile(newer.id, 'up-2', undefined)).toBe(true);
      expect(await secrets.staleUploads(stale, 10)).toEqual([older.id]);
      expect(await secrets.dueForExpiry(newer.expiresAt, 10)).toContain(newer.id);
    });

    it('moves a completion to the sweep: off the stale uploads, due at once, taken up by one try at a time', async () => {
      const [file, other] = [aPendingFile('up-1'), aPendingFile('up-2')];
      for (const secret of [file, other, aSecret()]) await secrets.insert(secret);
      expect(await secrets.markCompleting(file.id, 'up-other', t0)).toBe(false);
      expect(await secrets.markCompleting(file.id, 'up-1', t0)).toBe(true);
      // Asked again (a client's retry): it is completing already.
      expect(await secrets.markCompleting(file.id, 'up-1', t0 + 1)).toBe(false);
      expect((await secrets.get(file.id))!.upload!.completion).toEqual({ since: t0, attempts: 0 });
      expect(await secrets.staleUploads(stale, 10)).toEqual([other.id]);
      expect(await secrets.dueCompletions(t0 - 1, 10)).toEqual([]);
      expect(await secrets.dueCompletions(t0, 10)).toEqual([file.id]);

      const tries = await Promise.all([1, 2, 3].map(() => secrets.leaseCompletion(file.id, 0, t0 + 16 * minute)));
      expect(tries.filter(Boolean)).toHaveLength(1);
      expect((await secrets.get(file.id))!.upload!.completion).toEqual({ since: t0, attempts: 1 });
      expect(await secrets.dueCompletions(t0 + 16 * minute - 1, 10)).toEqual([]);
      expect(await secrets.dueCompletions(t0 + 16 * minute, 10)).toEqual([file.id]);
      expect(await secrets.leaseCompletion(file.id, 1, t0 + 32 * minute)).toBe(true);
      // A failed try asks to be taken up sooner; a stale ask (another try took it up since) changes nothing.
      await secrets.retryCompletion(file.id, 1, t0 + 20 * minute);
      expect(await secrets.dueCompletions(t0 + 20 * minute, 10)).toEqual([]);
      await secrets.retryCompletion(file.id, 2, t0 + 20 * minute);
      expect(await secrets.dueCompletions(t0 + 20 * minute, 10)).toEqual([file.id]);

      // Activated, it leaves the completions for the expiry index; an ended one is taken up no more.
      expect(await secrets.activateFile(file.id, 'up-1', undefined)).toBe(true);
      expect(await secrets.dueCompletions(t0 + hour, 10)).toEqual([]);
      expect(await secrets.leaseCompletion(file.id, 2, t0 + hour)).toBe(false);
      expect(await secrets.markCompleting(other.id, 'up-2', t0)).toBe(true);
      await secrets.end(other.id, revoke(t0));
      expect(await secrets.leaseCompletion(other.id, 0, t0 + hour)).toBe(false);
      expect(await secrets.markCompleting('sec_none', 'up-1', t0)).toBe(false);
    });

    describe('activateFile', () => {
      it('makes a file pending under that upload active, with its header’s parameters, once', async () => {
        const file = aPendingFile('up-1');
        await secrets.insert(file);
        expect(await secrets.activateFile(file.id, 'up-other', undefined)).toBe(false);
        expect(await secrets.activateFile(file.id, 'up-1', { passphrase: true, kdfIterations: 600_000 })).toBe(true);
        expect(await secrets.get(file.id)).toEqual({
          ...file,
          state: 'active',
          envelopeFormat: { passphrase: true, kdfIterations: 600_000 },
        });
        expect(await secrets.activateFile(file.id, 'up-1', undefined)).toBe(false);
      });

      it('refuses a file that was ended first, a secret without an upload, an unknown id; of two racing, one lands', async () => {
        const [ended, racing, text] = [aPendingFile('up-1'), aPendingFile('up-2'), aSecret()];
        for (const secret of [ended, racing, text]) await secrets.insert(secret);
        await secrets.end(ended.id, revoke(t0));
        expect(await secrets.activateFile(ended.id, 'up-1', undefined)).toBe(false);
        expect(await secrets.activateFile(text.id, 'up-1', undefined)).toBe(false);
        expect(await secrets.activateFile('sec_none', 'up-1', undefined)).toBe(false);
        const results = await Promise.all([
          secrets.activateFile(racing.id, 'up-2', undefined),
          secrets.activateFile(racing.id, 'up-2', undefined),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    it('puts an ended file on the purge index until it is purged', async () => {
      const file = aPendingFile('up-1');
      await secrets.insert(file);
      await secrets.end(file.id, revoke(t0));
      await secrets.schedulePurge(file.id, t0 + hour);
      expect(await secrets.duePurges(t0 + hour - 1, 10)).toEqual([]);
      expect(await secrets.duePurges(t0 + hour, 10)).toEqual([file.id]);
      await secrets.purged(file.id);
      expect(await secrets.duePurges(t0 + 2 * hour, 10)).toEqual([]);
      await expect(secrets.schedulePurge('sec_none', t0)).rejects.toThrow();
    });

    it('takes a purge of a secret that is gone (its tombstone expired meanwhile) as done: nothing is written', async () => {
      const file = aPendingFile('up-gone');
      await secrets.purged(file.id);
      await secrets.purged(file.id);
      expect(await secrets.get(file.id)).toBeNull();
      // Still nothing there to insert over.
      await secrets.insert(file);
      expect((await secrets.get(file.id))?.id).toBe(file.id);
    });

    describe('listForOwner', () => {
      it('lists an owner’s secrets newest first, ended ones too, without payload, links, token hashes or events', async () => {
        const first = aSecret({
          ownerId: 'usr_a',
          createdAt: t0,
          workspaceId: 'wks_1',
          recipients: [aLink()],
          claimVerifier: 'cv',
          notBefore: t0,
          envelopeFormat: { passphrase: false, kdfIterations: 0 },
        });
        const second = aSecret({ ownerId: 'usr_a', createdAt: t0 + 1 });
        for (const secret of [first, second, aSecret({ ownerId: 'usr_b' }), aSecret()]) await secrets.insert(secret);
        await secrets.end(second.id, revoke(t0 + 2));
        const { items, nextCursor } = await secrets.listForOwner('usr_a', 10, null);
        expect(nextCursor).toBeNull();
        expect(items.map((item) => item.id)).toEqual([second.id, first.id]);
        expect(items[1]).toEqual({
          id: first.id,
          ownerId: 'usr_a',
          state: 'active',
          kind: 'text',
          salt: first.salt,
          sizeBytes: first.sizeBytes,
          maxViews: 1,
          viewsLeft: 1,
          createdAt: t0,
          expiresAt: first.expiresAt,
          notBefore: t0,
          claimVerifier: 'cv',
          envelopeFormat: { passphrase: false, kdfIterations: 0 },
          deleteTokenHash: '',
          refusedProofs: 0,
          deniedEvents: 0,
          emitted: [],
        });
        expect(items[0]).toMatchObject({ state: 'revoked', endedAt: t0 + 2 });
      });

      it('pages with opaque cursors, and gives none after a last page that is full', async () => {
        const made = Array.from({ length: 5 }, (_, i) => aSecret({ ownerId: 'usr_pages', createdAt: t0 + i }));
        for (const secret of made) await secrets.insert(secret);
        const first = await secrets.listForOwner('usr_pages', 2, null);
        const second = await secrets.listForOwner('usr_pages', 2, first.nextCursor);
        const third = await secrets.listForOwner('usr_pages', 1, second.nextCursor);
        expect([...first.items, ...second.items, ...third.items].map((item) => item.id)).toEqual(made.map((secret) => secret.id).reverse());
        expect(third.nextCursor).toBeNull();
        expect(await secrets.listForOwner('usr_nobody', 2, null)).toEqual({ items: [], nextCursor: null });
      });

      it('refuses a cursor it did not give, or gave for another owner, as InvalidCursor', async () => {
        for (let i = 0; i < 3; i++) await secrets.insert(aSecret({ ownerId: 'usr_a', createdAt: t0 + i }));
        const { nextCursor } = await secrets.listForOwner('usr_a', 1, null);
        await expect(secrets.listForOwner('usr_b', 1, nextCursor)).rejects.toMatchObject({ name: 'InvalidCursor' });
        await expect(secrets.listForOwner('usr_a', 1, 'not-a-cursor')).rejects.toMatchObject({ name: 'InvalidCursor' });
        await expect(secrets.listForOwner('usr_a', 1, `${nextCursor}!`)).rejects.toMatchObject({ name: 'InvalidCursor' });
      });
    });
  });
}
