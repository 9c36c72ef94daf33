/**
 * Messages between a bench's orchestrator and its child processes. A file of its own, with no
 * imports: the children measured for memory load it, so it must weigh nothing.
 */
import type { ChildProcess } from 'node:child_process';

/** One message to a child process, answered by the next message it sends. */
export function ask<T>(child: ChildProcess, message: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const exit = (code: number | null) => reject(new Error(`a bench process exited (${code}) before answering`));
    child.once('exit', exit);
    child.once('message', (reply) => {
      child.off('exit', exit);
      resolve(reply as T);
    });
    if (message !== undefined) child.send(message as object);
  });
}
