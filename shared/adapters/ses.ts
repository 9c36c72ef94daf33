import { type SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import type { Mailer, MailMessage } from '../domain/mail.ts';

/** Mail through SES `SendEmail`, from the verified identity the stack names. */
export class SesMailer implements Mailer {
  constructor(
    private readonly client: SESClient,
    private readonly from: string,
  ) {}

  async send(message: MailMessage): Promise<void> {
    await this.client.send(
      new SendEmailCommand({
        Source: this.from,
        Destination: { ToAddresses: [message.to] },
        ...(message.replyTo ? { ReplyToAddresses: [message.replyTo] } : {}),
        Message: {
          Subject: { Data: message.subject, Charset: 'UTF-8' },
          Body: { Text: { Data: message.text, Charset: 'UTF-8' } },
        },
      }),
    );
  }
}
