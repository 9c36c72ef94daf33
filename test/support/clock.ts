import type { Clock } from '../../shared/clock.ts';

/**
 * A clock that stands still until moved (`advance`), for unit tests that compare times they
 * compute with times the code recorded: a clock following real time moves between the two
 * under load (CI saw a millisecond of it).
 */
export class StoppedClock implements Clock {
  constructor(private ms = Date.UTC(2026, 10, 24, 12)) {}
  now(): number {
    return this.ms;
  }
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}
