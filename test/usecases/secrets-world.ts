import { fileLimits } from '../../shared/limits.ts';
import { createHash } from 'node:crypto';
import type { Plan } from '../../shared/domain/accounts/model.ts';
import type { HostClaim } from '../../shared/domain/domains/model.ts';
import type { FileObjects, MultipartUploads, StoredPart } from '../../shared/domain/files/ports.ts';
import type { FilePorts, NewFileUpload, OpenedUpload } from '../../shared/domain/files/upload.ts';
import type { ClaimProof } from '../../shared/domain/secrets/claim.ts';
import { emittedEvents, type SecretEvent } from '../../shared/domain/secrets/model.ts';
import type { NewTextSecret } from '../../shared/domain/secrets/create.ts';
import type { WorkspacePolicy } from '../../shared/domain/workspaces/model.ts';
import { fileSealer, sealText } from '../../shared/envelope/index.ts';
import { memorySecretPorts } from '../fakes/secretGroup.ts';
import type { MemorySecretStore } from '../fakes/secrets.ts';
import { pair, WorkspaceData } from '../fakes/workspaceData.ts';
import { MemoryWorkspaceMembership } from '../fakes/workspaceMembership.ts';

/**
 * What the secrets, files and requests use-case tests share (test/usecases/{secrets,claim,gate,
 * files,requests}*.test.ts): the group's ports on the fakes, with a bucket in memory, the events
 * each write emitted (as the table's stream hands them to the relay), workspaces to send in, and
 * sealed secrets. No runtime, no Java, no HTTP.
 */

const MiB = 1024 * 1024;

/** S3's own floor for every part but the last (EntityTooSmall). */
const s3MinPartBytes = 5 * MiB;

interface PendingUpload {
  key: string;
  parts: Map<number, { etag: string; bytes: Uint8Array }>;
}

/**
 * The files bucket in memory, as S3 answers the two ports: a part URL signs its length (a body
 * of another length is refused and nothing stored, as `put` shows), completion checks each
 * ETag, the order and S3's 5 MiB floor, and an aborted or completed upload is no longer known.
 * `putUnsized` stores a part of any length, as a URL signed without its length let S3 do.
 */
export class MemoryBucket implements MultipartUploads, FileObjects {
  private readonly uploads = new Map<string, PendingUpload>();
  readonly objects = new Map<string, Uint8Array>();
  private next = 0;

  async start(key: string): Promise<string> {
    const id = `upl_${++this.next}`;
    this.uploads.set(id, { key, parts: new Map() });
    return id;
  }

  async partUrl(key: string, uploadId: string, partNumber: number, sizeBytes: number, expiresInSeconds: number): Promise<string> {
    return `memory://bucket/${key}?uploadId=${uploadId}&partNumber=${partNumber}&length=${sizeBytes}&expires=${expiresInSeconds}`;
  }

  /** A PUT to a part URL: refused (and nothing stored) unless the body has the length signed. */
  put(url: string, bytes: Uint8Array): string {
    const query = new URL(url).searchParams;
    if (Number(query.get('length')) !== bytes.length) throw new Error('SignatureDoesNotMatch');
    return this.putUnsized(query.get('uploadId')!, Number(query.get('partNumber')), bytes);
  }

  putUnsized(uploadId: string, partNumber: number, bytes: Uint8Array): string {
    const upload = this.uploads.get(uploadId);
    if (!upload) throw new Error('NoSuchUpload');
    const etag = `"${createHash('md5').update(bytes).digest('hex')}"`;
    upload.parts.set(partNumber, { etag, bytes: Uint8Array.from(bytes) });
    return etag;
  }

  async parts(_key: string, uploadId: string): Promise<StoredPart[] | null> {
    const upload = this.uploads.get(uploadId);
    if (!upload) return null;
    return [...upload.parts]
      .sort(([a], [b]) => a - b)
      .map(([partNumber, part]) => ({ partNumber, etag: part.etag, size: part.bytes.length }));
  }

  async complete(key: string, uploadId: string, parts: Array<{ partNumber: number; etag: string }>) {
    const upload = this.uploads.get(uploadId);
    if (!upload || upload.key !== key) return { completed: false as const, reason: 'no_such_upload' as const };
    if (parts.some((part, i) => i > 0 && part.partNumber <= parts[i - 1]!.partNumber))
      return { completed: false as const, reason: 'invalid_order' as const };
    const stored = parts.map((part) => upload.parts.get(part.partNumber));
    if (stored.some((part, i) => part?.etag !== parts[i]!.etag)) return { completed: false as const, reason: 'invalid_part' as const };
    if (stored.some((part, i) => i < stored.length - 1 && part!.bytes.length < s3MinPartBytes))
      return { completed: false as const, reason: 'too_small' as const };
    this.objects.set(key, Buffer.concat(stored.map((part) => part!.bytes)));
    this.uploads.delete(uploadId);
    return { completed: true as const };
  }

  async abort(_key: string, uploadId: string): Promise<void> {
    this.uploads.delete(uploadId);
  }

  async abortUpload(key: string, uploadId: string): Promise<void> {
    await this.abort(key, uploadId);
  }

  async size(key: string): Promise<number | null> {
    return this.objects.get(key)?.length ?? null;
  }

  async remove(key: string): Promise<void> {
    this.objects.delete(key);
  }

  async firstBytes(key: string, length: number): Promise<Uint8Array> {
    return (this.objects.get(key) ?? new Uint8Array()).subarray(0, length);
  }

  async downloadUrl(key: string, expiresInSeconds: number): Promise<string> {
    return `memory://bucket/${key}?download&expires=${expiresInSeconds}`;
  }
}

/**
 * Every event a secret emitted, in order, with the `views_left` of the write that emitted it:
 * what the table's stream carries (test/support/events.ts reads it from DynamoDB). Each write of
 * the store is watched, and the events it added are kept.
 */
export function recordEvents(store: MemorySecretStore): (secretId: string) => SecretEvent[] {
  const log = new Map<string, SecretEvent[]>();
  const seen = new Set<string>();
  const writes = ['insert', 'takeView', 'end', 'refuseProof', 'recordDenial', 'recordReport', 'revokeRecipient', 'activateFile'] as const;
  for (const name of writes) {
    const original = (store[name] as (...args: unknown[]) => Promise<unknown>).bind(store);
    (store as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) => {
      const result = await original(...args);
      const id = typeof args[0] === 'string' ? args[0] : (args[0] as { id: string }).id;
      const after = await store.get(id);
      const added = (after?.emitted ?? []).filter((event) => !seen.has(event.id));
      for (const event of added) seen.add(event.id);
      if (after && added.length > 0) log.set(id, [...(log.get(id) ?? []), ...emittedEvents(after, added)]);
      return result;
    };
  }
  return (secretId) => log.get(secretId) ?? [];
}

/** The group's ports on the fakes, with the bucket, workspaces to send in, and the event log. */
export function secretWorld() {
  const ports = memorySecretPorts();
  const data = new WorkspaceData();
  const bucket = new MemoryBucket();
  const eventsOf = recordEvents(ports.secrets);
  const deps = {
    ...ports,
    config: {
      WEB_ORIGIN: 'https://secrets.example.com',
      HUSHLINK_MODE: 'local' as const,
      INLINE_COMPLETION_BYTES: fileLimits.inlineCompletionBytes,
    },
    workspaceMembership: new MemoryWorkspaceMembership(data),
    uploads: bucket,
    files: bucket,
  } satisfies FilePorts & Record<string, unknown>;
  return {
    ...deps,
    bucket,
    data,
    eventsOf,
    /** The event types a secret emitted, in order. */
    typesOf: (secretId: string) => eventsOf(secretId).map((event) => event.type),
    /** A workspace with `members` in it, on `plan`, holding them to `policy`. */
    workspace(id: string, members: string[], plan: Plan = 'team', policy: WorkspacePolicy = {}) {
      data.workspaces.set(id, {
        workspace: { id, name: id, slug: id, region: 'eu-west-1', plan, createdAt: 0, policy },
        contractPlan: null,
        contract: null,
      });
      for (const userId of members) {
        data.members.set(pair(id, userId), {
          workspaceId: id,
          userId,
          email: `${userId}@example.com`,
          role: 'member',
          joinedAt: 0,
          source: 'invitation',
        });
      }
      return id;
    },
    /** A verified claim of `hostname` by `workspaceId` (the domains store writes these on verify). */
    verifyHost(workspaceId: string, hostname: string, domainId = `dom_${hostname.replace(/\W/g, '')}`): HostClaim {
      const claim = { hostname, domainId, workspaceId };
      ports.hostClaims.verify(claim);
      return claim;
    },
  };
}

export type SecretWorld = ReturnType<typeof secretWorld>;

/** A text sealed as a client seals it, and the input that sends it (overridable). */
export async function sealedText(overrides: Partial<NewTextSecret> = {}, text = 'the launch code', passphrase?: string) {
  const sealed = await sealText(text, passphrase === undefined ? {} : { passphrase });
  const input: NewTextSecret = { envelope: sealed.envelope, salt: sealed.salt, expiresInSeconds: 3600, maxViews: 1, ...overrides };
  return { sealed, input };
}

/** Bytes of no format we know (a client's own): stored as they are. */
export const foreignEnvelope = (bytes = 64): Uint8Array => Uint8Array.from({ length: bytes }, (_, i) => (i * 7 + 1) % 256);

/** A file sealed as a client seals it (its envelope whole, in memory), its salt and chunk size. */
export async function sealedFile(
  options: { passphrase?: string; chunkLog2?: number } = {},
  plaintext: Uint8Array = new Uint8Array(100_000).fill(7),
) {
  const sealer = await fileSealer({ meta: { name: 'report.pdf', type: 'application/pdf', size: plaintext.length }, ...options });
  const count = sealer.chunkCount(plaintext.length);
  const chunks: Uint8Array[] = [];
  for (let index = 0, start = 0; index < count; index++, start += sealer.chunkBytes) {
    chunks.push(await sealer.encryptChunk(index, index === count - 1, plaintext.subarray(start, start + sealer.chunkBytes)));
  }
  return { envelope: Buffer.concat([sealer.prefix, ...chunks]), salt: sealer.salt, chunkLog2: sealer.chunkLog2 };
}

/** A file upload as its sender asks for it: 1 MiB chunks, no passphrase, an hour, one view (overridable). */
export const fileInput = (sizeBytes: number, overrides: Partial<NewFileUpload> = {}): NewFileUpload => ({
  sizeBytes,
  chunkLog2: 20,
  passphrase: false,
  salt: 'A'.repeat(22),
  expiresInSeconds: 3600,
  maxViews: 1,
  ...overrides,
});

/** PUTs `envelope` through each part URL an upload answered (as a browser does); the parts for completion, in the order given. */
export function putParts(
  bucket: MemoryBucket,
  opened: Pick<OpenedUpload, 'secret' | 'parts'>,
  envelope: Uint8Array,
  order: (numbers: number[]) => number[] = (numbers) => numbers,
) {
  const { partSize } = opened.secret.upload!;
  const urls = new Map(opened.parts.map((part) => [part.partNumber, part.url]));
  return order([...urls.keys()]).map((partNumber) => ({
    partNumber,
    etag: bucket.put(urls.get(partNumber)!, envelope.subarray((partNumber - 1) * partSize, partNumber * partSize)),
  }));
}

/** Bytes of no format we know, `size` long (a file's envelope of a client's own). */
export const randomish = (size: number): Uint8Array => {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 4096) bytes[i] = (i / 4096) % 251;
  return bytes;
};

export const noProof: ClaimProof = { claimToken: null, linkToken: null, recipientId: null, gateToken: null };
export const web = { channel: 'web' as const };
export const unknownSecretId = 'sec_AAAAAAAAAAAAAAAAAAAAAA';
export const unknownLinkId = 'rcp_AAAAAAAAAAAAAAAAAAAAAA';
export { MiB };
