import type { ChatInstallation, ChatInstallationStore, RenewedToken } from '../../shared/domain/chat/installations.ts';
import type { ChatSubscription } from '../../shared/domain/chat/notices.ts';
import type { ChatSubscriptionStore } from '../../shared/domain/chat/subscribe.ts';
import type { SecretStore } from '../../shared/domain/secrets/ports.ts';

/**
 * ChatInstallationStore in memory (shared/store/chatInstallations.ts): one installation per
 * team, written over by a new install; install states used once; a revoked token's installation
 * marked removed (its token gone) only while the team still holds that token; a token's renewal
 * leased to one worker at a time, while the installation holds the refresh token it renews.
 */
export class MemoryChatInstallationStore implements ChatInstallationStore {
  private readonly installations = new Map<string, { installation: ChatInstallation; removed: boolean; renewingUntil?: number }>();
  private readonly usedStates = new Set<string>();

  async useInstallState(stateId: string, _expiresAt: number): Promise<'claimed' | 'used'> {
    if (this.usedStates.has(stateId)) return 'used';
    this.usedStates.add(stateId);
    return 'claimed';
  }

  async save(installation: ChatInstallation): Promise<void> {
    this.installations.set(installation.teamId, { installation: structuredClone(installation), removed: false });
  }

  async installation(teamId: string): Promise<ChatInstallation | null> {
    const held = this.installations.get(teamId);
    return held && !held.removed ? structuredClone(held.installation) : null;
  }

  async removeIfToken(teamId: string, sealedBotToken: string): Promise<'removed' | 'replaced'> {
    const held = this.installations.get(teamId);
    if (!held || held.removed || held.installation.sealedBotToken !== sealedBotToken) return 'replaced';
    held.removed = true;
    delete held.installation.rotation;
    delete held.renewingUntil;
    return 'removed';
  }

  async claimRenewal(teamId: string, sealedRefreshToken: string, now: number, leaseUntil: number): Promise<boolean> {
    const held = this.installations.get(teamId);
    if (!held || held.removed || held.installation.rotation?.sealedRefreshToken !== sealedRefreshToken) return false;
    if (held.renewingUntil !== undefined && held.renewingUntil > now) return false;
    held.renewingUntil = leaseUntil;
    return true;
  }

  async saveRenewal(teamId: string, previousRefreshToken: string, renewed: RenewedToken): Promise<'saved' | 'replaced'> {
    const held = this.installations.get(teamId);
    if (!held || held.removed || held.installation.rotation?.sealedRefreshToken !== previousRefreshToken) return 'replaced';
    held.installation.sealedBotToken = renewed.sealedBotToken;
    held.installation.rotation = structuredClone(renewed.rotation);
    delete held.renewingUntil;
    return 'saved';
  }

  async releaseRenewal(teamId: string, leaseUntil: number): Promise<void> {
    const held = this.installations.get(teamId);
    if (held?.renewingUntil === leaseUntil) delete held.renewingUntil;
  }
}

/**
 * ChatSubscriptionStore in memory (shared/store/chatSubscriptions.ts). The subscription is kept on
 * the secret's own item there; here beside the secrets fake it is given (`secrets`, whose `get`
 * says whether the secret is there and still pending or active), readable by `subscriptionOf`.
 */
export class MemoryChatSubscriptions implements ChatSubscriptionStore {
  private readonly subscriptions = new Map<string, ChatSubscription>();

  constructor(private readonly secrets: Pick<SecretStore, 'get'>) {}

  async deleteTokenHashOf(secretId: string): Promise<string | null> {
    return (await this.secrets.get(secretId))?.deleteTokenHash ?? null;
  }

  async subscribe(secretId: string, teamId: string, chatUserId: string): Promise<'subscribed' | 'gone'> {
    const secret = await this.secrets.get(secretId);
    // An ended secret (its record kept a while) has nothing left to tell.
    if (!secret || (secret.state !== 'pending' && secret.state !== 'active')) return 'gone';
    this.subscriptions.set(secretId, { teamId, chatUserId });
    return 'subscribed';
  }

  /** The chat user a secret's events are told to (`chat_team`, `chat_user` on its item). */
  subscriptionOf(secretId: string): ChatSubscription | null {
    const held = this.subscriptions.get(secretId);
    return held ? { ...held } : null;
  }
}
