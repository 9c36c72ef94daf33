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
 * change that causes it (the table's stream then carries both to the webhook relay).
 * `views_left` is not stored: every view appends exactly one `secret.viewed` in the update that
 * decrements, so it follows from the event's position.
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
  events: StoredEvent[];
}

/** The secret's events with each one's `views_left` filled in from its position. */
export function secretEvents(secret: Pick<Secret, 'id' | 'maxViews' | 'events'>): SecretEvent[] {
  let viewsLeft = secret.maxViews;
  return secret.events.map((event) => {
    if (event.type === 'secret.viewed') viewsLeft -= 1;
    return {
      id: event.id,
      type: event.type,
      occurred_at: new Date(event.at).toISOString(),
      secret_id: secret.id,
      views_left: viewsLeft,
    };
  });
}
