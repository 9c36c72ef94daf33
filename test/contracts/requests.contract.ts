import { beforeEach, describe, expect, it } from 'vitest';
import { keepUntil, type RequestLink, type SealedResponse } from '../../shared/domain/requests/model.ts';
import type { RequestStore } from '../../shared/domain/requests/ports.ts';
import type { SecretStore } from '../../shared/domain/secrets/ports.ts';
import { newRequestLinkId, newResponseId, newUserId } from '../../shared/ids.ts';
import { aPendingFile, hour, t0 } from './secretFixtures.ts';

/** What the requests contract runs against: the store, and the secret store of the same table (file responses activate secrets). */
export interface RequestStores {
  requests: RequestStore;
  secrets: SecretStore;
}

const aLink = (ownerId: string, overrides: Partial<RequestLink> = {}): RequestLink => ({
  id: newRequestLinkId(),
  ownerId,
  publicKey: 'cHVibGljLWtleQ',
  kem: 'x25519',
  promptEnvelope: new Uint8Array([5, 6, 7]),
  createdAt: t0,
  expiresAt: t0 + 24 * hour,
  maxResponses: 2,
  responsesLeft: 2,
  closedAt: null,
  ...overrides,
});

const aResponse = (
  requestId: string,
  createdAt = t0,
  sealed: SealedResponse['sealed'] = { kind: 'text', envelope: new Uint8Array([1, 2]) },
): SealedResponse => ({
  id: newResponseId(),
  requestId,
  createdAt,
  salt: 'salt',
  sizeBytes: 2,
  enc: 'enc',
  wrappedKey: 'wrapped',
  sealed,
});

const keep = t0 + 60 * 24 * hour;

/** The RequestStore port's contract: links, their owner's listing, and responses counted and stored together. */
export function describeRequestStoreContract(name: string, make: () => RequestStores | Promise<RequestStores>): void {
  describe(`RequestStore contract: ${name}`, () => {
    let requests: RequestStore;
    let secrets: SecretStore;
    let owner: string;
    beforeEach(async () => {
      ({ requests, secrets } = await make());
      owner = newUserId();
    });

    it('keeps a link as given, once per id', async () => {
      const link = aLink(owner, { workspaceId: 'wks_1', linkHost: { domainId: 'dom_1', hostname: 'share.example.com' } });
      const bare = aLink(owner, { promptEnvelope: null });
      await requests.insert(link, keepUntil(link));
      await requests.insert(bare, keepUntil(bare));
      expect(await requests.get(link.id)).toEqual(link);
      expect(await requests.get(bare.id)).toEqual(bare);
      await expect(requests.insert({ ...aLink(owner), id: link.id }, keepUntil(link))).rejects.toThrow();
      expect(await requests.get('rql_none')).toBeNull();
    });

    it('lists an owner’s links newest first, as summaries, in pages', async () => {
      const made = Array.from({ length: 3 }, (_, i) => aLink(owner, { createdAt: t0 + i }));
      for (const link of [...made, aLink(newUserId())]) await requests.insert(link, keepUntil(link));
      const first = await requests.listByOwner(owner, 2, null);
      const second = await requests.listByOwner(owner, 2, first.nextCursor);
      expect(second.nextCursor).toBeNull();
      const { id, ownerId, createdAt, expiresAt, maxResponses, responsesLeft, closedAt } = made[2]!;
      expect(first.items[0]).toEqual({ id, ownerId, createdAt, expiresAt, maxResponses, responsesLeft, closedAt });
      expect([...first.items, ...second.items].map((item) => item.id)).toEqual(made.map((link) => link.id).reverse());
      await expect(requests.listByOwner(newUserId(), 2, first.nextCursor)).rejects.toMatchObject({ name: 'InvalidCursor' });
    });

    it('closes the owner’s link only, keeping the time it first closed', async () => {
      const link = aLink(owner);
      await requests.insert(link, keepUntil(link));
      expect(await requests.close(link.id, newUserId(), t0 + 1)).toBe(false);
      expect(await requests.close(link.id, owner, t0 + 2)).toBe(true);
      expect(await requests.close(link.id, owner, t0 + 3)).toBe(true);
      expect((await requests.get(link.id))?.closedAt).toBe(t0 + 2);
      expect((await requests.listByOwner(owner, 1, null)).items[0]?.closedAt).toBe(t0 + 2);
      expect(await requests.close('rql_none', owner, t0)).toBe(false);
    });

    it('takes a response while the link is open, counting it; the inbox lists them newest first', async () => {
      const link = aLink(owner);
      await requests.insert(link, keepUntil(link));
      const [older, newer] = [aResponse(link.id, t0 + 1), aResponse(link.id, t0 + 2)];
      expect(await requests.addResponse(older, keep, t0 + 1)).toBe('added');
      expect(await requests.addResponse(newer, keep, t0 + 2)).toBe('added');
      expect((await requests.get(link.id))?.responsesLeft).toBe(0);
      expect(await requests.inbox(link.id, 10, null)).toEqual({ items: [newer, older], nextCursor: null });
      const page = await requests.inbox(link.id, 1, null);
      expect((await requests.inbox(link.id, 1, page.nextCursor)).items).toEqual([older]);
    });

    it('refuses a response to a link full, closed, expired (at its expiry) or unknown, storing nothing', async () => {
      const [full, closed, expired] = [
        aLink(owner, { responsesLeft: 0 }),
        aLink(owner, { closedAt: t0 }),
        aLink(owner, { expiresAt: t0 + hour }),
      ];
      for (const link of [full, closed, expired]) await requests.insert(link, keepUntil(link));
      expect(await requests.addResponse(aResponse(full.id), keep, t0)).toBe('refused');
      expect(await requests.addResponse(aResponse(closed.id), keep, t0)).toBe('refused');
      expect(await requests.addResponse(aResponse(expired.id), keep, t0 + hour)).toBe('refused');
      expect(await requests.addResponse(aResponse('rql_none'), keep, t0)).toBe('refused');
      for (const link of [full, closed, expired]) expect((await requests.inbox(link.id, 10, null)).items).toEqual([]);
      expect((await requests.get(expired.id))?.responsesLeft).toBe(2);
    });

    it('of responses racing for the last places, exactly as many as are left land', async () => {
      const link = aLink(owner, { maxResponses: 3, responsesLeft: 3 });
      await requests.insert(link, keepUntil(link));
      const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => requests.addResponse(aResponse(link.id, t0 + i), keep, t0)));
      expect(outcomes.filter((outcome) => outcome === 'added')).toHaveLength(3);
      expect(outcomes.filter((outcome) => outcome !== 'added' && outcome !== 'refused' && outcome !== 'busy')).toEqual([]);
      expect((await requests.get(link.id))?.responsesLeft).toBe(0);
      expect((await requests.inbox(link.id, 10, null)).items).toHaveLength(outcomes.filter((outcome) => outcome === 'added').length);
    });

    it('counts a response once: the same response again is refused and costs no place', async () => {
      const link = aLink(owner);
      await requests.insert(link, keepUntil(link));
      const response = aResponse(link.id);
      expect(await requests.addResponse(response, keep, t0)).toBe('added');
      expect(await requests.addResponse(response, keep, t0)).toBe('refused');
      expect((await requests.get(link.id))?.responsesLeft).toBe(1);
    });

    describe('file responses', () => {
      it('adds the response and makes its file active in one write', async () => {
        const link = aLink(owner);
        const file = aPendingFile('up-1', { response: { requestId: link.id, enc: 'enc', wrappedKey: 'wrapped' } });
        await requests.insert(link, keepUntil(link));
        await secrets.insert(file);
        const response = aResponse(link.id, t0, { kind: 'file', secretId: file.id });
        const upload = {
          secret: { id: file.id, expiresAt: file.expiresAt },
          uploadId: 'up-1',
          envelopeFormat: { passphrase: false, kdfIterations: 0 },
        };
        expect(await requests.addFileResponse(response, upload, keep, t0)).toBe('added');
        expect(await secrets.get(file.id)).toMatchObject({ state: 'active', envelopeFormat: { passphrase: false, kdfIterations: 0 } });
        expect((await requests.inbox(link.id, 10, null)).items).toEqual([response]);
        expect((await requests.get(link.id))?.responsesLeft).toBe(1);
        expect(await secrets.dueForExpiry(file.expiresAt, 100)).toContain(file.id);
      });

      it('answers not_pending, counting and storing nothing, when the upload was ended first; refused before that when the link is', async () => {
        const link = aLink(owner);
        const [ended, waiting] = [aPendingFile('up-1'), aPendingFile('up-2')];
        await requests.insert(link, keepUntil(link));
        for (const file of [ended, waiting]) await secrets.insert(file);
        await secrets.end(ended.id, {
          state: 'expired',
          now: ended.expiresAt,
          event: { id: 'evt_x', type: 'secret.expired', at: ended.expiresAt },
          tombstoneUntil: ended.expiresAt + hour,
        });
        const upload = (id: string, uploadId: string) => ({ secret: { id, expiresAt: t0 + hour }, uploadId, envelopeFormat: undefined });
        expect(
          await requests.addFileResponse(aResponse(link.id, t0, { kind: 'file', secretId: ended.id }), upload(ended.id, 'up-1'), keep, t0),
        ).toBe('not_pending');
        expect(
          await requests.addFileResponse(
            aResponse(link.id, t0, { kind: 'file', secretId: waiting.id }),
            upload(waiting.id, 'up-other'),
            keep,
            t0,
          ),
        ).toBe('not_pending');
        expect((await requests.get(link.id))?.responsesLeft).toBe(2);
        expect((await requests.inbox(link.id, 10, null)).items).toEqual([]);
        await requests.close(link.id, owner, t0);
        expect(
          await requests.addFileResponse(
            aResponse(link.id, t0, { kind: 'file', secretId: waiting.id }),
            upload(waiting.id, 'up-2'),
            keep,
            t0,
          ),
        ).toBe('refused');
        expect((await secrets.get(waiting.id))?.state).toBe('pending');
      });
    });
  });
}
