/**
 * Named counters for things counted but not attributed to anyone (reveal feedback, CLI
 * installs): one item per name and day, incremented atomically.
 */
export interface Counters {
  add(name: string, day: string, counts: Record<string, number>): Promise<void>;
  read(name: string, day: string): Promise<Record<string, number>>;
}

export const dayOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
