/**
 * Reveal page `/s/{id}#key`. Reads the key from the fragment and removes it from the address
 * bar at once; reads metadata (which claims nothing); claims only when the person clicks
 * "Reveal secret", with the claim token derived from the key (and passphrase), so a wrong
 * passphrase is refused by the server without using up a view. The key lives in this module's
 * memory only: never in web storage, cookies or a URL the page requests.
 */
import { claimTokenFor, EnvelopeError, fromBase64, iterationRange, linkTokenFor, openText, type EnvelopeErrorCode } from '../../shared/envelope/index.ts';
import { api, ApiError, type SecretMetadata } from './api.ts';
import { announce, byId, copyField, focusHeading, plural, setVisible, timeElement } from './dom.ts';

const keyPattern = /^[A-Za-z0-9_-]{43}$/;

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// Read the fragment, then take it out of the address bar (and so out of history, bookmarks
// and screenshots of the address bar) before anything else happens.
const fragment = safeDecode(location.hash.replace(/^#/, '')).trim();
if (location.hash) history.replaceState(null, '', location.pathname);

const secretId = safeDecode(location.pathname.split('/')[2] ?? '');
const key: string | null = keyPattern.test(fragment) ? fragment : null;

const screens = {
  loading: byId('screen-loading'),
  ready: byId('screen-ready'),
  revealed: byId('screen-revealed'),
  message: byId('screen-message'),
};
type ScreenName = keyof typeof screens;

const readyTitle = byId('ready-title');
const lastView = byId('last-view');
const factViews = byId('fact-views');
const factExpires = byId('fact-expires');
const factNotBeforeRow = byId('fact-not-before-row');
const factNotBefore = byId('fact-not-before');
const revealForm = byId<HTMLFormElement>('reveal-form');
const passphraseField = byId('passphrase-field');
const passphraseLabel = passphraseField.querySelector('label')!;
const passphraseHint = byId('passphrase-hint');
const passphrase = byId<HTMLInputElement>('passphrase');
const revealError = byId('reveal-error');
const revealErrorTitle = byId('reveal-error-title');
const revealErrorText = byId('reveal-error-text');
const revealButton = byId<HTMLButtonElement>('reveal-button');

const revealedTitle = byId('revealed-title');
const secretText = byId<HTMLTextAreaElement>('secret-text');
const copySecret = byId<HTMLButtonElement>('copy-secret');
const revealedNote = byId('revealed-note');

const messageTitle = byId('message-title');
const messageText = byId('message-text');
const messageDetail = byId('message-detail');
const messageRetry = byId<HTMLButtonElement>('message-retry');

/** Metadata of the secret as last read; the salt and KDF parameters come from here. */
let metadata: SecretMetadata | null = null;
/** True / false when the server says; null when it does not (older servers). */
let needsPassphrase: boolean | null = null;
let retryAction: (() => void) | null = null;

function show(name: ScreenName): void {
  for (const [screen, element] of Object.entries(screens)) setVisible(element, screen === name);
  document.documentElement.dataset['screen'] = name;
}

interface Message {
  /** Stable name, set on the page as `data-message` (tests and styling read it). */
  id: string;
  title: string;
  text: string;
  detail?: string | Node[];
  retry?: () => void;
  retryLabel?: string;
}

function showMessage(message: Message): void {
  messageTitle.textContent = message.title;
  messageText.textContent = message.text;
  if (message.detail === undefined) {
    messageDetail.replaceChildren();
    setVisible(messageDetail, false);
  } else {
    messageDetail.replaceChildren(...(typeof message.detail === 'string' ? [message.detail] : message.detail));
    setVisible(messageDetail, true);
  }
  retryAction = message.retry ?? null;
  messageRetry.textContent = message.retryLabel ?? 'Try again';
  setVisible(messageRetry, retryAction !== null);
  screens.message.dataset['message'] = message.id;
  document.title = `Hushlink: ${message.title}`;
  show('message');
  announce('');
  focusHeading(messageTitle);
}

const messages = {
  missingKey: (): Message => ({
    id: 'missing-key',
    title: 'This link is incomplete',
    text: 'The part of the link after “#” holds the key, and it is missing or damaged. Open the exact link you were sent, copied in full. (The key is removed from the address bar once read, so reloading this page cannot work: open the original link again.)',
  }),
  notFound: (): Message => ({
    id: 'not-found',
    title: 'No secret here',
    text: 'There is no secret at this link: it never existed, or it ended so long ago that no trace is left. Check that the whole link was copied.',
  }),
  gone: (state: string | undefined): Message => {
    const texts: Record<string, string> = {
      burned: 'This secret has already been viewed, as many times as the sender allowed, and it was deleted. If you did not open it, someone else did: tell the sender.',
      expired: 'This secret expired before it was opened, and it was deleted. Ask the sender to share it again.',
      revoked: 'The sender revoked this secret, and it was deleted.',
    };
    const titles: Record<string, string> = {
      burned: 'This secret is gone: already viewed',
      expired: 'This secret is gone: it expired',
      revoked: 'This secret is gone: it was revoked',
    };
    const known = state !== undefined && state in texts;
    return {
      id: `gone${known ? `-${state}` : ''}`,
      title: known ? titles[state]! : 'This secret is gone',
      text: known ? texts[state]! : 'This secret is no longer available, and it was deleted.',
    };
  },
  locked: (): Message => ({
    id: 'locked',
    title: 'This secret is locked',
    text: 'Too many attempts with a wrong passphrase or link were made, so the secret was locked and can no longer be opened. Ask the sender to share it again.',
  }),
  tooEarly: (notBefore: string | null | undefined): Message => ({
    id: 'too-early',
    title: 'Not yet',
    text: 'The sender set a time before which this secret cannot be opened. Nothing was used up; come back then.',
    ...(notBefore ? { detail: [document.createTextNode('It can be opened from '), timeElement(notBefore), document.createTextNode('.')] } : {}),
    retry: () => void loadMetadata(),
    retryLabel: 'Check again',
  }),
  rateLimited: (retryAfter: number | null, retry: () => void): Message => ({
    id: 'rate-limited',
    title: 'Too many attempts',
    text: 'Too many requests came from your network in a short time. Nothing was used up. Wait a little and try again.',
    ...(retryAfter !== null ? { detail: `Try again in ${plural(Math.max(1, retryAfter), 'second', 'seconds')}.` } : {}),
    retry,
  }),
  network: (retry: () => void): Message => ({
    id: 'network',
    title: 'Cannot reach Hushlink',
    text: 'The server could not be reached. Check your connection and try again; nothing was used up.',
    retry,
  }),
  unavailable: (): Message => ({
    id: 'unavailable',
    title: 'This secret cannot be opened',
    text: 'The secret is not ready to be opened. Ask the sender to share it again.',
  }),
  unexpected: (error: ApiError): Message => ({
    id: 'error',
    title: 'Something went wrong',
    text: 'The server could not answer this request. Try again in a moment.',
    detail: `${error.status} ${error.problem.detail ?? error.problem.title ?? ''}`.trim(),
    retry: () => void loadMetadata(),
  }),
  undecryptable: (code: EnvelopeErrorCode | 'unknown', viewsLeft: number): Message => {
    const texts: Record<EnvelopeErrorCode | 'unknown', string> = {
      not_envelope: 'What was stored is not a Hushlink secret this page can open.',
      unsupported_version: 'The secret was made by a newer version of Hushlink than this page can open.',
      malformed: 'The stored secret is damaged and cannot be opened.',
      salt_mismatch: 'The stored secret does not belong to this link.',
      wrong_key: 'The key in the link does not open this secret. The link was probably changed or cut short when it was copied.',
      wrong_passphrase: 'The passphrase does not open this secret.',
      passphrase_required: 'This secret needs a passphrase, and none was given.',
      tampered: 'The stored secret was altered or cut short, so it cannot be trusted and is not shown.',
      unknown: 'The secret could not be decrypted in this browser.',
    };
    return {
      id: `decrypt-failed-${code.replaceAll('_', '-')}`,
      title: 'The secret could not be decrypted',
      text: texts[code],
      detail: viewsLeft > 0
        ? `This attempt used a view (${plural(viewsLeft, 'view', 'views')} left). Ask the sender to check the link.`
        : 'This attempt used the last view, so the secret was deleted. Ask the sender to share it again.',
    };
  },
};

/** Where an API refusal leads; `retry` repeats what failed. */
function messageForError(error: ApiError, retry: () => void): Message {
  switch (error.status) {
    case 0:
      return messages.network(retry);
    case 404:
      return messages.notFound();
    case 410:
      return messages.gone(typeof error.problem.state === 'string' ? error.problem.state : undefined);
    case 423:
      return messages.locked();
    case 425:
      return messages.tooEarly(error.problem.not_before ?? metadata?.not_before);
    case 429:
      return messages.rateLimited(error.retryAfter, retry);
    default:
      return messages.unexpected(error);
  }
}

async function loadMetadata(): Promise<void> {
  show('loading');
  announce('Checking the link…');
  try {
    metadata = await api.readSecret(secretId);
  } catch (error) {
    if (error instanceof ApiError) showMessage(messageForError(error, () => void loadMetadata()));
    else throw error;
    return;
  }
  const meta = metadata;
  switch (meta.state) {
    case 'active':
      break;
    case 'locked':
      return showMessage(messages.locked());
    case 'burned':
    case 'expired':
    case 'revoked':
      return showMessage(messages.gone(meta.state));
    default:
      return showMessage(messages.unavailable());
  }
  if (meta.views_left <= 0) return showMessage(messages.gone('burned'));
  if (Date.parse(meta.expires_at) <= Date.now()) return showMessage(messages.gone('expired'));
  if (meta.not_before && Date.parse(meta.not_before) > Date.now()) return showMessage(messages.tooEarly(meta.not_before));
  showReady(meta);
}

function showReady(meta: SecretMetadata): void {
  needsPassphrase = typeof meta.passphrase === 'boolean' ? meta.passphrase : null;
  factViews.textContent = meta.views_left === 1
    ? '1 (this is the last one)'
    : `${meta.views_left} of ${meta.max_views}. Opening it uses one.`;
  setVisible(lastView, meta.views_left === 1);
  factExpires.replaceChildren(timeElement(meta.expires_at));
  setVisible(factNotBeforeRow, Boolean(meta.not_before));
  factNotBefore.replaceChildren(...(meta.not_before ? [timeElement(meta.not_before)] : []));

  // Shown when the server says the secret has a passphrase; when it does not say (older
  // servers), offered as optional.
  setVisible(passphraseField, needsPassphrase !== false);
  passphrase.required = needsPassphrase === true;
  passphraseLabel.textContent = needsPassphrase === true ? 'Passphrase' : 'Passphrase (only if the sender gave you one)';
  passphraseHint.textContent = needsPassphrase === true
    ? 'The sender protected this secret with a passphrase; they should have told you it separately.'
    : 'Leave empty unless the sender told you a passphrase.';
  setVisible(revealError, false);
  revealButton.disabled = false;
  document.title = 'Hushlink: a secret for you';
  show('ready');
  announce('');
  focusHeading(readyTitle);
}

function showRevealError(title: string, text: string): void {
  revealErrorTitle.textContent = title;
  revealErrorText.textContent = text;
  setVisible(revealError, true);
}

async function reveal(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (!metadata || !key || revealButton.disabled) return;
  const meta = metadata;
  const secret = passphraseField.hidden || passphrase.value === '' ? undefined : passphrase.value;
  passphrase.removeAttribute('aria-invalid');
  if (needsPassphrase === true && secret === undefined) {
    showRevealError('Passphrase needed', 'Enter the passphrase the sender gave you.');
    passphrase.setAttribute('aria-invalid', 'true');
    passphrase.focus();
    return;
  }
  const iterations = meta.kdf_iterations || iterationRange.default;
  if (secret !== undefined && (!Number.isInteger(iterations) || iterations < iterationRange.min || iterations > iterationRange.max)) {
    // Checked before running PBKDF2: a server cannot make this page spin on a huge count.
    showMessage(messages.undecryptable('malformed', meta.views_left));
    return;
  }

  setVisible(revealError, false);
  revealButton.disabled = true;
  revealButton.textContent = 'Opening…';
  announce(secret === undefined ? 'Opening…' : 'Checking the passphrase; this takes a moment…');
  try {
    const [claimToken, linkToken] = await Promise.all([
      claimTokenFor({ key, salt: meta.salt, passphrase: secret, iterations }),
      linkTokenFor({ key, salt: meta.salt }),
    ]);
    let claimed;
    try {
      claimed = await api.claimSecret(secretId, claimToken, linkToken);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return refused(error);
    }
    let text: string;
    try {
      text = await openText(fromBase64(claimed.envelope), { key, salt: claimed.salt, passphrase: secret });
    } catch (error) {
      const code = error instanceof EnvelopeError ? error.code : 'unknown';
      return showMessage(messages.undecryptable(code, claimed.views_left));
    }
    showRevealed(text, claimed.views_left);
  } finally {
    revealButton.disabled = false;
    revealButton.textContent = 'Reveal secret';
  }
}

/** A refused claim. A wrong passphrase keeps the form: the server used up no view. */
function refused(error: ApiError): void {
  if (error.status === 403 && error.code === 'proof_refused') {
    const left = typeof error.problem.attempts_left === 'number' ? error.problem.attempts_left : null;
    const attempts = left === null ? '' : ` ${plural(left, 'attempt', 'attempts')} left before the secret is locked.`;
    if (needsPassphrase === false) {
      showMessage({
        id: 'wrong-key',
        title: 'This link does not open this secret',
        text: 'The key in the link does not match. The link was probably changed or cut short when it was copied: ask the sender for it again.',
        detail: `No view was used.${attempts}`,
      });
      return;
    }
    showRevealError(
      'Wrong passphrase',
      needsPassphrase === true
        ? `That passphrase is not right. No view was used: the secret is still there.${attempts}`
        : `The passphrase (or the link) is not right. No view was used: the secret is still there.${attempts}`,
    );
    announce('');
    passphrase.setAttribute('aria-invalid', 'true');
    passphrase.focus();
    passphrase.select();
    return;
  }
  if (error.status === 0) {
    showRevealError('Cannot reach Hushlink', 'The server could not be reached. Nothing was used up; try again.');
    announce('');
    return;
  }
  showMessage(messageForError(error, () => void loadMetadata()));
}

function showRevealed(text: string, viewsLeft: number): void {
  passphrase.value = '';
  secretText.value = text;
  revealedNote.textContent = viewsLeft === 0
    ? 'This was the last view: the secret has been deleted from the server. Copy it now if you need it; once you leave this page it is gone.'
    : `${plural(viewsLeft, 'view', 'views')} left. Once you leave this page, opening the link again uses another.`;
  document.title = 'Hushlink: your secret';
  show('revealed');
  announce('The secret is shown.');
  focusHeading(revealedTitle);
}

revealForm.addEventListener('submit', (event) => void reveal(event));
// Leaving the page takes the plaintext and passphrase off it, should the browser keep the page.
window.addEventListener('pagehide', () => {
  secretText.value = '';
  passphrase.value = '';
});
copySecret.addEventListener('click', () => void copyField(secretText, copySecret, 'Secret'));
messageRetry.addEventListener('click', () => retryAction?.());

if (!secretId) showMessage(messages.notFound());
else if (!key) showMessage(messages.missingKey());
else void loadMetadata();
document.documentElement.dataset['ready'] = 'reveal';
