import { beforeEach, describe, expect, it } from 'vitest';
import { recipientEmailHash } from '../../shared/domain/secrets/model.ts';
import type { SecretAdoptions, SecretStore } from '../../shared/domain/secrets/ports.ts';
import { describeSecretEndingContract } from './secretEnding.contract.ts';
import { aClaim, aLink, aPendingFile, aSecret, event, hour, minute, t0, type MakeSecretStores } from './secretFixtures.ts';
import { describeSecretWorkContract } from './secretWork.contract.ts';

/**
 * The SecretStore port's contract (with SecretAdoptions): what shared/domain/secrets relies on,
 * run against the in-memory fake and against DynamoDB Local. Here: keeping a secret, and taking
 * its views under the claim's condition; ending and the work indexes in the files beside.
 */
export function describeSecretStoreContract(name: string, make: MakeSecretStores): void {
  describe(`SecretStore contract: ${name}`, () => {
    let secrets: SecretStore;
    beforeEach(async () => {
      ({ secrets } = await make());
    });

    describe('insert and get', () => {
      it('keeps every field of a secret as it was given', async () => {
        const link = aLink({ label: 'Ana', email: 'Ana@Example.com', restricted: true, viewsLeft: 2 });
        const secret = aSecret({
          ownerId: 'usr_owner',
          workspaceId: 'wks_team',
          linkHost: { domainId: 'dom_1', hostname: 'share.example.com' },
          maxViews: 2,
          viewsLeft: 4,
          notBefore: t0 + minute,
          claimVerifier: 'claim-verifier',
          linkVerifier: 'link-verifier',
          recipients: [link, aLink({ viewsLeft: 2 })],
          envelopeFormat: { passphrase: true, kdfIterations: 600_000 },
          refusedProofs: 1,
          deniedEvents: 2,
          emitted: [event('secret.created', t0, { recipientId: link.id, view: { channel: 'cli', country: 'FR' } })],
        });
        await secrets.insert(secret);
        expect(await secrets.get(secret.id)).toEqual(secret);
        const file = aPendingFile('upload-9', {
          upload: { id: 'upload-9', partSize: 8, partCount: 3, chunkLog2: 20, passphrase: false },
          response: { requestId: 'rql_1', enc: 'enc', wrappedKey: 'wrapped' },
        });
        await secrets.insert(file);
        expect(await secrets.get(file.id)).toEqual(file);
      });

      it('answers null for an id it does not hold', async () => {
        expect(await secrets.get('sec_none')).toBeNull();
      });

      it('refuses a second secret with the same id and keeps the first', async () => {
        const first = aSecret();
        await secrets.insert(first);
        await expect(secrets.insert({ ...aSecret(), id: first.id, salt: 'other' })).rejects.toThrow();
        expect((await secrets.get(first.id))?.salt).toBe(first.salt);
      });

      it('hands out copies: changing what was inserted or read changes nothing stored', async () => {
        const secret = aSecret();
        await secrets.insert(secret);
        secret.viewsLeft = 99;
        const read = (await secrets.get(secret.id))!;
        read.viewsLeft = 42;
        read.envelope![0] = 9;
        expect((await secrets.get(secret.id))!).toMatchObject({ viewsLeft: 1, envelope: new Uint8Array([1, 2, 3, 4]) });
      });

      it('keeps an envelope over 300,000 bytes in parts, read back whole; one of 300,000 bytes inline', async () => {
        const big = Buffer.alloc(300_001, 7);
        big[300_000] = 8;
        const parted = aSecret({ envelope: big, sizeBytes: big.length });
        await secrets.insert(parted);
        const read = (await secrets.get(parted.id))!;
        expect(read.envelope).toBeUndefined();
        expect(read.envelopeParts).toBe(2);
        expect(Buffer.from(await secrets.envelopeOf(parted.id, 2)).equals(big)).toBe(true);
        await expect(secrets.envelopeOf(parted.id, 3)).rejects.toThrow();
        const inline = aSecret({ envelope: Buffer.alloc(300_000, 1), sizeBytes: 300_000 });
        await secrets.insert(inline);
        const inlined = (await secrets.get(inline.id))!;
        // Compared as bytes: a deep comparison of 300,000 elements takes seconds.
        expect(Buffer.from(inlined.envelope!).equals(Buffer.alloc(300_000, 1))).toBe(true);
        expect(inlined.envelopeParts).toBeUndefined();
      });
    });

    describe('takeView', () => {
      it('takes one view: views left down by one, the event recorded, the secret answered with its envelope', async () => {
        const secret = aSecret({ maxViews: 2, viewsLeft: 2 });
        await secrets.insert(secret);
        const claim = aClaim(t0 + minute);
        const result = await secrets.takeView(secret.id, claim);
        expect(result).toEqual({ taken: true, secret: { ...secret, viewsLeft: 1, emitted: [claim.event] } });
        expect(await secrets.get(secret.id)).toEqual({ ...secret, viewsLeft: 1, emitted: [claim.event] });
      });

      it('of two claims racing for the last view, exactly one takes it; the other sees none left', async () => {
        const secret = aSecret();
        await secrets.insert(secret);
        const results = await Promise.all([secrets.takeView(secret.id, aClaim(t0)), secrets.takeView(secret.id, aClaim(t0))]);
        expect(results.filter((result) => result.taken)).toHaveLength(1);
        const refused = results.find((result) => !result.taken) as { taken: false; current: { viewsLeft: number } };
        expect(refused.current.viewsLeft).toBe(0);
        expect((await secrets.get(secret.id))?.viewsLeft).toBe(0);
      });

      it('of eight claims racing for three views, exactly three take one; views left never go below zero', async () => {
        const secret = aSecret({ maxViews: 3, viewsLeft: 3 });
        await secrets.insert(secret);
        const results = await Promise.all(Array.from({ length: 8 }, () => secrets.takeView(secret.id, aClaim(t0))));
        expect(results.filter((result) => result.taken)).toHaveLength(3);
        expect((await secrets.get(secret.id))?.viewsLeft).toBe(0);
      });

      it('refuses an unknown secret with no item', async () => {
        expect(await secrets.takeView('sec_none', aClaim(t0))).toEqual({ taken: false, current: null });
      });

      const refusals: Array<[string, Parameters<typeof aSecret>[0], (now: number) => ReturnType<typeof aClaim>]> = [
        ['expired (at its expiry)', {}, () => aClaim(t0 + hour)],
        ['pending (a file still uploading)', { state: 'pending' }, (now) => aClaim(now)],
        ['ended', { state: 'revoked', viewsLeft: 1 }, (now) => aClaim(now)],
        ['with no view left', { viewsLeft: 0 }, (now) => aClaim(now)],
        ['before its not-before', { notBefore: t0 + 2 * minute }, () => aClaim(t0 + 2 * minute - 1)],
        ['needing a proof, without one', { claimVerifier: 'verifier' }, (now) => aClaim(now)],
        ['needing a proof, with another', { claimVerifier: 'verifier' }, (now) => aClaim(now, { proofHash: 'other' })],
        ['kept in parts, its parts not read', { envelope: Buffer.alloc(300_001, 1) }, (now) => aClaim(now)],
        ['a request link’s file response', { response: { requestId: 'rql_1', enc: 'e', wrappedKey: 'w' } }, (now) => aClaim(now)],
        [
          'made on another claim of a hostname',
          { linkHost: { domainId: 'dom_a', hostname: 'a.example.com' } },
          (now) => aClaim(now, { domainId: 'dom_b' }),
        ],
        ['made on no hostname, claimed on one', {}, (now) => aClaim(now, { domainId: 'dom_a' })],
        ['having links, claimed without one', { recipients: [aLink()] }, (now) => aClaim(now)],
        ['claimed through a link it does not have', { recipients: [aLink()] }, (now) => aClaim(now, { recipientId: 'rcp_unknown' })],
        ['having no links, claimed through one', {}, (now) => aClaim(now, { recipientId: 'rcp_unknown' })],
      ];
      for (const [why, overrides, claim] of refusals) {
        it(`refuses a secret ${why}, answering it as it was`, async () => {
          const secret = aSecret(overrides);
          await secrets.insert(secret);
          const before = await secrets.get(secret.id);
          expect(await secrets.takeView(secret.id, claim(t0 + minute))).toEqual({ taken: false, current: before });
          expect(await secrets.get(secret.id)).toEqual(before);
        });
      }

      it('takes a view from not-before on, with the right proof, with parts read, on the claim’s own hostname', async () => {
        const secret = aSecret({
          notBefore: t0 + minute,
          claimVerifier: 'verifier',
          envelope: Buffer.alloc(300_001, 1),
          linkHost: { domainId: 'dom_a', hostname: 'a.example.com' },
        });
        await secrets.insert(secret);
        expect(
          (await secrets.takeView(secret.id, aClaim(t0 + minute, { proofHash: 'verifier', partsRead: true, domainId: 'dom_a' }))).taken,
        ).toBe(true);
      });

      it('takes a secret made on a hostname when the claim names none (the hostname is checked only when it arrives on one)', async () => {
        const secret = aSecret({ linkHost: { domainId: 'dom_a', hostname: 'a.example.com' } });
        await secrets.insert(secret);
        expect((await secrets.takeView(secret.id, aClaim(t0))).taken).toBe(true);
      });

      it('through a link: the link’s budget and the secret’s go down together, and a spent link takes no more', async () => {
        const [ana, ben] = [aLink({ viewsLeft: 1 }), aLink({ viewsLeft: 1 })];
        const secret = aSecret({ recipients: [ana, ben], viewsLeft: 2 });
        await secrets.insert(secret);
        const taken = await secrets.takeView(secret.id, aClaim(t0, { recipientId: ana.id }));
        expect(taken.taken && taken.secret.recipients).toEqual([{ ...ana, viewsLeft: 0 }, ben]);
        expect(taken.taken && taken.secret.viewsLeft).toBe(1);
        expect((await secrets.takeView(secret.id, aClaim(t0, { recipientId: ana.id }))).taken).toBe(false);
        expect((await secrets.takeView(secret.id, aClaim(t0, { recipientId: ben.id }))).taken).toBe(true);
      });

      it('through a restricted link: only with the gate’s proof of its address (compared trimmed and lower-cased)', async () => {
        const link = aLink({ email: 'Ana@Example.com', restricted: true });
        const secret = aSecret({ recipients: [link] });
        await secrets.insert(secret);
        expect((await secrets.takeView(secret.id, aClaim(t0, { recipientId: link.id }))).taken).toBe(false);
        expect(
          (await secrets.takeView(secret.id, aClaim(t0, { recipientId: link.id, gateEmailHash: recipientEmailHash('ben@example.com') })))
            .taken,
        ).toBe(false);
        expect(
          (await secrets.takeView(secret.id, aClaim(t0, { recipientId: link.id, gateEmailHash: recipientEmailHash(' ana@example.COM ') })))
            .taken,
        ).toBe(true);
      });
    });

    describe('revokeRecipient', () => {
      it('revokes an active link with the views it has left, taking them out of the secret’s, once', async () => {
        const [ana, ben] = [aLink({ viewsLeft: 2 }), aLink({ viewsLeft: 2 })];
        const secret = aSecret({ recipients: [ana, ben], maxViews: 2, viewsLeft: 4 });
        await secrets.insert(secret);
        expect(await secrets.revokeRecipient(secret.id, ana.id, 1)).toEqual({ revoked: false });
        expect(await secrets.revokeRecipient(secret.id, ana.id, 2)).toEqual({ revoked: true, secretViewsLeft: 2 });
        expect(await secrets.revokeRecipient(secret.id, ana.id, 0)).toEqual({ revoked: false });
        expect((await secrets.get(secret.id))?.recipients).toEqual([{ ...ana, state: 'revoked', viewsLeft: 0 }, ben]);
        expect((await secrets.takeView(secret.id, aClaim(t0, { recipientId: ana.id }))).taken).toBe(false);
      });

      it('refuses when a claim took a view first (read again and retry), an unknown link or secret, or an ended secret', async () => {
        const link = aLink({ viewsLeft: 2 });
        const secret = aSecret({ recipients: [link], maxViews: 2, viewsLeft: 2 });
        await secrets.insert(secret);
        await secrets.takeView(secret.id, aClaim(t0, { recipientId: link.id }));
        expect(await secrets.revokeRecipient(secret.id, link.id, 2)).toEqual({ revoked: false });
        expect(await secrets.revokeRecipient(secret.id, 'rcp_unknown', 1)).toEqual({ revoked: false });
        expect(await secrets.revokeRecipient('sec_none', link.id, 1)).toEqual({ revoked: false });
        await secrets.end(secret.id, { state: 'revoked', now: t0, event: event('secret.revoked', t0), tombstoneUntil: t0 + hour });
        expect(await secrets.revokeRecipient(secret.id, link.id, 1)).toEqual({ revoked: false });
      });
    });

    describe('adoptions', () => {
      let adoptions: SecretAdoptions;
      beforeEach(async () => {
        ({ secrets, adoptions } = await make());
      });

      it('gives an anonymous secret an owner once: it is then theirs, listed for them', async () => {
        const secret = aSecret();
        await secrets.insert(secret);
        expect(await adoptions.adopt(secret.id, 'usr_a')).toBe(true);
        expect(await adoptions.adopt(secret.id, 'usr_b')).toBe(false);
        expect((await adoptions.get(secret.id))?.ownerId).toBe('usr_a');
        expect((await secrets.listForOwner('usr_a', 10, null)).items.map((item) => item.id)).toEqual([secret.id]);
      });

      it('of two adoptions racing, exactly one lands', async () => {
        const secret = aPendingFile();
        await secrets.insert(secret);
        const adopted = await Promise.all([adoptions.adopt(secret.id, 'usr_a'), adoptions.adopt(secret.id, 'usr_b')]);
        expect(adopted.filter(Boolean)).toHaveLength(1);
      });

      it('refuses an owned, an ended or an unknown secret', async () => {
        const owned = aSecret({ ownerId: 'usr_a' });
        const ended = aSecret();
        await secrets.insert(owned);
        await secrets.insert(ended);
        await secrets.end(ended.id, { state: 'revoked', now: t0, event: event('secret.revoked', t0), tombstoneUntil: t0 + hour });
        expect(await adoptions.adopt(owned.id, 'usr_b')).toBe(false);
        expect(await adoptions.adopt(ended.id, 'usr_b')).toBe(false);
        expect(await adoptions.adopt('sec_none', 'usr_b')).toBe(false);
        expect(await adoptions.get('sec_none')).toBeNull();
      });
    });
  });

  describeSecretEndingContract(name, make);
  describeSecretWorkContract(name, make);
}
