import { newResponseId } from '../../ids.ts';
import { fileLimits } from '../../limits.ts';
import type { HostClaim } from '../domains/model.ts';
import { objectKeyOf } from '../files/ports.ts';
import { Invalid, RateLimited, type FieldIssue } from '../refusals.ts';
import { checkEnvelope } from '../secrets/create.ts';
import { findRequestLinkOn, ownRequestLink, publicKeyBytes, refusedResponse } from './links.ts';
import { keepUntil, type RequestKem, type RequestLink, type SealedResponse, type WrappedKey } from './model.ts';
import type { RequestPorts } from './ports.ts';

/** HPKE's ciphertext of a 32-byte key: the key and AES-256-GCM's 16-byte tag. */
const wrappedKeyBytes = 32 + 16;
/** When a response that met a crowd at its link is worth sending again. */
const busyRetrySeconds = 1;

/** A responder's text: its envelope (decoded) and salt, and the envelope's key wrapped to the requester. */
export interface TextResponse extends WrappedKey {
  envelope: Uint8Array;
  salt: string;
}

/**
 * HPKE's outputs as the link's KEM makes them: `enc` is the KEM's encapsulated key (its
 * public key's length), `wrappedKey` a sealed 32-byte key. The server cannot tell a forgery
 * (the requester's client does, by the link secret), but it refuses what no client made
 * (its fields named as they were sent: `enc`, `wrapped_key`).
 */
export function checkWrappedKey(key: WrappedKey, kem: RequestKem): void {
  const exact = (value: string, bytes: number) => {
    const decoded = Buffer.from(value, 'base64url');
    return decoded.length === bytes && decoded.toString('base64url') === value;
  };
  const issues: FieldIssue[] = [
    ...(exact(key.enc, publicKeyBytes[kem])
      ? []
      : [{ field: 'enc', message: `must be the ${publicKeyBytes[kem]}-byte encapsulated key of ${kem}` }]),
    ...(exact(key.wrappedKey, wrappedKeyBytes)
      ? []
      : [{ field: 'wrapped_key', message: `must be ${wrappedKeyBytes} bytes: a sealed 32-byte key` }]),
  ];
  if (issues.length > 0) throw new Invalid('The wrapped key is not what the link’s KEM makes.', issues);
}

/**
 * A responder's text: an envelope sealed under a fresh key, that key wrapped to the requester.
 * One write takes one of the link's responses and stores this one (so 50 at once to a link
 * of 10 give exactly 10); a link that takes no more is a conflict (full) or gone (closed, expired).
 */
export async function respondToRequest(
  id: string,
  input: TextResponse,
  hostClaim: HostClaim | null,
  ports: RequestPorts,
): Promise<SealedResponse> {
  const link = await findRequestLinkOn(id, hostClaim, ports);
  const now = ports.clock.now();
  if (!link) throw refusedResponse(null, now);
  checkWrappedKey(input, link.kem);
  const { envelope } = input;
  checkEnvelope(envelope, input.salt);
  const response: SealedResponse = {
    id: newResponseId(),
    requestId: link.id,
    createdAt: now,
    salt: input.salt,
    sizeBytes: envelope.length,
    enc: input.enc,
    wrappedKey: input.wrappedKey,
    sealed: { kind: 'text', envelope },
  };
  await settleAdded(await ports.requests.addResponse(response, keepUntil(link), now), link.id, ports);
  return response;
}

/** After a write that was refused, why (read again: it may have closed or filled meanwhile); busy is rate limited. */
export async function settleAdded(outcome: string, id: string, ports: Pick<RequestPorts, 'requests' | 'clock'>): Promise<void> {
  if (outcome === 'added') return;
  if (outcome === 'busy') {
    throw new RateLimited('Many responses are arriving at this link at once; send again in a moment.', busyRetrySeconds);
  }
  throw refusedResponse(await ports.requests.get(id), ports.clock.now());
}

/** A response as the inbox gives it: a text's envelope, or a file's download, with what opens it. */
export type InboxItem = SealedResponse & { download?: { url: string; expiresAt: number } };

/**
 * The caller's link's responses, newest first, whether the link is open, closed or expired
 * (rule 4). A file response comes with a presigned download of its envelope.
 */
export async function readInbox(
  id: string,
  ownerId: string,
  limit: number,
  cursor: string | null,
  ports: RequestPorts,
): Promise<{ link: RequestLink; items: InboxItem[]; nextCursor: string | null }> {
  const link = await ownRequestLink(id, ownerId, ports);
  const page = await ports.requests.inbox(id, limit, cursor);
  const expiresAt = ports.clock.now() + fileLimits.downloadUrlSeconds * 1000;
  const items = await Promise.all(
    page.items.map(
      async (response): Promise<InboxItem> =>
        response.sealed.kind === 'file'
          ? {
              ...response,
              download: {
                url: await ports.files.downloadUrl(objectKeyOf(response.sealed.secretId), fileLimits.downloadUrlSeconds),
                expiresAt,
              },
            }
          : response,
    ),
  );
  return { link, items, nextCursor: page.nextCursor };
}
