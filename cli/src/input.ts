/** What `send` and `respond` read: stdin whole, or a small file when it is text. */
import { open as openFile } from 'node:fs/promises';

/** The file's text when it is UTF-8 without NUL bytes, else undefined (sent as a file). */
export async function readSmallText(path: string): Promise<string | undefined> {
  const handle = await openFile(path, 'r');
  try {
    const bytes = await handle.readFile();
    if (bytes.length === 0 || bytes.includes(0)) return undefined;
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (error) {
    if (error instanceof TypeError) return undefined;
    throw error;
  } finally {
    await handle.close();
  }
}

/**
 * All of stdin as text, or undefined past `limit` bytes. Read by events, not `for await`: after a
 * prompt paused the terminal, an async iterator never starts it reading again.
 */
export function readStdin(stdin: NodeJS.ReadStream, limit: number, signal?: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let length = 0;
    const done = (value: string | undefined) => {
      stdin.off('data', onData).off('end', onEnd).off('error', reject);
      signal?.removeEventListener('abort', onAbort);
      stdin.pause();
      resolve(value);
    };
    // Ctrl-C while a text is typed: the terminal sends SIGINT, which only aborts the signal.
    const onAbort = () => {
      stdin.off('data', onData).off('end', onEnd).off('error', reject);
      stdin.pause();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const onData = (part: Buffer | string) => {
      const bytes = typeof part === 'string' ? Buffer.from(part) : part;
      length += bytes.length;
      if (length > limit) return done(undefined);
      parts.push(bytes);
    };
    const onEnd = () => done(Buffer.concat(parts).toString('utf8'));
    stdin.on('data', onData).on('end', onEnd).on('error', reject);
    stdin.resume();
  });
}
