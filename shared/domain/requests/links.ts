import { chunkSpans, EnvelopeError, parseHeader } from '../../envelope/index.ts';
import { newRequestLinkId } from '../../ids.ts';
import { Conflict, Gone, Invalid, NotFound, type Refusal } from '../refusals.ts';
import { assertSendInWorkspace, type WorkspaceMembershipPorts } from '../workspaces/membership.ts';
import { linkHostOf, servedOn, type LinkHostPorts } from '../domains/linkHosts.ts';
import type { HostClaim } from '../domains/model.ts';
import { isOpen, keepUntil, refusalOf, type RequestKem, type RequestLink } from './model.ts';
import type { RequestPorts } from './ports.ts';

/** The serialized public key of each KEM (RFC 9180 SerializePublicKey): X25519's 32 bytes, P-256's uncompressed point. */
export const publicKeyBytes: Record<RequestKem, number> = { x25519: 32, p256: 65 };

/**
 * A request link as its requester publishes it: the public key the responders seal to, its KEM,
 * the sealed prompt (decoded), its life and how many responses it takes, and where it is published.
 */
export interface NewRequestLink {
  publicKey: string;
  kem: RequestKem;
  promptEnvelope?: Uint8Array | undefined;
  /** A private label sealed in the requester's browser (decoded): kept as it is. */
  labelEnvelope?: Uint8Array | undefined;
  expiresInSeconds: number;
  maxResponses: number;
  workspaceId?: string | undefined;
  hostname?: string | undefined;
}

/** The names the requester's fields travel by, so a field refused is named as it was sent. */
const sentAs = { publicKey: 'public_key', promptEnvelope: 'prompt_envelope' } as const;

const invalid = (field: string, message: string) => new Invalid(`${field} ${message}.`, [{ field, message }]);

/**
 * A public key the responders' clients can seal to: the KEM's length, and for P-256 a point on
 * the curve (WebCrypto imports only those). An all-zero X25519 key would make every shared
 * secret zero, so it is refused too; other weak X25519 keys fail HPKE itself at the responder.
 */
async function checkPublicKey(publicKey: string, kem: RequestKem): Promise<void> {
  const bytes = Buffer.from(publicKey, 'base64url');
  if (bytes.length !== publicKeyBytes[kem] || bytes.toString('base64url') !== publicKey) {
    throw invalid(sentAs.publicKey, `must be the ${publicKeyBytes[kem]}-byte ${kem} public key, unpadded base64url`);
  }
  if (kem === 'x25519' && bytes.every((byte) => byte === 0)) throw invalid(sentAs.publicKey, 'must not be all zeros');
  if (kem === 'p256') {
    try {
      await crypto.subtle.importKey('raw', bytes, { name: 'ECDH', namedCurve: 'P-256' }, true, []);
    } catch {
      throw invalid(sentAs.publicKey, 'must be a P-256 point (uncompressed)');
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
    throw invalid(sentAs.promptEnvelope, `must be an envelope v1 (${error.code}: ${error.message})`);
  }
}

/**
 * Publishes a request link. With a `workspaceId` the requester must be a member and the link
 * satisfy the workspace's policy (refused otherwise): requests allowed, and a life within its
 * longest, since a link is a way into the workspace for as long as it is open. With a
 * `hostname` too, the link is on that hostname of the workspace's (invalid if not verified).
 */
export async function createRequestLink(
  input: NewRequestLink,
  ownerId: string,
  ports: RequestPorts & WorkspaceMembershipPorts & LinkHostPorts,
): Promise<RequestLink> {
  await checkPublicKey(input.publicKey, input.kem);
  const promptEnvelope = input.promptEnvelope ?? null;
  if (promptEnvelope) checkPrompt(promptEnvelope);
  const { workspaceId } = input;
  if (workspaceId !== undefined)
    await assertSendInWorkspace(workspaceId, ownerId, { kind: 'request', expiresIn: input.expiresInSeconds }, ports);
  const linkHost =
    workspaceId === undefined || input.hostname === undefined ? undefined : await linkHostOf(workspaceId, input.hostname, ports);
  const now = ports.clock.now();
  const link: RequestLink = {
    id: newRequestLinkId(),
    ownerId,
    publicKey: input.publicKey,
    kem: input.kem,
    promptEnvelope,
    createdAt: now,
    expiresAt: now + input.expiresInSeconds * 1000,
    maxResponses: input.maxResponses,
    responsesLeft: input.maxResponses,
    closedAt: null,
    ...(input.labelEnvelope === undefined ? {} : { labelEnvelope: input.labelEnvelope }),
    ...(workspaceId === undefined ? {} : { workspaceId }),
    ...(linkHost ? { linkHost } : {}),
  };
  await ports.requests.insert(link, keepUntil(link));
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
export async function findRequestLinkOn(
  id: string,
  hostClaim: HostClaim | null,
  ports: Pick<RequestPorts, 'requests'>,
): Promise<RequestLink | null> {
  const link = await findRequestLink(id, ports);
  return link && servedOn(link, hostClaim) ? link : null;
}

const notFound = () => new NotFound('No request link has this id.');

/** The caller's own link, or not found (a link of someone else's is as unknown as one that never was). */
export async function ownRequestLink(id: string, ownerId: string, ports: Pick<RequestPorts, 'requests'>): Promise<RequestLink> {
  const link = await findRequestLink(id, ports);
  if (!link || link.ownerId !== ownerId) throw notFound();
  return link;
}

const goneDetail = {
  closed: 'The requester closed this link.',
  expired: 'This link has expired.',
  full: 'This link has all the responses it asked for.',
} as const;

/**
 * What a responder's page reads: the public key and the sealed prompt. Gone once the link is
 * closed or expired, with the reason; a full link is still read (`open: false`, no responses
 * left), as the interface keeps 410 for those two.
 */
export async function readRequestLink(
  id: string,
  hostClaim: HostClaim | null,
  ports: Pick<RequestPorts, 'requests' | 'clock'>,
): Promise<RequestLink> {
  const link = await findRequestLinkOn(id, hostClaim, ports);
  if (!link) throw notFound();
  const refusal = refusalOf(link, ports.clock.now());
  if (refusal === 'closed' || refusal === 'expired') throw new Gone(goneDetail[refusal], { facts: { reason: refusal } });
  return link;
}

/** Gone (or not found, or a conflict when full) for a link that took no more responses: why, read again after a refused write. */
export function refusedResponse(link: RequestLink | null, now: number): Refusal {
  if (!link) return notFound();
  const refusal = refusalOf(link, now) ?? 'full';
  if (refusal === 'full') return new Conflict(goneDetail.full, { facts: { reason: 'request_full' } });
  return new Gone(goneDetail[refusal], { facts: { reason: refusal } });
}

export async function closeRequestLink(id: string, ownerId: string, ports: Pick<RequestPorts, 'requests' | 'clock'>): Promise<void> {
  await ownRequestLink(id, ownerId, ports);
  if (!(await ports.requests.close(id, ownerId, ports.clock.now()))) throw notFound();
}

export async function listRequestLinks(
  ownerId: string,
  limit: number,
  cursor: string | null,
  ports: Pick<RequestPorts, 'requests' | 'clock'>,
) {
  const page = await ports.requests.listByOwner(ownerId, limit, cursor);
  const now = ports.clock.now();
  return { items: page.items.map((link) => ({ link, open: isOpen(link, now) })), nextCursor: page.nextCursor };
}
