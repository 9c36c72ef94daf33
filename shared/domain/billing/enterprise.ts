import type { Mailer } from '../mail.ts';
import type { Config } from '../../config.ts';

export interface EnterpriseInquiry {
  name: string;
  email: string;
  company: string;
  seats?: number | undefined;
  message: string;
}

export interface EnterpriseInquiryPorts {
  mailer: Mailer;
  config: Pick<Config, 'SALES_EMAIL'>;
}

/**
 * An Enterprise enquiry, mailed to sales with the sender as the reply address. It makes nothing
 * at the payment provider and stores nothing: Enterprise is set by sales (scripts/set-plan.ts).
 */
export async function sendEnterpriseInquiry(inquiry: EnterpriseInquiry, ports: EnterpriseInquiryPorts): Promise<void> {
  await ports.mailer.send({
    to: ports.config.SALES_EMAIL,
    replyTo: inquiry.email,
    subject: `Hushlink Enterprise enquiry: ${inquiry.company}`,
    text: [
      `Name: ${inquiry.name}`,
      `Email: ${inquiry.email}`,
      `Company: ${inquiry.company}`,
      `Seats: ${inquiry.seats ?? 'not said'}`,
      '',
      inquiry.message,
    ].join('\n'),
  });
}
