import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { SignInCode } from '../../shared/domain/accounts/model.ts';
import type { SignInCodeStore } from '../../shared/domain/accounts/ports.ts';
import { minute, t0 } from './secretFixtures.ts';

const aCode = (codeHash: string, sentAt = t0): SignInCode => ({
  codeHash,
  salt: `salt-${codeHash}`,
  sentAt,
  expiresAt: sentAt + 10 * minute,
});

/** The SignInCodeStore port's contract: an address's codes written over the version read; asks recorded once per cooldown. */
export function describeSignInCodeStoreContract(name: string, make: () => SignInCodeStore | Promise<SignInCodeStore>): void {
  describe(`SignInCodeStore contract: ${name}`, () => {
    let codes: SignInCodeStore;
    let emailHash: string;
    beforeEach(async () => {
      codes = await make();
      emailHash = randomUUID();
    });

    it('answers no codes at version 0 for an address never written', async () => {
      expect(await codes.get(emailHash)).toEqual({ codes: [], version: 0 });
    });

    it('writes codes over the version read, counting versions', async () => {
      expect(await codes.replace(emailHash, [aCode('a')], 0)).toBe(true);
      expect(await codes.get(emailHash)).toEqual({ codes: [aCode('a')], version: 1 });
      expect(await codes.replace(emailHash, [aCode('b')], 0)).toBe(false);
      expect(await codes.replace(emailHash, [aCode('a'), aCode('b', t0 + 1)], 1)).toBe(true);
      expect(await codes.replace(emailHash, [], 2)).toBe(true);
      expect(await codes.get(emailHash)).toEqual({ codes: [], version: 3 });
      expect(await codes.replace(emailHash, [aCode('c')], 5)).toBe(false);
    });

    it('keeps each code’s link hash, and none on a code written without one', async () => {
      const linked: SignInCode = { ...aCode('a'), linkHash: 'link-hash-a' };
      expect(await codes.replace(emailHash, [linked, aCode('b', t0 + 1)], 0)).toBe(true);
      const { codes: kept } = await codes.get(emailHash);
      expect(kept).toEqual([linked, aCode('b', t0 + 1)]);
      expect(kept[1]).not.toHaveProperty('linkHash');
    });

    it('of two writes from one read, exactly one lands, and no code is lost to it', async () => {
      await codes.replace(emailHash, [aCode('a')], 0);
      const written = await Promise.all([
        codes.replace(emailHash, [aCode('a'), aCode('b')], 1),
        codes.replace(emailHash, [aCode('a'), aCode('c')], 1),
      ]);
      expect(written.filter(Boolean)).toHaveLength(1);
      const { codes: kept, version } = await codes.get(emailHash);
      expect(version).toBe(2);
      expect(kept).toHaveLength(2);
    });

    it('records every ask without a cooldown', async () => {
      expect(await codes.markAsked(emailHash, t0)).toBeNull();
      expect(await codes.markAsked(emailHash, t0 + 1)).toBeNull();
    });

    it('with a cooldown, answers when the source last asked within it, recording nothing', async () => {
      expect(await codes.markAsked(emailHash, t0, minute)).toBeNull();
      expect(await codes.markAsked(emailHash, t0 + minute - 1, minute)).toBe(t0);
      expect(await codes.markAsked(emailHash, t0 + minute, minute)).toBeNull();
      expect(await codes.markAsked(emailHash, t0 + minute + 5, minute)).toBe(t0 + minute);
    });

    it('of asks racing within a cooldown, one is recorded', async () => {
      const answers = await Promise.all(Array.from({ length: 4 }, () => codes.markAsked(emailHash, t0, minute)));
      expect(answers.filter((answer) => answer === null)).toHaveLength(1);
      expect(answers.filter((answer) => answer === t0)).toHaveLength(3);
    });
  });
}
