/**
 * Reveal page `/s/{id}#key`, and `/s/{id}/r/{recipientId}#key` for a per-recipient link. Reads
 * the key from the fragment and removes it from the address bar at once; reads metadata (which
 * claims nothing; a link's page asks about its link too); a restricted link first asks for the
 * address's emailed code (`revealGate.ts`); claims only when the person clicks "Reveal secret",
 * with the claim token derived from the key (and passphrase), so a wrong passphrase is refused
 * by the server without using up a view. A file's claim answers a download instead of the
 * envelope: `revealFile.ts` shows its name and size and saves it. The key and the gate session
 * live in memory only: never in web storage, cookies or a URL the page requests. A secret sent
 * in a branded workspace shows "Sent from <name> on Hushlink" above it all (`revealBranding.ts`).
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { holdLanguageSwitch, t, tNodes } from './i18n.ts';
import { claimTokenFor, EnvelopeError, fromBase64, iterationRange, linkTokenFor, openText } from '../../shared/envelope/index.ts';
import { api, ApiError, type ClaimedSecret, type SecretMetadata } from './api.ts';
import { announce, byId, copyField, focusHeading, setVisible, timeElement } from './dom.ts';
import { formatBytes } from './progress.ts';
import { showBranding } from './revealBranding.ts';
import { createFileReveal } from './revealFile.ts';
import { createGate } from './revealGate.ts';
import { dataNode, messageForError, messages } from './revealMessages.ts';
import { saveMethodFor } from './saveFile.ts';
import { messageScreen, screenSwitcher } from './screens.ts';
import { startNav } from './nav.ts';

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
// The key is gone from the address bar, so a reload could not open the link again: the switcher waits for the next page.
holdLanguageSwitch(() => fragment !== '');

// `/s/{id}` or `/s/{id}/r/{recipientId}` (the only shapes this page is served at).
const pathParts = location.pathname.split('/');
const secretId = safeDecode(pathParts[2] ?? '');
const recipientId: string | null = pathParts[3] === 'r' && pathParts[4] ? safeDecode(pathParts[4]) : null;
const key: string | null = keyPattern.test(fragment) ? fragment : null;

const messageScreenElement = byId('screen-message');
const show = screenSwitcher({
  loading: byId('screen-loading'),
  gate: byId('screen-gate'),
  ready: byId('screen-ready'),
  revealed: byId('screen-revealed'),
  file: byId('screen-file'),
  message: messageScreenElement,
});
const showMessage = messageScreen(messageScreenElement, () => show('message'));

const readyTitle = byId('ready-title');
const readyLede = byId('ready-lede');
const factSizeRow = byId('fact-size-row');
const factSize = byId('fact-size');
const gateConfirmed = byId('gate-confirmed');
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

/** Metadata of the secret as last read; the salt and KDF parameters come from here. */
let metadata: SecretMetadata | null = null;
/** True / false when the server says; null when it does not (older servers). */
let needsPassphrase: boolean | null = null;

const refusalContext = () => ({
  reload: () => void loadMetadata(),
  confirmAgain: () => gate?.open(),
  throughLink: recipientId !== null,
  notBefore: metadata?.not_before,
});

/** The gate of a restricted link (absent on a secret's own link). */
const fileReveal = createFileReveal({ show: () => show('file'), message: showMessage });

const gate =
  recipientId === null
    ? null
    : createGate(secretId, recipientId, {
        show: () => show('gate'),
        passed: (email) => {
          gateConfirmed.replaceChildren(...tNodes('reveal.gate.confirmed', { email: dataNode(email) }));
          setVisible(gateConfirmed, true);
          if (metadata) showReady(metadata);
          announce(t('reveal.gate.confirmedAnnounce'));
        },
        failed: (error) => showMessage(messageForError(error, refusalContext())),
      });

async function loadMetadata(): Promise<void> {
  show('loading');
  announce(t('reveal.loading.title'));
  try {
    metadata = await api.readSecret(secretId, recipientId ?? undefined);
  } catch (error) {
    if (error instanceof ApiError) showMessage(messageForError(error, refusalContext()));
    else throw error;
    return;
  }
  const meta = metadata;
  const link = meta.recipient;
  showBranding(meta.branding);
  if (meta.state === 'locked') return showMessage(messages.locked());
  // A secret shared with personal links opens through them only.
  if (recipientId === null && meta.has_recipients) return showMessage(messages.personalLink());
  if (link?.state === 'revoked') return showMessage(messages.recipientRevoked());
  // Without the key (a reload after the last view), a secret or link used up says it was opened.
  const withoutKey = key ? null : messages.openedAndGone(recipientId !== null);
  if (link && (link.state === 'used' || link.views_left <= 0)) return showMessage(withoutKey ?? messages.linkUsed());
  switch (meta.state) {
    case 'active':
      break;
    case 'pending':
      if (!key) return showMessage(messages.missingKey());
      return showMessage(messages.uploading(() => void loadMetadata()));
    case 'burned':
      return showMessage(withoutKey ?? messages.gone('burned'));
    case 'expired':
    case 'revoked':
      return showMessage(messages.gone(meta.state));
    default:
      return showMessage(messages.unavailable());
  }
  if (meta.views_left <= 0) return showMessage(withoutKey ?? messages.gone('burned'));
  if (Date.parse(meta.expires_at) <= Date.now()) return showMessage(messages.gone('expired'));
  // The secret is still there: what is missing is the key.
  if (!key) return showMessage(messages.missingKey());
  if (meta.not_before && Date.parse(meta.not_before) > Date.now())
    return showMessage(messages.tooEarly(meta.not_before, () => void loadMetadata()));
  // Decided before anything is claimed: a file this browser cannot save would waste the view.
  if (meta.kind === 'file' && saveMethodFor(meta.size_bytes ?? 0) === null)
    return showMessage(messages.cannotSave(formatBytes(meta.size_bytes ?? 0)));
  if (link?.restricted && gate && !gate.token()) return gate.open();
  showReady(meta);
}

function showReady(meta: SecretMetadata): void {
  needsPassphrase = typeof meta.passphrase === 'boolean' ? meta.passphrase : null;
  const isFile = meta.kind === 'file';
  readyTitle.textContent = isFile ? t('reveal.ready.fileTitle') : t('reveal.ready.title');
  readyLede.textContent = isFile ? t('reveal.ready.fileLede') : t('reveal.ready.lede');
  setVisible(factSizeRow, isFile);
  factSize.textContent = isFile ? t('reveal.ready.sizeAbout', { size: formatBytes(meta.size_bytes ?? 0) }) : '';
  revealButton.textContent = revealLabel();
  // Through a link, its own views: each link has `max_views` of its own.
  const viewsLeft = meta.recipient?.views_left ?? meta.views_left;
  const lastOne = viewsLeft === 1;
  factViews.textContent = lastOne
    ? t('reveal.ready.viewsLastOne', { left: viewsLeft })
    : t('reveal.ready.viewsOf', { left: viewsLeft, max: meta.max_views });
  setVisible(lastView, lastOne);
  factExpires.replaceChildren(timeElement(meta.expires_at));
  setVisible(factNotBeforeRow, Boolean(meta.not_before));
  factNotBefore.replaceChildren(...(meta.not_before ? [timeElement(meta.not_before)] : []));

  // Shown when the server says the secret has a passphrase; when it does not say (older
  // servers), offered as optional.
  setVisible(passphraseField, needsPassphrase !== false);
  passphrase.required = needsPassphrase === true;
  passphraseLabel.textContent = needsPassphrase === true ? t('reveal.ready.passphrase') : t('reveal.ready.passphraseOptional');
  passphraseHint.textContent =
    needsPassphrase === true ? t('reveal.ready.passphraseHintRequired') : t('reveal.ready.passphraseHintOptional');
  setVisible(revealError, false);
  revealButton.disabled = false;
  document.title = isFile ? t('reveal.ready.fileDocumentTitle') : t('reveal.documentTitle');
  show('ready');
  announce('');
  focusHeading(readyTitle);
}

const revealLabel = () => (metadata?.kind === 'file' ? t('reveal.ready.revealFile') : t('reveal.ready.reveal'));

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
    showRevealError(t('reveal.passphraseNeeded.title'), t('reveal.passphraseNeeded.text'));
    passphrase.setAttribute('aria-invalid', 'true');
    passphrase.focus();
    return;
  }
  const iterations = meta.kdf_iterations || iterationRange.default;
  if (secret !== undefined && (!Number.isInteger(iterations) || iterations < iterationRange.min || iterations > iterationRange.max)) {
    // Checked before running PBKDF2: a server cannot make this page spin on a huge count.
    showMessage(messages.undecryptable('malformed', meta.recipient?.views_left ?? meta.views_left));
    return;
  }

  setVisible(revealError, false);
  revealButton.disabled = true;
  revealButton.textContent = t('reveal.ready.opening');
  announce(secret === undefined ? t('reveal.ready.opening') : t('reveal.ready.checkingPassphrase'));
  try {
    const [claimToken, linkToken] = await Promise.all([
      claimTokenFor({ key, salt: meta.salt, passphrase: secret, iterations }),
      linkTokenFor({ key, salt: meta.salt }),
    ]);
    let claimed: ClaimedSecret;
    try {
      const gateToken = gate?.token();
      claimed = await api.claimSecret(
        secretId,
        claimToken,
        linkToken,
        recipientId === null ? undefined : { recipientId, ...(gateToken ? { gateToken } : {}) },
      );
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return refused(error);
    }
    // The session did its work; a new view needs a new page, and a new confirmation.
    gate?.forget();
    if (claimed.kind === 'file') return await fileReveal.open(claimed, { key, salt: claimed.salt, passphrase: secret });
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
    revealButton.textContent = revealLabel();
  }
}

/** A refused claim. A wrong passphrase keeps the form: the server used up no view. */
function refused(error: ApiError): void {
  if (error.status === 403 && error.code === 'proof_refused') {
    const left = typeof error.problem.attempts_left === 'number' ? error.problem.attempts_left : null;
    if (needsPassphrase === false) {
      showMessage({
        id: 'wrong-key',
        title: t('reveal.wrongKey.title'),
        text: t('reveal.wrongKey.text'),
        detail: left === null ? t('reveal.wrongKey.detail') : t('reveal.wrongKey.detailAttempts', { count: left }),
      });
      return;
    }
    showRevealError(t('reveal.wrongPassphrase.title'), wrongPassphraseText(left));
    announce('');
    passphrase.setAttribute('aria-invalid', 'true');
    passphrase.focus();
    passphrase.select();
    return;
  }
  if (error.status === 0) {
    showRevealError(t('reveal.network.title'), t('reveal.claimNetwork.text'));
    announce('');
    return;
  }
  // A restricted link whose confirmation ran out (or never was): ask for the address again.
  if (error.status === 401 && error.code === 'gate_required' && gate) {
    setVisible(gateConfirmed, false);
    return gate.open('expired');
  }
  if (error.code === 'gate_refused') gate?.forget();
  showMessage(messageForError(error, refusalContext()));
}

/** A wrong passphrase (or, when the server does not say whether there is one, link), and the attempts left if told. */
function wrongPassphraseText(left: number | null): string {
  if (needsPassphrase === true)
    return left === null ? t('reveal.wrongPassphrase.text') : t('reveal.wrongPassphrase.textAttempts', { count: left });
  return left === null ? t('reveal.wrongPassphrase.orLinkText') : t('reveal.wrongPassphrase.orLinkTextAttempts', { count: left });
}

function showRevealed(text: string, viewsLeft: number): void {
  passphrase.value = '';
  secretText.value = text;
  const last = recipientId === null ? t('reveal.revealed.lastView') : t('reveal.revealed.lastViewLink');
  revealedNote.textContent = viewsLeft === 0 ? last : t('reveal.revealed.viewsLeft', { count: viewsLeft });
  document.title = t('reveal.revealed.documentTitle');
  show('revealed');
  announce(t('reveal.revealed.announce'));
  focusHeading(revealedTitle);
}

revealForm.addEventListener('submit', (event) => void reveal(event));
// Leaving the page takes the plaintext and passphrase off it, should the browser keep the page.
window.addEventListener('pagehide', () => {
  secretText.value = '';
  passphrase.value = '';
  gate?.forget();
});
copySecret.addEventListener('click', () => void copyField(secretText, copySecret, t('reveal.revealed.copyWhat')));

// Without a key the page still asks what state the secret is in (a read that needs no key and
// claims nothing): after the last view a reload finds the key gone from the address bar, and the
// page says the secret was opened rather than that the link is incomplete (ADR 0182).
if (!secretId) showMessage(messages.notFound());
else void loadMetadata();
void startNav();
document.documentElement.dataset.ready = 'reveal';
