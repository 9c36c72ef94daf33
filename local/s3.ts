import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from '@20minutes/s3rver';
import AWSAccount from '@20minutes/s3rver/lib/models/account.js';
import { systemClock, type Clock } from '../shared/clock.ts';
import { freePort } from './ports.ts';
import { s3Layer } from './s3Layer.ts';
import { filesCorsPolicy } from '../shared/http/cors.ts';
import type { S3Credentials } from './s3Signature.ts';

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  /** The one key every request must be signed with (SigV4, any region). */
  credentials: S3Credentials;
  stop(): Promise<void>;
}

/** The local S3 has one account; its key id is fixed, its secret is this machine's own (`secretAccessKey`). */
export const localS3AccessKeyId = 'HUSHLINKLOCAL';

/** A secret for the local S3: 128 random bits, as 32 hex characters. */
export const newS3Secret = (): string => randomBytes(16).toString('hex');

// s3rver's own published key (S3RVER/S3RVER) is revoked: s3rver never sees a signature the layer
// did not check first, and should one reach it, that key must open nothing (issue 26, item 2).
AWSAccount.DUMMY_ACCOUNT.revokeAccessKey('S3RVER');

export interface LocalS3Options {
  bucket: string;
  /** The only origin CORS allows. */
  webOrigin: string;
  /** Without it, objects live in a temporary folder removed at stop. */
  dataDir?: string;
  /** S3's time: presigned URLs expire, and signatures are checked, by it. */
  clock?: Clock;
  /** 0 or absent picks a free port. */
  port?: number;
  /**
   * The secret every request is signed with (`npm start` keeps one beside its data); absent, a
   * new one for this run. Never a published one: S3RVER is refused.
   */
  secretAccessKey?: string;
}

/**
 * S3 on this machine, so presigned (multipart) URLs are real S3 URLs: @20minutes/s3rver (a
 * maintained fork of s3rver) behind the layer of local/s3Layer.ts, which adds what the files flow
 * needs and s3rver lacks (docs/adr/0104-the-local-s3-layer-what-s3rver-lacks.md, and its key and
 * request checks: docs/adr/0137-the-local-s3-checks-the-request-target-first-and-has-a-key.md).
 * Parts stream to disk.
 */
export async function startS3Local(options: LocalS3Options): Promise<LocalS3> {
  const directory = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hushlink-s3-'));
  mkdirSync(directory, { recursive: true });
  const port = options.port || (await freePort());
  const credentials: S3Credentials = { accessKeyId: localS3AccessKeyId, secretAccessKey: options.secretAccessKey ?? newS3Secret() };
  if (credentials.secretAccessKey.length < 16 || credentials.secretAccessKey === 'S3RVER')
    throw new Error('The local S3 needs a secret of its own (16 characters at least)');
  const server = new S3rver({
    address: '127.0.0.1',
    port,
    silent: true,
    directory,
    configureBuckets: [{ name: options.bucket, configs: [] }],
  });
  const router = server.middleware.at(-1);
  if (router?.name !== 'dispatch')
    throw new Error('@20minutes/s3rver changed: its router is no longer its last middleware (local/s3Layer.ts goes before it)');
  server.middleware.splice(
    -1,
    0,
    s3Layer({
      store: server.store,
      clock: options.clock ?? systemClock,
      credentials,
      cors: {
        allowedOrigins: [...filesCorsPolicy.allowOrigins],
        allowedMethods: [...filesCorsPolicy.allowMethods],
        allowedHeaders: [...filesCorsPolicy.allowHeaders],
        exposeHeaders: [...filesCorsPolicy.exposeHeaders],
        maxAgeSeconds: filesCorsPolicy.maxAgeSeconds,
      },
    }),
  );
  try {
    await server.run();
  } catch (error) {
    if (!options.dataDir) rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: options.bucket,
    credentials,
    async stop() {
      await server.close();
      if (!options.dataDir) rmSync(directory, { recursive: true, force: true });
    },
  };
}
