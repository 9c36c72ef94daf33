import { beforeEach, describe, expect, it } from 'vitest';
import type { SigningKey } from '../../shared/domain/accounts/model.ts';
import type { SigningKeyStore } from '../../shared/domain/accounts/ports.ts';
import { t0 } from './secretFixtures.ts';

const aKey = (kid: string, createdAt = t0): SigningKey => ({
  kid,
  createdAt,
  privateJwk: { kty: 'EC', crv: 'P-256', x: `x-${kid}`, y: `y-${kid}`, d: `d-${kid}` },
  publicJwk: { kty: 'EC', crv: 'P-256', x: `x-${kid}`, y: `y-${kid}` },
});

/** The SigningKeyStore port's contract: one list, newest first, rotated only over the newest key expected. `make` gives an empty store. */
export function describeSigningKeyStoreContract(name: string, make: () => SigningKeyStore | Promise<SigningKeyStore>): void {
  describe(`SigningKeyStore contract: ${name}`, () => {
    let keys: SigningKeyStore;
    beforeEach(async () => {
      keys = await make();
    });

    it('starts with no key, and takes the first only when none is expected', async () => {
      expect(await keys.list()).toEqual([]);
      expect(await keys.add(aKey('sk_1'), 'sk_other', 3)).toBe(false);
      expect(await keys.add(aKey('sk_1'), null, 3)).toBe(true);
      expect(await keys.list()).toEqual([aKey('sk_1')]);
      expect(await keys.add(aKey('sk_2'), null, 3)).toBe(false);
    });

    it('adds a key as the newest over the newest expected, keeping at most `keep`', async () => {
      await keys.add(aKey('sk_1'), null, 2);
      expect(await keys.add(aKey('sk_2', t0 + 1), 'sk_1', 2)).toBe(true);
      expect(await keys.add(aKey('sk_3', t0 + 2), 'sk_1', 2)).toBe(false);
      expect(await keys.add(aKey('sk_3', t0 + 2), 'sk_2', 2)).toBe(true);
      expect(await keys.list()).toEqual([aKey('sk_3', t0 + 2), aKey('sk_2', t0 + 1)]);
    });

    it('of two instances rotating at once, exactly one lands', async () => {
      await keys.add(aKey('sk_1'), null, 3);
      const added = await Promise.all([keys.add(aKey('sk_a'), 'sk_1', 3), keys.add(aKey('sk_b'), 'sk_1', 3)]);
      expect(added.filter(Boolean)).toHaveLength(1);
      expect(await keys.list()).toHaveLength(2);
    });
  });
}
