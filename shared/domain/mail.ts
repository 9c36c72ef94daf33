export interface MailMessage {
  to: string;
  /** Where a reply goes when it is not the sender (an enquiry answered to whoever sent it). */
  replyTo?: string;
  subject: string;
  text: string;
}

/** Sends one email. SES in AWS; the local outbox in `npm start` and the tests. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
