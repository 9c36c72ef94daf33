/** A secret's lifecycle (DESIGN.md §3). Terminal states keep a tombstone without payload. */
export type SecretState = 'pending' | 'active' | 'burned' | 'expired' | 'revoked' | 'locked';
export type TerminalState = Extract<SecretState, 'burned' | 'expired' | 'revoked' | 'locked'>;

export const isTerminal = (state: SecretState): state is TerminalState =>
  state === 'burned' || state === 'expired' || state === 'revoked' || state === 'locked';

export type SecretKind = 'text';

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
}

/** The event body webhooks will carry (DESIGN.md §3); never content. */
export interface SecretEvent {
  id: string;
  type: SecretEventType;
  occurred_at: string;
  secret_id: string;
  views_left: number;
}

export interface Secret {
  id: string;
  /** The account that created or adopted it; absent for anonymous secrets. */
  ownerId?: string;
  state: SecretState;
  kind: SecretKind;
  /** Present only while the secret is active (or pending). */
  envelope?: Uint8Array;
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
   * Public parameters read from an envelope v1 header at creation, so the reveal page knows
   * before claiming whether to ask for a passphrase and how to stretch it. Absent for
   * envelopes of another format, which the service stores as they are.
   */
  envelopeFormat?: { passphrase: boolean; kdfIterations: number };
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
export function emittedEvents(secret: Pick<Secret, 'id' | 'viewsLeft'>, events: readonly StoredEvent[]): SecretEvent[] {
  return events.map((event) => ({
    id: event.id,
    type: event.type,
    occurred_at: new Date(event.at).toISOString(),
    secret_id: secret.id,
    views_left: secret.viewsLeft,
  }));
}
