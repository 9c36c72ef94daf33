/**
 * Sizes and the progress of a file going up or down: a `<progress>` bar and a line with the
 * bytes done, the speed and the time left ("12.0 MB of 64.0 MB · 8.1 MB/s · about 6 s left").
 */
import { locale, t } from './i18n.ts';

/** Each unit's message ("{size} MB"; French writes Mo): literal keys, so the catalogue check finds them. */
const units = [
  (size: string) => t('common.size.bytes', { size }),
  (size: string) => t('common.size.kilobytes', { size }),
  (size: string) => t('common.size.megabytes', { size }),
  (size: string) => t('common.size.gigabytes', { size }),
  (size: string) => t('common.size.terabytes', { size }),
];
/** Whole numbers, and one decimal below 100 (Intl: the page language's separators). */
const whole = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat(locale, { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/**
 * The one way the pages write a size: "512 B", "64.0 MB", "5 GB". In binary units (1 KB = 1,024
 * bytes, 1 MB = 1,048,576), as the plans' limits are set (Free's 100 MB is 100 × 2^20 bytes), so
 * a file at the limit reads as the limit (docs/adr/0180).
 */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  const format = unit === 0 || value >= 100 || Number.isInteger(value) ? whole : oneDecimal;
  return units[unit]!(format.format(value));
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return t('common.progress.secondsLeft', { count: whole.format(Math.max(1, Math.round(seconds))) });
  if (seconds < 3600) return t('common.progress.minutesLeft', { count: whole.format(Math.round(seconds / 60)) });
  return t('common.progress.hoursLeft', { count: oneDecimal.format(seconds / 3600) });
}

/** "12.0 MB of 64.0 MB" */
const doneOf = (done: number, total: number) => t('common.progress.doneOf', { done: formatBytes(done), total: formatBytes(total) });

/** The speed is measured over this many recent seconds, so it follows the network's changes. */
const windowMs = 5000;
/** The text is rewritten at most this often (the bar moves every time). */
const textEveryMs = 250;

export class ProgressView {
  private samples: Array<{ at: number; done: number }> = [];
  private textAt = 0;

  constructor(
    private readonly bar: HTMLProgressElement,
    private readonly status: HTMLElement,
    private readonly total: number,
  ) {
    bar.max = Math.max(1, total);
    bar.value = 0;
    status.textContent = doneOf(0, total);
  }

  update(done: number, now = performance.now()): void {
    this.bar.value = done;
    this.samples.push({ at: now, done });
    while (this.samples.length > 2 && now - this.samples[0]!.at > windowMs) this.samples.shift();
    if (now - this.textAt < textEveryMs && done < this.total) return;
    this.textAt = now;
    const first = this.samples[0]!;
    const elapsed = (now - first.at) / 1000;
    const speed = elapsed > 0.5 ? (done - first.done) / elapsed : 0;
    const parts = [doneOf(done, this.total)];
    if (speed > 0) parts.push(t('common.progress.speed', { size: formatBytes(speed) }));
    if (speed > 0 && done < this.total) parts.push(formatDuration((this.total - done) / speed));
    this.status.textContent = parts.join(' · ');
  }

  /** Whole percent, for the live region (said at a few steps, not on every move). */
  percent(): number {
    return Math.floor((this.bar.value / this.bar.max) * 100);
  }
}
