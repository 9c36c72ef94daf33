import type { Clock } from '../../clock.ts';
import { chatLimits } from '../../limits.ts';
import type { SecretSealer } from '../webhooks/ports.ts';
import type { ChatAppSource } from './app.ts';
import type { ChatInstallation, ChatInstallationStore } from './installations.ts';
import type { TokenRefresh } from './ports.ts';

/**
 * The bot token a DM is sent with. With Slack's token rotation off it is the installed token,
 * for good. With it on, the token expires 12 hours after it was issued and a refresh token
 * renews it; Slack spends the refresh token on use, so of the workers that find a token due at
 * once, one renews it (a lease on the installation, a conditional write) and the others use the
 * token still current, or wait for the renewal when there is none.
 */

export interface BotTokenPorts {
  clock: Clock;
  chatInstallations: Pick<ChatInstallationStore, 'installation' | 'removeIfToken' | 'claimRenewal' | 'saveRenewal' | 'releaseRenewal'>;
  /** Opens and seals tokens for their team (KMS context `chat_team`). */
  chatSealer: SecretSealer;
  /** The chat app: a renewal takes its client credentials. */
  chatApp: ChatAppSource;
  /** Waits between looks at a renewal another worker holds; real time outside the tests. */
  pause?: (ms: number) => Promise<void>;
}

/**
 * - `token`: the token to send with, and the installation it belongs to now (renewed or not);
 * - `dead`: Slack refused the renewal for good (`invalid_refresh_token`, a revoked app): the
 *   installation was removed, as for a revoked token; or another worker found so and removed it.
 */
export type BotToken = { outcome: 'token'; botToken: string; installation: ChatInstallation } | { outcome: 'dead'; error: string };

/** A renewal another worker holds did not land while this one waited: the queue tries the message again. */
export class RenewalPending extends Error {
  override readonly name = 'RenewalPending';
}

const realPause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The installation's token, renewed first when it is due: within `tokenRenewAheadSeconds` of its
 * expiry, or `expired` (Slack answered `token_expired`, whatever our clock thought).
 */
export async function botTokenFor(installation: ChatInstallation, ports: BotTokenPorts, { expired = false } = {}): Promise<BotToken> {
  const current = async (): Promise<BotToken> => ({
    outcome: 'token',
    botToken: await ports.chatSealer.open(installation.sealedBotToken, installation.teamId),
    installation,
  });
  const { rotation } = installation;
  if (!rotation) return current();
  const now = ports.clock.now();
  // Good for the DM's two calls still: worth sending with while another worker renews.
  const usable = !expired && rotation.expiresAt - now > chatLimits.tokenUsableMarginSeconds * 1000;
  if (usable && rotation.expiresAt - now > chatLimits.tokenRenewAheadSeconds * 1000) return current();

  const leaseUntil = now + chatLimits.tokenRenewalLeaseSeconds * 1000;
  if (!(await ports.chatInstallations.claimRenewal(installation.teamId, rotation.sealedRefreshToken, now, leaseUntil))) {
    return usable ? current() : renewedElsewhere(installation, ports);
  }

  let renewal: TokenRefresh;
  try {
    const app = await ports.chatApp();
    if (!app) throw new Error('the chat app is not configured: a rotating token cannot be renewed');
    renewal = await app.api.refreshBotToken(await ports.chatSealer.open(rotation.sealedRefreshToken, installation.teamId));
  } catch (error) {
    await ports.chatInstallations.releaseRenewal(installation.teamId, leaseUntil);
    throw error;
  }
  if (renewal.outcome === 'refused') {
    await ports.chatInstallations.removeIfToken(installation.teamId, installation.sealedBotToken);
    return { outcome: 'dead', error: renewal.reason };
  }
  if (renewal.outcome === 'failed') {
    await ports.chatInstallations.releaseRenewal(installation.teamId, leaseUntil);
    if (usable) return current();
    throw new Error(`chat token not renewed: ${renewal.reason}`);
  }
  const renewed = {
    sealedBotToken: await ports.chatSealer.seal(renewal.botToken, installation.teamId),
    rotation: {
      sealedRefreshToken: await ports.chatSealer.seal(renewal.rotation.refreshToken, installation.teamId),
      expiresAt: ports.clock.now() + renewal.rotation.expiresInSeconds * 1000,
    },
  };
  // `replaced`: the team installed again meanwhile. The renewed token is still good (Slack keeps
  // a reinstalled app's earlier tokens), so this DM goes with it; the new install's stays stored.
  await ports.chatInstallations.saveRenewal(installation.teamId, rotation.sealedRefreshToken, renewed);
  return { outcome: 'token', botToken: renewal.botToken, installation: { ...installation, ...renewed } };
}

/** Another worker renews the token (or has): its result, read back a few times before giving up to the queue's retry. */
async function renewedElsewhere(installation: ChatInstallation, ports: BotTokenPorts): Promise<BotToken> {
  const pause = ports.pause ?? realPause;
  for (let look = 0; look <= chatLimits.renewalLooks; look++) {
    if (look > 0) await pause(chatLimits.renewalLookMs);
    const now = await ports.chatInstallations.installation(installation.teamId);
    if (!now) return { outcome: 'dead', error: 'uninstalled' };
    if (now.sealedBotToken !== installation.sealedBotToken) {
      return { outcome: 'token', botToken: await ports.chatSealer.open(now.sealedBotToken, now.teamId), installation: now };
    }
  }
  throw new RenewalPending(`the chat token of ${installation.teamId} is being renewed by another worker`);
}
