import type { Clock } from '../../clock.ts';
import { fileLimits } from '../../limits.ts';
import { endSecret } from '../secrets/end.ts';
import type { TerminalState } from '../secrets/model.ts';
import type { SecretPorts, SecretStore } from '../secrets/ports.ts';
import { objectKeyOf, type FileObjects } from './ports.ts';

/** A file secret's end, as the table's stream tells it: the state it ended in, and its upload if it never completed. */
export interface FileEnd {
  secretId: string;
  state: TerminalState;
  /** The multipart upload of a file that ended while still uploading (its parts go too). */
  pendingUploadId?: string;
}

export interface FileLifecyclePorts {
  files: FileObjects;
  secrets: Pick<SecretStore, 'schedulePurge' | 'duePurges' | 'purged' | 'staleUploads'>;
  clock: Clock;
}

/**
 * What a file's end does to its object (the relay, from the table's stream, whichever way the
 * secret ended): revoked, expired or locked, it is deleted at once (and an unfinished upload
 * aborted, its parts with it); burned, it goes once the last download URL a claim issued has
 * expired, which the purge sweep sees to. Idempotent: the stream may hand an end over twice.
 */
export async function onFileEnded(end: FileEnd, ports: FileLifecyclePorts): Promise<void> {
  const key = objectKeyOf(end.secretId);
  if (end.pendingUploadId !== undefined) await ports.files.abortUpload(key, end.pendingUploadId);
  if (end.state === 'burned') {
    await ports.secrets.schedulePurge(end.secretId, ports.clock.now() + fileLimits.downloadUrlSeconds * 1000);
  } else {
    await ports.files.remove(key);
  }
}

/** The schedule's purge: objects of burned files whose last download URL has expired. */
export async function purgeDueFiles(ports: FileLifecyclePorts, batch = 100): Promise<number> {
  const due = await ports.secrets.duePurges(ports.clock.now(), batch);
  for (const id of due) {
    await ports.files.remove(objectKeyOf(id));
    await ports.secrets.purged(id);
  }
  return due.length;
}

/**
 * The schedule's stale uploads: a file still uploading a day after it began is revoked; its
 * end reaches the relay, which aborts the upload (its parts go) and deletes any object.
 */
export async function revokeStaleUploads(ports: FileLifecyclePorts & SecretPorts, batch = 100): Promise<number> {
  let revoked = 0;
  for (const id of await ports.secrets.staleUploads(ports.clock.now(), batch)) {
    if (await endSecret(id, 'revoked', ports)) revoked += 1;
  }
  return revoked;
}
