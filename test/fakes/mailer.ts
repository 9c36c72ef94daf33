import type { Mailer, MailMessage } from '../../shared/domain/mail.ts';
import { copy } from './memoryListing.ts';

/** A Mailer that keeps what was sent, in order, and can be told to refuse the next sends (SES down). */
export class MemoryMailer implements Mailer {
  private readonly messages: MailMessage[] = [];
  private readonly failures: Error[] = [];

  async send(message: MailMessage): Promise<void> {
    const failure = this.failures.shift();
    if (failure) throw failure;
    this.messages.push(copy(message));
  }

  /** Every message sent so far, oldest first. */
  get sent(): MailMessage[] {
    return copy(this.messages);
  }

  /** The messages sent to `address`, oldest first. */
  to(address: string): MailMessage[] {
    return this.sent.filter((message) => message.to === address);
  }

  /** The next send throws `error` (once per call). */
  failNext(error: Error = new Error('the mailer refused the message')): this {
    this.failures.push(error);
    return this;
  }
}
