import type { AddedResponse, RequestStore } from '../../shared/domain/requests/ports.ts';
import type { RequestLink, RequestSummary, SealedResponse } from '../../shared/domain/requests/model.ts';
import { conditionFailed, copy, pageOf, timeKey } from './memoryListing.ts';
import { MemorySecretStore } from './secrets.ts';

/** What the owner listing projects of a link. */
const summaryOf = (link: RequestLink): RequestSummary => ({
  id: link.id,
  ownerId: link.ownerId,
  createdAt: link.createdAt,
  expiresAt: link.expiresAt,
  maxResponses: link.maxResponses,
  responsesLeft: link.responsesLeft,
  closedAt: link.closedAt,
  ...(link.labelEnvelope ? { labelEnvelope: link.labelEnvelope } : {}),
});

/**
 * RequestStore in memory, with DynamoRequestStore's transaction: a response is counted and
 * stored together, or neither; a file response also activates its secret in `secrets` (the
 * same table in DynamoDB, so pass the MemorySecretStore the use case's other ports use).
 * `busy` never happens here: nothing conflicts in memory.
 */
export class MemoryRequestStore implements RequestStore {
  private readonly links = new Map<string, RequestLink>();
  /** Per link, its responses by their sort key (time and id). */
  private readonly responses = new Map<string, Map<string, SealedResponse>>();

  constructor(private readonly secrets: MemorySecretStore = new MemorySecretStore()) {}

  async insert(link: RequestLink, _until: number): Promise<void> {
    if (this.links.has(link.id)) throw conditionFailed();
    this.links.set(link.id, copy(link));
  }

  async get(id: string): Promise<RequestLink | null> {
    const link = this.links.get(id);
    return link ? copy(link) : null;
  }

  async listByOwner(
    ownerId: string,
    limit: number,
    cursor: string | null,
  ): Promise<{ items: RequestSummary[]; nextCursor: string | null }> {
    const rows = [...this.links.values()]
      .filter((link) => link.ownerId === ownerId)
      .map((link) => ({ key: timeKey(link.createdAt, link.id), value: summaryOf(link) }));
    return pageOf(rows, `REQUESTS#${ownerId}`, limit, cursor);
  }

  async close(id: string, ownerId: string, now: number): Promise<boolean> {
    const link = this.links.get(id);
    if (!link || link.ownerId !== ownerId) return false;
    // A closed link keeps the time it first closed.
    link.closedAt ??= now;
    return true;
  }

  async addResponse(response: SealedResponse, _until: number, now: number): Promise<AddedResponse> {
    const outcome = this.transact(response, now, null);
    return outcome === 'not_pending' ? 'refused' : outcome;
  }

  async addFileResponse(
    response: SealedResponse,
    upload: {
      secret: { id: string; expiresAt: number };
      uploadId: string;
      envelopeFormat: { passphrase: boolean; kdfIterations: number } | undefined;
    },
    _until: number,
    now: number,
  ): Promise<AddedResponse | 'not_pending'> {
    return this.transact(response, now, upload);
  }

  async inbox(id: string, limit: number, cursor: string | null): Promise<{ items: SealedResponse[]; nextCursor: string | null }> {
    const rows = [...(this.responses.get(id) ?? new Map<string, SealedResponse>()).entries()].map(([key, value]) => ({ key, value }));
    return pageOf(rows, `REQUEST#${id}`, limit, cursor);
  }

  /**
   * Every condition first, then every write: the link's (open, unexpired, not full: else
   * `refused`), then the response's (new) and the file's (pending under its upload): else
   * `not_pending`, as the store reads a transaction cancelled past its first item.
   */
  private transact(
    response: SealedResponse,
    now: number,
    upload: {
      secret: { id: string; expiresAt: number };
      uploadId: string;
      envelopeFormat: { passphrase: boolean; kdfIterations: number } | undefined;
    } | null,
  ): AddedResponse | 'not_pending' {
    const link = this.links.get(response.requestId);
    if (!link || link.closedAt !== null || !(link.expiresAt > now) || !(link.responsesLeft > 0)) return 'refused';
    const inbox = this.responses.get(response.requestId) ?? new Map<string, SealedResponse>();
    const key = timeKey(response.createdAt, response.id);
    if (inbox.has(key) || (upload && !this.secrets.canActivate(upload.secret.id, upload.uploadId))) return 'not_pending';
    link.responsesLeft -= 1;
    inbox.set(key, copy(response));
    this.responses.set(response.requestId, inbox);
    if (upload) this.secrets.activate(upload.secret.id, upload.secret.expiresAt, upload.envelopeFormat);
    return 'added';
  }
}
