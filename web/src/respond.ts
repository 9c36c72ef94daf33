/**
 * Responder page `/q/{id}#<fp>.<s>` (issue 14; docs/envelope.md "Request links"). Reads the
 * fragment and removes it from the address bar at once; reads the request (public), and checks
 * the served public key against the link's fingerprint before anything can be typed: a key that
 * does not match ends the page with nothing sent. Then shows the prompt (opened with a key from
 * `s`) and takes a text or a file, sealed under a fresh key as any secret is, that key wrapped
 * to the requester with HPKE (PSK from `s`), and sent. The fragment, the text and the file stay
 * in this page's memory; the page stores nothing.
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { holdLanguageSwitch, locale, t, tNodes } from './i18n.ts';
import {
  checkServedKey,
  decodePublicKey,
  EnvelopeError,
  fromBase64,
  fromBase64Url,
  openPrompt,
  parseRequestFragment,
  sealText,
  toBase64,
  wrapResponseKey,
  type RequestKem,
  type RequestLink,
} from '../../shared/envelope/index.ts';
import { secretLimits } from '../../shared/limits.ts';
import { ApiError, problemText } from './api.ts';
import { announce, byId, focusHeading, setVisible, timeElement } from './dom.ts';
import { formatBytes } from './progress.ts';
import { chosenFile, resetFile, sendFileResponse } from './respondFile.ts';
import { endingMessage, respondMessages } from './respondMessages.ts';
import { dataNode, type Message } from './revealMessages.ts';
import { requestsApi, type ServedRequest } from './requestsApi.ts';
import { UploadCancelled, UploadFailed } from './fileUpload.ts';
import { messageScreen, screenSwitcher } from './screens.ts';
import { startNav } from './nav.ts';

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// Read the fragment, then take it out of the address bar (and so out of history, bookmarks and
// screenshots of it) before anything else happens.
const fragment = safeDecode(location.hash.replace(/^#/, '')).trim();
if (location.hash) history.replaceState(null, '', location.pathname);
// The key is gone from the address bar, so a reload could not open the link again: the switcher waits for the next page.
holdLanguageSwitch(() => fragment !== '');
const requestId = safeDecode(location.pathname.split('/')[2] ?? '');
const link: RequestLink | null = (() => {
  try {
    return parseRequestFragment(fragment);
  } catch {
    return null;
  }
})();

const messageScreenElement = byId('screen-message');
const show = screenSwitcher({
  loading: byId('screen-loading'),
  ready: byId('screen-ready'),
  upload: byId('screen-upload'),
  sent: byId('screen-sent'),
  message: messageScreenElement,
});
const showMessageScreen = messageScreen(messageScreenElement, () => show('message'));

const readyTitle = byId('ready-title');
const promptBox = byId('prompt-box');
const promptText = byId('prompt-text');
const noPrompt = byId('no-prompt');
const factLeft = byId('fact-left');
const factExpires = byId('fact-expires');
const form = byId<HTMLFormElement>('respond-form');
const fields = byId<HTMLFieldSetElement>('respond-fields');
const text = byId<HTMLTextAreaElement>('respond-text');
const fileInput = byId<HTMLInputElement>('respond-file');
const errors = byId('respond-errors');
const errorsTitle = byId('respond-errors-title');
const errorsText = byId('respond-errors-text');
const sendButton = byId<HTMLButtonElement>('send-button');
const sentTitle = byId('sent-title');
const sentText = byId('sent-text');
const sendAnother = byId<HTMLButtonElement>('send-another');

/** The request's key, checked against the link's fingerprint: set only once it matched. */
let target: { kem: RequestKem; publicKey: Uint8Array } | null = null;

/** A message screen ends the page's request: nothing typed or chosen is kept. */
function showMessage(message: Message): void {
  target = null;
  fields.disabled = true;
  text.value = '';
  resetFile();
  showMessageScreen(message);
}

async function load(): Promise<void> {
  if (!link) return showMessage(respondMessages.badLink());
  target = null;
  fields.disabled = true;
  show('loading');
  announce(t('respond.loading.title'));
  let served: ServedRequest;
  try {
    served = await requestsApi.read(requestId);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return showMessage(endingMessage(error, () => void load()) ?? respondMessages.unexpected(error, () => void load()));
  }
  // The key first: a request whose key is not the link's gets no answer, whatever else it says.
  let publicKey: Uint8Array;
  try {
    publicKey = decodePublicKey(served.kem, served.public_key);
    await checkServedKey(publicKey, link.fingerprint);
  } catch {
    return showMessage(respondMessages.keyMismatch());
  }
  if (!served.open) {
    if (Date.parse(served.expires_at) <= Date.now()) return showMessage(respondMessages.expired(served.expires_at));
    return showMessage(served.responses_left <= 0 ? respondMessages.full() : respondMessages.closed());
  }
  let question: string | null = null;
  if (served.prompt_envelope) {
    try {
      question = await openPrompt(fromBase64(served.prompt_envelope), link);
    } catch {
      return showMessage(respondMessages.damagedLink());
    }
  }
  target = { kem: served.kem, publicKey };
  showReady(served, question);
}

function showReady(served: ServedRequest, question: string | null): void {
  promptText.textContent = question ?? '';
  setVisible(promptBox, question !== null);
  setVisible(noPrompt, question === null);
  const lastOne = served.responses_left === 1;
  factLeft.textContent = lastOne
    ? t('respond.ready.leftLastOne', { left: served.responses_left })
    : new Intl.NumberFormat(locale).format(served.responses_left);
  factExpires.replaceChildren(timeElement(served.expires_at));
  setVisible(errors, false);
  fields.disabled = false;
  document.title = t('respond.documentTitle');
  show('ready');
  announce(question === null ? t('respond.ready.announce') : t('respond.ready.announcePrompt'));
  focusHeading(readyTitle);
}

function showError(title: string, sentence: string, invalid?: HTMLElement): void {
  errorsTitle.textContent = title;
  errorsText.textContent = sentence;
  setVisible(errors, true);
  announce('');
  if (invalid) {
    invalid.setAttribute('aria-invalid', 'true');
    invalid.focus();
  } else errors.focus();
}

/** Wraps a fresh key to the requester: the served key is checked against the link once more. */
const wrapFor = (responseKey: Uint8Array) =>
  wrapResponseKey({ ...link!, requestId, kem: target!.kem, publicKey: target!.publicKey, responseKey });

async function send(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (!target || !link || fields.disabled) return;
  setVisible(errors, false);
  text.removeAttribute('aria-invalid');
  const file = chosenFile();
  if (!file && text.value.length === 0) return showError(t('respond.empty.title'), t('respond.empty.text'), text);
  if (!file && new TextEncoder().encode(text.value).length > secretLimits.textEnvelopeBytes - 256) {
    return showError(t('respond.tooLong.title'), t('respond.tooLong.text'), text);
  }
  fields.disabled = true;
  sendButton.textContent = t('respond.form.encrypting');
  announce(t('respond.form.encrypting'));
  try {
    if (file) {
      await sendFileResponse(file, { requestId, wrap: wrapFor, showUpload: () => show('upload') });
      return done(tNodes('respond.sent.file', { name: dataNode(file.name), size: formatBytes(file.size) }));
    }
    const sealed = await sealText(text.value);
    const wrapped = await wrapFor(fromBase64Url(sealed.key));
    await requestsApi.respond(requestId, {
      kind: 'text',
      envelope: toBase64(sealed.envelope),
      salt: sealed.salt,
      size_bytes: sealed.envelope.length,
      enc: wrapped.enc,
      wrapped_key: wrapped.wrappedKey,
    });
    done([t('respond.sent.text')]);
  } catch (error) {
    failed(error);
  } finally {
    sendButton.textContent = t('respond.form.send');
  }
}

/** Why nothing was sent. A refusal that no retry can help ends on its screen; anything else keeps what was typed. */
function failed(error: unknown): void {
  if (error instanceof EnvelopeError && error.code === 'key_mismatch') return showMessage(respondMessages.keyMismatch());
  if (error instanceof ApiError && error.status !== 0 && error.status !== 429) {
    const ending = endingMessage(error, () => void load());
    if (ending) return showMessage(ending);
  }
  show('ready');
  fields.disabled = false;
  if (error instanceof UploadCancelled) return showError(t('respond.uploadCancelled.title'), t('respond.uploadCancelled.text'));
  if (error instanceof UploadFailed)
    return showError(t('respond.uploadFailed.title'), t('respond.uploadFailed.text', { reason: error.message }));
  if (!(error instanceof ApiError))
    return showError(t('respond.notSent.title'), t('respond.notSent.encryptionFailed', { reason: (error as Error).message }));
  if (error.status === 0) return showError(t('respond.network.title'), t('respond.sendNetwork.text'));
  if (error.status === 429) {
    return showError(
      t('respond.rateLimited.title'),
      error.retryAfter === null
        ? t('respond.sendRateLimited.text')
        : t('respond.sendRateLimited.textSeconds', { seconds: Math.max(1, error.retryAfter) }),
    );
  }
  if (error.problem.reason === 'plan_limit') {
    const limit = Number(error.problem.limit_bytes);
    return showError(
      t('respond.planLimit.title'),
      Number.isFinite(limit) ? t('respond.planLimit.text', { size: formatBytes(limit) }) : t('respond.planLimit.textSmaller'),
      fileInput,
    );
  }
  if (error.problem.reason === 'busy') return showError(t('respond.notSent.title'), t('respond.notSent.busy'));
  showError(t('respond.notSent.title'), problemText(error));
}

function done(sentence: (string | Node)[]): void {
  text.value = '';
  resetFile();
  target = null;
  sentText.replaceChildren(...sentence);
  document.title = t('respond.sent.documentTitle');
  show('sent');
  announce(t('respond.sent.announce'));
  focusHeading(sentTitle);
}

form.addEventListener('submit', (event) => void send(event));
sendAnother.addEventListener('click', () => void load());
// The link pasted again onto this page changes only the fragment, which loads nothing: load it
// afresh, so that it is read (and taken out of the address bar) like the first.
window.addEventListener('hashchange', () => location.reload());
// Leaving the page takes what was typed off it, should the browser keep the page.
window.addEventListener('pagehide', () => {
  text.value = '';
});

if (!requestId) showMessage(respondMessages.notFound());
else void load();
void startNav();
document.documentElement.dataset.ready = 'respond';
