import * as z from 'zod/mini';
import { Accepted, nullableTimestamp, page, timestamp } from './output.ts';

const secretStates = ['pending', 'active', 'burned', 'expired', 'revoked', 'locked'] as const;

/** A secret's public parameters: never the envelope, a token or a hash. */
const SecretMetadata = z.strictObject({
  id: z.string(),
  /**
   * Present, and true, only in its owner's own view (their listing, or a read with their
   * credential): nobody else learns whether an account owns it.
   */
  owned: z.optional(z.literal(true)),
  state: z.enum(secretStates),
  kind: z.literal('text'),
  size_bytes: z.int(),
  /** Public: the client needs it to derive the claim token before claiming. */
  salt: z.string(),
  max_views: z.int(),
  views_left: z.int(),
  created_at: timestamp,
  expires_at: timestamp,
  not_before: nullableTimestamp,
  ended_at: nullableTimestamp,
  /** A claim must present the token derived from the link. */
  requires_proof: z.boolean(),
  /** From an envelope v1 header; null for envelopes of another format. */
  passphrase: z.nullable(z.boolean()),
  kdf_iterations: z.nullable(z.int()),
});

/**
 * What the secrets group's routes answer, by the names the route table uses: the types its
 * handlers are held to, and the document's. Never parsed at run time, so no function bundles it.
 */
export const secretsReplies = {
  SecretCreated: z.strictObject({
    id: z.string(),
    /** The client appends `#` and the key. */
    url_base: z.string(),
    /** Shown once: revokes the secret (`x-delete-token`) or adopts it into an account. */
    delete_token: z.string(),
    created_at: timestamp,
    expires_at: timestamp,
    not_before: nullableTimestamp,
    max_views: z.int(),
    views_left: z.int(),
  }),
  SecretList: page(SecretMetadata),
  SecretMetadata,
  ClaimedSecret: z.strictObject({
    id: z.string(),
    kind: z.literal('text'),
    /** Standard base64 of the envelope, exactly as it was created. */
    envelope: z.string(),
    salt: z.string(),
    size_bytes: z.int(),
    views_left: z.int(),
    expires_at: timestamp,
  }),
  Accepted,
};
