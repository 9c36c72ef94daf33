import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TaskEvent, TaskResult } from '../../functions/schedule.ts';
import { LocalScheduler } from '../../local/scheduler.ts';
import { AdjustableClock, type Clock } from '../../shared/clock.ts';
import { schedules } from '../../shared/schedules.ts';

/** An invoker that records each event and answers like the schedule function. */
function recorder(answer: (event: TaskEvent) => TaskResult | Promise<TaskResult> = (event) => ({ task: event.detail.task, processed: 0 })) {
  const events: TaskEvent[] = [];
  const invoke = vi.fn(async (event: TaskEvent) => {
    events.push(event);
    return answer(event);
  });
  return { events, invoke };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('LocalScheduler.run', () => {
  it('invokes with an EventBridge ScheduledEvent carrying the task and the clock time', async () => {
    const fixed: Clock = { now: () => Date.parse('2031-05-06T07:08:09.000Z') };
    const { events, invoke } = recorder();
    const scheduler = new LocalScheduler(invoke, fixed);

    await scheduler.run('expire-secrets');

    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({
      version: '0',
      'detail-type': 'Scheduled Event',
      source: 'hushlink.schedule',
      time: '2031-05-06T07:08:09.000Z',
      region: 'local',
      resources: [],
      detail: { task: 'expire-secrets' },
    });
    expect(event!.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('takes the time from the injected clock, so moving the clock moves the event time', async () => {
    const clock = new AdjustableClock();
    const { events, invoke } = recorder();
    const scheduler = new LocalScheduler(invoke, clock);

    clock.advance(3 * 24 * 3600);
    const before = clock.now();
    await scheduler.run('expire-secrets');
    const after = clock.now();

    const time = Date.parse(events[0]!.time);
    // Millisecond precision: the ISO string keeps what the clock said.
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(after);
    expect(time - Date.now()).toBeGreaterThan(3 * 24 * 3600 * 1000 - 60_000);
  });

  it('returns what the schedule function returns, and passes its failure on', async () => {
    const { invoke } = recorder(() => ({ task: 'expire-secrets', processed: 7 }));
    const scheduler = new LocalScheduler(invoke, new AdjustableClock());
    await expect(scheduler.run('expire-secrets')).resolves.toEqual({ task: 'expire-secrets', processed: 7 });

    const broken = new LocalScheduler(async () => {
      throw new Error('sweep failed');
    }, new AdjustableClock());
    await expect(broken.run('expire-secrets')).rejects.toThrow('sweep failed');
  });

  it('gives each invocation its own event id', async () => {
    const { events, invoke } = recorder();
    const scheduler = new LocalScheduler(invoke, new AdjustableClock());
    await scheduler.run('expire-secrets');
    await scheduler.run('expire-secrets');
    expect(new Set(events.map((event) => event.id)).size).toBe(2);
  });
});

describe('LocalScheduler timers', () => {
  it('runs a task when its interval has passed on the clock, not before', async () => {
    vi.useFakeTimers();
    const clock = new AdjustableClock();
    const { events, invoke } = recorder();
    const scheduler = new LocalScheduler(invoke, clock);
    const everyMinutes = schedules.find((row) => row.task === 'expire-secrets')!.everyMinutes;

    scheduler.start(1000);
    try {
      await vi.advanceTimersByTimeAsync(1000);
      expect(events).toHaveLength(0);

      // Fake timers move Date.now too; the remainder of the interval comes from the clock.
      clock.advance(everyMinutes * 60 - 1);
      await vi.advanceTimersByTimeAsync(1000);
      // Every task of that interval, once each.
      const due = schedules.filter((row) => row.everyMinutes === everyMinutes).map((row) => row.task);
      expect(due).toContain('expire-secrets');
      expect(events.map((event) => event.detail.task)).toEqual(due);

      await vi.advanceTimersByTimeAsync(1000);
      expect(events).toHaveLength(due.length);
    } finally {
      await scheduler.stop();
    }
    clock.advance(everyMinutes * 60 * 10);
    await vi.advanceTimersByTimeAsync(5000);
    expect(events).toHaveLength(schedules.filter((row) => row.everyMinutes === everyMinutes).length);
  });

  it('reports a failing task to onError and keeps running', async () => {
    vi.useFakeTimers();
    const clock = new AdjustableClock();
    const failures: Array<[string, string]> = [];
    let calls = 0;
    const scheduler = new LocalScheduler(
      async (event) => {
        calls += 1;
        if (calls === 1) throw new Error('table unavailable');
        return { task: event.detail.task, processed: 1 };
      },
      clock,
      (task, error) => failures.push([task, (error as Error).message]),
    );
    scheduler.start(1000);
    try {
      clock.advance(60);
      await vi.advanceTimersByTimeAsync(1000);
      // The first task failed; the other one-minute tasks still ran.
      const everyMinute = schedules.filter((row) => row.everyMinutes === 1).map((row) => row.task);
      expect(failures).toEqual([[everyMinute[0], 'table unavailable']]);
      expect(calls).toBe(everyMinute.length);

      clock.advance(60);
      await vi.advanceTimersByTimeAsync(1000);
      expect(calls).toBe(2 * everyMinute.length);
      expect(failures).toHaveLength(1);
    } finally {
      await scheduler.stop();
    }
  });
});
