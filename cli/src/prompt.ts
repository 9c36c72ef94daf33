/**
 * Asking the person: a passphrase without echo, an address or a code with it. A passphrase is
 * asked on stdin when it is a terminal, else on /dev/tty (as ssh and gpg do), so `cat file |
 * hushlink send --passphrase` still asks; with no terminal at all it is refused with what to do
 * instead. Visible answers come from the terminal, or piped from stdin's lines for scripts.
 */
import { openSync } from 'node:fs';
import { ReadStream, WriteStream } from 'node:tty';
import { CliError, exitCodes, usageError } from './errors.ts';
import { t } from './i18n.ts';

interface Terminal {
  input: NodeJS.ReadStream | ReadStream;
  output: NodeJS.WriteStream | WriteStream;
  close: () => void;
}

function terminal(stdin: NodeJS.ReadStream, stderr: NodeJS.WriteStream): Terminal | undefined {
  if (stdin.isTTY) return { input: stdin, output: stderr, close: () => stdin.pause() };
  try {
    const input = new ReadStream(openSync('/dev/tty', 'r'));
    const output = new WriteStream(openSync('/dev/tty', 'w'));
    return {
      input,
      output,
      close: () => {
        input.destroy();
        output.destroy();
      },
    };
  } catch {
    return undefined;
  }
}

const interrupted = () => new CliError(exitCodes.interrupted, 'interrupted', t('cli.errors.interrupted'));

/** Reads a line without echoing it (raw mode: Ctrl-C arrives as a character, not a signal). */
export async function askHidden(
  question: string,
  io: { stdin: NodeJS.ReadStream; stderr: NodeJS.WriteStream; noTerminal: string },
): Promise<string> {
  const tty = terminal(io.stdin, io.stderr);
  if (!tty) throw usageError(io.noTerminal, 'no_terminal');
  const input = tty.input;
  // Echo off before the question shows: an answer typed the moment it appears is never echoed.
  input.setRawMode(true);
  tty.output.write(question);
  input.resume();
  try {
    return await new Promise<string>((resolve, reject) => {
      let typed = '';
      const onData = (data: Buffer | string) => {
        for (const char of data.toString('utf8')) {
          if (char === '\r' || char === '\n' || char === '\u0004') {
            input.off('data', onData);
            resolve(typed);
            return;
          }
          if (char === '\u0003') {
            input.off('data', onData);
            reject(interrupted());
            return;
          }
          if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
          else if (char === '\u0015') typed = '';
          else if (char >= ' ') typed += char;
        }
      };
      input.on('data', onData);
    });
  } finally {
    input.setRawMode(false);
    tty.output.write('\n');
    tty.close();
  }
}

/**
 * Asks questions answered with a visible line. On a terminal, each is asked there. Piped, stdin's
 * lines are the answers (for scripts), read by one reader for every question: a reader per
 * question would drop the lines the previous one had buffered.
 */
export function answerer(io: {
  stdin: NodeJS.ReadStream;
  stderr: NodeJS.WriteStream;
  signal: AbortSignal;
}): (question: string) => Promise<string> {
  let lines: AsyncIterator<string> | undefined;
  return async (question) => {
    const interruptedBy = new Promise<never>((_, reject) => {
      if (io.signal.aborted) reject(interrupted());
      io.signal.addEventListener('abort', () => reject(interrupted()), { once: true });
    });
    interruptedBy.catch(() => undefined);
    // Loaded when a question is asked, not with the program (start-up).
    const { createInterface } = await import('node:readline/promises');
    if (io.stdin.isTTY) {
      const terminalLines = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
      // Input that ends before a line (Ctrl-D) is an answer never given, not a wait forever.
      const ended = new Promise<never>((_, reject) => {
        // readline takes Ctrl-C itself, and closes unless told what it means.
        terminalLines.once('SIGINT', () => reject(interrupted()));
        terminalLines.once('close', () => reject(usageError(t('cli.prompt.noAnswer'), 'no_answer')));
      });
      ended.catch(() => undefined);
      try {
        return (await Promise.race([terminalLines.question(question), ended, interruptedBy])).trim();
      } finally {
        terminalLines.close();
        io.stdin.pause();
      }
    }
    io.stderr.write(question);
    lines ??= createInterface({ input: io.stdin, terminal: false })[Symbol.asyncIterator]();
    const next = await Promise.race([lines.next(), interruptedBy]);
    if (next.done) throw usageError(t('cli.prompt.noAnswer'), 'no_answer');
    return next.value.trim();
  };
}

/** Whether an answer to a yes-or-no question is no: "n" or "no", or this language's words for it (cli.common.no). */
export function saysNo(answer: string): boolean {
  const said = answer.trim().toLowerCase();
  return (
    /^n(o)?$/.test(said) ||
    t('cli.common.no')
      .split(',')
      .some((word) => word.trim().toLowerCase() === said && said !== '')
  );
}
