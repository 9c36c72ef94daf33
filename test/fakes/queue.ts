import type { Queue } from '../../shared/domain/queue.ts';
import { parseWorkMessage, type WorkMessage } from '../../shared/domain/webhooks/work.ts';

/** The work queue: keeps what was sent, in order, parsed as the worker would read it. */
export class MemoryQueue implements Queue {
  readonly sent: Array<{ body: string; delaySeconds: number }> = [];

  async send(body: string, options: { delaySeconds?: number } = {}): Promise<void> {
    this.sent.push({ body, delaySeconds: options.delaySeconds ?? 0 });
  }

  /** The messages sent, as the worker parses them (null for a body that is not one of ours). */
  messages(): Array<WorkMessage | null> {
    return this.sent.map((entry) => parseWorkMessage(entry.body));
  }
}
