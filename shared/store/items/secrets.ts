import { toIso } from '../../clock.ts';
import type { Recipient, Secret, StoredEvent, ViewChannel } from '../../domain/secrets/model.ts';

// A secret's partition (`SECRET#<id>`): the secret, its envelope's parts and its receipts; and
// the restricted links' gate items.

/** A secret: written by the secret store (shared/store/secrets.ts, layout secretItem.ts) alone; chat's subscription and a file response's activation are its parts. */
export const secretKey = (id: string) => ({ pk: `SECRET#${id}`, sk: 'SECRET' });
/** The secret's id from its partition key (work index entries hold keys only). */
export const secretIdOf = (pk: unknown): string => String(pk).slice('SECRET#'.length);

/** Its owner's listing on gsi1 (`OWNER#<owner>`), newest first. */
export const ownerListingPartition = (ownerId: string): string => `OWNER#${ownerId}`;
export const ownerListing = (ownerId: string, createdAt: number, id: string) => ({
  gsi1pk: ownerListingPartition(ownerId),
  gsi1sk: `${toIso(createdAt)}#${id}`,
});

/** One link in the secret's `recipients` map (keyed by its id). */
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
  /** A completion left to the sweep: since when, and its tries (issue 28). */
  completing_since?: number;
  completion_attempts?: number;
  request_id?: string;
  response_enc?: string;
  response_wrapped_key?: string;
  salt: string;
  size_bytes: number;
  max_views: number;
  views_left: number;
  /** Views taken (revoking a link lowers views left too). */
  views_taken?: number;
  created_at: number;
  expires_at: number;
  not_before?: number;
  claim_verifier?: string;
  link_verifier?: string;
  recipients?: Record<string, RecipientEntry>;
  passphrase?: boolean;
  kdf_iterations?: number;
  /**
   * Its private label's sealed bytes, under the listing index's projected `name` (as a request
   * link keeps its counters under `max_views`/`views_left`), so the owner's listing carries it
   * without a change to the index (docs/adr/0180).
   */
  name?: Uint8Array;
  delete_token_hash: string;
  refused_proofs: number;
  denied_events: number;
  /** Hashes of who reported it, and of those who proved they had the link. */
  reporters?: Set<string>;
  proven_reporters?: Set<string>;
  ended_at?: number;
  /** Its chat subscription: the relay tells this Slack user of its views and end. */
  chat_team?: string;
  chat_user?: string;
  /** The events of the write that made this version of the item (the stream carries each write's). */
  emitted: StoredEvent[];
  ttl: number;
  gsi1pk?: string;
  gsi1sk?: string;
  /** On the work index: `DUE` once active, `UPLOAD` while pending, `PURGE` once ended with an object to delete. */
  gsi2pk?: string;
  gsi2sk?: string;
}

/** Part `<nnn>` of an envelope too big for the secret's item (curl mode's): written and deleted by the secret store (envelopeParts.ts). */
export const envelopePartKey = (secretId: string, index: number) => ({
  pk: secretKey(secretId).pk,
  sk: `ENVELOPE#${String(index).padStart(3, '0')}`,
});
export const envelopePartPrefix = 'ENVELOPE#';
export interface EnvelopePartItem {
  pk: string;
  sk: string;
  type: 'envelope_part';
  data: Uint8Array;
  ttl: number;
}

/** One view of an owned secret, newest first in its partition: written by the receipt store (receipts.ts) from the relay. */
export const receiptKey = (secretId: string, openedAt: number, eventId: string) => ({
  pk: secretKey(secretId).pk,
  sk: `RECEIPT#${toIso(openedAt)}#${eventId}`,
});
export const receiptPrefix = 'RECEIPT#';
export interface ReceiptItem {
  pk: string;
  sk: string;
  type: 'receipt';
  secret_id: string;
  event_id: string;
  recipient_id?: string;
  opened_at: number;
  channel: ViewChannel;
  country?: string;
  region?: string;
  browser?: string;
  os?: string;
  ttl: number;
}

/** A restricted link's code (`GATE#<secret>#<link>` / `CODE`): written by the gate store (gate.ts). */
export const gateCodeKey = (secretId: string, recipientId: string) => ({ pk: `GATE#${secretId}#${recipientId}`, sk: 'CODE' });
export interface GateCodeItem {
  pk: string;
  sk: string;
  type: 'gate_code';
  code_hash: string;
  salt: string;
  expires_at: number;
  ttl: number;
}

/** A gate session (`GATESESSION#<sha256 of its token>` / `SESSION`): written by the gate store (gate.ts). */
export const gateSessionKey = (tokenHash: string) => ({ pk: `GATESESSION#${tokenHash}`, sk: 'SESSION' });
export interface GateSessionItem {
  pk: string;
  sk: string;
  type: 'gate_session';
  secret_id: string;
  recipient_id: string;
  email_hash: string;
  expires_at: number;
  ttl: number;
}
