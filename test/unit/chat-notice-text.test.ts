import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chatNoticesOf, chatNoticeText } from '../../shared/domain/chat/notices.ts';
import type { StoredEvent } from '../../shared/domain/secrets/model.ts';
import { parseWorkMessage } from '../../shared/domain/webhooks/work.ts';

const secretId = 'sec_abcdEFGH1234ijkl';
const at = Date.parse('2026-11-24T14:02:59.123Z');
const subscription = { teamId: 'T0LOCAL001', chatUserId: 'U0LOCAL001' };
const event = (type: StoredEvent['type'], id = `evt_${type}`): StoredEvent => ({ id, type, at });
const notice = (overrides: Partial<Parameters<typeof chatNoticeText>[0]> = {}) =>
  chatNoticeText({
    secret_id: secretId,
    type: 'secret.viewed',
    occurred_at: new Date(at).toISOString(),
    views_left: 2,
    opened: true,
    ...overrides,
  });

describe('a chat notice says', () => {
  it('which secret was opened, when (HH:MM UTC) and how many views are left', () => {
    expect(notice()).toBe('Your secret sec_abcd… was opened at 14:02 UTC (2 views left).');
    expect(notice({ views_left: 1 })).toBe('Your secret sec_abcd… was opened at 14:02 UTC (1 view left).');
    expect(notice({ views_left: 0 })).toBe('Your secret sec_abcd… was opened at 14:02 UTC (no views left; it is gone now).');
  });

  it('that a secret expired, and whether it was ever opened', () => {
    expect(notice({ type: 'secret.expired', opened: false, views_left: 3 })).toBe(
      'Your secret sec_abcd… expired at 14:02 UTC without being opened.',
    );
    expect(notice({ type: 'secret.expired', opened: true, views_left: 1 })).toBe('Your secret sec_abcd… expired at 14:02 UTC.');
  });

  it('never the whole secret id, a link or anything but its fixed words, the short id, a time and a count', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^sec_[A-Za-z0-9_-]{16,22}$/),
        fc.constantFrom('secret.viewed' as const, 'secret.expired' as const),
        fc.integer({ min: 0, max: 8_000_000_000_000 }),
        fc.nat({ max: 10_000 }),
        fc.boolean(),
        (id, type, time, viewsLeft, opened) => {
          const text = chatNoticeText({ secret_id: id, type, occurred_at: new Date(time).toISOString(), views_left: viewsLeft, opened });
          expect(text).not.toContain(id);
          expect(text).not.toMatch(/https?:|:\/\/|www\.|<|>/);
          expect(text).toMatch(/^Your secret sec_[A-Za-z0-9_-]{4}… (was opened|expired) at \d\d:\d\d UTC[ a-z0-9();]*\.$/);
        },
      ),
    );
  });
});

describe('the notices a write to a subscribed secret calls for', () => {
  const write = (events: StoredEvent[], viewsLeft = 2, opened = true) =>
    chatNoticesOf(subscription, { secretId, viewsLeft, opened, events });

  it('one per view and one per expiry, each a work message the worker reads', () => {
    const [viewed] = write([event('secret.viewed', 'evt_1')]);
    expect(viewed).toEqual({
      kind: 'chat_notice',
      event_id: 'evt_1',
      secret_id: secretId,
      team_id: 'T0LOCAL001',
      chat_user: 'U0LOCAL001',
      type: 'secret.viewed',
      occurred_at: '2026-11-24T14:02:59.123Z',
      views_left: 2,
      opened: true,
    });
    expect(parseWorkMessage(JSON.stringify(viewed))).toEqual(viewed);
    expect(write([event('secret.expired')], 3, false).map((one) => [one.type, one.opened])).toEqual([['secret.expired', false]]);
  });

  it('one only for the last view, whether its burn comes in the same write or the next', () => {
    expect(write([event('secret.viewed'), event('secret.burned')], 0).map((one) => one.type)).toEqual(['secret.viewed']);
    expect(write([event('secret.burned')], 0)).toEqual([]);
  });

  it('none for creation, refusals, revocation, locks or reports', () => {
    const quiet = ['secret.created', 'secret.denied', 'secret.revoked', 'secret.locked', 'secret.reported'] as const;
    expect(write(quiet.map((type) => event(type)))).toEqual([]);
  });
});
