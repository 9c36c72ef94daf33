import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../shared/clock.ts';
import type { Mailer, MailMessage } from '../shared/domain/mail.ts';

export interface OutboxEntry extends MailMessage {
  /** The sender SES would use (`MAIL_FROM`). */
  from: string;
  sent_at: string;
}

/**
 * The local stand-in for SES: keeps every message (newest first at `/_dev/mail`), writes each
 * to `dataDir` when given, and tells the console so a developer can read codes as they come.
 */
export class LocalOutbox implements Mailer {
  private readonly entries: OutboxEntry[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly options: { from: string; dataDir?: string; announce?: (entry: OutboxEntry) => void },
  ) {
    if (options.dataDir) {
      mkdirSync(options.dataDir, { recursive: true });
      // A second `npm start` shows the mail of the first one too.
      for (const name of readdirSync(options.dataDir)
        .filter((file) => file.endsWith('.json'))
        .sort()) {
        this.entries.push(JSON.parse(readFileSync(join(options.dataDir, name), 'utf8')) as OutboxEntry);
      }
    }
  }

  async send(message: MailMessage): Promise<void> {
    const entry: OutboxEntry = {
      from: this.options.from,
      to: message.to,
      ...(message.replyTo ? { replyTo: message.replyTo } : {}),
      subject: message.subject,
      text: message.text,
      sent_at: new Date(this.clock.now()).toISOString(),
    };
    this.entries.push(entry);
    if (this.options.dataDir) {
      const name = `${entry.sent_at.replaceAll(':', '-')}-${String(this.entries.length).padStart(6, '0')}.json`;
      writeFileSync(join(this.options.dataDir, name), `${JSON.stringify(entry, null, 2)}\n`);
    }
    this.options.announce?.(entry);
  }

  /** Newest first. */
  list(): OutboxEntry[] {
    return [...this.entries].reverse();
  }
}
