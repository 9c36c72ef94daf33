import { randomUUID } from 'node:crypto';
import type { TaskEvent, TaskResult } from '../functions/schedule.ts';
import type { Clock } from '../shared/clock.ts';
import { schedules, type ScheduledTask } from '../shared/schedules.ts';

export type ScheduleInvoker = (event: TaskEvent) => Promise<TaskResult>;

/**
 * The local EventBridge: invokes the schedule function with the same event shape the rules
 * send, at the intervals of `shared/schedules.ts`, measured on the injected clock. Tests call
 * `run(task)` after moving the clock instead of waiting for the timer.
 */
export class LocalScheduler {
  private readonly lastRun = new Map<ScheduledTask, number>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly invoke: ScheduleInvoker,
    private readonly clock: Clock,
    private readonly onError: (task: ScheduledTask, error: unknown) => void = () => {},
  ) {}

  run(task: ScheduledTask): Promise<TaskResult> {
    const now = this.clock.now();
    this.lastRun.set(task, now);
    return this.invoke({
      version: '0',
      id: randomUUID(),
      'detail-type': 'Scheduled Event',
      source: 'hushlink.schedule',
      account: '000000000000',
      time: new Date(now).toISOString(),
      region: 'local',
      resources: [],
      detail: { task },
    });
  }

  /** Checks every `intervalMs` of real time which tasks are due by the clock. */
  start(intervalMs = 1000): void {
    const now = this.clock.now();
    for (const { task } of schedules) this.lastRun.set(task, now);
    this.timer ??= setInterval(() => {
      this.running ??= this.runDue().finally(() => (this.running = undefined));
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async runDue(): Promise<void> {
    for (const { task, everyMinutes } of schedules) {
      const last = this.lastRun.get(task) ?? 0;
      if (this.clock.now() - last < everyMinutes * 60_000) continue;
      try {
        await this.run(task);
      } catch (error) {
        this.onError(task, error);
      }
    }
  }
}
