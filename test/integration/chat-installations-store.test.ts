import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { LocalSealer } from '../../shared/adapters/sealer.ts';
import type { ChatInstallation } from '../../shared/domain/chat/installations.ts';
import { createDocumentClient } from '../../shared/store/client.ts';
import { DynamoChatInstallationStore } from '../../shared/store/chatInstallations.ts';
import { apiClient, startTestRuntime, textSecretBody } from '../support/runtime.ts';
import { DynamoChatSubscriptions } from '../../shared/store/chatSubscriptions.ts';
import { sha256Base64Url } from '../../shared/ids.ts';

/**
 * Chat installations against DynamoDB Local (issue 19): one per team, the bot token sealed for
 * its team; install states used once however many callbacks race; a revoked token removes the
 * installation only while the team still holds it.
 */

let runtime: Runtime;
let db: DynamoDBDocumentClient;
let store: DynamoChatInstallationStore;
const sealer = new LocalSealer(undefined, 'chat_team');
beforeAll(async () => {
  runtime = await startTestRuntime();
  db = createDocumentClient({ region: 'local', endpoint: runtime.dynamo.endpoint });
  store = new DynamoChatInstallationStore(db, runtime.config.TABLE_NAME);
});
afterAll(async () => {
  db?.destroy();
  await runtime?.stop();
});

let teams = 0;
async function installation(botToken: string, overrides: Partial<ChatInstallation> = {}): Promise<ChatInstallation> {
  const teamId = overrides.teamId ?? `T${process.pid}${++teams}`;
  return {
    teamId,
    teamName: 'Acme',
    sealedBotToken: await sealer.seal(botToken, teamId),
    botUserId: 'U0BOT',
    scopes: ['commands', 'chat:write', 'im:write'],
    installerUserId: 'usr_installer',
    installerChatUserId: 'U0ADA',
    installedAt: runtime.clock.now(),
    ...overrides,
  };
}

describe('installations', () => {
  it('keeps the bot token sealed for its team: no plaintext in the item, opened only with the team as context', async () => {
    const made = await installation('xoxb-17653672481-plaintext-token');
    await store.save(made);
    const { Item } = await db.send(
      new GetCommand({ TableName: runtime.config.TABLE_NAME, Key: { pk: `CHAT_TEAM#${made.teamId}`, sk: 'INSTALLATION' } }),
    );
    expect(JSON.stringify(Item)).not.toContain('plaintext-token');
    const read = await store.installation(made.teamId);
    expect(read).toEqual(made);
    expect(await sealer.open(read!.sealedBotToken, made.teamId)).toBe('xoxb-17653672481-plaintext-token');
    await expect(sealer.open(read!.sealedBotToken, 'T-another')).rejects.toThrow();
    expect(await store.installation('T-none')).toBeNull();
  });

  it('replaces a team’s installation when it installs again', async () => {
    const first = await installation('xoxb-first');
    await store.save(first);
    const again = await installation('xoxb-second', { teamId: first.teamId, installerUserId: 'usr_other' });
    await store.save(again);
    expect(await store.installation(first.teamId)).toEqual(again);
  });

  it('removes an installation for a revoked token only while the team still holds that token', async () => {
    const old = await installation('xoxb-old');
    await store.save(old);
    const current = await installation('xoxb-new', { teamId: old.teamId });
    await store.save(current);
    // A delivery that met the old token's revocation must not remove the new installation.
    expect(await store.removeIfToken(old.teamId, old.sealedBotToken)).toBe('replaced');
    expect(await store.installation(old.teamId)).toEqual(current);
    expect(await store.removeIfToken(old.teamId, current.sealedBotToken)).toBe('removed');
    expect(await store.installation(old.teamId)).toBeNull();
    // Marked removed (the worker may not delete), its token gone from the item; a new install writes over it.
    const { Item } = await db.send(
      new GetCommand({ TableName: runtime.config.TABLE_NAME, Key: { pk: `CHAT_TEAM#${old.teamId}`, sk: 'INSTALLATION' } }),
    );
    expect(Item).toMatchObject({ removed: true });
    expect(Item).not.toHaveProperty('sealed_bot_token');
    const again = await installation('xoxb-again', { teamId: old.teamId });
    await store.save(again);
    expect(await store.installation(old.teamId)).toEqual(again);
    expect(await store.removeIfToken(old.teamId, current.sealedBotToken)).toBe('replaced');
  });
});

describe('install states', () => {
  it('are used once, however many callbacks race with one', async () => {
    const stateId = `state-${process.pid}-${Date.now()}`;
    const expiresAt = runtime.clock.now() + 600_000;
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => store.useInstallState(stateId, expiresAt)));
    expect(outcomes.filter((outcome) => outcome === 'claimed')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'used')).toHaveLength(9);
    const { Item } = await db.send(
      new GetCommand({ TableName: runtime.config.TABLE_NAME, Key: { pk: `CHAT_STATE#${stateId}`, sk: 'STATE' } }),
    );
    // Kept by TTL an hour past the state's own expiry, then gone.
    expect(Item?.ttl).toBe(Math.floor(expiresAt / 1000) + 3600);
  });
});

describe('subscriptions', () => {
  it('are kept on a live secret, and refused (gone) on one that ended or never was', async () => {
    const subscriptions = new DynamoChatSubscriptions(db, runtime.config.TABLE_NAME);
    const api = apiClient(runtime);
    const live = (await api.post('/v1/secrets', textSecretBody())).body as { id: string; delete_token: string };
    expect(await subscriptions.deleteTokenHashOf(live.id)).toBe(sha256Base64Url(live.delete_token));
    expect(await subscriptions.subscribe(live.id, 'T0001', 'U0001')).toBe('subscribed');
    const { Item } = await db.send(
      new GetCommand({ TableName: runtime.config.TABLE_NAME, Key: { pk: `SECRET#${live.id}`, sk: 'SECRET' } }),
    );
    expect(Item).toMatchObject({ chat_team: 'T0001', chat_user: 'U0001' });

    const revoked = (await api.post('/v1/secrets', textSecretBody())).body as { id: string; delete_token: string };
    expect((await api.delete(`/v1/secrets/${revoked.id}`, { 'x-delete-token': revoked.delete_token })).status).toBe(204);
    // Its record is kept a while, but nothing will ever happen to it to tell.
    expect(await subscriptions.subscribe(revoked.id, 'T0001', 'U0001')).toBe('gone');
    expect(await subscriptions.subscribe('sec_never', 'T0001', 'U0001')).toBe('gone');
    expect(await subscriptions.deleteTokenHashOf('sec_never')).toBeNull();
  });
});
