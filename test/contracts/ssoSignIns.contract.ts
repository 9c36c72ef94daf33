import { beforeEach, describe, expect, it } from 'vitest';
import type { PendingSsoSignIn, SsoSignInStore } from '../../shared/domain/sso/signInPorts.ts';
import { newUserId } from '../../shared/ids.ts';

const t0 = Date.UTC(2026, 10, 28, 12);
const pendingSignIn = (overrides: Partial<PendingSsoSignIn> = {}): PendingSsoSignIn => ({
  stateId: `state-${newUserId()}`,
  workspaceId: 'wks_acme',
  email: 'ana@acme.example',
  returnTo: '/account',
  codeVerifier: 'v'.repeat(43),
  nonce: 'n'.repeat(43),
  landing: 'https://secrets.example/signin/sso',
  expiresAt: t0 + 600_000,
  ...overrides,
});

/**
 * The SsoSignInStore port's contract (shared/store/ssoSignIns.ts): a sign-in under way and a
 * one-time code's exchange are each taken once, however many takers race, and not once expired;
 * an exchange bound to a native client's challenge only with that challenge, a wrong one leaving it.
 */
export function describeSsoSignInStoreContract(name: string, make: () => SsoSignInStore): void {
  describe(`SsoSignInStore contract: ${name}`, () => {
    let store: SsoSignInStore;
    beforeEach(() => {
      store = make();
    });

    it('gives a sign-in under way back once, as it was saved; not once expired, nor one never saved', async () => {
      const pending = pendingSignIn({ clientChallenge: 'c'.repeat(43), landing: 'http://127.0.0.1:5555/cb' });
      await store.savePending(pending);
      const takers = await Promise.all([1, 2, 3, 4].map(() => store.takePending(pending.stateId, t0)));
      expect(takers.filter(Boolean)).toEqual([pending]);
      const expired = pendingSignIn();
      await store.savePending(expired);
      expect(await store.takePending(expired.stateId, expired.expiresAt)).toBeNull();
      expect(await store.takePending('state-never', t0)).toBeNull();
    });

    it('gives an exchange back once; one bound to a challenge only with it, a wrong challenge leaving it', async () => {
      await store.saveExchange('hash-plain', { userId: 'usr_a', workspaceId: 'wks_acme', expiresAt: t0 + 60_000 });
      expect(await store.takeExchange('hash-plain', t0, 'c'.repeat(43))).toBeNull();
      const takers = await Promise.all([1, 2, 3].map(() => store.takeExchange('hash-plain', t0, null)));
      expect(takers.filter(Boolean)).toEqual([{ userId: 'usr_a', workspaceId: 'wks_acme', expiresAt: t0 + 60_000 }]);

      const bound = { userId: 'usr_b', workspaceId: 'wks_acme', clientChallenge: 'c'.repeat(43), expiresAt: t0 + 60_000 };
      await store.saveExchange('hash-bound', bound);
      expect(await store.takeExchange('hash-bound', t0, null)).toBeNull();
      expect(await store.takeExchange('hash-bound', t0, 'd'.repeat(43))).toBeNull();
      expect(await store.takeExchange('hash-bound', t0, 'c'.repeat(43))).toEqual(bound);
      expect(await store.takeExchange('hash-bound', t0, 'c'.repeat(43))).toBeNull();

      await store.saveExchange('hash-late', { userId: 'usr_c', workspaceId: 'wks_acme', expiresAt: t0 + 60_000 });
      expect(await store.takeExchange('hash-late', t0 + 60_000, null)).toBeNull();
    });
  });
}
