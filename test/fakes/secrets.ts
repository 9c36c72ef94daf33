import type { Secret, StoredEvent } from '../../shared/domain/secrets/model.ts';
import { recipientEmailHash } from '../../shared/domain/secrets/model.ts';
import type { EndInput, SecretAdoptions, SecretStore, TakeViewInput, TakeViewResult } from '../../shared/domain/secrets/ports.ts';
import { fileLimits } from '../../shared/limits.ts';
import { conditionFailed, copy, pageOf, timeKey } from './memoryListing.ts';

/** Envelopes above this are kept in parts of this size (shared/store/envelopeParts.ts; the contract checks the edge). */
const inlineEnvelopeBytes = 300_000;
const partBytes = 300_000;

/** The work index (gsi2) a secret is on: expiring, uploading (stale at), completing (next try), or its object to purge. */
type WorkEntry = { index: 'DUE' | 'UPLOAD' | 'PURGE' | 'COMPLETE'; at: number };

interface Row {
  secret: Secret;
  /** An envelope too big for the item, kept apart as the parts are. */
  parts: Uint8Array | null;
  reporters: Set<string>;
  provenReporters: Set<string>;
  work: WorkEntry | null;
}

/** What the owner listing (gsi1) projects of a secret: no envelope, links, token hashes or events. */
function listed(secret: Secret): Secret {
  return {
    id: secret.id,
    ...(secret.ownerId === undefined ? {} : { ownerId: secret.ownerId }),
    state: secret.state,
    kind: secret.kind,
    salt: secret.salt,
    sizeBytes: secret.sizeBytes,
    maxViews: secret.maxViews,
    viewsLeft: secret.viewsLeft,
    createdAt: secret.createdAt,
    expiresAt: secret.expiresAt,
    ...(secret.notBefore === undefined ? {} : { notBefore: secret.notBefore }),
    ...(secret.claimVerifier === undefined ? {} : { claimVerifier: secret.claimVerifier }),
    ...(secret.envelopeFormat ? { envelopeFormat: secret.envelopeFormat } : {}),
    ...(secret.labelEnvelope ? { labelEnvelope: secret.labelEnvelope } : {}),
    deleteTokenHash: '',
    refusedProofs: 0,
    deniedEvents: 0,
    ...(secret.endedAt === undefined ? {} : { endedAt: secret.endedAt }),
    emitted: [],
  };
}

/** The conditions DynamoSecretStore.end writes under, per terminal state. */
const endAllowed: Record<EndInput['state'], (secret: Secret, now: number) => boolean> = {
  burned: (s) => s.state === 'active' && s.viewsLeft === 0,
  expired: (s, now) => (s.state === 'active' || s.state === 'pending') && s.expiresAt <= now && s.viewsLeft > 0,
  revoked: (s) => (s.state === 'active' || s.state === 'pending') && s.viewsLeft > 0,
  locked: (s) => s.state === 'active' && s.viewsLeft > 0,
};

/**
 * SecretStore in memory, with DynamoSecretStore's conditions: each method checks and writes
 * without awaiting in between, so two calls racing behave as two conditional writes do.
 */
export class MemorySecretStore implements SecretStore {
  private readonly rows = new Map<string, Row>();

  async insert(secret: Secret): Promise<void> {
    if (this.rows.has(secret.id)) throw conditionFailed();
    // The item has no `ended_at` until a write ends the secret (secretItem.ts toItem).
    const { endedAt: _ended, ...stored } = copy(secret);
    let parts: Uint8Array | null = null;
    if (stored.envelope && stored.envelope.length > inlineEnvelopeBytes) {
      parts = stored.envelope;
      delete stored.envelope;
      stored.envelopeParts = Math.ceil(parts.length / partBytes);
    }
    const work: WorkEntry =
      stored.state === 'pending'
        ? { index: 'UPLOAD', at: stored.createdAt + fileLimits.staleUploadSeconds * 1000 }
        : { index: 'DUE', at: stored.expiresAt };
    this.rows.set(secret.id, { secret: stored, parts, reporters: new Set(), provenReporters: new Set(), work });
  }

  async envelopeOf(id: string, parts: number): Promise<Uint8Array> {
    const kept = this.rows.get(id)?.parts ?? null;
    const count = kept ? Math.ceil(kept.length / partBytes) : 0;
    if (count !== parts) throw new Error(`secret ${id} has ${count} envelope parts of ${parts}`);
    return copy(kept!);
  }

  async get(id: string): Promise<Secret | null> {
    const row = this.rows.get(id);
    return row ? copy(row.secret) : null;
  }

  async takeView(id: string, input: TakeViewInput): Promise<TakeViewResult> {
    const row = this.rows.get(id);
    if (!row) return { taken: false, current: null };
    if (!takes(row.secret, input)) return { taken: false, current: copy(row.secret) };
    const secret = row.secret;
    secret.viewsLeft -= 1;
    secret.emitted = [copy(input.event)];
    if (input.recipientId !== undefined) secret.recipients!.find((link) => link.id === input.recipientId)!.viewsLeft -= 1;
    return { taken: true, secret: copy(secret) };
  }

  async end(id: string, input: EndInput): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || !endAllowed[input.state](row.secret, input.now)) return false;
    const secret = row.secret;
    secret.state = input.state;
    secret.endedAt = input.now;
    secret.emitted = [copy(input.event)];
    delete secret.envelope;
    delete secret.envelopeParts;
    row.parts = null;
    row.work = null;
    return true;
  }

  async revokeRecipient(
    id: string,
    recipientId: string,
    viewsLeft: number,
  ): Promise<{ revoked: true; secretViewsLeft: number } | { revoked: false }> {
    const secret = this.rows.get(id)?.secret;
    const link = secret?.recipients?.find((candidate) => candidate.id === recipientId);
    if (secret?.state !== 'active' || !link || link.state !== 'active' || link.viewsLeft !== viewsLeft) return { revoked: false };
    link.state = 'revoked';
    link.viewsLeft = 0;
    secret.viewsLeft -= viewsLeft;
    return { revoked: true, secretViewsLeft: secret.viewsLeft };
  }

  async activateFile(id: string, uploadId: string, envelopeFormat: Secret['envelopeFormat']): Promise<boolean> {
    const secret = this.rows.get(id)?.secret;
    if (!secret || !this.canActivate(id, uploadId)) return false;
    this.activate(id, secret.expiresAt, envelopeFormat);
    return true;
  }

  /** The file activation's condition (a part of the request store's transaction too): still pending under that upload. */
  canActivate(id: string, uploadId: string): boolean {
    const secret = this.rows.get(id)?.secret;
    return secret?.state === 'pending' && secret.upload?.id === uploadId;
  }

  /** The file activation's write, once `canActivate` held: active, on the expiry index at `expiresAt`. */
  activate(id: string, expiresAt: number, envelopeFormat: Secret['envelopeFormat']): void {
    const row = this.rows.get(id)!;
    row.secret.state = 'active';
    if (envelopeFormat) row.secret.envelopeFormat = copy(envelopeFormat);
    row.work = { index: 'DUE', at: expiresAt };
  }

  async staleUploads(now: number, limit: number): Promise<string[]> {
    return this.due('UPLOAD', now, limit);
  }

  async markCompleting(id: string, uploadId: string, now: number): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || !this.canActivate(id, uploadId) || row.secret.upload!.completion) return false;
    row.secret.upload!.completion = { since: now, attempts: 0 };
    row.work = { index: 'COMPLETE', at: now };
    return true;
  }

  async dueCompletions(now: number, limit: number): Promise<string[]> {
    return this.due('COMPLETE', now, limit);
  }

  async leaseCompletion(id: string, attempts: number, until: number): Promise<boolean> {
    const row = this.rows.get(id);
    const completion = row?.secret.upload?.completion;
    if (row?.secret.state !== 'pending' || completion?.attempts !== attempts || row.work?.index !== 'COMPLETE') return false;
    completion.attempts = attempts + 1;
    row.work = { index: 'COMPLETE', at: until };
    return true;
  }

  async retryCompletion(id: string, attempts: number, at: number): Promise<void> {
    const row = this.rows.get(id);
    if (row?.secret.state === 'pending' && row.secret.upload?.completion?.attempts === attempts && row.work?.index === 'COMPLETE') {
      row.work = { index: 'COMPLETE', at };
    }
  }

  async schedulePurge(id: string, at: number): Promise<void> {
    const row = this.rows.get(id);
    if (!row) throw conditionFailed();
    row.work = { index: 'PURGE', at };
  }

  async duePurges(now: number, limit: number): Promise<string[]> {
    return this.due('PURGE', now, limit);
  }

  async purged(id: string): Promise<void> {
    const row = this.rows.get(id);
    if (row) row.work = null;
  }

  async refuseProof(id: string, event: StoredEvent): Promise<number> {
    const secret = this.rows.get(id)?.secret;
    if (!secret) throw conditionFailed();
    secret.refusedProofs += 1;
    secret.emitted = [copy(event)];
    return secret.refusedProofs;
  }

  async recordDenial(id: string, event: StoredEvent, cap: number): Promise<void> {
    const secret = this.rows.get(id)?.secret;
    // At the cap (or for no secret) the refusal stands; it is just not recorded.
    if (!secret || secret.deniedEvents >= cap) return;
    secret.deniedEvents += 1;
    secret.emitted = [copy(event)];
  }

  async dueForExpiry(now: number, limit: number): Promise<string[]> {
    return this.due('DUE', now, limit);
  }

  async listForOwner(ownerId: string, limit: number, cursor: string | null): Promise<{ items: Secret[]; nextCursor: string | null }> {
    const rows = [...this.rows.values()]
      .filter((row) => row.secret.ownerId === ownerId)
      .map((row) => ({ key: timeKey(row.secret.createdAt, row.secret.id), value: listed(row.secret) }));
    return pageOf(rows, `OWNER#${ownerId}`, limit, cursor);
  }

  async recordReport(id: string, reporterHash: string, proven: boolean, event: StoredEvent): Promise<number> {
    const row = this.rows.get(id);
    if (!row || (proven ? row.provenReporters : row.reporters).has(reporterHash)) return 0;
    row.reporters.add(reporterHash);
    if (proven) row.provenReporters.add(reporterHash);
    row.secret.emitted = [copy(event)];
    // DynamoDB answers the attributes the write updated: the proven set only when it was one of them.
    return proven ? row.provenReporters.size : 0;
  }

  /** Gives an anonymous, unended secret an owner (what MemorySecretAdoptions does to this store). */
  adopt(id: string, ownerId: string): boolean {
    const secret = this.rows.get(id)?.secret;
    if (!secret || secret.ownerId !== undefined || (secret.state !== 'active' && secret.state !== 'pending')) return false;
    secret.ownerId = ownerId;
    return true;
  }

  private due(index: WorkEntry['index'], now: number, limit: number): string[] {
    return [...this.rows.entries()]
      .filter(([, row]) => row.work?.index === index && row.work.at <= now)
      .map(([id, row]) => ({ id, key: timeKey(row.work!.at, id) }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .slice(0, limit)
      .map((entry) => entry.id);
  }
}

/** takeView's condition (DynamoSecretStore.takeView's ConditionExpression, clause by clause). */
function takes(secret: Secret, input: TakeViewInput): boolean {
  if (secret.state !== 'active' || !(secret.expiresAt > input.now) || !(secret.viewsLeft > 0)) return false;
  if (!input.partsRead && secret.envelopeParts !== undefined) return false;
  if (secret.notBefore !== undefined && secret.notBefore > input.now) return false;
  if (secret.claimVerifier !== undefined && secret.claimVerifier !== (input.proofHash ?? '-')) return false;
  if (secret.response !== undefined) return false;
  if (input.domainId !== undefined && secret.linkHost?.domainId !== input.domainId) return false;
  if (input.recipientId === undefined) return secret.recipients === undefined;
  const link = secret.recipients?.find((candidate) => candidate.id === input.recipientId);
  if (link?.state !== 'active' || !(link.viewsLeft > 0)) return false;
  return !link.restricted || (link.email !== null && recipientEmailHash(link.email) === (input.gateEmailHash ?? '-'));
}

/** SecretAdoptions over a MemorySecretStore's secrets. */
export class MemorySecretAdoptions implements SecretAdoptions {
  constructor(private readonly secrets: MemorySecretStore) {}

  get(id: string): Promise<Secret | null> {
    return this.secrets.get(id);
  }

  async adopt(id: string, ownerId: string): Promise<boolean> {
    return this.secrets.adopt(id, ownerId);
  }
}
