import type { NoticeMarks } from '../../shared/domain/noticeMarks.ts';

/** Notices' marks: claimed under a lease, then sent; a lease given back or run out may be claimed again. */
export class MemoryNoticeMarks implements NoticeMarks {
  private readonly marks = new Map<string, { leaseUntil: number; sent: boolean; keepUntil: number }>();

  async claim(eventId: string, now: number, leaseUntil: number, keepUntil: number): Promise<boolean> {
    const held = this.marks.get(eventId);
    if (held && (held.sent || held.leaseUntil > now)) return false;
    this.marks.set(eventId, { leaseUntil, sent: false, keepUntil });
    return true;
  }

  async markSent(eventId: string): Promise<void> {
    const held = this.marks.get(eventId);
    if (held) this.marks.set(eventId, { ...held, sent: true });
  }

  async release(eventId: string, leaseUntil: number): Promise<void> {
    const held = this.marks.get(eventId);
    if (held && !held.sent && held.leaseUntil === leaseUntil) this.marks.set(eventId, { ...held, leaseUntil: 0 });
  }
}
