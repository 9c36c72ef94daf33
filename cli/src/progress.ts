/**
 * A transfer's progress bar (cli-progress) on stderr, drawn only when both stdout and stderr are
 * terminals: piped or redirected, the CLI prints only its answer.
 */
import { SingleBar } from 'cli-progress';
import { t } from './i18n.ts';

export interface Progress {
  update(done: number, total?: number): void;
  stop(): void;
}

const silent: Progress = { update: () => undefined, stop: () => undefined };

/** `label` is what the transfer does, in this process's language (cli.progress.downloading, cli.progress.uploading). */
export function progressBar(label: string, total: number, io: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream }): Progress {
  if (!io.stdout.isTTY || !io.stderr.isTTY) return silent;
  const bar = new SingleBar({
    stream: io.stderr,
    format: `${label} {bar} {percentage}% {done}/{size} {speed} {left}`,
    barsize: 24,
    barCompleteChar: '\u2588',
    barIncompleteChar: '\u2591',
    hideCursor: true,
    clearOnComplete: false,
    fps: 10,
  });
  const started = Date.now();
  const fields = (done: number, size: number) => {
    const perSecond = done / Math.max(0.001, (Date.now() - started) / 1000);
    const seconds = perSecond > 0 ? Math.ceil((size - done) / perSecond) : undefined;
    return {
      done: formatBytes(done),
      size: formatBytes(size),
      speed: `${formatBytes(perSecond)}/s`,
      left:
        seconds === undefined
          ? ''
          : seconds >= 60
            ? t('cli.progress.minutesLeft', { minutes: Math.floor(seconds / 60), seconds: seconds % 60 })
            : t('cli.progress.secondsLeft', { seconds }),
    };
  };
  bar.start(total, 0, fields(0, total));
  let size = total;
  return {
    update(done, newTotal) {
      if (newTotal !== undefined && newTotal !== size) {
        size = newTotal;
        bar.setTotal(newTotal);
      }
      bar.update(done, fields(done, size));
    },
    stop: () => bar.stop(),
  };
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}
