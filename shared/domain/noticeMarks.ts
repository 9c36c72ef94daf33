/**
 * Per event, the mark that its notice was sent (a chat DM, a buyer's email): claimed before
 * sending, under a lease, so a redelivered or duplicated message finds it taken while the first
 * is in flight and sent after; a claim whose worker died is taken over once its lease ends.
 */
export interface NoticeMarks {
  /** True when this worker now holds the event: no mark, or an unsent one whose lease ended. */
  claim(eventId: string, now: number, leaseUntil: number, keepUntil: number): Promise<boolean>;
  markSent(eventId: string, now: number): Promise<void>;
  /** Gives the claim `leaseUntil` back (nothing sent), so the next delivery of the message may take it at once. */
  release(eventId: string, leaseUntil: number): Promise<void>;
}
