import { beforeEach, describe, expect, it } from 'vitest';
import type { ChatInstallation, ChatInstallationStore } from '../../shared/domain/chat/installations.ts';
import type { ChatSubscription } from '../../shared/domain/chat/notices.ts';
import type { ChatSubscriptionStore } from '../../shared/domain/chat/subscribe.ts';
import type { SecretStore } from '../../shared/domain/secrets/ports.ts';
import { newEventId, newUserId } from '../../shared/ids.ts';
import { aPendingFile, aSecret, t0 } from './secretFixtures.ts';

let teams = 0;
const teamId = () => `T${process.pid}${++teams}${newUserId().slice(4, 9)}`;

function anInstallation(overrides: Partial<ChatInstallation> = {}): ChatInstallation {
  return {
    teamId: teamId(),
    teamName: 'Acme',
    sealedBotToken: `sealed-${newUserId()}`,
    botUserId: 'U0BOT',
    scopes: ['commands', 'chat:write', 'im:write'],
    installerUserId: 'usr_installer',
    installerChatUserId: 'U0ADA',
    installedAt: t0,
    ...overrides,
  };
}

/**
 * The ChatInstallationStore port's contract (shared/store/chatInstallations.ts): one installation
 * per team, replaced by a new install; install states used once; a revoked token removing the
 * installation only while the team still holds it.
 */
export function describeChatInstallationStoreContract(
  name: string,
  make: () => ChatInstallationStore | Promise<ChatInstallationStore>,
): void {
  describe(`ChatInstallationStore contract: ${name}`, () => {
    let store: ChatInstallationStore;
    beforeEach(async () => {
      store = await make();
    });

    it('keeps a team’s installation as given; a new install replaces it', async () => {
      const first = anInstallation();
      await store.save(first);
      expect(await store.installation(first.teamId)).toEqual(first);
      const again = anInstallation({ teamId: first.teamId, installerUserId: 'usr_other', scopes: ['commands'] });
      await store.save(again);
      expect(await store.installation(first.teamId)).toEqual(again);
      expect(await store.installation(teamId())).toBeNull();
    });

    it('hands out copies', async () => {
      const made = anInstallation();
      await store.save(made);
      made.scopes.push('admin');
      (await store.installation(made.teamId))!.scopes.push('more');
      expect((await store.installation(made.teamId))!.scopes).toEqual(['commands', 'chat:write', 'im:write']);
    });

    it('removes an installation for a revoked token only while the team still holds that token', async () => {
      const old = anInstallation();
      await store.save(old);
      const current = anInstallation({ teamId: old.teamId });
      await store.save(current);
      expect(await store.removeIfToken(old.teamId, old.sealedBotToken)).toBe('replaced');
      expect(await store.installation(old.teamId)).toEqual(current);
      expect(await store.removeIfToken(old.teamId, current.sealedBotToken)).toBe('removed');
      expect(await store.installation(old.teamId)).toBeNull();
      expect(await store.removeIfToken(old.teamId, current.sealedBotToken)).toBe('replaced');
      const again = anInstallation({ teamId: old.teamId });
      await store.save(again);
      expect(await store.installation(old.teamId)).toEqual(again);
      expect(await store.removeIfToken(teamId(), 'sealed-none')).toBe('replaced');
    });

    it('leases a rotating token’s renewal to one worker at a time, while the installation holds that refresh token', async () => {
      const rotation = { sealedRefreshToken: `sealed-refresh-${newUserId()}`, expiresAt: t0 + 43_200_000 };
      const made = anInstallation({ rotation });
      await store.save(made);
      expect(await store.installation(made.teamId)).toEqual(made);
      const claims = await Promise.all(
        Array.from({ length: 6 }, () => store.claimRenewal(made.teamId, rotation.sealedRefreshToken, t0, t0 + 30_000)),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      // Until the lease runs out; given back, the next worker takes it at once.
      expect(await store.claimRenewal(made.teamId, rotation.sealedRefreshToken, t0 + 30_000, t0 + 60_000)).toBe(true);
      await store.releaseRenewal(made.teamId, t0 + 30_000);
      expect(await store.claimRenewal(made.teamId, rotation.sealedRefreshToken, t0 + 31_000, t0 + 61_000)).toBe(false);
      await store.releaseRenewal(made.teamId, t0 + 60_000);
      expect(await store.claimRenewal(made.teamId, rotation.sealedRefreshToken, t0 + 31_000, t0 + 61_000)).toBe(true);

      const renewed = {
        sealedBotToken: 'sealed-renewed',
        rotation: { sealedRefreshToken: 'sealed-refresh-next', expiresAt: t0 + 86_400_000 },
      };
      expect(await store.saveRenewal(made.teamId, 'sealed-refresh-other', renewed)).toBe('replaced');
      expect(await store.saveRenewal(made.teamId, rotation.sealedRefreshToken, renewed)).toBe('saved');
      expect(await store.installation(made.teamId)).toEqual({ ...made, ...renewed });
      // The spent refresh token renews nothing more, and the new one is free to claim (the save ended the lease).
      expect(await store.claimRenewal(made.teamId, rotation.sealedRefreshToken, t0 + 32_000, t0 + 62_000)).toBe(false);
      expect(await store.claimRenewal(made.teamId, 'sealed-refresh-next', t0 + 32_000, t0 + 62_000)).toBe(true);
      expect(await store.saveRenewal(made.teamId, rotation.sealedRefreshToken, renewed)).toBe('replaced');
      // Removed for a dead token: nothing left to renew.
      expect(await store.removeIfToken(made.teamId, 'sealed-renewed')).toBe('removed');
      expect(await store.claimRenewal(made.teamId, 'sealed-refresh-next', t0 + 90_000, t0 + 120_000)).toBe(false);
      expect(await store.claimRenewal(teamId(), 'sealed-refresh-next', t0, t0 + 30_000)).toBe(false);
    });

    it('uses an install state once, however many callbacks race with it', async () => {
      const stateId = `state-${newEventId()}`;
      const outcomes = await Promise.all(Array.from({ length: 5 }, () => store.useInstallState(stateId, t0 + 600_000)));
      expect(outcomes.filter((outcome) => outcome === 'claimed')).toHaveLength(1);
      expect(await store.useInstallState(stateId, t0 + 600_000)).toBe('used');
      expect(await store.useInstallState(`state-${newEventId()}`, t0)).toBe('claimed');
    });
  });
}

/** What the subscriptions contract runs against: the store, the secrets it reads, and where the subscription is kept. */
export interface ChatSubscriptionWorld {
  subscriptions: ChatSubscriptionStore;
  secrets: Pick<SecretStore, 'insert' | 'end'>;
  subscriptionOf(secretId: string): Promise<ChatSubscription | null>;
}

/** The ChatSubscriptionStore port's contract (shared/store/chatSubscriptions.ts): kept on a live secret, refused on one that ended or never was. */
export function describeChatSubscriptionStoreContract(
  name: string,
  make: () => ChatSubscriptionWorld | Promise<ChatSubscriptionWorld>,
): void {
  describe(`ChatSubscriptionStore contract: ${name}`, () => {
    let world: ChatSubscriptionWorld;
    beforeEach(async () => {
      world = await make();
    });

    it('answers a secret’s delete token hash; null for one that never was', async () => {
      const secret = aSecret({ deleteTokenHash: 'hash-of-the-delete-token' });
      await world.secrets.insert(secret);
      expect(await world.subscriptions.deleteTokenHashOf(secret.id)).toBe('hash-of-the-delete-token');
      expect(await world.subscriptions.deleteTokenHashOf('sec_never')).toBeNull();
    });

    it('subscribes a chat user to a live secret (active, or a file still uploading); the last subscription stands', async () => {
      const secret = aSecret();
      const file = aPendingFile();
      for (const one of [secret, file]) await world.secrets.insert(one);
      expect(await world.subscriptions.subscribe(secret.id, 'T0001', 'U0001')).toBe('subscribed');
      expect(await world.subscriptions.subscribe(file.id, 'T0001', 'U0002')).toBe('subscribed');
      expect(await world.subscriptionOf(secret.id)).toEqual({ teamId: 'T0001', chatUserId: 'U0001' });
      expect(await world.subscriptions.subscribe(secret.id, 'T0002', 'U0009')).toBe('subscribed');
      expect(await world.subscriptionOf(secret.id)).toEqual({ teamId: 'T0002', chatUserId: 'U0009' });
    });

    it('refuses a secret that ended or never was', async () => {
      const secret = aSecret();
      await world.secrets.insert(secret);
      expect(
        await world.secrets.end(secret.id, {
          state: 'revoked',
          now: t0,
          event: { id: newEventId(), type: 'secret.revoked', at: t0 },
          tombstoneUntil: t0 + 86_400_000,
        }),
      ).toBe(true);
      expect(await world.subscriptions.subscribe(secret.id, 'T0001', 'U0001')).toBe('gone');
      expect(await world.subscriptionOf(secret.id)).toBeNull();
      expect(await world.subscriptions.subscribe('sec_never', 'T0001', 'U0001')).toBe('gone');
    });
  });
}
