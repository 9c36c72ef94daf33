import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { NoticeMarks } from '../../shared/domain/noticeMarks.ts';

const minute = 60_000;
const now = Date.parse('2026-11-28T12:00:00Z');
const keep = now + 15 * 24 * 3600 * 1000;

/** The NoticeMarks port's contract: one holder per event at a time, a lease that runs out, sent for good. */
export function describeNoticeMarksContract(name: string, make: () => NoticeMarks | Promise<NoticeMarks>): void {
  describe(`NoticeMarks contract: ${name}`, () => {
    let marks: NoticeMarks;
    let event: string;
    beforeEach(async () => {
      marks = await make();
      event = `evt_${randomUUID()}`;
    });

    it('lets one of two claims racing hold an event', async () => {
      const claims = await Promise.all([marks.claim(event, now, now + minute, keep), marks.claim(event, now, now + minute, keep)]);
      expect(claims.filter(Boolean)).toHaveLength(1);
    });

    it('refuses a claim while the lease runs, and takes one over once it ended', async () => {
      expect(await marks.claim(event, now, now + minute, keep)).toBe(true);
      expect(await marks.claim(event, now + minute - 1, now + 2 * minute, keep)).toBe(false);
      expect(await marks.claim(event, now + minute, now + 2 * minute, keep)).toBe(true);
    });

    it('never lets a sent event be claimed again', async () => {
      await marks.claim(event, now, now + minute, keep);
      await marks.markSent(event, now + 1);
      expect(await marks.claim(event, now + 10 * minute, now + 11 * minute, keep)).toBe(false);
    });

    it('gives a released claim to the next at once, but only the holder’s own lease', async () => {
      await marks.claim(event, now, now + minute, keep);
      await marks.release(event, now + minute + 5);
      expect(await marks.claim(event, now + 1, now + minute + 1, keep)).toBe(false);
      await marks.release(event, now + minute);
      expect(await marks.claim(event, now + 1, now + minute + 1, keep)).toBe(true);
    });

    it('does not release a sent event', async () => {
      await marks.claim(event, now, now + minute, keep);
      await marks.markSent(event, now + 1);
      await marks.release(event, now + minute);
      expect(await marks.claim(event, now + 2, now + minute + 2, keep)).toBe(false);
    });
  });
}
