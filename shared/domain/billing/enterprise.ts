import type { Mailer } from '../mail.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { sha256Base64Url } from '../../ids.ts';
import type { Language } from '../../languages.ts';
import { enterpriseInquiryLimits } from '../../limits.ts';
import { normalizeEmail } from '../accounts/model.ts';
import { askedMailLanguage, renderMail } from '../mailText.ts';
import { type RateCounter, windowHit } from '../rateWindows.ts';

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
  /** Counts the acknowledgements an address gets. */
  rateCounter: RateCounter;
  clock: Clock;
}

/**
 * An Enterprise enquiry, mailed to sales with the sender as the reply address (in English: sales
 * read it), and acknowledged to the sender in the language `asked` (the request's
 * `Accept-Language`), else English. It makes nothing at the
 * payment provider and stores nothing: Enterprise is set by sales (scripts/set-plan.ts).
 *
 * The address is whatever was typed, so the acknowledgement carries nothing the sender wrote (no
 * name, company or message: it cannot carry anyone's text to a stranger), answers to sales, and
 * goes to one address at most `acknowledgementsPerAddress` times a day; past that the enquiry
 * still reaches sales, unacknowledged.
 */
export async function sendEnterpriseInquiry(inquiry: EnterpriseInquiry, ports: EnterpriseInquiryPorts, asked?: Language): Promise<void> {
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
  const to = normalizeEmail(inquiry.email);
  const window = windowHit(
    `enquiry_ack#${sha256Base64Url(`email:${to}`)}`,
    enterpriseInquiryLimits.acknowledgementsPerAddress,
    Math.floor(ports.clock.now() / 1000),
  );
  if ((await ports.rateCounter.addIfBelow(window)) === null) return;
  const language = askedMailLanguage(asked);
  await ports.mailer.send({
    to,
    replyTo: ports.config.SALES_EMAIL,
    ...renderMail('enterpriseAcknowledgement', language, {}),
  });
}
