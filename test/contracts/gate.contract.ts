import { beforeEach, describe, expect, it } from 'vitest';
import type { GateCode, GateStore } from '../../shared/domain/secrets/gate.ts';
import { newRecipientId, newSecretId } from '../../shared/ids.ts';
import { minute, t0 } from './secretFixtures.ts';

const aCode = (codeHash: string, expiresAt = t0 + 10 * minute): GateCode => ({ codeHash, salt: `salt-${codeHash}`, expiresAt });

/** The GateStore port's contract: one live code per restricted link, consumed once; sessions by token hash. */
export function describeGateStoreContract(name: string, make: () => GateStore | Promise<GateStore>): void {
  describe(`GateStore contract: ${name}`, () => {
    let gates: GateStore;
    let secretId: string;
    let linkId: string;
    beforeEach(async () => {
      gates = await make();
      [secretId, linkId] = [newSecretId(), newRecipientId()];
    });

    it('stores a code for a link that has none, and never replaces a live one', async () => {
      expect(await gates.getCode(secretId, linkId)).toBeNull();
      expect(await gates.addCode(secretId, linkId, aCode('first'), t0)).toBe(true);
      expect(await gates.addCode(secretId, linkId, aCode('second'), t0 + 10 * minute - 1)).toBe(false);
      expect(await gates.getCode(secretId, linkId)).toEqual(aCode('first'));
    });

    it('replaces a code once it has expired (at its expiry), and keeps an expired one readable until then', async () => {
      await gates.addCode(secretId, linkId, aCode('first'), t0);
      expect(await gates.getCode(secretId, linkId)).toEqual(aCode('first'));
      expect(await gates.addCode(secretId, linkId, aCode('second', t0 + 30 * minute), t0 + 10 * minute)).toBe(true);
      expect(await gates.getCode(secretId, linkId)).toEqual(aCode('second', t0 + 30 * minute));
    });

    it('of two starts racing, one stores its code', async () => {
      const stored = await Promise.all([gates.addCode(secretId, linkId, aCode('a'), t0), gates.addCode(secretId, linkId, aCode('b'), t0)]);
      expect(stored.filter(Boolean)).toHaveLength(1);
    });

    it('keeps each link’s code apart', async () => {
      const other = newRecipientId();
      await gates.addCode(secretId, linkId, aCode('mine'), t0);
      expect(await gates.addCode(secretId, other, aCode('theirs'), t0)).toBe(true);
      expect(await gates.getCode(secretId, other)).toEqual(aCode('theirs'));
    });

    it('consumes the code only while it is the one given; of two right answers racing, one wins', async () => {
      await gates.addCode(secretId, linkId, aCode('right'), t0);
      expect(await gates.consumeCode(secretId, linkId, 'wrong')).toBe(false);
      const consumed = await Promise.all([gates.consumeCode(secretId, linkId, 'right'), gates.consumeCode(secretId, linkId, 'right')]);
      expect(consumed.filter(Boolean)).toHaveLength(1);
      expect(await gates.getCode(secretId, linkId)).toBeNull();
      expect(await gates.consumeCode(secretId, linkId, 'right')).toBe(false);
      expect(await gates.addCode(secretId, linkId, aCode('next'), t0)).toBe(true);
    });

    it('keeps sessions by token hash, expired ones too (the reader compares the time)', async () => {
      const session = { secretId, recipientId: linkId, emailHash: 'email-hash', expiresAt: t0 - 1 };
      await gates.putSession('token-hash', session);
      expect(await gates.getSession('token-hash')).toEqual(session);
      expect(await gates.getSession('other-hash')).toBeNull();
    });
  });
}
