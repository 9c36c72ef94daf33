import { chunkLog2Range } from '../envelope/format.ts';
import { toEpochSeconds, toIso } from '../clock.ts';
import { recipientEmailHash, type Recipient, type Secret, type StoredEvent } from '../domain/secrets/model.ts';
import { sha256 } from '../ids.ts';
import { fileLimits } from '../limits.ts';

// How a secret is laid out in the table: its keys, its index entries and its attributes.

/** Sharding of the work index (gsi2), so no single index partition takes every write. */
export const shards = 4;
export const shardOf = (id: string): number => sha256(id)[0]! % shards;

export const key = (id: string) => ({ pk: `SECRET#${id}`, sk: 'SECRET' });

/** Attribute names, aliased in every expression (several are DynamoDB reserved words). */
export const names = {
  '#state': 'state',
  '#env': 'envelope',
  '#vl': 'views_left',
  '#exp': 'expires_at',
  '#nb': 'not_before',
  '#cv': 'claim_verifier',
  '#emitted': 'emitted',
  '#ended': 'ended_at',
  '#ttl': 'ttl',
  '#rp': 'refused_proofs',
  '#de': 'denied_events',
  '#g2pk': 'gsi2pk',
  '#g2sk': 'gsi2sk',
  '#rcp': 'recipients',
  '#parts': 'envelope_parts',
  '#rstate': 'state',
  '#rvl': 'views_left',
  '#restricted': 'restricted',
  '#remail': 'email_hash',
  '#req': 'request_id',
  '#domain': 'domain_id',
  '#vt': 'views_taken',
} as const;
export type Name = keyof typeof names;
export const pick = (...wanted: Name[]) => Object.fromEntries(wanted.map((name) => [name, names[name]]));

/** One link in the item's `recipients` map (keyed by its id). */
export interface RecipientEntry {
  /** Its place in the order the links were made (a map has none). */
  position: number;
  label?: string;
  email?: string;
  email_hash?: string;
  restricted: boolean;
  state: Recipient['state'];
  views_left: number;
}

/** Keys that list a secret under its owner, newest first. */
export const ownerKeys = (ownerId: string, createdAt: number, id: string) => ({ gsi1pk: `OWNER#${ownerId}`, gsi1sk: `${toIso(createdAt)}#${id}` });

export interface SecretItem {
  pk: string;
  sk: string;
  type: 'secret';
  id: string;
  owner_id?: string;
  workspace_id?: string;
  /** The verified claim of the workspace's hostname its links are on, and that hostname. */
  domain_id?: string;
  hostname?: string;
  state: Secret['state'];
  kind: Secret['kind'];
  envelope?: Uint8Array;
  envelope_parts?: number;
  upload_id?: string;
  part_size?: number;
  part_count?: number;
  chunk_log2?: number;
  declared_passphrase?: boolean;
  request_id?: string;
  response_enc?: string;
  response_wrapped_key?: string;
  salt: string;
  size_bytes: number;
  max_views: number;
  views_left: number;
  created_at: number;
  expires_at: number;
  not_before?: number;
  claim_verifier?: string;
  link_verifier?: string;
  recipients?: Record<string, RecipientEntry>;
  passphrase?: boolean;
  kdf_iterations?: number;
  delete_token_hash: string;
  refused_proofs: number;
  denied_events: number;
  ended_at?: number;
  /** The events of the write that made this version of the item (the stream carries each write's). */
  emitted: StoredEvent[];
  ttl: number;
  gsi1pk?: string;
  gsi1sk?: string;
  gsi2pk?: string;
  gsi2sk?: string;
}

export function toItem(secret: Secret, tombstoneSeconds: number): SecretItem {
  return {
    ...key(secret.id),
    type: 'secret',
    id: secret.id,
    ...(secret.ownerId === undefined ? {} : { owner_id: secret.ownerId, ...ownerKeys(secret.ownerId, secret.createdAt, secret.id) }),
    ...(secret.workspaceId === undefined ? {} : { workspace_id: secret.workspaceId }),
    ...(secret.linkHost ? { domain_id: secret.linkHost.domainId, hostname: secret.linkHost.hostname } : {}),
    state: secret.state,
    kind: secret.kind,
    ...(secret.envelope ? { envelope: secret.envelope } : {}),
    ...(secret.envelopeParts === undefined ? {} : { envelope_parts: secret.envelopeParts }),
    ...(secret.upload ? { upload_id: secret.upload.id, part_size: secret.upload.partSize, part_count: secret.upload.partCount, chunk_log2: secret.upload.chunkLog2 } : {}),
    ...(secret.upload?.passphrase === undefined ? {} : { declared_passphrase: secret.upload.passphrase }),
    ...(secret.response ? { request_id: secret.response.requestId, response_enc: secret.response.enc, response_wrapped_key: secret.response.wrappedKey } : {}),
    salt: secret.salt,
    size_bytes: secret.sizeBytes,
    max_views: secret.maxViews,
    views_left: secret.viewsLeft,
    created_at: secret.createdAt,
    expires_at: secret.expiresAt,
    ...(secret.notBefore === undefined ? {} : { not_before: secret.notBefore }),
    ...(secret.claimVerifier === undefined ? {} : { claim_verifier: secret.claimVerifier }),
    ...(secret.linkVerifier === undefined ? {} : { link_verifier: secret.linkVerifier }),
    ...(secret.recipients ? { recipients: Object.fromEntries(secret.recipients.map((recipient, position) => [recipient.id, toEntry(recipient, position)])) } : {}),
    ...(secret.envelopeFormat
      ? { passphrase: secret.envelopeFormat.passphrase, kdf_iterations: secret.envelopeFormat.kdfIterations }
      : {}),
    delete_token_hash: secret.deleteTokenHash,
    refused_proofs: secret.refusedProofs,
    denied_events: secret.deniedEvents,
    emitted: secret.emitted,
    // TTL is only the backstop: the sweep ends the secret at expiry, TTL drops the tombstone later.
    ttl: toEpochSeconds(secret.expiresAt) + tombstoneSeconds,
    // On the work index: by its expiry once active; a file still uploading by when its upload
    // goes stale (fileLimits.staleUploadSeconds), so the sweep can abort it.
    ...(secret.state === 'pending'
      ? { gsi2pk: `UPLOAD#${shardOf(secret.id)}`, gsi2sk: `${toIso(secret.createdAt + fileLimits.staleUploadSeconds * 1000)}#${secret.id}` }
      : { gsi2pk: `DUE#${shardOf(secret.id)}`, gsi2sk: `${toIso(secret.expiresAt)}#${secret.id}` }),
  };
}

export function fromItem(item: Record<string, unknown>): Secret {
  const row = item as unknown as SecretItem;
  return {
    id: row.id,
    ...(row.owner_id === undefined ? {} : { ownerId: row.owner_id }),
    ...(row.workspace_id === undefined ? {} : { workspaceId: row.workspace_id }),
    ...(row.domain_id === undefined ? {} : { linkHost: { domainId: row.domain_id, hostname: row.hostname ?? '' } }),
    state: row.state,
    kind: row.kind,
    ...(row.envelope ? { envelope: row.envelope } : {}),
    ...(row.envelope_parts === undefined ? {} : { envelopeParts: row.envelope_parts }),
    ...(row.upload_id === undefined
      ? {}
      : {
          upload: {
            id: row.upload_id,
            partSize: row.part_size ?? 0,
            partCount: row.part_count ?? 0,
            chunkLog2: row.chunk_log2 ?? chunkLog2Range.default,
            ...(row.declared_passphrase === undefined ? {} : { passphrase: row.declared_passphrase }),
          },
        }),
    ...(row.request_id === undefined ? {} : { response: { requestId: row.request_id, enc: row.response_enc ?? '', wrappedKey: row.response_wrapped_key ?? '' } }),
    salt: row.salt,
    sizeBytes: row.size_bytes,
    maxViews: row.max_views,
    viewsLeft: row.views_left,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    ...(row.not_before === undefined ? {} : { notBefore: row.not_before }),
    ...(row.claim_verifier === undefined ? {} : { claimVerifier: row.claim_verifier }),
    ...(row.link_verifier === undefined ? {} : { linkVerifier: row.link_verifier }),
    ...(row.recipients ? { recipients: fromEntries(row.recipients) } : {}),
    ...(row.passphrase === undefined ? {} : { envelopeFormat: { passphrase: row.passphrase, kdfIterations: row.kdf_iterations ?? 0 } }),
    deleteTokenHash: row.delete_token_hash,
    refusedProofs: row.refused_proofs,
    deniedEvents: row.denied_events,
    ...(row.ended_at === undefined ? {} : { endedAt: row.ended_at }),
    emitted: row.emitted ?? [],
  };
}

function toEntry(recipient: Recipient, position: number): RecipientEntry {
  return {
    position,
    ...(recipient.label === null ? {} : { label: recipient.label }),
    ...(recipient.email === null ? {} : { email: recipient.email, email_hash: recipientEmailHash(recipient.email) }),
    restricted: recipient.restricted,
    state: recipient.state,
    views_left: recipient.viewsLeft,
  };
}

function fromEntries(entries: Record<string, RecipientEntry>): Recipient[] {
  return Object.entries(entries)
    .sort(([, a], [, b]) => a.position - b.position)
    .map(([id, entry]) => ({
      id,
      label: entry.label ?? null,
      email: entry.email ?? null,
      restricted: entry.restricted,
      state: entry.state,
      viewsLeft: entry.views_left,
    }));
}
