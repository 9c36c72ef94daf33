/**
 * The compose page's personal links: the recipients editor under "More options" (a row per
 * recipient: name, address, "only this address can open it"; up to 20) and, once created, one
 * link per recipient with its own Copy button and QR code. Every link carries the same key;
 * addresses go to the server (a restricted link is checked against its address), the key never.
 */
import type { CreatedLink, RecipientRequest } from './api.ts';
import { announce, byId, copyField, element, setVisible } from './dom.ts';
import { t, tNodes } from './i18n.ts';
import { qrSvg } from './qr.ts';

/** The API's bounds (shared/limits.ts): 1-20 links, names up to 64 characters. */
const maxRecipients = 20;
const labelChars = 64;
/** Enough to catch a slip; the server checks addresses properly. */
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface FieldError {
  field: HTMLElement;
  message: string;
}

const list = byId<HTMLOListElement>('recipient-list');
const addButton = byId<HTMLButtonElement>('add-recipient');
const addHint = byId('add-recipient-hint');
/** Said once for every row (each row's fields point to them). */
const labelHint = byId('recipient-label-hint');
const restrictedHint = byId('recipient-restricted-hint');
const linkList = byId<HTMLOListElement>('link-list');

interface Row {
  item: HTMLLIElement;
  legend: HTMLLegendElement;
  label: HTMLInputElement;
  email: HTMLInputElement;
  restricted: HTMLInputElement;
  remove: HTMLButtonElement;
  removeName: HTMLSpanElement;
}

const rows: Row[] = [];
/** Ids stay unique as rows come and go; the number shown is the row's position. */
let nextRowId = 1;

function field(id: string, labelText: string, input: HTMLInputElement, hintId?: string): HTMLDivElement {
  const wrapper = element('div', 'field');
  const label = element('label', '', labelText);
  label.htmlFor = id;
  input.id = id;
  if (hintId) input.setAttribute('aria-describedby', hintId);
  wrapper.append(label, input);
  return wrapper;
}

function textInput(type: 'text' | 'email'): HTMLInputElement {
  const input = element('input');
  input.type = type;
  input.autocomplete = 'off';
  input.spellcheck = false;
  input.setAttribute('autocapitalize', 'off');
  return input;
}

function newRow(): Row {
  const id = `recipient-${nextRowId++}`;
  const item = element('li', 'recipient');
  const group = element('fieldset', 'plain');
  const legend = element('legend', 'recipient-title');
  const label = textInput('text');
  label.maxLength = labelChars;
  const email = textInput('email');
  email.inputMode = 'email';
  const restricted = element('input');
  restricted.type = 'checkbox';
  const choice = element('div', 'choice');
  const choiceLabel = element('label', '', t('compose.recipient.restricted'));
  choiceLabel.htmlFor = `${id}-restricted`;
  restricted.id = `${id}-restricted`;
  restricted.setAttribute('aria-describedby', restrictedHint.id);
  choice.append(restricted, choiceLabel);
  const remove = element('button', 'danger');
  remove.type = 'button';
  const removeName = element('span', 'visually-hidden');
  // "Remove recipient 1": the visible word and the row's hidden name, in the language's order.
  remove.append(...tNodes('compose.recipient.remove', { recipient: removeName }));
  const actions = element('div', 'actions');
  actions.append(remove);
  const fields = element('div', 'row');
  fields.append(
    field(`${id}-label`, t('compose.recipient.nameLabel'), label, labelHint.id),
    field(`${id}-email`, t('compose.recipient.emailLabel'), email),
  );
  group.append(legend, fields, choice, actions);
  item.append(group);
  const row: Row = { item, legend, label, email, restricted, remove, removeName };
  remove.addEventListener('click', () => removeRow(row));
  return row;
}

/** Numbers the rows by position (legends and the Remove buttons' names) and the Add button's state. */
function renumber(): void {
  rows.forEach((row, index) => {
    row.legend.textContent = t('compose.recipient.title', { number: index + 1 });
    row.removeName.textContent = t('compose.recipient.removeName', { number: index + 1 });
    row.item.dataset.index = String(index + 1);
  });
  for (const hint of [labelHint, restrictedHint]) setVisible(hint, rows.length > 0);
  const full = rows.length >= maxRecipients;
  addButton.disabled = full;
  addHint.textContent = full
    ? t('compose.recipients.full', { max: maxRecipients })
    : rows.length === 0
      ? t('compose.recipients.none')
      : t('compose.recipients.upTo', { max: maxRecipients });
}

function addRow(): void {
  if (rows.length >= maxRecipients) return;
  const row = newRow();
  rows.push(row);
  list.append(row.item);
  renumber();
  announce(t('compose.recipient.added', { number: rows.length }));
  row.label.focus();
}

function removeRow(row: Row): void {
  const index = rows.indexOf(row);
  if (index < 0) return;
  rows.splice(index, 1);
  row.item.remove();
  renumber();
  announce(t('compose.recipient.removed', { number: index + 1 }));
  // Focus stays in the list: the row that took its place, the one before, or "Add a recipient".
  const next = rows[index] ?? rows[index - 1];
  if (next) next.label.focus();
  else addButton.focus();
}

/** The recipients as the API takes them (none: one link for everyone), and what is wrong with them. */
export function readRecipients(): { recipients: RecipientRequest[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const recipients = rows.map((row, index): RecipientRequest => {
    const number = index + 1;
    const label = row.label.value.trim();
    const email = row.email.value.trim();
    if (label.length > labelChars)
      errors.push({ field: row.label, message: t('compose.recipient.nameTooLong', { number, max: labelChars }) });
    if (email && !emailPattern.test(email)) errors.push({ field: row.email, message: t('compose.recipient.notEmail', { number }) });
    else if (row.restricted.checked && !email) errors.push({ field: row.email, message: t('compose.recipient.emailNeeded', { number }) });
    return { ...(label ? { label } : {}), ...(email ? { email } : {}), ...(row.restricted.checked ? { restricted: true } : {}) };
  });
  return { recipients, errors };
}

export function clearRecipientErrors(): void {
  for (const row of rows) for (const input of [row.label, row.email, row.restricted]) input.removeAttribute('aria-invalid');
}

/** Each row's address and "only this address" inputs, in order: what a workspace's rule on recipients points at. */
export const recipientFields = (): Array<{ email: HTMLInputElement; restricted: HTMLInputElement }> =>
  rows.map(({ email, restricted }) => ({ email, restricted }));

/** Removes every row: the form is back to one link for everyone. */
export function resetRecipients(): void {
  for (const row of rows.splice(0)) row.item.remove();
  renumber();
}

/** What a link is called on the page: its name, else its address, else its position. */
export const linkName = (link: Pick<CreatedLink, 'label' | 'email'>, position: number) =>
  link.label ?? link.email ?? t('compose.recipient.title', { number: position });

function linkItem(link: CreatedLink, key: string, position: number): HTMLLIElement {
  const url = `${link.url_base}#${key}`;
  const name = linkName(link, position);
  const id = `link-${position}`;
  const item = element('li', 'item');
  item.dataset.recipientId = link.recipient_id;
  const title = element('h2', 'item-title', name);
  title.id = `${id}-title`;
  item.append(title);
  const about = link.restricted
    ? t('compose.links.restricted', { email: link.email ?? '' })
    : link.email && link.label
      ? t('compose.links.for', { email: link.email })
      : '';
  if (about) item.append(element('p', 'hint', about));

  const wrapper = element('div', 'field');
  const linkFor = t('compose.links.linkFor', { name });
  const label = element('label', 'visually-hidden', linkFor);
  label.htmlFor = id;
  const row = element('div', 'with-button');
  const input = element('input');
  input.id = id;
  input.type = 'text';
  input.readOnly = true;
  input.spellcheck = false;
  input.autocomplete = 'off';
  input.value = url;
  input.dataset.role = 'link';
  const copy = element('button', 'primary', t('compose.result.copyLink'));
  copy.type = 'button';
  copy.dataset.action = 'copy';
  copy.setAttribute('aria-describedby', title.id);
  copy.addEventListener('click', () => void copyField(input, copy, linkFor));
  input.addEventListener('focus', () => input.select());
  row.append(input, copy);
  wrapper.append(label, row);

  const qr = element('details', 'qr-toggle');
  const summary = element('summary');
  // "QR code of the link for Ann": the visible words and the hidden rest, in the language's order.
  summary.append(...tNodes('compose.links.qr', { ofLink: element('span', 'visually-hidden', t('compose.links.qrOf', { name })) }));
  const figure = element('figure', 'qr');
  const code = element('div', 'qr-code');
  code.append(qrSvg(url, t('compose.links.qrLabel', { name })));
  figure.append(code, element('figcaption', '', t('compose.links.scan', { name })));
  qr.append(summary, figure);
  item.append(wrapper, qr);
  return item;
}

/** Shows one link per recipient (`url_base#key`), in the order they were asked for. */
export function showLinks(links: CreatedLink[], key: string): void {
  linkList.replaceChildren(...links.map((link, index) => linkItem(link, key, index + 1)));
}

/** Takes the links (and so the key) off the page. */
export function clearLinks(): void {
  linkList.replaceChildren();
}

addButton.addEventListener('click', addRow);
renumber();
