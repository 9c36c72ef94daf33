import type { Clock } from '../../clock.ts';
import type { FileObjects } from '../files/ports.ts';
import type { RequestLink, RequestSummary, SealedResponse } from './model.ts';

/** What adding a response came to; `refused` when the link took no more (closed, expired, full or gone). */
export type AddedResponse = 'added' | 'refused' | 'busy';

export interface RequestStore {
  /** Stores a new link, kept until `until` (ms: its expiry and the retention after it), then removed by TTL. */
  insert(link: RequestLink, until: number): Promise<void>;
  get(id: string): Promise<RequestLink | null>;
  /** The owner's links, newest first (what a listing shows of them). */
  listByOwner(ownerId: string, limit: number, cursor: string | null): Promise<{ items: RequestSummary[]; nextCursor: string | null }>;
  /** Closes the owner's link (a closed one stays closed); false when it is not theirs or gone. */
  close(id: string, ownerId: string, now: number): Promise<boolean>;
  /**
   * Takes one of the link's responses and stores the response, in one write: `refused` when
   * the link is closed, expired, full or gone; `busy` when other responses kept it locked
   * through every retry.
   */
  addResponse(response: SealedResponse, keepUntil: number, now: number): Promise<AddedResponse>;
  /**
   * The same for a file response once its upload completed, with the file's secret made active
   * (`not_pending` when an abort or the stale-upload sweep ended it first): one write, so a file
   * is in the inbox exactly when it was counted.
   */
  addFileResponse(
    response: SealedResponse,
    upload: {
      secret: { id: string; expiresAt: number };
      uploadId: string;
      envelopeFormat: { passphrase: boolean; kdfIterations: number } | undefined;
    },
    keepUntil: number,
    now: number,
  ): Promise<AddedResponse | 'not_pending'>;
  /** A link's responses, newest first. */
  inbox(id: string, limit: number, cursor: string | null): Promise<{ items: SealedResponse[]; nextCursor: string | null }>;
}

export interface RequestPorts {
  requests: RequestStore;
  /** Download URLs of file responses (the files bucket). */
  files: Pick<FileObjects, 'downloadUrl'>;
  clock: Clock;
}
