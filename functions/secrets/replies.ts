import { toIso } from '../../shared/clock.ts';
import { recipientState, type Recipient, type Secret } from '../../shared/domain/secrets/model.ts';

const iso = (ms: number | undefined) => (ms === undefined ? null : toIso(ms));

/** Who reads a secret's metadata: its owner sees every link, a link's holder that link, anyone else neither. */
export interface MetadataViewer {
  userId: string | null;
  /** The link asked about (`?recipient_id=`), already known to exist. */
  recipientId?: string;
  /** A metadata read (the listing has no per-link detail: its index does not carry the links). */
  read: boolean;
}

/** Metadata only: never the envelope, a token or a hash. Addresses go to the owner alone. */
export function metadata(secret: Secret, viewer: MetadataViewer) {
  const owner = viewer.userId !== null && secret.ownerId === viewer.userId;
  const asked = viewer.recipientId === undefined ? undefined : secret.recipients?.find((link) => link.id === viewer.recipientId);
  return {
    id: secret.id,
    ...(owner ? { owned: true as const } : {}),
    state: secret.state,
    kind: secret.kind,
    size_bytes: secret.sizeBytes,
    salt: secret.salt,
    max_views: secret.maxViews,
    views_left: secret.viewsLeft,
    created_at: toIso(secret.createdAt),
    expires_at: toIso(secret.expiresAt),
    not_before: iso(secret.notBefore),
    ended_at: iso(secret.endedAt),
    requires_proof: secret.claimVerifier !== undefined,
    // From the envelope v1 header; null when the envelope is of another format.
    passphrase: secret.envelopeFormat?.passphrase ?? null,
    kdf_iterations: secret.envelopeFormat?.kdfIterations ?? null,
    ...(viewer.read ? { has_recipients: secret.recipients !== undefined } : {}),
    ...(owner && secret.recipients ? { recipients: secret.recipients.map(ownedLink) } : {}),
    // The label is the owner's alone: a recipient's or anyone else's read never carries it.
    ...(owner && secret.labelEnvelope ? { label_envelope: Buffer.from(secret.labelEnvelope).toString('base64') } : {}),
    ...(asked
      ? { recipient: { recipient_id: asked.id, restricted: asked.restricted, state: recipientState(asked), views_left: asked.viewsLeft } }
      : {}),
  };
}

export const ownedLink = (link: Recipient) => ({
  recipient_id: link.id,
  label: link.label,
  email: link.email,
  restricted: link.restricted,
  state: recipientState(link),
  views_left: link.viewsLeft,
});

/** A link as the creator gets it: `url_base` to append `#` and the key to. */
export const createdLink = (webOrigin: string, secretId: string) => (link: Recipient) => ({
  recipient_id: link.id,
  label: link.label,
  email: link.email,
  restricted: link.restricted,
  url_base: `${webOrigin}/s/${secretId}/r/${link.id}`,
});
