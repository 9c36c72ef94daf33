import { describe, expect, it } from 'vitest';
import { abortFileUpload, completeFileUpload } from '../../shared/domain/files/complete.ts';
import { objectKeyOf } from '../../shared/domain/files/ports.ts';
import { startFileUpload, type NewFileUpload } from '../../shared/domain/files/upload.ts';
import { Conflict, NotFound, TooLarge } from '../../shared/domain/refusals.ts';
import { claimSecret } from '../../shared/domain/secrets/claim.ts';
import {
  fileInput,
  MiB,
  noProof,
  putParts,
  randomish,
  sealedFile,
  sealedText,
  secretWorld,
  web,
  type SecretWorld,
} from './secrets-world.ts';

// Completing and aborting a file's upload on the fakes (issue 27), the bucket in memory: the
// parts listed, each stored part's size, the object measured, its envelope header, and a
// completion racing an abort. S3's own checks of presigned lengths and ETags, and the race over
// HTTP: test/integration/files.test.ts.

/** An upload opened and every part PUT; its reference, its parts, and a completion of them. */
async function uploaded(world: SecretWorld, envelope: Uint8Array, input: Partial<NewFileUpload> = {}, caller: string | null = null) {
  const opened = await startFileUpload(fileInput(envelope.length, input), caller, null, world);
  const ref = { id: opened.secret.id, uploadId: opened.secret.upload!.id, deleteToken: opened.deleteToken };
  const parts = putParts(world.bucket, opened, envelope, (numbers) => [...numbers].reverse());
  return {
    opened,
    ref,
    parts,
    key: objectKeyOf(opened.secret.id),
    complete: (list = parts) => completeFileUpload({ ...ref, parts: list }, world),
  };
}

const stateOf = async (world: SecretWorld, id: string) => (await world.secrets.get(id))!.state;

describe('completeFileUpload', () => {
  it('activates the file once S3 holds every part, listed in any order; the object is exactly its bytes, and a claim is its view', async () => {
    const world = secretWorld();
    const envelope = randomish(17 * MiB + 7);
    const upload = await uploaded(world, envelope, { maxViews: 3 });
    expect(upload.parts.map((part) => part.partNumber)).toEqual([3, 2, 1]);
    expect(await upload.complete()).toMatchObject({
      state: 'active',
      secret: { id: upload.ref.id, state: 'active', sizeBytes: envelope.length },
    });
    expect(Buffer.from(world.bucket.objects.get(upload.key)!).equals(Buffer.from(envelope))).toBe(true);
    expect(await stateOf(world, upload.ref.id)).toBe('active');
    const claimed = await claimSecret(upload.ref.id, noProof, web, null, world);
    expect(claimed.secret).toMatchObject({ kind: 'file', viewsLeft: 2 });
    expect(claimed.envelope).toBeUndefined();
  });

  it('refuses a missing, duplicate or unknown part, and an ETag S3 does not have, changing nothing; then completes, once', async () => {
    const world = secretWorld();
    const upload = await uploaded(world, randomish(9 * MiB));
    const [two, one] = upload.parts as [{ partNumber: number; etag: string }, { partNumber: number; etag: string }];
    const refusals: Array<[Array<{ partNumber: number; etag: string }>, Record<string, unknown>]> = [
      [[one], { reason: 'missing_part', missing_parts: [2] }],
      [[one, one, two], { reason: 'duplicate_part', part_number: 1 }],
      [[one, two, { partNumber: 3, etag: one.etag }], { reason: 'mismatched_part', part_number: 3 }],
      [[one, { partNumber: 2, etag: '"0123456789abcdef0123456789abcdef"' }], { reason: 'mismatched_part' }],
    ];
    for (const [parts, facts] of refusals) {
      const refused = upload.complete(parts);
      await expect(refused).rejects.toBeInstanceOf(Conflict);
      await expect(refused).rejects.toMatchObject({ code: 'conflict', facts });
    }
    expect(await stateOf(world, upload.ref.id)).toBe('pending');
    expect((await upload.complete()).state).toBe('active');
    // Asked again (a retry after a lost answer): the same answer, nothing done twice.
    expect((await upload.complete()).state).toBe('active');
  });

  it.each<[string, 'invalid_part' | 'too_small' | 'no_such_upload', string]>([
    ['an ETag it does not know', 'invalid_part', 'mismatched_part'],
    ['a part under its 5 MiB floor', 'too_small', 'part_too_small'],
    ['an upload it no longer knows', 'no_such_upload', 'not_pending'],
  ])('says why S3 refused the completion: %s', async (_, reason, said) => {
    const world = secretWorld();
    const upload = await uploaded(world, randomish(1000));
    world.bucket.complete = async () => ({ completed: false, reason });
    await expect(upload.complete()).rejects.toMatchObject({ kind: 'conflict', facts: { reason: said } });
  });

  it('is not pending once S3 no longer knows the upload (aborted there), whatever the table says', async () => {
    const world = secretWorld();
    const upload = await uploaded(world, randomish(1000));
    await world.bucket.abort(upload.key, upload.ref.uploadId);
    await expect(upload.complete()).rejects.toMatchObject({ kind: 'conflict', facts: { reason: 'not_pending' } });
  });

  it('checks every stored part’s size: longer than its share is too large, shorter a size_mismatch; either ends the file and its parts at once', async () => {
    const world = secretWorld();
    const declared = 9 * MiB;
    const bytes = randomish(declared + 1000);
    for (const [first, second] of [
      [
        [0, 8 * MiB + 128],
        [8 * MiB + 128, declared + 1000],
      ],
      [
        [0, MiB],
        [MiB, declared],
      ],
    ] as const) {
      const opened = await startFileUpload(fileInput(declared), null, null, world);
      const uploadId = opened.secret.upload!.id;
      // Put by URLs that did not sign their length (as before issue 26), so S3 stored them.
      const parts = [
        { partNumber: 1, etag: world.bucket.putUnsized(uploadId, 1, bytes.subarray(...first)) },
        { partNumber: 2, etag: world.bucket.putUnsized(uploadId, 2, bytes.subarray(...second)) },
      ];
      const ref = { id: opened.secret.id, uploadId, deleteToken: opened.deleteToken };
      const refused = await completeFileUpload({ ...ref, parts }, world).catch((error) => error);
      const { partSize } = opened.secret.upload!;
      if (first[1] === partSize) {
        expect(refused).toBeInstanceOf(TooLarge);
        expect(refused.facts).toEqual({ part_number: 2, part_bytes: declared + 1000 - partSize, expected_bytes: declared - partSize });
      } else {
        expect(refused).toBeInstanceOf(Conflict);
        expect(refused.facts).toEqual({ reason: 'size_mismatch', part_number: 1, part_bytes: MiB, expected_bytes: partSize });
      }
      expect(await stateOf(world, ref.id)).toBe('revoked');
      expect(await world.bucket.parts(objectKeyOf(ref.id), uploadId)).toBeNull();
      await expect(completeFileUpload({ ...ref, parts }, world)).rejects.toMatchObject({ facts: { reason: 'not_pending' } });
    }
  });

  it('measures the object S3 made: larger than declared, or than the owner’s plan allows now, is too large; any other size a mismatch; the file is revoked and its object deleted', async () => {
    const world = secretWorld();
    world.tiers.setUser('usr_pro', { plan: 'pro' });
    const sizes: Array<[string | null, number, (declared: number) => number | null, string]> = [
      [null, 1000, (declared) => declared + 1, 'too_large'],
      [null, 1000, (declared) => declared - 1, 'size_mismatch'],
      [null, 1000, () => null, 'size_mismatch'],
      // Opened on Pro, completed on Free: the plan when the file is complete bounds it.
      ['usr_pro', 101 * MiB, (declared) => declared, 'too_large'],
    ];
    for (const [caller, declared, measured, said] of sizes) {
      const opened = await startFileUpload(fileInput(declared), caller, null, world);
      const { partSize, partCount, id: uploadId } = opened.secret.upload!;
      const parts = Array.from({ length: partCount }, (_, i) => ({ partNumber: i + 1, etag: `"${i}"` }));
      // S3's side as it would answer for parts of the right sizes, without holding 101 MiB here.
      world.bucket.parts = async () =>
        parts.map((part) => ({ ...part, size: Math.min(partSize, declared - (part.partNumber - 1) * partSize) }));
      world.bucket.complete = async () => ({ completed: true });
      world.bucket.size = async () => measured(declared);
      if (caller) world.tiers.setUser(caller, { plan: 'free' });
      const refused = await completeFileUpload({ id: opened.secret.id, uploadId, deleteToken: opened.deleteToken, parts }, world).catch(
        (error) => error,
      );
      if (said === 'too_large')
        expect(refused).toMatchObject({ kind: 'too_large', code: 'payload_too_large', facts: { size_bytes: measured(declared) } });
      else expect(refused).toMatchObject({ kind: 'conflict', facts: { reason: 'size_mismatch', size_bytes: measured(declared) ?? 0 } });
      expect(await stateOf(world, opened.secret.id)).toBe('revoked');
    }
  });

  it('reads the envelope header: its passphrase flag is kept; another salt, chunk size or kind is an envelope_mismatch that ends the file', async () => {
    const world = secretWorld();
    const withPassphrase = await sealedFile({ passphrase: 'correct horse' });
    const ok = await uploaded(world, withPassphrase.envelope, { salt: withPassphrase.salt });
    await ok.complete();
    expect((await world.secrets.get(ok.ref.id))!.envelopeFormat).toEqual({ passphrase: true, kdfIterations: 600_000 });
    const plain = await sealedFile();
    const text = await sealedText();
    const mismatches: Array<[string, Uint8Array, Partial<NewFileUpload>]> = [
      ['another salt', plain.envelope, { salt: 'B'.repeat(22) }],
      ['another chunk size', (await sealedFile({ chunkLog2: 16 })).envelope, {}],
      ['a text envelope', text.sealed.envelope, { salt: text.sealed.salt }],
    ];
    for (const [what, envelope, input] of mismatches) {
      const upload = await uploaded(world, envelope, { salt: plain.salt, ...input });
      await expect(upload.complete(), what).rejects.toMatchObject({ kind: 'conflict', facts: { reason: 'envelope_mismatch' } });
      expect(await stateOf(world, upload.ref.id), what).toBe('revoked');
      expect(world.bucket.objects.has(upload.key), what).toBe(false);
    }
  });

  it('in a workspace, holds the header to the passphrase declared at opening (another format declares none)', async () => {
    const world = secretWorld();
    const id = world.workspace('wks_AAAAAAAAAAAAAAAAAAAAAA', ['usr_member']);
    const plain = await sealedFile();
    const cases: Array<[Uint8Array, string, boolean, boolean]> = [
      [plain.envelope, plain.salt, true, false],
      [plain.envelope, plain.salt, false, true],
      [randomish(1000), 'A'.repeat(22), true, false],
      [randomish(1000), 'A'.repeat(22), false, true],
    ];
    for (const [envelope, salt, passphrase, completes] of cases) {
      const upload = await uploaded(world, envelope, { salt, workspaceId: id, passphrase }, 'usr_member');
      if (completes) expect((await upload.complete()).state).toBe('active');
      else await expect(upload.complete()).rejects.toMatchObject({ facts: { reason: 'envelope_mismatch' } });
    }
  });

  it('of a completion and an abort racing, one wins: an abort landing mid-completion leaves no object behind', async () => {
    const world = secretWorld();
    const upload = await uploaded(world, randomish(9 * MiB));
    const complete = world.bucket.complete.bind(world.bucket);
    world.bucket.complete = async (key, uploadId, parts) => {
      const done = await complete(key, uploadId, parts);
      await abortFileUpload(upload.ref, world);
      return done;
    };
    await expect(upload.complete()).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'not_pending' },
      detail: 'This upload was aborted while it was being completed.',
    });
    expect(await stateOf(world, upload.ref.id)).toBe('revoked');
    expect(world.bucket.objects.has(upload.key)).toBe(false);
  });
});

describe('abortFileUpload', () => {
  it('revokes the file and deletes its parts; then, and for anything not pending under these ids, not found', async () => {
    const world = secretWorld();
    const upload = await uploaded(world, randomish(9 * MiB));
    await abortFileUpload(upload.ref, world);
    expect(await stateOf(world, upload.ref.id)).toBe('revoked');
    expect(await world.bucket.parts(upload.key, upload.ref.uploadId)).toBeNull();
    expect(world.typesOf(upload.ref.id)).toEqual(['secret.created', 'secret.revoked']);
    const other = await uploaded(world, randomish(10));
    for (const ref of [
      upload.ref,
      { ...other.ref, deleteToken: 'hdt_wrong' },
      { ...other.ref, uploadId: 'upl_other' },
      { id: 'nonsense', uploadId: 'u', deleteToken: 't' },
    ]) {
      const refused = abortFileUpload(ref, world);
      await expect(refused).rejects.toBeInstanceOf(NotFound);
      await expect(refused).rejects.toMatchObject({ detail: 'No upload of yours is pending under these ids.' });
    }
    expect(await stateOf(world, other.ref.id)).toBe('pending');
  });
});
