import { sha256Base64Url } from '../../ids.ts';
import type { LinkHost } from '../domains/linkHosts.ts';

/** A secret's lifecycle (DESIGN.md §3). Terminal states keep a tombstone without payload. */
export type SecretState = 'pending' | 'active' | 'burned' | 'expired' | 'revoked' | 'locked';
export type TerminalState = Extract<SecretState, 'burned' | 'expired' | 'revoked' | 'locked'>;

export const isTerminal = (state: SecretState): state is TerminalState =>
  state === 'burned' || state === 'expired' || state === 'revoked' || state === 'locked';

export type SecretKind = 'text' | 'file';

/** A file secret's multipart upload: its S3 upload id and how its envelope is cut into parts. */
export interface FileUpload {
  id: string;
  partSize: number;
  partCount: number;
  /** The chunk size the client declared (2^chunkLog2 plaintext bytes); its envelope header must say the same. */
  chunkLog2: number;
  /**
   * Whether the envelope has a passphrase, as declared at opening by a file sent in a workspace
   * (its policy was checked on it); its header must say the same. Absent outside a workspace.
   */
  passphrase?: boolean;
  /**
   * A large upload whose completion was asked for and is left to the completion sweep (S3 may
   * take minutes to complete it): since when, and how many times a sweep took it up.
   */
  completion?: UploadCompletion;
}

export interface UploadCompletion {
  since: number;
  attempts: number;
}

export type SecretEventType =
  | 'secret.created'
  | 'secret.viewed'
  | 'secret.denied'
  | 'secret.burned'
  | 'secret.expired'
  | 'secret.revoked'
  | 'secret.locked'
  | 'secret.reported';

/**
 * An event as stored on the secret's own item, written by the same conditional write as the
 * change that causes it; the table's stream carries each write, and so each event, to the
 * webhook relay. `views_left` is not stored: it is the item's own after that write.
 */
export interface StoredEvent {
  id: string;
  type: SecretEventType;
  at: number;
  /** The recipient link a view was claimed through. */
  recipientId?: string;
  /** Where a view came from, for its receipt (a `secret.viewed` of an owned secret). */
  view?: ViewContext;
}

/** The channels a view can come through: our clients say which (`x-hushlink-client`); anything else is `api`. */
export const viewChannels = ['web', 'cli', 'chat', 'api'] as const;
export type ViewChannel = (typeof viewChannels)[number];

/**
 * What a claim records of where it came from, for the receipt the relay writes from it. Never
 * an address: a country and region from CloudFront's viewer headers, and the user agent, which
 * the relay reduces to a browser and OS family (the receipt keeps only that).
 */
export interface ViewContext {
  channel: ViewChannel;
  country?: string;
  region?: string;
  userAgent?: string;
}

/** A per-recipient link: its own budget of views, revocable alone (interface §3 rule 3). */
export interface Recipient {
  id: string;
  label: string | null;
  /** The address it was sent to; a restricted link opens only for its owner (gate). */
  email: string | null;
  restricted: boolean;
  state: 'active' | 'revoked';
  viewsLeft: number;
}

/**
 * What the gate compares a restricted link's address with: the address trimmed and lower-cased
 * (addresses match case-insensitively), hashed; the claim's condition compares these.
 */
export const recipientEmailHash = (email: string): string => sha256Base64Url(`recipient:${email.trim().toLowerCase()}`);

/** A link as its owner sees it: `used` once its views are taken. */
export const recipientState = (recipient: Recipient): 'active' | 'revoked' | 'used' =>
  recipient.state === 'revoked' ? 'revoked' : recipient.viewsLeft > 0 ? 'active' : 'used';

/** The event body webhooks will carry (DESIGN.md §3); never content. */
export interface SecretEvent {
  id: string;
  type: SecretEventType;
  occurred_at: string;
  secret_id: string;
  views_left: number;
  recipient_id?: string;
  /** The workspace the secret was sent in, on every event of it. */
  workspace_id?: string;
}

export interface Secret {
  id: string;
  /** The account that created or adopted it; absent for anonymous secrets. */
  ownerId?: string;
  /** The workspace it was sent in (its policy allowed it); absent outside one. */
  workspaceId?: string;
  /** The workspace's hostname its links are on, and the claim that binds them (rule 5); absent: `WEB_ORIGIN`'s. */
  linkHost?: LinkHost;
  state: SecretState;
  kind: SecretKind;
  /** Present only while the secret is active (or pending); absent too when it is kept in parts. */
  envelope?: Uint8Array;
  /** How many parts an envelope too big for one item is kept in (curl mode's, over 300 KB). */
  envelopeParts?: number;
  /** A file's upload (its envelope is an object in the files bucket, never in the table). */
  upload?: FileUpload;
  /**
   * A file sent in response to a request link: it reaches the requester's inbox once complete,
   * never a link of its own (the claim's condition takes no view of it; every secrets route
   * treats it as unknown),
   * and goes when the link's responses go.
   */
  response?: { requestId: string; enc: string; wrappedKey: string };
  salt: string;
  sizeBytes: number;
  maxViews: number;
  viewsLeft: number;
  createdAt: number;
  expiresAt: number;
  notBefore?: number;
  /** base64url SHA-256 of the claim token; a claim must present the token. */
  claimVerifier?: string;
  /** SHA-256 of the link token: a refused claim or a report counts towards a lock only with that token. */
  linkVerifier?: string;
  /**
   * Per-recipient links, in the order they were made. With them, `maxViews` is each link's
   * budget and `viewsLeft` the sum of what the active links have left: 0 burns the secret.
   */
  recipients?: Recipient[];
  /**
   * Public parameters read from an envelope v1 header at creation, so the reveal page knows
   * before claiming whether to ask for a passphrase and how to stretch it. Absent for
   * envelopes of another format, which the service stores as they are.
   */
  envelopeFormat?: { passphrase: boolean; kdfIterations: number };
  /** Its private label as sealed in the owner's browser: opaque bytes, answered to the owner alone (docs/adr/0180). */
  labelEnvelope?: Uint8Array;
  /** base64url SHA-256 of the delete token. */
  deleteTokenHash: string;
  refusedProofs: number;
  deniedEvents: number;
  endedAt?: number;
  /**
   * The events of the write that made this version of the secret: each write replaces them,
   * so the item stays the same size however many views it had. Earlier events went out with
   * their writes through the table's stream (`emittedEvents` tells a write's).
   */
  emitted: StoredEvent[];
}

/** The events a write emitted, as webhooks carry them: with the secret's `views_left` after that write. */
export function emittedEvents(secret: Pick<Secret, 'id' | 'viewsLeft' | 'workspaceId'>, events: readonly StoredEvent[]): SecretEvent[] {
  return events.map((event) => ({
    id: event.id,
    type: event.type,
    occurred_at: new Date(event.at).toISOString(),
    secret_id: secret.id,
    views_left: secret.viewsLeft,
    ...(event.recipientId === undefined ? {} : { recipient_id: event.recipientId }),
    ...(secret.workspaceId === undefined ? {} : { workspace_id: secret.workspaceId }),
  }));
}
