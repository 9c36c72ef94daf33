import { describe, expect, it } from 'vitest';
import type { AppLogger } from '../../shared/logger.ts';
import { fileLimits } from '../../shared/limits.ts';
import { abortFileUpload, completeFileUpload } from '../../shared/domain/files/complete.ts';
import { finishDueCompletions, finishOneCompletion } from '../../shared/domain/files/completions.ts';
import { revokeStaleUploads } from '../../shared/domain/files/lifecycle.ts';
import { objectKeyOf } from '../../shared/domain/files/ports.ts';
import { startFileUpload } from '../../shared/domain/files/upload.ts';
import { claimSecret } from '../../shared/domain/secrets/claim.ts';
import { fileInput, MiB, noProof, putParts, randomish, secretWorld, web } from './secrets-world.ts';

/**
 * A large upload's completion left to the sweep (issue 28) on the fakes: the request answers
 * `completing` and the secret stays pending; S3 may take minutes (a completion held until the
 * clock moves), a try holds it alone, a failed try is taken up again, one that died after S3
 * completed is finished from the object, and one failing for a day ends the upload. The same on
 * the local runtime with s3rver: test/integration/files-completing.test.ts.
 */

const minute = 60;
/** What the sweep logged, by message. */
const logged: string[] = [];
const logger = {
  info: (message: string) => void logged.push(message),
  warn: (message: string) => void logged.push(message),
  error: (message: string) => void logged.push(message),
  debug: () => {},
} as unknown as AppLogger;

/** A world where uploads over 10 MiB complete in the background, and a 17 MiB one uploaded (two parts of 8 MiB and one of 1). */
async function largeUpload() {
  const base = secretWorld();
  const world = { ...base, logger, config: { ...base.config, INLINE_COMPLETION_BYTES: 10 * MiB } };
  const envelope = randomish(17 * MiB);
  const opened = await startFileUpload(fileInput(envelope.length, { maxViews: 2 }), null, null, world);
  const ref = { id: opened.secret.id, uploadId: opened.secret.upload!.id, deleteToken: opened.deleteToken };
  const parts = putParts(world.bucket, opened, envelope, (numbers) => numbers);
  return { world, envelope, ref, parts, key: objectKeyOf(ref.id), complete: () => completeFileUpload({ ...ref, parts }, world) };
}

/** S3's CompleteMultipartUpload taking `seconds` of the world's clock: it answers once the clock has moved that far. */
function slowCompletion(world: Awaited<ReturnType<typeof largeUpload>>['world'], seconds: number) {
  const complete = world.bucket.complete.bind(world.bucket);
  const started: number[] = [];
  let release: (() => void) | undefined;
  world.bucket.complete = async (...args) => {
    const at = world.clock.now();
    started.push(at);
    await new Promise<void>((resolve) => (release = resolve));
    if (world.clock.now() < at + seconds * 1000) throw new Error('released before S3 finished');
    return complete(...args);
  };
  /** Moves the clock `by` seconds and lets S3 answer if it has had its time. */
  const advance = async (by: number) => {
    world.clock.advance(by);
    if (release && world.clock.now() >= started.at(-1)! + seconds * 1000) release();
  };
  return { started, advance };
}

const stateOf = async (world: { secrets: { get(id: string): Promise<{ state: string } | null> } }, id: string) =>
  (await world.secrets.get(id))!.state;

describe('a large upload’s completion', () => {
  it('is accepted as completing, the secret pending; asked again it says the same, and a wrong ETag is still the request’s 409', async () => {
    const upload = await largeUpload();
    const wrong = upload.parts.map((part, i) => (i === 0 ? { ...part, etag: '"0000"' } : part));
    await expect(completeFileUpload({ ...upload.ref, parts: wrong }, upload.world)).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'mismatched_part' },
    });
    // ETags sent bare match S3's quoted ones.
    const bare = upload.parts.map((part) => ({ ...part, etag: part.etag.replaceAll('"', '') }));
    expect((await completeFileUpload({ ...upload.ref, parts: bare }, upload.world)).state).toBe('completing');
    expect((await upload.complete()).state).toBe('completing');
    expect(await stateOf(upload.world, upload.ref.id)).toBe('pending');
    expect(upload.world.bucket.objects.has(upload.key)).toBe(false);
    // Nobody can claim it yet, and the stale-upload sweep leaves it alone a day later.
    await expect(claimSecret(upload.ref.id, noProof, web, null, upload.world)).rejects.toThrow('still being uploaded');
    upload.world.clock.advance(fileLimits.staleUploadSeconds);
    expect(await revokeStaleUploads(upload.world)).toBe(0);
  });

  it('is finished by the sweep while S3 takes minutes: one try holds it, the secret pending until the object is ready', async () => {
    const upload = await largeUpload();
    expect((await upload.complete()).state).toBe('completing');
    const s3 = slowCompletion(upload.world, 4 * minute);
    const sweep = finishDueCompletions(upload.world);
    await upload.world.clock.advance(0);
    await new Promise((resolve) => setImmediate(resolve));
    expect(s3.started).toHaveLength(1);
    // A minute later the next run finds it held by the first try's lease: no second CompleteMultipartUpload.
    await s3.advance(minute);
    expect(await finishDueCompletions(upload.world)).toBe(0);
    expect(await stateOf(upload.world, upload.ref.id)).toBe('pending');
    await s3.advance(3 * minute);
    expect(await sweep).toBe(1);
    expect(s3.started).toHaveLength(1);
    expect(await stateOf(upload.world, upload.ref.id)).toBe('active');
    expect(Buffer.from(upload.world.bucket.objects.get(upload.key)!).equals(Buffer.from(upload.envelope))).toBe(true);
    const claimed = await claimSecret(upload.ref.id, noProof, web, null, upload.world);
    expect(claimed.secret).toMatchObject({ kind: 'file', viewsLeft: 1 });
    // Done: later runs find nothing due, and asking to complete again (how clients wait) answers active.
    upload.world.clock.advance(30 * minute);
    expect(await finishDueCompletions(upload.world)).toBe(0);
    expect((await upload.complete()).state).toBe('active');
  });

  it('takes up a failed try again after a minute, then two, and one whose S3 completion went through after it died', async () => {
    const upload = await largeUpload();
    await upload.complete();
    const complete = upload.world.bucket.complete.bind(upload.world.bucket);
    upload.world.bucket.complete = async () => {
      throw Object.assign(new Error('We encountered an internal error. Please try again.'), { name: 'InternalError' });
    };
    expect(await finishOneCompletion(upload.ref.id, upload.world)).toBe('retry');
    expect(await finishDueCompletions(upload.world)).toBe(0);
    upload.world.clock.advance(minute);
    expect(await finishOneCompletion(upload.ref.id, upload.world)).toBe('retry');
    upload.world.clock.advance(minute);
    expect(await finishDueCompletions(upload.world)).toBe(0);
    upload.world.clock.advance(minute);
    // This time S3 completes, but the try dies before it records anything (its lease runs out).
    upload.world.bucket.complete = async (...args) => {
      await complete(...args);
      throw new Error('Task timed out after 900.00 seconds');
    };
    expect(await finishOneCompletion(upload.ref.id, upload.world)).toBe('retry');
    expect(upload.world.bucket.objects.has(upload.key)).toBe(true);
    expect(await stateOf(upload.world, upload.ref.id)).toBe('pending');
    // The next try finds no upload at S3 but its object: it checks the object and activates the secret.
    upload.world.bucket.complete = complete;
    upload.world.clock.advance(4 * minute);
    expect(await finishDueCompletions(upload.world)).toBe(1);
    expect(await stateOf(upload.world, upload.ref.id)).toBe('active');
    expect(logged).toContain('upload completed');
  });

  it('ends the upload when the object does not match (revoked, object deleted), or when it has failed for a day', async () => {
    const mismatched = await largeUpload();
    await mismatched.complete();
    // The object S3 makes is not the declared size (measured, never taken from the client): what the request would refuse.
    const complete = mismatched.world.bucket.complete.bind(mismatched.world.bucket);
    mismatched.world.bucket.complete = async (key, ...rest) => {
      const answer = await complete(key, ...rest);
      mismatched.world.bucket.objects.set(key, mismatched.envelope.subarray(0, 9 * MiB));
      return answer;
    };
    expect(await finishOneCompletion(mismatched.ref.id, mismatched.world)).toBe('refused');
    expect(await stateOf(mismatched.world, mismatched.ref.id)).toBe('revoked');
    expect(mismatched.world.bucket.objects.has(mismatched.key)).toBe(false);

    const failing = await largeUpload();
    await failing.complete();
    failing.world.bucket.complete = async () => {
      throw new Error('socket hang up');
    };
    let outcome = await finishOneCompletion(failing.ref.id, failing.world);
    while (outcome === 'retry' || outcome === 'skipped') {
      failing.world.clock.advance(fileLimits.completionRetryMaxSeconds);
      outcome = await finishOneCompletion(failing.ref.id, failing.world);
    }
    expect(outcome).toBe('gave_up');
    expect(failing.world.clock.now()).toBeGreaterThanOrEqual(fileLimits.completionGiveUpSeconds * 1000);
    expect(await stateOf(failing.world, failing.ref.id)).toBe('revoked');
    expect(await failing.world.bucket.parts(failing.key, failing.ref.uploadId)).toBeNull();
  });

  it('gives way to an abort: the sweep skips it, and an object a try made meanwhile is deleted', async () => {
    const upload = await largeUpload();
    await upload.complete();
    await abortFileUpload(upload.ref, upload.world);
    expect(await finishOneCompletion(upload.ref.id, upload.world)).toBe('skipped');
    expect(await stateOf(upload.world, upload.ref.id)).toBe('revoked');
    expect(upload.world.bucket.objects.has(upload.key)).toBe(false);
  });
});
