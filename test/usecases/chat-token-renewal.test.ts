import { beforeEach, describe, expect, it } from 'vitest';
import { LocalSealer } from '../../shared/adapters/sealer.ts';
import type { ChatApp } from '../../shared/domain/chat/app.ts';
import { botTokenFor, RenewalPending, type BotTokenPorts } from '../../shared/domain/chat/botToken.ts';
import type { ChatInstallation } from '../../shared/domain/chat/installations.ts';
import type { ChatApi, TokenRefresh } from '../../shared/domain/chat/ports.ts';
import { MemoryChatInstallationStore } from '../fakes/chatStores.ts';
import { StoppedClock } from '../support/clock.ts';

/**
 * Renewing a rotating bot token (issue 28) on in-memory fakes: when it is due, who renews it
 * when several workers need it at once, and what a failed or refused renewal leaves behind.
 * The same against DynamoDB Local and the Slack emulator is test/integration/chat-rotation.test.ts.
 */

const hour = 3600 * 1000;
const teamId = 'T0RENEW001';
const sealer = new LocalSealer(undefined, 'chat_team');

let clock: StoppedClock;
let store: MemoryChatInstallationStore;
let refreshes: string[];
/** What Slack answers the next renewals with; by default a fresh token each time. */
let answer: (refreshToken: string) => Promise<TokenRefresh>;
let ports: BotTokenPorts;

const slackApi: ChatApi = {
  exchangeCode: () => Promise.reject(new Error('not in these tests')),
  sendDirectMessage: () => Promise.reject(new Error('not in these tests')),
  refreshBotToken: (refreshToken) => (refreshes.push(refreshToken), answer(refreshToken)),
};
const app: ChatApp = { clientId: '1.2', clientSecret: 'secret', signingSecret: 'signing', apiUrl: 'http://slack.test/api/', api: slackApi };

async function installed(expiresInMs: number): Promise<ChatInstallation> {
  const installation: ChatInstallation = {
    teamId,
    teamName: 'Acme',
    sealedBotToken: await sealer.seal('xoxe.xoxb-1-first', teamId),
    botUserId: 'U0BOT',
    scopes: ['commands', 'chat:write', 'im:write'],
    installerUserId: 'usr_installer',
    installerChatUserId: 'U0ADA',
    installedAt: clock.now(),
    rotation: { sealedRefreshToken: await sealer.seal('xoxe-1-first', teamId), expiresAt: clock.now() + expiresInMs },
  };
  await store.save(installation);
  return installation;
}

const tokenOf = async (outcome: Awaited<ReturnType<typeof botTokenFor>>) => (outcome.outcome === 'token' ? outcome.botToken : outcome);

beforeEach(() => {
  clock = new StoppedClock(Date.parse('2026-11-28T12:00:00Z'));
  store = new MemoryChatInstallationStore();
  refreshes = [];
  let issued = 0;
  answer = async () => ({
    outcome: 'refreshed',
    botToken: `xoxe.xoxb-1-renewed-${++issued}`,
    rotation: { refreshToken: `xoxe-1-renewed-${issued}`, expiresInSeconds: 43_200 },
  });
  ports = { clock, chatInstallations: store, chatSealer: sealer, chatApp: async () => app, pause: async () => clock.advance(0.5) };
});

describe('botTokenFor', () => {
  it('sends with the stored token while it has over two hours left, and with rotation off always', async () => {
    const installation = await installed(2 * hour + 1000);
    expect(await tokenOf(await botTokenFor(installation, ports))).toBe('xoxe.xoxb-1-first');
    const { rotation: _, ...plain } = installation;
    clock.advance(24 * 3600);
    expect(await tokenOf(await botTokenFor(plain, ports))).toBe('xoxe.xoxb-1-first');
    expect(refreshes).toEqual([]);
  });

  it('renews in the last two hours with the refresh token, and stores the renewal sealed, with its expiry', async () => {
    const installation = await installed(2 * hour);
    const renewed = await botTokenFor(installation, ports);
    expect(await tokenOf(renewed)).toBe('xoxe.xoxb-1-renewed-1');
    expect(refreshes).toEqual(['xoxe-1-first']);
    const stored = (await store.installation(teamId))!;
    expect(await sealer.open(stored.sealedBotToken, teamId)).toBe('xoxe.xoxb-1-renewed-1');
    expect(await sealer.open(stored.rotation!.sealedRefreshToken, teamId)).toBe('xoxe-1-renewed-1');
    expect(stored.rotation!.expiresAt).toBe(clock.now() + 12 * hour);
    expect(renewed.outcome === 'token' && renewed.installation).toEqual(stored);
  });

  it('renews once when many workers find the token due at once: the others send with the current token', async () => {
    const installation = await installed(hour);
    let release!: () => void;
    answer = async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return {
        outcome: 'refreshed',
        botToken: 'xoxe.xoxb-1-renewed',
        rotation: { refreshToken: 'xoxe-1-renewed', expiresInSeconds: 43_200 },
      };
    };
    const workers = Array.from({ length: 5 }, () => botTokenFor(installation, ports));
    const others = await Promise.all(workers.slice(1));
    expect(await Promise.all(others.map(tokenOf))).toEqual(Array(4).fill('xoxe.xoxb-1-first'));
    release();
    expect(await tokenOf(await workers[0]!)).toBe('xoxe.xoxb-1-renewed');
    expect(refreshes).toHaveLength(1);
  });

  it('makes the others wait for the renewal when the token has expired, and leaves the message to the queue when it does not come', async () => {
    const installation = await installed(-1000);
    let release!: () => void;
    answer = async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return {
        outcome: 'refreshed',
        botToken: 'xoxe.xoxb-1-renewed',
        rotation: { refreshToken: 'xoxe-1-renewed', expiresInSeconds: 43_200 },
      };
    };
    const renewing = botTokenFor(installation, ports);
    let looks = 0;
    // Slack answers the renewing worker while the waiter pauses a second time; its next look finds the renewal stored.
    const waiter = botTokenFor(installation, {
      ...ports,
      pause: async () => {
        if (++looks === 2) release(), await renewing;
      },
    });
    expect(await tokenOf(await waiter)).toBe('xoxe.xoxb-1-renewed');
    expect(await tokenOf(await renewing)).toBe('xoxe.xoxb-1-renewed');
    expect(refreshes).toHaveLength(1);

    // A renewal that never lands (its worker died after taking the lease): the queue's retry, after the lease runs out.
    const stuck = await installed(-1000);
    await store.claimRenewal(teamId, stuck.rotation!.sealedRefreshToken, clock.now(), clock.now() + 30_000);
    await expect(botTokenFor(stuck, ports)).rejects.toThrow(RenewalPending);
    clock.advance(30);
    answer = async () => ({
      outcome: 'refreshed',
      botToken: 'xoxe.xoxb-1-retried',
      rotation: { refreshToken: 'xoxe-1-retried', expiresInSeconds: 43_200 },
    });
    expect(await tokenOf(await botTokenFor(stuck, ports))).toBe('xoxe.xoxb-1-retried');
  });

  it('keeps sending with a live token when Slack does not answer the renewal, and gives the lease back', async () => {
    const installation = await installed(hour);
    answer = async () => ({ outcome: 'failed', reason: 'timeout' });
    expect(await tokenOf(await botTokenFor(installation, ports))).toBe('xoxe.xoxb-1-first');
    // Given back: the next worker tries at once.
    expect(await tokenOf(await botTokenFor(installation, ports))).toBe('xoxe.xoxb-1-first');
    expect(refreshes).toHaveLength(2);
    // With the token expired there is nothing to send with: the queue retries, and nothing is lost.
    clock.advance(3600);
    await expect(botTokenFor(installation, ports)).rejects.toThrow('chat token not renewed: timeout');
    expect(await store.installation(teamId)).toEqual(installation);
    // A thrown call (the app's secret unreadable) gives the lease back too.
    await expect(botTokenFor(installation, { ...ports, chatApp: async () => null })).rejects.toThrow('not configured');
    answer = async () => ({
      outcome: 'refreshed',
      botToken: 'xoxe.xoxb-1-later',
      rotation: { refreshToken: 'xoxe-1-later', expiresInSeconds: 43_200 },
    });
    expect(await tokenOf(await botTokenFor(installation, ports))).toBe('xoxe.xoxb-1-later');
  });

  it('removes the installation when Slack refuses the renewal, and renews regardless of the clock when Slack said the token expired', async () => {
    const fresh = await installed(10 * hour);
    expect(await tokenOf(await botTokenFor(fresh, ports, { expired: true }))).toBe('xoxe.xoxb-1-renewed-1');

    const installation = await installed(hour);
    answer = async () => ({ outcome: 'refused', reason: 'invalid_refresh_token' });
    expect(await botTokenFor(installation, ports)).toEqual({ outcome: 'dead', error: 'invalid_refresh_token' });
    expect(await store.installation(teamId)).toBeNull();
  });
});
