import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { sha256Base64Url } from '../../shared/ids.ts';
import { credentialLimits } from '../../shared/limits.ts';
import { bearer, jwtPayload, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime, type Reply } from '../support/runtime.ts';

/**
 * Refresh races (issue 11, item 7): whatever the interleaving of refreshes by two holders of
 * one session (its owner, and a thief with a copy of a refresh token), either both keep the
 * session or it is signed out for both. Never is one refused while the other keeps it.
 */

/** Holds the rotation (the session's conditional UpdateItem) expecting this hash, until released. */
let holdRotationOf: string | null = null;
let rotationHeld: () => void = () => {};
let releaseRotation: () => void = () => {};

function holdRotations(client: DynamoDBDocumentClient): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { UpdateExpression?: string; ExpressionAttributeValues?: Record<string, unknown> };
      if (
        holdRotationOf !== null &&
        /refresh_hash = :next/.test(input.UpdateExpression ?? '') &&
        input.ExpressionAttributeValues?.[':expected'] === holdRotationOf
      ) {
        holdRotationOf = null;
        const released = new Promise<void>((resolve) => (releaseRotation = resolve));
        rotationHeld();
        await released;
      }
      return next(args);
    },
    { step: 'initialize', name: 'holdRotations' },
  );
}

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
beforeAll(async () => {
  runtime = await startTestRuntime({ instrumentDynamo: holdRotations });
  api = apiClient(runtime);
});
afterAll(() => runtime?.stop());

const refresh = (token: string) => api.post('/v1/auth/refresh', { refresh_token: token });
const live = async (accessToken: string) => (await api.get('/v1/auth/sessions', bearer(accessToken))).status === 200;
const sessionIdOf = (signedIn: Pick<SignedIn, 'access_token'>) => jwtPayload(signedIn.access_token).sid as string;

/**
 * The rule, checked after a race: if any holder was refused, the session is signed out and no
 * token handed out during the race still works; if nobody was refused, every holder is signed in.
 */
async function expectBothOrNeither(sessionId: string, replies: Reply[]): Promise<'kept' | 'signed out'> {
  expect(replies.map((reply) => reply.status).filter((status) => status !== 200 && status !== 401)).toEqual([]);
  const granted = replies.filter((reply) => reply.status === 200);
  const session = await runtime.stores.sessions.get(sessionId);
  if (replies.some((reply) => reply.status === 401)) {
    expect(session?.revokedAt, 'a holder was refused while the session stayed open').toBeDefined();
    for (const reply of granted) {
      expect(await live(reply.body.access_token)).toBe(false);
      expect((await refresh(reply.body.refresh_token)).status).toBe(401);
    }
    return 'signed out';
  }
  expect(session?.revokedAt).toBeUndefined();
  for (const reply of granted) expect(await live(reply.body.access_token)).toBe(true);
  return 'kept';
}

describe('refresh races', () => {
  it('20 parallel refreshes with one token all get the same new token, and the session goes on', async () => {
    const signedIn = await signIn(runtime, newEmail('twenty'));
    const replies = await Promise.all(Array.from({ length: 20 }, () => refresh(signedIn.refresh_token)));
    expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(200));
    expect(new Set(replies.map((reply) => reply.body.refresh_token)).size).toBe(1);
    expect(await expectBothOrNeither(sessionIdOf(signedIn), replies)).toBe('kept');
    const next = await refresh(replies[0]!.body.refresh_token);
    expect(next.status).toBe(200);
    expect(await live(next.body.access_token)).toBe(true);
  });

  it('inside the grace window: the owner refreshing the new token while a thief replays the old one (10 each, in parallel)', async () => {
    const signedIn = await signIn(runtime, newEmail('inside'));
    const owner = await refresh(signedIn.refresh_token);
    runtime.clock.advance(credentialLimits.refreshGraceSeconds / 2);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => refresh(i % 2 ? signedIn.refresh_token : owner.body.refresh_token)),
    );
    await expectBothOrNeither(sessionIdOf(signedIn), replies);
  });

  it('after the grace window: the thief replaying the old token signs the session out for both, however the 20 interleave', async () => {
    const signedIn = await signIn(runtime, newEmail('after'));
    const owner = await refresh(signedIn.refresh_token);
    runtime.clock.advance(credentialLimits.refreshGraceSeconds + 1);
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => refresh(i % 2 ? signedIn.refresh_token : owner.body.refresh_token)),
    );
    expect(await expectBothOrNeither(sessionIdOf(signedIn), replies)).toBe('signed out');
    expect(await live(owner.body.access_token)).toBe(false);
  });

  it('a refresh that loses its rotation to a holder who has rotated twice since signs the session out', async () => {
    // Owner and thief both hold T0. The owner's rotation is held in flight while the thief
    // turns T0 into T1 and T1 into T2; when the owner's write then fails, T0 is no longer the
    // token just rotated away, and the owner must not be refused with the thief signed in.
    const signedIn = await signIn(runtime, newEmail('lost'));
    const held = new Promise<void>((resolve) => (rotationHeld = resolve));
    holdRotationOf = sha256Base64Url(signedIn.refresh_token);
    const ownerReply = refresh(signedIn.refresh_token);
    await held;
    const t1 = await refresh(signedIn.refresh_token);
    expect(t1.status).toBe(200);
    const t2 = await refresh(t1.body.refresh_token);
    expect(t2.status).toBe(200);
    releaseRotation();
    const owner = await ownerReply;
    expect(owner.status).toBe(401);
    expect(owner.body.reason).toBe('refresh_token_reused');
    expect(await expectBothOrNeither(sessionIdOf(signedIn), [owner, t1, t2])).toBe('signed out');
  });

  it('rotation chains: a thief who rotates a stolen token 25 times cannot make the owner’s copy unknown', async () => {
    // The session remembers only the last 20 rotated hashes; the token's tag (its session's
    // chain key) still says it was issued by this session, so presenting it is reuse.
    const signedIn = await signIn(runtime, newEmail('chain'));
    let thief = signedIn.refresh_token;
    const thiefReplies: Reply[] = [];
    for (let i = 0; i < 25; i++) {
      const reply = await refresh(thief);
      expect(reply.status).toBe(200);
      thiefReplies.push(reply);
      thief = reply.body.refresh_token;
      runtime.clock.advance(credentialLimits.refreshGraceSeconds + 1);
    }
    const owner = await refresh(signedIn.refresh_token);
    expect(owner.status).toBe(401);
    expect(owner.body.reason).toBe('refresh_token_reused');
    expect(await expectBothOrNeither(sessionIdOf(signedIn), [owner, thiefReplies.at(-1)!])).toBe('signed out');
  });

  it('rotation chains in parallel: owner and thief each refresh 10 times in a row from one token, all at once', async () => {
    for (const pause of [0, credentialLimits.refreshGraceSeconds + 1]) {
      const signedIn = await signIn(runtime, newEmail('chains'));
      const chain = async (): Promise<Reply[]> => {
        const replies: Reply[] = [];
        let token = signedIn.refresh_token;
        for (let i = 0; i < 10; i++) {
          const reply = await refresh(token);
          replies.push(reply);
          if (reply.status !== 200) break;
          token = reply.body.refresh_token;
        }
        return replies;
      };
      const first = chain();
      if (pause) runtime.clock.advance(pause);
      const replies = (await Promise.all([first, chain()])).flat();
      await expectBothOrNeither(sessionIdOf(signedIn), replies);
    }
  });

  it('a session opened before chain keys refreshes, gets one at its rotation, and still knows its old token', async () => {
    const signedIn = await signIn(runtime, newEmail('legacy'));
    const now = runtime.clock.now();
    const id = `ses_${randomBytes(16).toString('base64url')}`;
    const untagged = `hlr_${id}.${randomBytes(32).toString('base64url')}`;
    await runtime.stores.sessions.insert({
      id,
      userId: signedIn.user.id,
      deviceName: 'opened before chain keys',
      createdAt: now,
      lastUsedAt: now,
      refreshHash: sha256Base64Url(untagged),
      rotatedHashes: [],
      refreshExpiresAt: now + credentialLimits.refreshTokenSeconds * 1000,
    });
    const rotated = await refresh(untagged);
    expect(rotated.status).toBe(200);
    expect((await runtime.stores.sessions.get(id))?.chainKey).toEqual(expect.any(String));
    runtime.clock.advance(credentialLimits.refreshGraceSeconds + 1);
    const reused = await refresh(untagged);
    expect(reused.body.reason).toBe('refresh_token_reused');
    expect(await expectBothOrNeither(id, [reused, rotated])).toBe('signed out');
  });

  it('a token that this session never issued is refused without signing anyone out', async () => {
    const signedIn = await signIn(runtime, newEmail('forged'));
    const forged = `hlr_${sessionIdOf(signedIn)}.${'A'.repeat(43)}`;
    const reply = await refresh(forged);
    expect(reply.status).toBe(401);
    expect(reply.body.reason).toBeUndefined();
    expect(await live(signedIn.access_token)).toBe(true);
    expect((await refresh(signedIn.refresh_token)).status).toBe(200);
  });
});
