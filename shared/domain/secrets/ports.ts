import type { Clock } from '../../clock.ts';
import type { Counters } from '../counters.ts';
import type { Secret, StoredEvent, TerminalState } from './model.ts';

export interface TakeViewInput {
  now: number;
  /** base64url SHA-256 of the presented claim token, or null when none was presented. */
  proofHash: string | null;
  event: StoredEvent;
  /** The link claimed through; without one, a secret that has recipients refuses. */
  recipientId?: string;
  /** The address a valid gate session proved (its hash), for a restricted link. */
  gateEmailHash?: string;
  /** The claim has read the envelope's parts already: a secret kept in parts may be taken (else it is refused, to be read first). */
  partsRead?: boolean;
  /** Arrived on a workspace's hostname: only a secret made under this claim of it is taken (rule 5; linkHosts.ts `servedOn`). */
  domainId?: string;
}

export type TakeViewResult = { taken: true; secret: Secret } | { taken: false; current: Secret | null };

export interface EndInput {
  state: TerminalState;
  now: number;
  event: StoredEvent;
  tombstoneUntil: number;
}

/**
 * Persistence of secrets. Every invariant is a condition of the write that needs it, so the
 * domain never reads and then writes on the strength of what it read.
 */
export interface SecretStore {
  /** Fails if the id exists. An envelope too big for one item is kept in parts. */
  insert(secret: Secret): Promise<void>;
  /** The envelope of a secret kept in parts. */
  envelopeOf(id: string, parts: number): Promise<Uint8Array>;
  get(id: string): Promise<Secret | null>;
  /**
   * One conditional update: active, not expired, a view left, not before `not_before`, proof
   * matching, made on the hostname the claim arrived on (if a workspace's); decrements and
   * appends the event. On refusal, the item as it was.
   */
  takeView(id: string, input: TakeViewInput): Promise<TakeViewResult>;
  /**
   * Moves an active (or pending) secret to a terminal state, deleting its payload and appending
   * the event, in one conditional write. `burned` requires no view left; `expired` requires
   * the expiry to have passed. False when the condition no longer holds (someone else won).
   */
  end(id: string, input: EndInput): Promise<boolean>;
  /**
   * Revokes one active link of an active secret, taking its views left out of the secret's, in
   * one conditional write; false when the link is not active with exactly `viewsLeft` left
   * (a claim came first: read again and retry). Answers the secret's views left after it.
   */
  revokeRecipient(
    id: string,
    recipientId: string,
    viewsLeft: number,
  ): Promise<{ revoked: true; secretViewsLeft: number } | { revoked: false }>;
  /**
   * A file's upload completed: pending → active, by condition on the upload (of a completion
   * racing an abort, one wins); it joins the expiry index. False when it is not pending any more.
   */
  activateFile(id: string, uploadId: string, envelopeFormat: Secret['envelopeFormat']): Promise<boolean>;
  /** Ids of files still uploading whose upload went stale by `now`, oldest first. */
  staleUploads(now: number, limit: number): Promise<string[]>;
  /**
   * Leaves a pending file's completion to the sweep: it moves from the stale uploads to the
   * completions due at `now`. False when it is not pending under `uploadId`, or is completing already.
   */
  markCompleting(id: string, uploadId: string, now: number): Promise<boolean>;
  /** Ids of files whose completion is due by `now` (asked for, or a try's lease run out), oldest first. */
  dueCompletions(now: number, limit: number): Promise<string[]>;
  /**
   * Takes up a completion for one try: the count of tries goes from `attempts` to one more, and it is
   * due again at `until` (a try that dies is taken up again then). False when another sweep took it
   * up first, or it is no longer pending.
   */
  leaseCompletion(id: string, attempts: number, until: number): Promise<boolean>;
  /** Moves a completion's next try to `at` (a failed try asks for one sooner than its lease), if no try took it up since its `attempts`th. */
  retryCompletion(id: string, attempts: number, at: number): Promise<void>;
  /** Puts a burned file on the purge index: its object goes at `at`, when its last download URL has expired. */
  schedulePurge(id: string, at: number): Promise<void>;
  /** Ids of ended files whose objects are due to go by `now`. */
  duePurges(now: number, limit: number): Promise<string[]>;
  /** Takes a file off the purge index once its object is gone. */
  purged(id: string): Promise<void>;
  /** Counts a refused claim proof and appends the denial; returns the new count. */
  refuseProof(id: string, event: StoredEvent): Promise<number>;
  /** Appends a denial for a refused claim, up to `cap` denials per secret. */
  recordDenial(id: string, event: StoredEvent, cap: number): Promise<void>;
  /** Ids of secrets still active whose expiry is at or before `now`, oldest first. */
  dueForExpiry(now: number, limit: number): Promise<string[]>;
  /** An owner's secrets, newest first, without payloads. */
  listForOwner(ownerId: string, limit: number, cursor: string | null): Promise<{ items: Secret[]; nextCursor: string | null }>;
  /**
   * Records a report from `reporterHash` with its event, once per reporter among all reporters,
   * or among those who proved the link when `proven`; returns how many distinct reporters have
   * proved the link (0 when this report was a repeat).
   */
  recordReport(id: string, reporterHash: string, proven: boolean, event: StoredEvent): Promise<number>;
}

/** What adopting anonymous secrets needs of the table: a secret, and the conditional adoption. */
export interface SecretAdoptions {
  get(id: string): Promise<Secret | null>;
  /** Gives an anonymous, unended secret an owner; false when it has one or has ended. */
  adopt(id: string, ownerId: string): Promise<boolean>;
}

export interface SecretPorts {
  secrets: SecretStore;
  clock: Clock;
  counters: Counters;
}
