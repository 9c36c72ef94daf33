import { beforeEach, describe, expect, it } from 'vitest';
import type { EndInput, SecretStore } from '../../shared/domain/secrets/ports.ts';
import { aClaim, aPendingFile, aSecret, event, hour, minute, t0, type MakeSecretStores } from './secretFixtures.ts';

const ending = (state: EndInput['state'], now: number): EndInput => ({
  state,
  now,
  event: event(`secret.${state}`, now),
  tombstoneUntil: now + 30 * 24 * hour,
});

/** The SecretStore contract, continued: ending a secret, and what refused claims and reports record on it. */
export function describeSecretEndingContract(name: string, make: MakeSecretStores): void {
  describe(`SecretStore contract (ending, refusals, reports): ${name}`, () => {
    let secrets: SecretStore;
    beforeEach(async () => {
      ({ secrets } = await make());
    });

    describe('end', () => {
      it('burns a secret whose last view was taken: state, time and event recorded, payload gone, once', async () => {
        const secret = aSecret();
        await secrets.insert(secret);
        expect(await secrets.end(secret.id, ending('burned', t0))).toBe(false);
        await secrets.takeView(secret.id, aClaim(t0));
        const burn = ending('burned', t0 + 1);
        expect(await secrets.end(secret.id, burn)).toBe(true);
        const { envelope: _gone, ...rest } = secret;
        expect(await secrets.get(secret.id)).toEqual({ ...rest, viewsLeft: 0, state: 'burned', endedAt: t0 + 1, emitted: [burn.event] });
        expect(await secrets.end(secret.id, ending('burned', t0 + 2))).toBe(false);
      });

      it('expires an active or pending secret only once its expiry has passed, and never one whose views are spent (it burns)', async () => {
        const [active, pending, spent] = [aSecret(), aPendingFile(), aSecret({ viewsLeft: 0 })];
        for (const secret of [active, pending, spent]) await secrets.insert(secret);
        expect(await secrets.end(active.id, ending('expired', t0 + hour - 1))).toBe(false);
        expect(await secrets.end(active.id, ending('expired', t0 + hour))).toBe(true);
        expect(await secrets.end(pending.id, ending('expired', t0 + hour))).toBe(true);
        expect(await secrets.end(spent.id, ending('expired', t0 + hour))).toBe(false);
        expect(await secrets.end(spent.id, ending('burned', t0 + hour))).toBe(true);
      });

      it('revokes an active or pending secret with views left; locks only an active one', async () => {
        const [active, pending, toLock, pendingLock] = [aSecret(), aPendingFile(), aSecret(), aPendingFile()];
        for (const secret of [active, pending, toLock, pendingLock]) await secrets.insert(secret);
        expect(await secrets.end(active.id, ending('revoked', t0))).toBe(true);
        expect(await secrets.end(pending.id, ending('revoked', t0))).toBe(true);
        expect(await secrets.end(toLock.id, ending('locked', t0))).toBe(true);
        expect(await secrets.end(pendingLock.id, ending('locked', t0))).toBe(false);
        expect(await secrets.end(active.id, ending('locked', t0))).toBe(false);
        expect(await secrets.end('sec_none', ending('revoked', t0))).toBe(false);
      });

      it('of an end racing the last claim, exactly one lands: the claim is taken and it burns, or it is revoked and nothing is taken', async () => {
        const secret = aSecret();
        await secrets.insert(secret);
        const [claim, revoked] = await Promise.all([
          secrets.takeView(secret.id, aClaim(t0)),
          secrets.end(secret.id, ending('revoked', t0)),
        ]);
        expect(claim.taken).not.toBe(revoked);
        expect((await secrets.get(secret.id))?.state).toBe(revoked ? 'revoked' : 'active');
      });

      it('takes the envelope’s parts with it', async () => {
        const secret = aSecret({ envelope: Buffer.alloc(300_001, 1) });
        await secrets.insert(secret);
        expect(await secrets.end(secret.id, ending('revoked', t0))).toBe(true);
        expect((await secrets.get(secret.id))?.envelopeParts).toBeUndefined();
        await expect(secrets.envelopeOf(secret.id, 2)).rejects.toThrow();
      });
    });

    describe('refused claims', () => {
      it('counts refused proofs, recording each refusal’s event', async () => {
        const secret = aSecret();
        await secrets.insert(secret);
        expect(await secrets.refuseProof(secret.id, event('secret.denied', t0))).toBe(1);
        const second = event('secret.denied', t0 + 1);
        expect(await secrets.refuseProof(secret.id, second)).toBe(2);
        expect(await secrets.get(secret.id)).toMatchObject({ refusedProofs: 2, emitted: [second] });
        await expect(secrets.refuseProof('sec_none', event('secret.denied', t0))).rejects.toThrow();
      });

      it('records denials up to the cap, and beyond it refuses quietly', async () => {
        const secret = aSecret();
        await secrets.insert(secret);
        const denials = [event('secret.denied', t0), event('secret.denied', t0 + 1), event('secret.denied', t0 + 2)];
        for (const denial of denials) await secrets.recordDenial(secret.id, denial, 2);
        expect(await secrets.get(secret.id)).toMatchObject({ deniedEvents: 2, emitted: [denials[1]] });
        await expect(secrets.recordDenial('sec_none', denials[0]!, 2)).resolves.toBeUndefined();
      });
    });

    describe('recordReport', () => {
      it('counts each reporter who proved the link once; a repeat counts 0', async () => {
        const secret = aSecret();
        await secrets.insert(secret);
        const report = event('secret.reported', t0 + minute);
        expect(await secrets.recordReport(secret.id, 'reporter-a', true, report)).toBe(1);
        expect((await secrets.get(secret.id))?.emitted).toEqual([report]);
        expect(await secrets.recordReport(secret.id, 'reporter-a', true, event('secret.reported', t0))).toBe(0);
        expect(await secrets.recordReport(secret.id, 'reporter-b', true, event('secret.reported', t0))).toBe(2);
      });

      it('counts a reporter who reported without the link once they prove it; an unproven report answers 0', async () => {
        const secret = aSecret();
        await secrets.insert(secret);
        expect(await secrets.recordReport(secret.id, 'reporter-a', true, event('secret.reported', t0))).toBe(1);
        // DynamoDB answers the attributes the write updated: an unproven report does not update the proven set.
        expect(await secrets.recordReport(secret.id, 'reporter-b', false, event('secret.reported', t0))).toBe(0);
        expect(await secrets.recordReport(secret.id, 'reporter-b', false, event('secret.reported', t0))).toBe(0);
        expect(await secrets.recordReport(secret.id, 'reporter-b', true, event('secret.reported', t0))).toBe(2);
        expect(await secrets.recordReport(secret.id, 'reporter-a', false, event('secret.reported', t0))).toBe(0);
      });

      it('of the same reporter’s reports racing, one counts', async () => {
        const secret = aSecret();
        await secrets.insert(secret);
        const counts = await Promise.all(
          [1, 2, 3].map(() => secrets.recordReport(secret.id, 'reporter-a', true, event('secret.reported', t0))),
        );
        expect(counts.sort()).toEqual([0, 0, 1]);
      });

      it('answers 0 for an unknown secret', async () => {
        expect(await secrets.recordReport('sec_none', 'reporter-a', true, event('secret.reported', t0))).toBe(0);
      });
    });
  });
}
