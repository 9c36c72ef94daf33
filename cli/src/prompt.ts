/**
 * Asking the person at the terminal: a passphrase without echo, a code with it. The terminal is
 * stdin when it is one, else /dev/tty (as ssh and gpg do), so `cat file | hushlink send
 * --passphrase` still asks; with no terminal at all the prompt is refused with what to do instead.
 */
import { openSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { ReadStream, WriteStream } from 'node:tty';
import { CliError, exitCodes, usageError } from './errors.ts';

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

const interrupted = () => new CliError(exitCodes.interrupted, 'interrupted', 'Interrupted.');

/** Reads a line without echoing it (raw mode: Ctrl-C arrives as a character, not a signal). */
export async function askHidden(question: string, io: { stdin: NodeJS.ReadStream; stderr: NodeJS.WriteStream; noTerminal: string }): Promise<string> {
  const tty = terminal(io.stdin, io.stderr);
  if (!tty) throw usageError(io.noTerminal, 'no_terminal');
  const input = tty.input;
  tty.output.write(question);
  input.setRawMode(true);
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

/** Reads one line, echoed: from the terminal when there is one, else from stdin as piped. */
export async function askLine(question: string, io: { stdin: NodeJS.ReadStream; stderr: NodeJS.WriteStream; signal?: AbortSignal }): Promise<string> {
  const tty = terminal(io.stdin, io.stderr);
  const input = tty?.input ?? io.stdin;
  const lines = createInterface({ input, output: tty?.output ?? io.stderr, terminal: tty !== undefined });
  // Input that ends before a line (an empty pipe) is an answer never given, not a wait forever.
  const ended = new Promise<never>((_, reject) => lines.once('close', () => reject(usageError('No answer was given (the input ended).', 'no_answer'))));
  ended.catch(() => undefined);
  try {
    const answer = await Promise.race([lines.question(question, io.signal ? { signal: io.signal } : {}), ended]);
    return answer.trim();
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw interrupted();
    throw error;
  } finally {
    lines.close();
    tty?.close();
  }
}
