export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends one email. SES in AWS; the local outbox in `npm start` and the tests. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
