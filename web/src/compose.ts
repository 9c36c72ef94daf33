/**
 * Compose page: encrypts in this browser, stores the ciphertext, shows the link (`url_base#key`),
 * or one per recipient when it was given personal links (`composeLinks.ts`).
 * The key, passphrase and text stay in this page's memory; nothing of them goes to web storage.
 * Signed in (`session.ts`), the secret is created with the access token and gets an owner;
 * anonymous, "Keep for my account" puts its `{id, delete_token, expires_at}` in localStorage
 * (`unattached.ts`) so it can be attached to an account later.
 */
import { sealText, toBase64 } from '../../shared/envelope/index.ts';
import { api, ApiError, problemMessages, type CreatedSecret, type RecipientRequest } from './api.ts';
import { clearLinks, clearRecipientErrors, readRecipients, resetRecipients, showLinks, type FieldError } from './composeLinks.ts';
import { announce, byId, copyField, describeTime, focusHeading, plural, setVisible } from './dom.ts';
import { renderNav } from './nav.ts';
import { qrSvg } from './qr.ts';
import { resume, SignedOutError, withAccess } from './session.ts';
import { forgetUnattached, rememberUnattached } from './unattached.ts';

const limits = {
  expiresIn: { min: 60, max: 30 * 24 * 3600 },
  maxViews: { min: 1, max: 100 },
  /** The API takes text envelopes up to 256 KiB; the header and tag take about 100 bytes. */
  textBytes: 256 * 1024 - 256,
};

const form = byId<HTMLFormElement>('compose-form');
const fields = byId<HTMLFieldSetElement>('compose-fields');
const text = byId<HTMLTextAreaElement>('secret-text');
const expiry = byId<HTMLSelectElement>('expiry');
const customExpiry = byId('custom-expiry');
const customAmount = byId<HTMLInputElement>('custom-expiry-amount');
const customUnit = byId<HTMLSelectElement>('custom-expiry-unit');
const maxViews = byId<HTMLInputElement>('max-views');
const passphrase = byId<HTMLInputElement>('passphrase');
const notBefore = byId<HTMLInputElement>('not-before');
const moreOptions = byId<HTMLDetailsElement>('more-options');
const errors = byId('compose-errors');
const errorList = byId<HTMLUListElement>('compose-error-list');
const createButton = byId<HTMLButtonElement>('create-button');
const composeSection = byId('compose');
const composeTitle = byId('compose-title');

const resultSection = byId('result');
const resultTitle = byId('result-title');
const resultLive = byId('result-live');
const shareLink = byId<HTMLInputElement>('share-link');
const copyLink = byId<HTMLButtonElement>('copy-link');
const summary = byId<HTMLUListElement>('result-summary');
const resultPassphrase = byId('result-passphrase');
const qrCode = byId('qr-code');
const resultSingle = byId('result-single');
const resultQr = byId('result-qr');
const resultLinksLede = byId('result-links-lede');
const revokedText = byId('revoked-text');
const revokeButton = byId<HTMLButtonElement>('revoke-button');
const revoked = byId('result-revoked');
const revokedTitle = byId('revoked-title');
const resultError = byId('result-error');
const createAnother = byId<HTMLButtonElement>('create-another');
const ownerNote = byId('compose-owner');
const keep = byId('keep');
const keepTitle = byId('keep-title');
const keepText = byId('keep-text');
const keepDone = byId('keep-done');
const keepButton = byId<HTMLButtonElement>('keep-button');
const keepActions = byId('keep-actions');

/** What "Revoke now" and "Keep for my account" need; in memory only, gone with the page. */
let created: { id: string; deleteToken: string; expiresAt: string } | null = null;

/** Whether this tab is signed in: settled by one refresh at load (none when it holds no session). */
const signedIn: Promise<boolean> = resume().then(
  (user) => user !== null,
  () => false,
);
void signedIn.then(showSignedIn);

function showSignedIn(yes: boolean): void {
  renderNav();
  setVisible(ownerNote, yes);
}

function expiresInSeconds(): number {
  if (expiry.value !== 'custom') return Number(expiry.value);
  return Number(customAmount.value) * Number(customUnit.value);
}

function validate(): { errors: FieldError[]; notBeforeIso?: string; recipients: RecipientRequest[] } {
  const found: FieldError[] = [];
  if (text.value.length === 0) found.push({ field: text, message: 'Secret: write or paste the text to share.' });
  else if (new TextEncoder().encode(text.value).length > limits.textBytes) {
    found.push({ field: text, message: 'Secret: the text is too long (at most about 256 KB). Files are shared another way.' });
  }

  const seconds = expiresInSeconds();
  if (expiry.value === 'custom') {
    if (!Number.isInteger(Number(customAmount.value)) || customAmount.value === '' || seconds < limits.expiresIn.min || seconds > limits.expiresIn.max) {
      found.push({ field: customAmount, message: 'Custom expiry: choose between 1 minute and 30 days.' });
    }
  }

  const views = Number(maxViews.value);
  if (maxViews.value === '' || !Number.isInteger(views) || views < limits.maxViews.min || views > limits.maxViews.max) {
    found.push({ field: maxViews, message: 'Views allowed: a whole number from 1 to 100.' });
  }

  let notBeforeIso: string | undefined;
  if (notBefore.value) {
    // datetime-local has no zone: `new Date` reads it as local time, toISOString gives UTC.
    const at = new Date(notBefore.value).getTime();
    if (Number.isNaN(at)) {
      found.push({ field: notBefore, message: 'Not before: this is not a valid date and time.' });
    } else if (at >= Date.now() + seconds * 1000) {
      found.push({ field: notBefore, message: 'Not before: must be before the secret expires.' });
    } else {
      notBeforeIso = new Date(at).toISOString();
    }
  }
  const { recipients, errors: recipientErrors } = readRecipients();
  found.push(...recipientErrors);
  return { errors: found, recipients, ...(notBeforeIso ? { notBeforeIso } : {}) };
}

function clearErrors(): void {
  errorList.replaceChildren();
  setVisible(errors, false);
  for (const field of [text, customAmount, maxViews, notBefore, passphrase]) field.removeAttribute('aria-invalid');
  clearRecipientErrors();
}

function showErrors(messages: string[], invalid: HTMLElement[] = []): void {
  errorList.replaceChildren(
    ...messages.map((message) => {
      const item = document.createElement('li');
      item.textContent = message;
      return item;
    }),
  );
  for (const field of invalid) field.setAttribute('aria-invalid', 'true');
  if (invalid.some((field) => moreOptions.contains(field))) moreOptions.open = true;
  setVisible(errors, true);
  const first = invalid[0];
  if (first) first.focus();
  else errors.focus();
}

async function create(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  clearErrors();
  const checked = validate();
  if (checked.errors.length > 0) {
    showErrors(checked.errors.map((error) => error.message), checked.errors.map((error) => error.field));
    return;
  }
  fields.disabled = true;
  createButton.textContent = 'Encrypting…';
  announce(passphrase.value ? 'Encrypting with your passphrase; this takes a moment…' : 'Encrypting…');
  try {
    const sealed = await sealText(text.value, passphrase.value ? { passphrase: passphrase.value } : {});
    const body = {
      kind: 'text',
      envelope: toBase64(sealed.envelope),
      salt: sealed.salt,
      size_bytes: sealed.envelope.length,
      expires_in: expiresInSeconds(),
      max_views: Number(maxViews.value),
      // Always: a claim must prove the link (and passphrase), so a preview bot or a wrong
      // passphrase cannot use up a view.
      claim_verifier: sealed.claimVerifier,
      // Only a claim that also proves the link (not the passphrase) may count towards a lock.
      link_verifier: sealed.linkVerifier,
      ...(checked.notBeforeIso ? { not_before: checked.notBeforeIso } : {}),
      ...(checked.recipients.length > 0 ? { recipients: checked.recipients } : {}),
    } as const;
    // POST /v1/secrets is open to anonymous callers, so a stale token answers 403, not 401.
    const owned = await signedIn;
    const secret = owned ? await withAccess((token) => api.createSecret(body, token), [401, 403]) : await api.createSecret(body);
    showResult(secret, sealed.key, passphrase.value !== '', owned);
  } catch (error) {
    fields.disabled = false;
    if (error instanceof SignedOutError) {
      showSignedIn(false);
      showErrors(['You are no longer signed in, so nothing was created. Create it again to share it without an account, or sign in first.']);
    } else if (error instanceof ApiError) showErrors(problemMessages(error));
    else showErrors([`Encryption failed in this browser: ${(error as Error).message}`]);
    announce('');
  } finally {
    createButton.textContent = 'Create secret link';
  }
}

function showResult(secret: CreatedSecret, key: string, withPassphrase: boolean, owned: boolean): void {
  created = { id: secret.id, deleteToken: secret.delete_token, expiresAt: secret.expires_at };
  // The plaintext and passphrase leave the page's form as soon as they are sealed.
  form.reset();
  resetRecipients();
  setVisible(customExpiry, false);

  const links = secret.recipients ?? [];
  const opens = secret.max_views === 1 ? 'once' : plural(secret.max_views, 'time', 'times');
  const facts = [
    `Expires ${describeTime(secret.expires_at)}.`,
    links.length > 0 ? `${plural(links.length, 'personal link', 'personal links')}: each can be opened ${opens}.` : `Can be opened ${opens}.`,
  ];
  if (secret.not_before) facts.push(`Cannot be opened before ${describeTime(secret.not_before)}.`);
  summary.replaceChildren(
    ...facts.map((fact) => {
      const item = document.createElement('li');
      item.textContent = fact;
      return item;
    }),
  );
  setVisible(resultPassphrase, withPassphrase);
  if (links.length > 0) {
    showLinks(links, key);
  } else {
    const link = `${secret.url_base}#${key}`;
    shareLink.value = link;
    qrCode.replaceChildren(qrSvg(link, 'QR code of the secret link'));
  }
  for (const single of [resultSingle, resultQr]) setVisible(single, links.length === 0);
  setVisible(resultLinksLede, links.length > 0);
  revokeButton.textContent = links.length > 0 ? 'Revoke all links' : 'Revoke now';
  revokedText.textContent = links.length > 0 ? 'The secret was deleted. None of its links opens anything any more.' : 'The secret was deleted. The link no longer opens anything.';

  setVisible(resultLive, true);
  setVisible(revoked, false);
  setVisible(resultError, false);
  revokeButton.disabled = false;
  // An owned secret is listed under My secrets already; an anonymous one can be kept.
  setVisible(keep, !owned);
  setVisible(keepText, true);
  setVisible(keepDone, false);
  setVisible(keepActions, true);
  setVisible(composeSection, false);
  setVisible(resultSection, true);
  resultTitle.textContent = links.length > 0 ? 'Your links are ready' : 'Your link is ready';
  announce(links.length > 0 ? `Your ${plural(links.length, 'link is', 'links are')} ready.` : 'Your link is ready.');
  focusHeading(resultTitle);
}

async function revoke(): Promise<void> {
  if (!created) return;
  revokeButton.disabled = true;
  setVisible(resultError, false);
  announce('Revoking…');
  try {
    await api.revokeSecret(created.id, created.deleteToken);
    forgetUnattached([created.id]);
    created = null;
    setVisible(keep, false);
    shareLink.value = '';
    qrCode.replaceChildren();
    clearLinks();
    setVisible(resultLive, false);
    setVisible(revoked, true);
    announce('Revoked: the link no longer opens anything.');
    focusHeading(revokedTitle);
  } catch (error) {
    revokeButton.disabled = false;
    resultError.textContent = error instanceof ApiError ? `Could not revoke: ${problemMessages(error).join(' ')}` : 'Could not revoke.';
    setVisible(resultError, true);
    announce('');
  }
}

function keepForAccount(): void {
  if (!created) return;
  if (!rememberUnattached({ id: created.id, delete_token: created.deleteToken, expires_at: created.expiresAt })) {
    keepText.textContent = 'This browser already keeps 100 secrets to attach: sign in and attach those first.';
    return;
  }
  setVisible(keepText, false);
  setVisible(keepActions, false);
  setVisible(keepDone, true);
  announce('Kept in this browser. Sign in, then attach it on My secrets.');
  focusHeading(keepTitle);
}

function startOver(): void {
  created = null;
  setVisible(keep, false);
  shareLink.value = '';
  qrCode.replaceChildren();
  clearLinks();
  summary.replaceChildren();
  form.reset();
  clearErrors();
  setVisible(customExpiry, false);
  fields.disabled = false;
  setVisible(resultSection, false);
  setVisible(composeSection, true);
  announce('');
  focusHeading(composeTitle);
}

function minNotBefore(): string {
  // datetime-local wants local "YYYY-MM-DDTHH:MM".
  const now = new Date();
  now.setSeconds(0, 0);
  return new Date(now.getTime() - now.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

expiry.addEventListener('change', () => {
  const custom = expiry.value === 'custom';
  setVisible(customExpiry, custom);
  if (custom) customAmount.focus();
});
notBefore.addEventListener('focus', () => (notBefore.min = minNotBefore()));
form.addEventListener('submit', (event) => void create(event));
copyLink.addEventListener('click', () => void copyField(shareLink, copyLink, 'Link'));
shareLink.addEventListener('focus', () => shareLink.select());
revokeButton.addEventListener('click', () => void revoke());
createAnother.addEventListener('click', startOver);
keepButton.addEventListener('click', keepForAccount);

// The form works only with this script: it is disabled in the HTML and enabled here.
fields.disabled = false;
document.documentElement.dataset['ready'] = 'compose';
