import { describe, expect, it } from 'vitest';
import { completeFileUpload } from '../../shared/domain/files/complete.ts';
import { resumeFileUpload, startFileUpload } from '../../shared/domain/files/upload.ts';
import { Forbidden, Invalid, TooEarly } from '../../shared/domain/refusals.ts';
import { claimSecret } from '../../shared/domain/secrets/claim.ts';
import { fileLimits } from '../../shared/limits.ts';
import { fileInput, MiB, noProof, putParts, randomish, sealedText, secretWorld, web } from './secrets-world.ts';

// Opening and resuming a file's upload on the fakes (issue 27), the bucket in memory: how a file
// is cut, the URL of each part, the plan's limit, a workspace's rules. Real S3's multipart and
// presigned URLs: test/integration/files.test.ts and file-transfer.test.ts.

const GiB = 1024 * MiB;
const lengthOf = (url: string) => Number(new URL(url).searchParams.get('length'));

describe('startFileUpload', () => {
  it('opens a pending file and its upload: whole chunks per part, at least 8 MiB, each part’s URL signed for its exact length', async () => {
    const world = secretWorld();
    const size = 20 * MiB + 12_345;
    const opened = await startFileUpload(fileInput(size), null, null, world);
    const { partSize, partCount, chunkLog2 } = opened.secret.upload!;
    expect(chunkLog2).toBe(20);
    expect(partSize % (2 ** 20 + 16)).toBe(0);
    expect(partSize).toBeGreaterThanOrEqual(fileLimits.minPartBytes);
    expect(partCount).toBe(Math.ceil(size / partSize));
    expect(opened.parts.map((part) => part.partNumber)).toEqual(Array.from({ length: partCount }, (_, i) => i + 1));
    expect(opened.parts.map((part) => lengthOf(part.url))).toEqual([partSize, partSize, size - 2 * partSize]);
    expect(opened.urlsExpireAt).toBe(world.clock.now() + fileLimits.partUrlSeconds * 1000);
    expect((await world.secrets.get(opened.secret.id))!).toMatchObject({ kind: 'file', state: 'pending', sizeBytes: size, viewsLeft: 1 });
    expect(opened.secret).not.toHaveProperty('envelope');
    expect(world.typesOf(opened.secret.id)).toEqual(['secret.created']);
  });

  it('is too early to claim while it uploads (upload_pending, retry in 5 s), taking no view', async () => {
    const world = secretWorld();
    const opened = await startFileUpload(fileInput(10), null, null, world);
    const early = claimSecret(opened.secret.id, noProof, web, null, world);
    await expect(early).rejects.toBeInstanceOf(TooEarly);
    await expect(early).rejects.toMatchObject({ code: 'upload_pending', retryAfterSeconds: 5 });
    expect((await world.secrets.get(opened.secret.id))!).toMatchObject({ state: 'pending', viewsLeft: 1 });
  });

  it('keeps at most 1,000 parts however big the file, in whole chunks of the size asked', async () => {
    const world = secretWorld();
    world.tiers.setUser('usr_team', { plan: 'team' });
    const opened = await startFileUpload(fileInput(20 * GiB, { chunkLog2: 16 }), 'usr_team', null, world);
    const { partSize, partCount } = opened.secret.upload!;
    expect(partCount).toBeLessThanOrEqual(fileLimits.maxParts);
    expect(partSize % (2 ** 16 + 16)).toBe(0);
    expect(opened.parts).toHaveLength(partCount);
    expect(opened.parts.reduce((sum, part) => sum + lengthOf(part.url), 0)).toBe(20 * GiB);
  });

  it('holds the file to the caller’s plan (anonymous and Free: 100 MiB; Pro: 5 GiB), before anything is uploaded', async () => {
    const world = secretWorld();
    world.tiers.setUser('usr_free').setUser('usr_pro', { plan: 'pro' });
    for (const [caller, limit] of [
      [null, 100 * MiB],
      ['usr_free', 100 * MiB],
      ['usr_pro', 5 * GiB],
    ] as const) {
      const refused = startFileUpload(fileInput(limit + 1), caller, null, world);
      await expect(refused).rejects.toBeInstanceOf(Forbidden);
      await expect(refused).rejects.toMatchObject({ code: 'forbidden', facts: { reason: 'plan_limit', limit_bytes: limit } });
      expect((await startFileUpload(fileInput(limit), caller, null, world)).secret.sizeBytes).toBe(limit);
    }
  });

  it('refuses a claim verifier without its link verifier, as for a text', async () => {
    const world = secretWorld();
    const { sealed } = await sealedText();
    const refused = startFileUpload(fileInput(1000, { claimVerifier: sealed.claimVerifier }), null, null, world);
    await expect(refused).rejects.toBeInstanceOf(Invalid);
    await expect(refused).rejects.toMatchObject({ fields: [{ field: 'link_verifier' }] });
    const both = await startFileUpload(
      fileInput(1000, { claimVerifier: sealed.claimVerifier, linkVerifier: sealed.linkVerifier }),
      null,
      null,
      world,
    );
    expect(both.secret).toMatchObject({ claimVerifier: sealed.claimVerifier, linkVerifier: sealed.linkVerifier });
  });

  it('with links and a claim proof, claims as any secret once uploaded: a link is then required', async () => {
    const world = secretWorld();
    const { sealed } = await sealedText();
    const input = fileInput(1000, { claimVerifier: sealed.claimVerifier, linkVerifier: sealed.linkVerifier, recipients: [{}, {}] });
    const opened = await startFileUpload(input, null, null, world);
    await completeFileUpload(
      {
        id: opened.secret.id,
        uploadId: opened.secret.upload!.id,
        deleteToken: opened.deleteToken,
        parts: putParts(world.bucket, opened, randomish(1000)),
      },
      world,
    );
    const proof = { ...noProof, claimToken: sealed.claimToken, linkToken: sealed.linkToken };
    await expect(claimSecret(opened.secret.id, proof, web, null, world)).rejects.toMatchObject({ code: 'recipient_required' });
    const claimed = await claimSecret(opened.secret.id, { ...proof, recipientId: opened.secret.recipients![0]!.id }, web, null, world);
    expect(claimed.secret.kind).toBe('file');
    expect(claimed.envelope).toBeUndefined();
  });

  it('inside a workspace: a member only, held to its policy; the passphrase declared is kept for completion to check', async () => {
    const world = secretWorld();
    const id = world.workspace('wks_AAAAAAAAAAAAAAAAAAAAAA', ['usr_member'], 'team', { maxFileBytes: 1000 });
    const refused = startFileUpload(fileInput(10, { workspaceId: id }), 'usr_stranger', null, world);
    await expect(refused).rejects.toMatchObject({ kind: 'forbidden', facts: { reason: 'not_a_member' } });
    await expect(startFileUpload(fileInput(1001, { workspaceId: id }), 'usr_member', null, world)).rejects.toMatchObject({
      code: 'policy_violation',
      facts: { rules: ['max_file_bytes'] },
    });
    const opened = await startFileUpload(fileInput(1000, { workspaceId: id, passphrase: true }), 'usr_member', null, world);
    expect(opened.secret).toMatchObject({ workspaceId: id, ownerId: 'usr_member', upload: { passphrase: true } });
    // Outside a workspace nothing is declared: the header says what it says.
    expect((await startFileUpload(fileInput(10, { passphrase: true }), null, null, world)).secret.upload).not.toHaveProperty('passphrase');
  });
});

describe('resumeFileUpload', () => {
  it('gives fresh URLs for the parts S3 lacks and lists the parts it holds; the upload then completes', async () => {
    const world = secretWorld();
    const size = 17 * MiB;
    const envelope = randomish(size);
    const opened = await startFileUpload(fileInput(size), null, null, world);
    expect(opened.secret.upload!.partCount).toBe(3);
    const [second] = putParts(world.bucket, { ...opened, parts: [opened.parts[1]!] }, envelope);
    world.clock.advance(fileLimits.partUrlSeconds);
    const ref = { id: opened.secret.id, uploadId: opened.secret.upload!.id, deleteToken: opened.deleteToken };
    const resumed = await resumeFileUpload(ref, world);
    expect(resumed.uploaded).toEqual([{ partNumber: 2, etag: second!.etag, size: opened.secret.upload!.partSize }]);
    expect(resumed.parts.map((part) => part.partNumber)).toEqual([1, 3]);
    expect(resumed.urlsExpireAt).toBe(world.clock.now() + fileLimits.partUrlSeconds * 1000);
    const rest = putParts(world.bucket, { ...opened, parts: resumed.parts }, envelope);
    expect((await completeFileUpload({ ...ref, parts: [...rest, second!] }, world)).state).toBe('active');
  });

  it('is only for the delete token’s holder while the file uploads: forbidden (no_pending_upload) otherwise', async () => {
    const world = secretWorld();
    const opened = await startFileUpload(fileInput(1000), null, null, world);
    const ref = { id: opened.secret.id, uploadId: opened.secret.upload!.id, deleteToken: opened.deleteToken };
    const wrongs = [
      { ...ref, deleteToken: 'hdt_nope' },
      { ...ref, uploadId: 'upl_nope' },
      { ...ref, id: 'sec_x' },
    ];
    await completeFileUpload({ ...ref, parts: putParts(world.bucket, opened, randomish(1000)) }, world);
    for (const wrong of [...wrongs, ref]) {
      const refused = resumeFileUpload(wrong, world);
      await expect(refused).rejects.toBeInstanceOf(Forbidden);
      await expect(refused).rejects.toMatchObject({ facts: { reason: 'no_pending_upload' } });
    }
  });
});
