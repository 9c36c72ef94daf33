import { requestLimits } from '../../limits.ts';
import type { LinkHost } from '../domains/linkHosts.ts';
import type { RequestKem } from './kems.ts';

export { requestKems, type RequestKem } from './kems.ts';

/**
 * A request link (interface §4.3): a requester's public key, published so that anyone holding
 * the link can send them a secret only their device opens. The server stores the public key
 * and the sealed prompt; the key's fingerprint and the link secret live in the link's fragment.
 */
export interface RequestLink {
  id: string;
  ownerId: string;
  /** The serialized public key, base64url (32 bytes for X25519, a 65-byte point for P-256). */
  publicKey: string;
  kem: RequestKem;
  /** The prompt sealed under a key derived from the link secret, or null. */
  promptEnvelope: Uint8Array | null;
  createdAt: number;
  expiresAt: number;
  maxResponses: number;
  responsesLeft: number;
  /** When the requester closed it; responses received stay readable (rule 4). */
  closedAt: number | null;
  /** Its private label as sealed in the requester's browser: opaque bytes, in their listing alone (docs/adr/0180). */
  labelEnvelope?: Uint8Array;
  /** The workspace it was published in (its policy allowed it); absent outside one. */
  workspaceId?: string;
  /** The workspace's hostname it is on, and the claim that binds it (rule 5); absent: `WEB_ORIGIN`'s. */
  linkHost?: LinkHost;
}

/** What a listing shows of a link (its key and prompt stay out of the listing index; its label is in it). */
export type RequestSummary = Pick<
  RequestLink,
  'id' | 'ownerId' | 'createdAt' | 'expiresAt' | 'maxResponses' | 'responsesLeft' | 'closedAt' | 'labelEnvelope'
>;

/** Taking responses: not closed, not expired, not full. */
export const isOpen = (link: RequestSummary, now: number): boolean => refusalOf(link, now) === null;

/** Why a link takes no more responses; null while it does. */
export function refusalOf(link: RequestSummary, now: number): 'closed' | 'expired' | 'full' | null {
  if (link.closedAt !== null) return 'closed';
  if (now >= link.expiresAt) return 'expired';
  return link.responsesLeft > 0 ? null : 'full';
}

/** HPKE's outputs for one response: what only the requester's private key (with the link secret) opens. */
export interface WrappedKey {
  /** The encapsulated key, base64url. */
  enc: string;
  /** The response's envelope key, sealed to the requester, base64url. */
  wrappedKey: string;
}

/** A response in a link's inbox: its sealed secret (a text's envelope, or a file in the files bucket) and its wrapped key. */
export interface SealedResponse extends WrappedKey {
  id: string;
  requestId: string;
  createdAt: number;
  salt: string;
  sizeBytes: number;
  sealed: { kind: 'text'; envelope: Uint8Array } | { kind: 'file'; secretId: string };
}

/** A link and its responses are kept this long: past its expiry by the retention (rule 4), however it closed. */
export const keepUntil = (link: Pick<RequestLink, 'expiresAt'>): number => link.expiresAt + requestLimits.retentionSeconds * 1000;
