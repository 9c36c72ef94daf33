/**
 * The plans page's Enterprise enquiry: a name, an address to answer, a company, seats
 * (optional) and a message, checked here as the server checks them (the bounds from
 * shared/limits.ts), then `POST /v1/billing/enterprise-inquiry`, which mails sales. It needs no
 * account: no session is sent, even when this tab has one (the address is only prefilled).
 */
import { enterpriseInquiryLimits as limits } from '../../shared/limits.ts';
import { ApiError, type AccountUser } from './api.ts';
import { showProblem } from './accountPage.ts';
import { billingApi, type EnterpriseInquiry } from './billingApi.ts';
import { announce, byId, setVisible } from './dom.ts';
import { fieldErrors } from './fieldErrors.ts';
import { language, t } from './i18n.ts';

const form = byId<HTMLFormElement>('enquiry-form');
const fields = byId<HTMLFieldSetElement>('enquiry-fields');
const inputs = {
  name: byId<HTMLInputElement>('enquiry-name'),
  email: byId<HTMLInputElement>('enquiry-email'),
  company: byId<HTMLInputElement>('enquiry-company'),
  seats: byId<HTMLInputElement>('enquiry-seats'),
  message: byId<HTMLTextAreaElement>('enquiry-message'),
};
type Field = keyof typeof inputs;
const fieldOrder: readonly Field[] = ['name', 'email', 'company', 'seats', 'message'];
const errors = byId('enquiry-errors');
const part = (field: Field) => ({ input: inputs[field], error: byId(`enquiry-${field}-error`) });
const formErrors = fieldErrors(
  { name: part('name'), email: part('email'), company: part('company'), seats: part('seats'), message: part('message') },
  errors,
);
const sent = byId('enquiry-sent');
const sentText = byId('enquiry-sent-text');

/** One line, as a mail header's worth: no control or line-separating characters. */
const oneLine = /^[^\p{Cc}\p{Zl}\p{Zp}]*$/u;
const emailShape = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

let prefill = '';

/** The enquiry as the form holds it, or what is wrong with each field. */
function read(): { inquiry: EnterpriseInquiry } | { problems: Partial<Record<Field, string>> } {
  const problems: Partial<Record<Field, string>> = {};
  const line = (field: 'name' | 'company', missing: string, max: number) => {
    const value = inputs[field].value.trim();
    if (!value) problems[field] = missing;
    else if (value.length > max) problems[field] = t('plans.enquiry.tooLong', { max });
    else if (!oneLine.test(value)) problems[field] = t('plans.enquiry.oneLine');
    return value;
  };
  const name = line('name', t('plans.enquiry.nameMissing'), limits.name.max);
  const email = inputs.email.value.trim();
  if (!emailShape.test(email)) problems.email = t('plans.enquiry.emailInvalid');
  const company = line('company', t('plans.enquiry.companyMissing'), limits.company.max);
  const seatsText = inputs.seats.value.trim();
  const seats = Number(seatsText);
  if (seatsText && (!Number.isInteger(seats) || seats < 1 || seats > limits.seats.max))
    problems.seats = t('plans.enquiry.seatsInvalid', { min: 1, max: limits.seats.max });
  const message = inputs.message.value.trim();
  if (!message) problems.message = t('plans.enquiry.messageMissing');
  else if (message.length > limits.message.max)
    problems.message = t('plans.enquiry.messageTooLong', { max: limits.message.max, count: message.length });
  if (Object.keys(problems).length > 0) return { problems };
  return { inquiry: { name, email, company, ...(seatsText ? { seats } : {}), message } };
}

function explain(error: unknown): void {
  if (error instanceof ApiError && error.status === 400) {
    const messages: Partial<Record<Field, string>> = {};
    for (const entry of error.problem.errors ?? []) {
      const field = /^body\.(\w+)$/.exec(entry.path ?? '')?.[1] as Field | undefined;
      // The server's words are English: other languages say which field was refused.
      if (field && fieldOrder.includes(field))
        messages[field] =
          language === 'en' ? `${entry.message.charAt(0).toUpperCase()}${entry.message.slice(1)}.` : t('plans.enquiry.fieldRefused');
    }
    if (Object.keys(messages).length > 0) return formErrors.show(messages);
  }
  if (error instanceof ApiError && error.status === 429) {
    const minutes = Math.max(1, Math.ceil((error.retryAfter ?? 60) / 60));
    errors.textContent = t('plans.enquiry.tooMany', { minutes });
    setVisible(errors, true);
    errors.focus();
    return;
  }
  showProblem(errors, error, t('plans.enquiry.notSent'));
}

async function send(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (fields.disabled) return;
  formErrors.clear();
  setVisible(sent, false);
  const entered = read();
  if ('problems' in entered) return formErrors.show(entered.problems);
  fields.disabled = true;
  announce(t('plans.enquiry.sending'));
  try {
    await billingApi.enterpriseInquiry(entered.inquiry);
    form.reset();
    inputs.email.value = prefill;
    sentText.textContent = t('plans.enquiry.sentText', { email: entered.inquiry.email });
    setVisible(sent, true);
    announce(t('plans.enquiry.sentAnnounce'));
    sent.focus();
  } catch (error) {
    announce('');
    explain(error);
  } finally {
    fields.disabled = false;
  }
}

/** Wires the form once; a signed-in tab's address is filled in (it may be changed). */
export function wireEnquiryForm(user: AccountUser | null): void {
  inputs.name.maxLength = limits.name.max;
  inputs.company.maxLength = limits.company.max;
  inputs.message.maxLength = limits.message.max;
  inputs.seats.max = String(limits.seats.max);
  prefill = user?.email ?? '';
  inputs.email.value = prefill;
  for (const field of fieldOrder) inputs[field].addEventListener('input', () => formErrors.clearField(field));
  form.addEventListener('submit', (event) => void send(event));
  fields.disabled = false;
}
