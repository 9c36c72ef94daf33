import { describe, expect, it } from 'vitest';
import { abortFileUpload, completeFileUpload } from '../../shared/domain/files/complete.ts';
import { onFileEnded, revokeStaleUploads } from '../../shared/domain/files/lifecycle.ts';
import { objectKeyOf } from '../../shared/domain/files/ports.ts';
import { startFileUpload, type NewFileUpload } from '../../shared/domain/files/upload.ts';
import { Forbidden } from '../../shared/domain/refusals.ts';
import { closeRequestLink, createRequestLink } from '../../shared/domain/requests/links.ts';
import { keepUntil } from '../../shared/domain/requests/model.ts';
import { readInbox, respondToRequest } from '../../shared/domain/requests/responses.ts';
import { claimSecret } from '../../shared/domain/secrets/claim.ts';
import { expireDueSecrets } from '../../shared/domain/secrets/end.ts';
import { adoptSecrets } from '../../shared/domain/secrets/owner.ts';
import { readSecret, revokeSecret } from '../../shared/domain/secrets/read.ts';
import { fileLimits, requestLimits } from '../../shared/limits.ts';
import { fileInput, MiB, noProof, putParts, randomish, sealedText, secretWorld, web, type SecretWorld } from './secrets-world.ts';

// A file sent in response to a request link, on the fakes (issue 27): the files use cases with a
// request id and a wrapped key. The requester's inbox, the link's count and the file's secret
// move together (one write in the store: its contract holds it to DynamoDB's transaction).

const key = (bytes: number, fill = 1) => Buffer.alloc(bytes, fill).toString('base64url');
const wrapped = { enc: key(32), wrappedKey: key(48) };

const newLink = (world: SecretWorld, maxResponses = 2, expiresInSeconds = 3600) =>
  createRequestLink({ publicKey: key(32, 9), kem: 'x25519', expiresInSeconds, maxResponses }, 'usr_requester', world);

const responseTo = (requestId: string, size: number, overrides: Partial<NewFileUpload> = {}) =>
  fileInput(size, { response: { requestId, ...wrapped }, ...overrides });

/** A response opened, its bytes PUT; `complete` finishes it. */
async function opened(world: SecretWorld, requestId: string, size = 1000) {
  const upload = await startFileUpload(responseTo(requestId, size), null, null, world);
  const ref = { id: upload.secret.id, uploadId: upload.secret.upload!.id, deleteToken: upload.deleteToken };
  const parts = putParts(world.bucket, upload, randomish(size));
  return { upload, ref, key: objectKeyOf(ref.id), complete: () => completeFileUpload({ ...ref, parts }, world) };
}

const inboxOf = async (world: SecretWorld, requestId: string) => (await readInbox(requestId, 'usr_requester', 50, null, world)).items;
const leftOf = async (world: SecretWorld, requestId: string) => (await world.requests.get(requestId))!.responsesLeft;

describe('a file response', () => {
  it('joins the inbox when its upload completes, counted then, with a download of its object; it lives as long as the link’s responses', async () => {
    const world = secretWorld();
    const link = await newLink(world);
    const file = await opened(world, link.id, 9 * MiB + 5);
    expect(file.upload.secret).toMatchObject({ expiresAt: keepUntil(link), response: { requestId: link.id, ...wrapped } });
    expect(file.upload.secret).not.toHaveProperty('ownerId');
    expect([await leftOf(world, link.id), await inboxOf(world, link.id)]).toEqual([2, []]);
    await file.complete();
    expect(await leftOf(world, link.id)).toBe(1);
    const [item] = await inboxOf(world, link.id);
    expect(item).toMatchObject({
      sealed: { kind: 'file', secretId: file.ref.id },
      salt: 'A'.repeat(22),
      sizeBytes: 9 * MiB + 5,
      ...wrapped,
    });
    expect(item!.download).toEqual({
      url: expect.stringContaining(file.key),
      expiresAt: world.clock.now() + fileLimits.downloadUrlSeconds * 1000,
    });
    expect((await world.secrets.get(file.ref.id))!.state).toBe('active');
  });

  it('is no secret of its own: no read, claim, revoke or adoption reaches it, and its object stays', async () => {
    const world = secretWorld();
    const link = await newLink(world);
    const file = await opened(world, link.id);
    await file.complete();
    await expect(readSecret(file.ref.id, null, null, world)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(claimSecret(file.ref.id, noProof, web, null, world)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(revokeSecret(file.ref.id, file.ref.deleteToken, null, world)).rejects.toMatchObject({ kind: 'not_found' });
    expect(
      await adoptSecrets('usr_responder', [{ id: file.ref.id, deleteToken: file.ref.deleteToken }], { secrets: world.adoptions }),
    ).toEqual([{ id: file.ref.id, adopted: false, reason: 'not_found' }]);
    expect(world.bucket.objects.has(file.key)).toBe(true);
  });

  it('is refused before anything is uploaded when the link takes none: forbidden, saying why (closed, full, expired, not found)', async () => {
    const world = secretWorld();
    const closed = await newLink(world, 1);
    await closeRequestLink(closed.id, 'usr_requester', world);
    const full = await newLink(world, 1);
    const { sealed } = await sealedText();
    await respondToRequest(full.id, { envelope: sealed.envelope, salt: sealed.salt, ...wrapped }, null, world);
    const expiring = await newLink(world, 1, 60);
    world.clock.advance(60);
    const host = world.verifyHost(world.workspace('wks_AAAAAAAAAAAAAAAAAAAAAA', ['usr_member']), 'ask.acme.test');
    const open = await newLink(world);
    const cases = [
      [closed.id, null, 'request_closed'],
      [full.id, null, 'request_full'],
      [expiring.id, null, 'request_expired'],
      ['rql_AAAAAAAAAAAAAAAAAAAAAA', null, 'request_not_found'],
      [open.id, host, 'request_not_found'],
    ] as const;
    for (const [requestId, hostClaim, reason] of cases) {
      const refused = startFileUpload(responseTo(requestId, 1000), null, hostClaim, world);
      await expect(refused).rejects.toBeInstanceOf(Forbidden);
      await expect(refused).rejects.toMatchObject({ facts: { reason } });
    }
    await expect(
      startFileUpload(
        responseTo(open.id, 1000, { response: { requestId: open.id, enc: key(65), wrappedKey: key(48) } }),
        null,
        null,
        world,
      ),
    ).rejects.toMatchObject({
      kind: 'invalid',
      fields: [{ field: 'enc' }],
    });
  });

  it('is held to the requester’s plan, whoever sends it', async () => {
    const world = secretWorld();
    world.tiers.setUser('usr_requester');
    const link = await newLink(world);
    await expect(startFileUpload(responseTo(link.id, 100 * MiB + 1), 'usr_rich', null, world)).rejects.toMatchObject({
      facts: { reason: 'plan_limit', limit_bytes: 100 * MiB },
    });
    world.tiers.setUser('usr_requester', { plan: 'pro' });
    expect((await startFileUpload(responseTo(link.id, 100 * MiB + 1), null, null, world)).secret.sizeBytes).toBe(100 * MiB + 1);
  });

  it('aborted, or never completed (revoked after a day), counts nothing and leaves no parts', async () => {
    const world = secretWorld();
    const link = await newLink(world, 3);
    const aborted = await opened(world, link.id);
    await abortFileUpload(aborted.ref, world);
    const stale = await opened(world, link.id);
    world.clock.advance(fileLimits.staleUploadSeconds);
    expect(await revokeStaleUploads(world)).toBe(1);
    await onFileEnded({ secretId: stale.ref.id, state: 'revoked', pendingUploadId: stale.ref.uploadId }, world);
    for (const file of [aborted, stale]) expect(await world.bucket.parts(file.key, file.ref.uploadId)).toBeNull();
    expect([await leftOf(world, link.id), await inboxOf(world, link.id)]).toEqual([3, []]);
  });

  it('completed once the link took no more (filled, closed, expired): a conflict saying why; the file is revoked and no object kept', async () => {
    for (const [end, reason] of [
      ['full', 'request_full'],
      ['closed', 'request_closed'],
      ['expired', 'request_expired'],
    ] as const) {
      const world = secretWorld();
      const link = await newLink(world, 1);
      const first = await opened(world, link.id);
      const late = await opened(world, link.id);
      if (end === 'full') await first.complete();
      if (end === 'closed') await closeRequestLink(link.id, 'usr_requester', world);
      if (end === 'expired') world.clock.advance(3600);
      await expect(late.complete()).rejects.toMatchObject({ kind: 'conflict', facts: { reason } });
      expect((await world.secrets.get(late.ref.id))!.state).toBe('revoked');
      expect(world.bucket.objects.has(late.key)).toBe(false);
      expect(await inboxOf(world, link.id)).toHaveLength(end === 'full' ? 1 : 0);
    }
  });

  it('when the link stays busy, or an abort won: a conflict (busy, not_pending), and no object kept', async () => {
    for (const [outcome, reason, state] of [
      ['busy', 'busy', 'revoked'],
      ['not_pending', 'not_pending', 'pending'],
    ] as const) {
      const world = secretWorld();
      const link = await newLink(world);
      const file = await opened(world, link.id);
      world.requests.addFileResponse = async () => outcome;
      await expect(file.complete()).rejects.toMatchObject({ kind: 'conflict', facts: { reason } });
      expect(world.bucket.objects.has(file.key)).toBe(false);
      // An abort that won ended the secret itself; here nothing did, so it is left as it was.
      expect((await world.secrets.get(file.ref.id))!.state).toBe(state);
      expect(await leftOf(world, link.id)).toBe(2);
    }
  });

  it('goes with the link’s responses: the sweep ends it once the retention after the link’s expiry has passed, and its object goes', async () => {
    const world = secretWorld();
    const link = await newLink(world, 2, 3600);
    const file = await opened(world, link.id);
    await file.complete();
    world.clock.advance(3600 + requestLimits.retentionSeconds - 60);
    expect(await expireDueSecrets(world)).toBe(0);
    world.clock.advance(60);
    expect(await expireDueSecrets(world)).toBe(1);
    await onFileEnded({ secretId: file.ref.id, state: 'expired' }, world);
    expect(world.bucket.objects.has(file.key)).toBe(false);
  });
});
