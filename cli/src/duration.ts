/** `90s`, `15m`, `1h`, `2d`, `1w`, or several together (`1h30m`): seconds. */
import { usageError } from './errors.ts';

const unitSeconds: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

export function parseDuration(text: string, option: string): number {
  const trimmed = text.trim().toLowerCase();
  const parts = [...trimmed.matchAll(/(\d+)\s*([smhdw])/g)];
  if (
    parts.length === 0 ||
    parts
      .map((part) => part[0])
      .join('')
      .replace(/\s+/g, '') !== trimmed.replace(/\s+/g, '')
  ) {
    throw usageError(`${option} takes a duration such as 30m, 1h, 2d or 1w (got "${text}").`);
  }
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * unitSeconds[unit!]!, 0);
}

/** An ISO date-time, or a duration from now (`2h`): the ISO instant. */
export function parseInstant(text: string, option: string, now = Date.now()): string {
  if (/^\d+\s*[smhdw]/i.test(text.trim())) return new Date(now + parseDuration(text, option) * 1000).toISOString();
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    throw usageError(`${option} takes a date-time such as 2026-12-01T09:00:00Z, or a duration from now such as 2h (got "${text}").`);
  }
  return new Date(at).toISOString();
}

/** A duration option within the service's bounds (said as given when refused), or undefined when not given. */
export function durationWithin(given: string | undefined, option: string, bounds: { min: number; max: number }): number | undefined {
  if (given === undefined) return undefined;
  const seconds = parseDuration(given, option);
  if (seconds < bounds.min || seconds > bounds.max)
    throw usageError(`${option} must be from ${spoken(bounds.min)} to ${spoken(bounds.max)} (got "${given}").`);
  return seconds;
}

/** A whole-number option within bounds, or undefined when not given. */
export function countWithin(given: string | undefined, option: string, bounds: { min: number; max: number }): number | undefined {
  if (given === undefined) return undefined;
  if (!/^\d+$/.test(given) || Number(given) < bounds.min || Number(given) > bounds.max)
    throw usageError(`${option} takes a number from ${bounds.min} to ${bounds.max} (got "${given}").`);
  return Number(given);
}

/** 60 → "1 minute", 2592000 → "30 days": the largest unit that divides it. */
function spoken(seconds: number): string {
  const units: Array<[number, string]> = [
    [604_800, 'week'],
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
    [1, 'second'],
  ];
  const [size, name] = units.find(([unit]) => seconds % unit === 0 && seconds >= unit)!;
  const count = seconds / size;
  return `${count} ${name}${count === 1 ? '' : 's'}`;
}
