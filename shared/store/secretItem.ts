import { chunkLog2Range } from '../envelope/format.ts';
import { toEpochSeconds } from '../clock.ts';
import { recipientEmailHash, type Recipient, type Secret } from '../domain/secrets/model.ts';
import { fileLimits } from '../limits.ts';
import { ownerListing, secretKey, workEntry, workQueues, type RecipientEntry, type SecretItem } from './items/index.ts';

// How a secret maps to its item (items/secrets.ts), and the expressions the secret store writes it with.

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

/**
 * The chat store's part of the secret's item: its subscription (`chat_team`, `chat_user`), so
 * every write that adds an event streams them to the relay with it; refused once the secret has
 * ended (its record kept a while has nothing left to tell) or is gone.
 */
export const chatSubscription = (secretId: string, teamId: string, chatUserId: string) => ({
  Key: secretKey(secretId),
  UpdateExpression: 'SET chat_team = :team, chat_user = :user',
  ConditionExpression: '#type = :secret AND #state IN (:pending, :active)',
  ExpressionAttributeNames: { '#type': 'type', '#state': 'state' },
  ExpressionAttributeValues: { ':team': teamId, ':user': chatUserId, ':secret': 'secret', ':pending': 'pending', ':active': 'active' },
});

/**
 * The write that makes a file secret active once its upload completed: conditional on its still
 * pending under that upload, with its header's public parameters and its place on the expiry
 * index. Also a part of the transaction that adds a file response to a request link.
 */
export function fileActivation(secret: Pick<Secret, 'id' | 'expiresAt'>, uploadId: string, envelopeFormat: Secret['envelopeFormat']) {
  const due = workEntry(workQueues.due, secret.id, secret.expiresAt);
  return {
    Key: secretKey(secret.id),
    // No event of its own: `secret.created` went out when the secret was made.
    UpdateExpression: `SET #state = :active, #g2pk = :due, #g2sk = :dueAt${envelopeFormat ? ', passphrase = :passphrase, kdf_iterations = :iterations' : ''}`,
    ConditionExpression: '#state = :pending AND upload_id = :upload',
    ExpressionAttributeNames: pick('#state', '#g2pk', '#g2sk'),
    ExpressionAttributeValues: {
      ...(envelopeFormat ? { ':passphrase': envelopeFormat.passphrase, ':iterations': envelopeFormat.kdfIterations } : {}),
      ':active': 'active',
      ':pending': 'pending',
      ':upload': uploadId,
      ':due': due.gsi2pk,
      ':dueAt': due.gsi2sk,
    },
  };
}

export function toItem(secret: Secret, tombstoneSeconds: number): SecretItem {
  return {
    ...secretKey(secret.id),
    type: 'secret',
    id: secret.id,
    ...(secret.ownerId === undefined ? {} : { owner_id: secret.ownerId, ...ownerListing(secret.ownerId, secret.createdAt, secret.id) }),
    ...(secret.workspaceId === undefined ? {} : { workspace_id: secret.workspaceId }),
    ...(secret.linkHost ? { domain_id: secret.linkHost.domainId, hostname: secret.linkHost.hostname } : {}),
    state: secret.state,
    kind: secret.kind,
    ...(secret.envelope ? { envelope: secret.envelope } : {}),
    ...(secret.envelopeParts === undefined ? {} : { envelope_parts: secret.envelopeParts }),
    ...(secret.upload
      ? {
          upload_id: secret.upload.id,
          part_size: secret.upload.partSize,
          part_count: secret.upload.partCount,
          chunk_log2: secret.upload.chunkLog2,
        }
      : {}),
    ...(secret.upload?.passphrase === undefined ? {} : { declared_passphrase: secret.upload.passphrase }),
    ...(secret.upload?.completion
      ? { completing_since: secret.upload.completion.since, completion_attempts: secret.upload.completion.attempts }
      : {}),
    ...(secret.response
      ? { request_id: secret.response.requestId, response_enc: secret.response.enc, response_wrapped_key: secret.response.wrappedKey }
      : {}),
    salt: secret.salt,
    size_bytes: secret.sizeBytes,
    max_views: secret.maxViews,
    views_left: secret.viewsLeft,
    created_at: secret.createdAt,
    expires_at: secret.expiresAt,
    ...(secret.notBefore === undefined ? {} : { not_before: secret.notBefore }),
    ...(secret.claimVerifier === undefined ? {} : { claim_verifier: secret.claimVerifier }),
    ...(secret.linkVerifier === undefined ? {} : { link_verifier: secret.linkVerifier }),
    ...(secret.recipients
      ? { recipients: Object.fromEntries(secret.recipients.map((recipient, position) => [recipient.id, toEntry(recipient, position)])) }
      : {}),
    ...(secret.envelopeFormat ? { passphrase: secret.envelopeFormat.passphrase, kdf_iterations: secret.envelopeFormat.kdfIterations } : {}),
    ...(secret.labelEnvelope ? { name: secret.labelEnvelope } : {}),
    delete_token_hash: secret.deleteTokenHash,
    refused_proofs: secret.refusedProofs,
    denied_events: secret.deniedEvents,
    emitted: secret.emitted,
    // TTL is only the backstop: the sweep ends the secret at expiry, TTL drops the tombstone later.
    ttl: toEpochSeconds(secret.expiresAt) + tombstoneSeconds,
    // On the work index: by its expiry once active; a file still uploading by when its upload
    // goes stale (fileLimits.staleUploadSeconds), so the sweep can abort it.
    ...(secret.state === 'pending'
      ? workEntry(workQueues.upload, secret.id, secret.createdAt + fileLimits.staleUploadSeconds * 1000)
      : workEntry(workQueues.due, secret.id, secret.expiresAt)),
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
            ...(row.completing_since === undefined
              ? {}
              : { completion: { since: row.completing_since, attempts: row.completion_attempts ?? 0 } }),
          },
        }),
    ...(row.request_id === undefined
      ? {}
      : { response: { requestId: row.request_id, enc: row.response_enc ?? '', wrappedKey: row.response_wrapped_key ?? '' } }),
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
    ...(row.name instanceof Uint8Array ? { labelEnvelope: row.name } : {}),
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
