/** `90s`, `15m`, `1h`, `2d`, `1w`, or several together (`1h30m`): seconds. */
import { usageError } from './errors.ts';
import { type MessageKey, t } from './i18n.ts';

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
    throw usageError(t('cli.duration.bad', { option, given: text }));
  }
  return parts.reduce((total, [, amount, unit]) => total + Number(amount) * unitSeconds[unit!]!, 0);
}

/** An ISO date-time, or a duration from now (`2h`): the ISO instant. */
export function parseInstant(text: string, option: string, now = Date.now()): string {
  if (/^\d+\s*[smhdw]/i.test(text.trim())) return new Date(now + parseDuration(text, option) * 1000).toISOString();
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    throw usageError(t('cli.duration.badInstant', { option, given: text }));
  }
  return new Date(at).toISOString();
}

/** A duration option within the service's bounds (said as given when refused), or undefined when not given. */
export function durationWithin(given: string | undefined, option: string, bounds: { min: number; max: number }): number | undefined {
  if (given === undefined) return undefined;
  const seconds = parseDuration(given, option);
  if (seconds < bounds.min || seconds > bounds.max)
    throw usageError(t('cli.duration.outOfBounds', { option, min: spoken(bounds.min), max: spoken(bounds.max), given }));
  return seconds;
}

/** A whole-number option within bounds, or undefined when not given. */
export function countWithin(given: string | undefined, option: string, bounds: { min: number; max: number }): number | undefined {
  if (given === undefined) return undefined;
  if (!/^\d+$/.test(given) || Number(given) < bounds.min || Number(given) > bounds.max)
    throw usageError(t('cli.duration.badCount', { option, min: bounds.min, max: bounds.max, given }));
  return Number(given);
}

/** 60 → "1 minute", 2592000 → "30 days": the largest unit that divides it. */
function spoken(seconds: number): string {
  const units: Array<[number, MessageKey]> = [
    [604_800, 'cli.duration.weeks'],
    [86_400, 'cli.duration.days'],
    [3600, 'cli.duration.hours'],
    [60, 'cli.duration.minutes'],
    [1, 'cli.duration.seconds'],
  ];
  const [size, key] = units.find(([unit]) => seconds % unit === 0 && seconds >= unit)!;
  return t(key, { count: seconds / size });
}
