import type { Recipient, Secret, StoredEvent, ViewContext } from '../../shared/domain/secrets/model.ts';
import type { SecretAdoptions, SecretStore, TakeViewInput } from '../../shared/domain/secrets/ports.ts';
import { newEventId, newRecipientId, newSecretId } from '../../shared/ids.ts';

/** What the secrets contracts run against: the store and the adoptions over the same secrets. */
export interface SecretStores {
  secrets: SecretStore;
  adoptions: SecretAdoptions;
}
export type MakeSecretStores = () => SecretStores | Promise<SecretStores>;

/** A fixed time for the contracts (DynamoDB Local has no TTL on the table: items never go by themselves). */
export const t0 = Date.UTC(2026, 10, 24, 12);
export const minute = 60_000;
export const hour = 60 * minute;

export const event = (type: StoredEvent['type'], at: number, extra: Partial<StoredEvent> = {}): StoredEvent => ({
  id: newEventId(),
  type,
  at,
  ...extra,
});

/** An active one-view text secret made at t0, expiring an hour later. */
export function aSecret(overrides: Partial<Secret> = {}): Secret {
  return {
    id: newSecretId(),
    state: 'active',
    kind: 'text',
    envelope: new Uint8Array([1, 2, 3, 4]),
    salt: 'c2FsdHNhbHRzYWx0c2FsdA',
    sizeBytes: 4,
    maxViews: 1,
    viewsLeft: 1,
    createdAt: t0,
    expiresAt: t0 + hour,
    deleteTokenHash: 'delete-token-hash',
    refusedProofs: 0,
    deniedEvents: 0,
    emitted: [event('secret.created', t0)],
    ...overrides,
  };
}

/** A file secret still uploading (pending) under `uploadId`. */
export function aPendingFile(uploadId = 'upload-1', overrides: Partial<Secret> = {}): Secret {
  const { envelope: _none, ...secret } = aSecret({
    state: 'pending',
    kind: 'file',
    sizeBytes: 1_000_000,
    upload: { id: uploadId, partSize: 5_242_880, partCount: 1, chunkLog2: 16 },
    ...overrides,
  });
  return secret;
}

export function aLink(overrides: Partial<Recipient> = {}): Recipient {
  return { id: newRecipientId(), label: null, email: null, restricted: false, state: 'active', viewsLeft: 1, ...overrides };
}

const view: ViewContext = { channel: 'web', country: 'DE', region: 'BE', userAgent: 'Mozilla/5.0' };

/** A claim's takeView input at `now` without proof or link; `extra` adds them. */
export const aClaim = (now: number, extra: Partial<TakeViewInput> = {}): TakeViewInput => ({
  now,
  proofHash: null,
  event: event('secret.viewed', now, { view, ...(extra.recipientId === undefined ? {} : { recipientId: extra.recipientId }) }),
  ...extra,
});
