/** Time comes from here, so tests move it instead of sleeping. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that follows real time plus an offset the local runtime and tests can move. */
export class AdjustableClock implements Clock {
  private offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  advance(seconds: number): void {
    this.offsetMs += seconds * 1000;
  }
}

export const toIso = (ms: number): string => new Date(ms).toISOString();
export const toEpochSeconds = (ms: number): number => Math.floor(ms / 1000);
