import type { CreateRequestRequest } from '../../api/requests.ts';
import { chunkSpans, EnvelopeError, parseHeader } from '../../envelope/index.ts';
import { HttpError } from '../../http/errors.ts';
import { newRequestLinkId } from '../../ids.ts';
import { assertSendInWorkspace, type WorkspaceMembershipPorts } from '../workspaces/membership.ts';
import { linkHostOf, servedOn, type LinkHostPorts } from '../domains/linkHosts.ts';
import type { HostClaim } from '../domains/model.ts';
import { isOpen, refusalOf, type RequestKem, type RequestLink } from './model.ts';
import type { RequestPorts } from './ports.ts';

/** The serialized public key of each KEM (RFC 9180 SerializePublicKey): X25519's 32 bytes, P-256's uncompressed point. */
export const publicKeyBytes: Record<RequestKem, number> = { x25519: 32, p256: 65 };

const invalid = (path: string, message: string) => new HttpError(400, 'invalid_request', `${path.split('.').pop()} ${message}.`, { errors: [{ path, message }] });

/**
 * A public key the responders' clients can seal to: the KEM's length, and for P-256 a point on
 * the curve (WebCrypto imports only those). An all-zero X25519 key would make every shared
 * secret zero, so it is refused too; other weak X25519 keys fail HPKE itself at the responder.
 */
async function checkPublicKey(publicKey: string, kem: RequestKem): Promise<void> {
  const bytes = Buffer.from(publicKey, 'base64url');
  if (bytes.length !== publicKeyBytes[kem] || bytes.toString('base64url') !== publicKey) {
    throw invalid('body.public_key', `must be the ${publicKeyBytes[kem]}-byte ${kem} public key, unpadded base64url`);
  }
  if (kem === 'x25519' && bytes.every((byte) => byte === 0)) throw invalid('body.public_key', 'must not be all zeros');
  if (kem === 'p256') {
    try {
      await crypto.subtle.importKey('raw', bytes, { name: 'ECDH', namedCurve: 'P-256' }, true, []);
    } catch {
      throw invalid('body.public_key', 'must be a P-256 point (uncompressed)');
    }
  }
}

/** The sealed prompt must be a text envelope v1 (its key is the link's; the server reads only the header). */
function checkPrompt(envelope: Uint8Array): void {
  try {
    const header = parseHeader(envelope);
    if (header.kind !== 'text') throw new EnvelopeError('malformed', 'the prompt is a text envelope');
    chunkSpans(envelope.length - header.length, header.chunkLog2);
  } catch (error) {
    if (!(error instanceof EnvelopeError)) throw error;
    throw invalid('body.prompt_envelope', `must be an envelope v1 (${error.code}: ${error.message})`);
  }
}

/**
 * Publishes a request link. With a `workspace_id` the requester must be a member and the link
 * satisfy the workspace's policy (403 otherwise): requests allowed, and a life within its
 * longest, since a link is a way into the workspace for as long as it is open. With a
 * `hostname` too, the link is on that hostname of the workspace's (400 if not verified).
 */
export async function createRequestLink(request: CreateRequestRequest, ownerId: string, ports: RequestPorts & WorkspaceMembershipPorts & LinkHostPorts): Promise<RequestLink> {
  await checkPublicKey(request.public_key, request.kem);
  const promptEnvelope = request.prompt_envelope === undefined ? null : Buffer.from(request.prompt_envelope, 'base64');
  if (promptEnvelope) checkPrompt(promptEnvelope);
  if (request.workspace_id !== undefined) await assertSendInWorkspace(request.workspace_id, ownerId, { kind: 'request', expiresIn: request.expires_in }, ports);
  const linkHost = request.workspace_id === undefined || request.hostname === undefined ? undefined : await linkHostOf(request.workspace_id, request.hostname, ports);
  const now = ports.clock.now();
  const link: RequestLink = {
    id: newRequestLinkId(),
    ownerId,
    publicKey: request.public_key,
    kem: request.kem,
    promptEnvelope,
    createdAt: now,
    expiresAt: now + request.expires_in * 1000,
    maxResponses: request.max_responses,
    responsesLeft: request.max_responses,
    closedAt: null,
    ...(request.workspace_id === undefined ? {} : { workspaceId: request.workspace_id }),
    ...(linkHost ? { linkHost } : {}),
  };
  await ports.requests.insert(link);
  return link;
}

const requestIdPattern = /^rql_[A-Za-z0-9_-]{21}[AQgw]$/;

/** The link, or null for an id no link has (malformed ones never reach the table). */
export const findRequestLink = async (id: string, ports: Pick<RequestPorts, 'requests'>): Promise<RequestLink | null> =>
  requestIdPattern.test(id) ? ports.requests.get(id) : null;

/**
 * The link as its responders reach it, on the host the request arrived on: on a workspace's
 * hostname, none that was not made on it (rule 5), as for an id no link has. The requester's
 * own routes go by `ownRequestLink`: their proof is the session, not the link.
 */
export async function findRequestLinkOn(id: string, hostClaim: HostClaim | null, ports: Pick<RequestPorts, 'requests'>): Promise<RequestLink | null> {
  const link = await findRequestLink(id, ports);
  return link && servedOn(link, hostClaim) ? link : null;
}

const notFound = () => new HttpError(404, 'not_found', 'No request link has this id.');

/** The caller's own link, or 404 (a link of someone else's is as unknown as one that never was). */
export async function ownRequestLink(id: string, ownerId: string, ports: Pick<RequestPorts, 'requests'>): Promise<RequestLink> {
  const link = await findRequestLink(id, ports);
  if (!link || link.ownerId !== ownerId) throw notFound();
  return link;
}

const goneDetail = { closed: 'The requester closed this link.', expired: 'This link has expired.', full: 'This link has all the responses it asked for.' } as const;

/**
 * What a responder's page reads: the public key and the sealed prompt. 410 once the link is
 * closed or expired, with the reason; a full link is still read (`open: false`, no responses
 * left), as the interface keeps 410 for those two.
 */
export async function readRequestLink(id: string, hostClaim: HostClaim | null, ports: Pick<RequestPorts, 'requests' | 'clock'>): Promise<RequestLink> {
  const link = await findRequestLinkOn(id, hostClaim, ports);
  if (!link) throw notFound();
  const refusal = refusalOf(link, ports.clock.now());
  if (refusal === 'closed' || refusal === 'expired') throw new HttpError(410, 'gone', goneDetail[refusal], { members: { reason: refusal } });
  return link;
}

/** 410 (or 404, or 409 when full) for a link that took no more responses: why, read again after a refused write. */
export function refusedResponse(link: RequestLink | null, now: number): HttpError {
  if (!link) return notFound();
  const refusal = refusalOf(link, now) ?? 'full';
  if (refusal === 'full') return new HttpError(409, 'conflict', goneDetail.full, { members: { reason: 'request_full' } });
  return new HttpError(410, 'gone', goneDetail[refusal], { members: { reason: refusal } });
}

export async function closeRequestLink(id: string, ownerId: string, ports: Pick<RequestPorts, 'requests' | 'clock'>): Promise<void> {
  await ownRequestLink(id, ownerId, ports);
  if (!(await ports.requests.close(id, ownerId, ports.clock.now()))) throw notFound();
}

export async function listRequestLinks(ownerId: string, limit: number, cursor: string | null, ports: Pick<RequestPorts, 'requests' | 'clock'>) {
  const page = await ports.requests.listByOwner(ownerId, limit, cursor);
  const now = ports.clock.now();
  return { items: page.items.map((link) => ({ link, open: isOpen(link, now) })), nextCursor: page.nextCursor };
}
