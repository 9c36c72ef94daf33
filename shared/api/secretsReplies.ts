import * as z from 'zod/mini';
import { Accepted, nullableTimestamp, page, timestamp } from './output.ts';

const secretStates = ['pending', 'active', 'burned', 'expired', 'revoked', 'locked'] as const;
const recipientStates = ['active', 'revoked', 'used'] as const;

/** What every claim answers besides the envelope or its download. */
const claimed = {
  id: z.string(),
  salt: z.string(),
  size_bytes: z.int(),
  /** Views left on the link claimed through (the secret's own when it has no recipients). */
  views_left: z.int(),
  expires_at: timestamp,
  recipient_id: z.optional(z.string()),
};

/** A per-recipient link as its owner sees it. */
const OwnedRecipient = z.strictObject({
  recipient_id: z.string(),
  label: z.nullable(z.string()),
  email: z.nullable(z.string()),
  restricted: z.boolean(),
  /** `used` once its views are taken. */
  state: z.enum(recipientStates),
  views_left: z.int(),
});

/** A secret's public parameters: never the envelope, a token or a hash. */
const SecretMetadata = z.strictObject({
  id: z.string(),
  /**
   * Present, and true, only in its owner's own view (their listing, or a read with their
   * credential): nobody else learns whether an account owns it.
   */
  owned: z.optional(z.literal(true)),
  state: z.enum(secretStates),
  kind: z.enum(['text', 'file']),
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
  /** Its private label as sealed in the owner's browser (standard base64): in its owner's own view only, when it has one. */
  label_envelope: z.optional(z.string()),
  /** Whether it opens only through per-recipient links (a claim must name one); in a metadata read, not in the listing. */
  has_recipients: z.optional(z.boolean()),
  /** Each link's state and views left: for its owner only (addresses are shown to no one else). */
  recipients: z.optional(z.array(OwnedRecipient)),
  /**
   * A Team workspace's branding, when the secret was sent inside one (a metadata read only):
   * display only; the reveal page shows it as "sent from <display_name> on Hushlink".
   */
  branding: z.optional(z.strictObject({ display_name: z.string(), logo: z.nullable(z.string()), accent: z.nullable(z.string()) })),
  /** The link asked for with `?recipient_id=`: what its holder needs before claiming. */
  recipient: z.optional(
    z.strictObject({ recipient_id: z.string(), restricted: z.boolean(), state: z.enum(recipientStates), views_left: z.int() }),
  ),
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
    /** One link per recipient asked for, all sharing the envelope and key: append `#` and the key to each. */
    recipients: z.optional(
      z.array(
        z.strictObject({
          recipient_id: z.string(),
          label: z.nullable(z.string()),
          email: z.nullable(z.string()),
          restricted: z.boolean(),
          url_base: z.string(),
        }),
      ),
    ),
  }),
  SecretList: page(SecretMetadata),
  SecretMetadata,
  ClaimedSecret: z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('text'),
      ...claimed,
      /** Standard base64 of the envelope, exactly as it was created. */
      envelope: z.string(),
    }),
    z.strictObject({
      kind: z.literal('file'),
      ...claimed,
      /** The view itself: a presigned GET of the envelope (it accepts `Range`), working until `expires_at`. */
      download: z.strictObject({ url: z.string(), expires_at: timestamp }),
    }),
  ]),
  RecipientRevoked: z.strictObject({ recipient_id: z.string(), state: z.literal('revoked') }),
  /** Curl mode's JSON answer (`accept: application/json`); others get `url` as text/plain. */
  CurlSecret: z.strictObject({
    /** The link with its key: the server forgets the key once this is sent. */
    url: z.string(),
    id: z.string(),
    delete_token: z.string(),
    expires_at: timestamp,
    max_views: z.int(),
  }),
  ReceiptList: page(
    z.strictObject({
      recipient_id: z.nullable(z.string()),
      opened_at: timestamp,
      channel: z.enum(['web', 'cli', 'chat', 'api']),
      /** Pro and Team only (null on Free, and where CloudFront did not say). */
      location: z.nullable(z.strictObject({ country: z.string(), region: z.nullable(z.string()) })),
      /** Pro and Team only: the coarse family of the user agent. */
      device: z.nullable(z.strictObject({ browser: z.nullable(z.string()), os: z.nullable(z.string()) })),
    }),
  ),
  Accepted,
};
