import { describe, expect, it } from 'vitest';
import { completeFileUpload } from '../../shared/domain/files/complete.ts';
import { onFileEnded, purgeDueFiles, revokeStaleUploads } from '../../shared/domain/files/lifecycle.ts';
import { objectKeyOf } from '../../shared/domain/files/ports.ts';
import { startFileUpload } from '../../shared/domain/files/upload.ts';
import { claimSecret } from '../../shared/domain/secrets/claim.ts';
import { fileLimits } from '../../shared/limits.ts';
import { fileInput, noProof, putParts, randomish, secretWorld, web, type SecretWorld } from './secrets-world.ts';

// What a file's end does to its object, and the schedule's sweeps, on the fakes (issue 27). The
// relay reading ends off the table's stream, and S3 refusing an expired download URL, stay in
// test/integration/files.test.ts.

async function activeFile(world: SecretWorld, maxViews = 1) {
  const opened = await startFileUpload(fileInput(1000, { maxViews }), null, null, world);
  const ref = { id: opened.secret.id, uploadId: opened.secret.upload!.id, deleteToken: opened.deleteToken };
  await completeFileUpload({ ...ref, parts: putParts(world.bucket, opened, randomish(1000)) }, world);
  return { ...ref, key: objectKeyOf(ref.id) };
}

describe('onFileEnded', () => {
  it('keeps a burned file’s object until its last download URL has expired; the purge deletes it then, once', async () => {
    const world = secretWorld();
    const file = await activeFile(world);
    await claimSecret(file.id, noProof, web, null, world);
    await onFileEnded({ secretId: file.id, state: 'burned' }, world);
    expect(await purgeDueFiles(world)).toBe(0);
    world.clock.advance(fileLimits.downloadUrlSeconds - 1);
    expect(await purgeDueFiles(world)).toBe(0);
    expect(world.bucket.objects.has(file.key)).toBe(true);
    world.clock.advance(1);
    expect(await purgeDueFiles(world)).toBe(1);
    expect(world.bucket.objects.has(file.key)).toBe(false);
    expect(await purgeDueFiles(world)).toBe(0);
  });

  it.each(['revoked', 'expired', 'locked'] as const)('deletes the object of a file %s at once, and again harmlessly', async (state) => {
    const world = secretWorld();
    const file = await activeFile(world);
    for (let i = 0; i < 2; i++) await onFileEnded({ secretId: file.id, state }, world);
    expect(world.bucket.objects.has(file.key)).toBe(false);
  });

  it('aborts the upload of a file that ended still uploading, its parts with it', async () => {
    const world = secretWorld();
    const opened = await startFileUpload(fileInput(1000), null, null, world);
    putParts(world.bucket, opened, randomish(1000));
    await onFileEnded({ secretId: opened.secret.id, state: 'revoked', pendingUploadId: opened.secret.upload!.id }, world);
    expect(await world.bucket.parts(objectKeyOf(opened.secret.id), opened.secret.upload!.id)).toBeNull();
  });
});

describe('revokeStaleUploads', () => {
  it('revokes a file still uploading a day after it began, once; a completed one is left alone', async () => {
    const world = secretWorld();
    const stale = await startFileUpload(fileInput(1000), null, null, world);
    const done = await activeFile(world);
    world.clock.advance(fileLimits.staleUploadSeconds - 1);
    expect(await revokeStaleUploads(world)).toBe(0);
    world.clock.advance(1);
    expect(await revokeStaleUploads(world)).toBe(1);
    expect((await world.secrets.get(stale.secret.id))!.state).toBe('revoked');
    expect((await world.secrets.get(done.id))!.state).toBe('active');
    expect(await revokeStaleUploads(world)).toBe(0);
    expect(world.typesOf(stale.secret.id)).toEqual(['secret.created', 'secret.revoked']);
  });
});
