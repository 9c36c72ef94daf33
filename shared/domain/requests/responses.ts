import type { ResponseRequest } from '../../api/requests.ts';
import { HttpError } from '../../http/errors.ts';
import { newResponseId } from '../../ids.ts';
import { fileLimits } from '../../limits.ts';
import type { HostClaim } from '../domains/model.ts';
import { objectKeyOf } from '../files/ports.ts';
import { checkEnvelope } from '../secrets/create.ts';
import { findRequestLinkOn, ownRequestLink, publicKeyBytes, refusedResponse } from './links.ts';
import { keepUntil, type RequestKem, type RequestLink, type SealedResponse, type WrappedKey } from './model.ts';
import type { RequestPorts } from './ports.ts';

/** HPKE's ciphertext of a 32-byte key: the key and AES-256-GCM's 16-byte tag. */
const wrappedKeyBytes = 32 + 16;

/**
 * HPKE's outputs as the link's KEM makes them: `enc` is the KEM's encapsulated key (its
 * public key's length), `wrapped_key` a sealed 32-byte key. The server cannot tell a forgery
 * (the requester's client does, by the link secret), but it refuses what no client made.
 */
export function checkWrappedKey(key: WrappedKey, kem: RequestKem, where: 'body' = 'body'): void {
  const exact = (value: string, bytes: number) => {
    const decoded = Buffer.from(value, 'base64url');
    return decoded.length === bytes && decoded.toString('base64url') === value;
  };
  const errors = [
    ...(exact(key.enc, publicKeyBytes[kem]) ? [] : [{ path: `${where}.enc`, message: `must be the ${publicKeyBytes[kem]}-byte encapsulated key of ${kem}` }]),
    ...(exact(key.wrappedKey, wrappedKeyBytes) ? [] : [{ path: `${where}.wrapped_key`, message: `must be ${wrappedKeyBytes} bytes: a sealed 32-byte key` }]),
  ];
  if (errors.length > 0) throw new HttpError(400, 'invalid_request', 'The wrapped key is not what the link’s KEM makes.', { errors });
}

/**
 * A responder's text: an envelope sealed under a fresh key, that key wrapped to the requester.
 * One write takes one of the link's responses and stores this one (so 50 at once to a link
 * of 10 give exactly 10); a link that takes no more answers 409 (full) or 410 (closed, expired).
 */
export async function respondToRequest(id: string, request: ResponseRequest, hostClaim: HostClaim | null, ports: RequestPorts): Promise<SealedResponse> {
  const link = await findRequestLinkOn(id, hostClaim, ports);
  const now = ports.clock.now();
  if (!link) throw refusedResponse(null, now);
  checkWrappedKey({ enc: request.enc, wrappedKey: request.wrapped_key }, link.kem);
  const envelope = Buffer.from(request.envelope, 'base64');
  checkEnvelope(envelope, request.salt);
  const response: SealedResponse = {
    id: newResponseId(),
    requestId: link.id,
    createdAt: now,
    salt: request.salt,
    sizeBytes: envelope.length,
    enc: request.enc,
    wrappedKey: request.wrapped_key,
    sealed: { kind: 'text', envelope },
  };
  await settleAdded(await ports.requests.addResponse(response, keepUntil(link), now), link.id, ports);
  return response;
}

/** After a write that was refused, why (read again: it may have closed or filled meanwhile); busy is 429. */
export async function settleAdded(outcome: string, id: string, ports: Pick<RequestPorts, 'requests' | 'clock'>): Promise<void> {
  if (outcome === 'added') return;
  if (outcome === 'busy') {
    throw new HttpError(429, 'rate_limited', 'Many responses are arriving at this link at once; send again in a moment.', { headers: { 'retry-after': '1' } });
  }
  throw refusedResponse(await ports.requests.get(id), ports.clock.now());
}

/** A response as the inbox gives it: a text's envelope, or a file's download, with what opens it. */
export type InboxItem = SealedResponse & { download?: { url: string; expiresAt: number } };

/**
 * The caller's link's responses, newest first, whether the link is open, closed or expired
 * (rule 4). A file response comes with a presigned download of its envelope.
 */
export async function readInbox(id: string, ownerId: string, limit: number, cursor: string | null, ports: RequestPorts): Promise<{ link: RequestLink; items: InboxItem[]; nextCursor: string | null }> {
  const link = await ownRequestLink(id, ownerId, ports);
  const page = await ports.requests.inbox(id, limit, cursor);
  const expiresAt = ports.clock.now() + fileLimits.downloadUrlSeconds * 1000;
  const items = await Promise.all(
    page.items.map(async (response): Promise<InboxItem> =>
      response.sealed.kind === 'file'
        ? { ...response, download: { url: await ports.files.downloadUrl(objectKeyOf(response.sealed.secretId), fileLimits.downloadUrlSeconds), expiresAt } }
        : response,
    ),
  );
  return { link, items, nextCursor: page.nextCursor };
}
