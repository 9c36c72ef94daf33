/**
 * "Request a secret" `/requests`: makes a request link (issue 14, docs/envelope.md "Request
 * links"). The key pair is made here, its private key a non-extractable CryptoKey kept in
 * IndexedDB with the link's fingerprint and sealed secret `s` (`requestKeys.ts`); the prompt is
 * sealed with a key from `s`, so the server stores a public key and ciphertext only. The link
 * `url_base#<fp>.<s>` is shown with Copy and a QR code; below, the caller's requests
 * (`requestItems.ts`), each with its inbox (`requestInbox.ts`). An optional private label is
 * sealed in this browser (`labelKeys.ts`). While the page is visible the list is read again
 * every 15 seconds, and when the page is shown or focused again, so new responses appear.
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { t } from './i18n.ts';
import {
  encodePublicKey,
  generateRequesterKeys,
  newLinkSecret,
  publicKeyFingerprint,
  requestFragment,
  sealPrompt,
  toBase64,
} from '../../shared/envelope/index.ts';
import { requestLimits } from '../../shared/limits.ts';
import { ApiError, problemMessages } from './api.ts';
import { markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { announce, byId, copyField, describeTime, focusHeading, setVisible } from './dom.ts';
import { qrSvg } from './qr.ts';
import { keepRequest, keptRequestIds, KeyStoreUnavailable, openKeyStore } from './requestKeys.ts';
import { requestItem, requestName, requestUpdated } from './requestItems.ts';
import { LabelStoreUnavailable, LabelTooLong, sealLabel } from './labelKeys.ts';
import { requestsApi } from './requestsApi.ts';
import { pagedList } from './pagedList.ts';
import { SignedOutError, withAccess } from './session.ts';

const pageSize = 20;

const section = byId('requests-page');
const unavailable = byId('keys-unavailable');
const form = byId<HTMLFormElement>('request-form');
const fields = byId<HTMLFieldSetElement>('request-fields');
const prompt = byId<HTMLTextAreaElement>('request-prompt');
const expiry = byId<HTMLSelectElement>('request-expiry');
const maxResponses = byId<HTMLInputElement>('request-max');
const label = byId<HTMLInputElement>('request-label');
const labelError = byId('request-label-error');
const errors = byId('request-errors');
const errorList = byId<HTMLUListElement>('request-error-list');
const createButton = byId<HTMLButtonElement>('create-request');

const result = byId('request-result');
const resultTitle = byId('result-title');
const linkField = byId<HTMLInputElement>('request-link');
const copyLink = byId<HTMLButtonElement>('copy-request-link');
const summary = byId<HTMLUListElement>('result-summary');
const persistNote = byId('result-persist');
const qrCode = byId('request-qr');
const another = byId<HTMLButtonElement>('request-another');

const listError = byId('list-error');
const empty = byId('requests-empty');
const list = byId<HTMLUListElement>('requests');
const loadMore = byId<HTMLButtonElement>('load-more');

function clearErrors(): void {
  errorList.replaceChildren();
  setVisible(errors, false);
  for (const field of [prompt, maxResponses, label]) field.removeAttribute('aria-invalid');
  setVisible(labelError, false);
}

/** The label's refusal beside it (too long, or no key store for labels here). */
function showLabelError(message: string): void {
  labelError.textContent = message;
  setVisible(labelError, true);
  label.setAttribute('aria-invalid', 'true');
  label.focus();
}

function showErrors(messages: string[], invalid: HTMLElement | null): void {
  errorList.replaceChildren(
    ...messages.map((message) => {
      const item = document.createElement('li');
      item.textContent = message;
      return item;
    }),
  );
  setVisible(errors, true);
  if (invalid) {
    invalid.setAttribute('aria-invalid', 'true');
    invalid.focus();
  } else errors.focus();
}

/** The form's own checks; the server checks again. */
function validate(): { messages: string[]; invalid: HTMLElement | null } {
  const messages: string[] = [];
  let invalid: HTMLElement | null = null;
  // The sealed prompt's limit, less the envelope's header and tag (about 80 bytes).
  if (new TextEncoder().encode(prompt.value).length > requestLimits.promptEnvelopeBytes - 128) {
    messages.push(t('requests.form.promptTooLong'));
    invalid = prompt;
  }
  const count = Number(maxResponses.value);
  const { min, max } = requestLimits.maxResponses;
  if (maxResponses.value === '' || !Number.isInteger(count) || count < min || count > max) {
    messages.push(t('requests.form.maxInvalid', { min, max }));
    invalid ??= maxResponses;
  }
  return { messages, invalid };
}

async function create(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (fields.disabled) return;
  clearErrors();
  const checked = validate();
  if (checked.messages.length > 0) return showErrors(checked.messages, checked.invalid);
  let labelEnvelope: string | undefined;
  try {
    labelEnvelope = await sealLabel(label.value);
  } catch (error) {
    // Their messages are the page's language's (labelKeys.ts).
    if (error instanceof LabelTooLong || error instanceof LabelStoreUnavailable) return showLabelError(error.message);
    throw error;
  }
  // Asked at the click: a browser may keep best-effort storage only while it has room.
  const persisted = navigator.storage?.persist?.().catch(() => false) ?? Promise.resolve(false);
  fields.disabled = true;
  createButton.textContent = t('requests.form.making');
  announce(t('requests.form.makingAnnounce'));
  try {
    // Before anything is sent: a browser that cannot keep the key must not publish a link to it.
    await openKeyStore();
    const keys = await generateRequesterKeys();
    const link = { fingerprint: await publicKeyFingerprint(keys.publicKey), linkSecret: newLinkSecret() };
    const question = prompt.value.trim();
    const responses = Number(maxResponses.value);
    const sealed = question ? await sealPrompt(question, link) : null;
    const created = await withAccess((token) =>
      requestsApi.create(token, {
        public_key: encodePublicKey(keys.publicKey),
        kem: keys.kem,
        ...(sealed ? { prompt_envelope: toBase64(sealed.envelope) } : {}),
        expires_in: Number(expiry.value),
        max_responses: responses,
        ...(labelEnvelope ? { label_envelope: labelEnvelope } : {}),
      }),
    );
    try {
      await keepRequest(created.id, created.url_base, keys, link);
    } catch (error) {
      // Nobody could ever open its responses: take the link down again.
      await withAccess((token) => requestsApi.close(token, created.id)).catch(() => undefined);
      throw error;
    }
    const shown = `${created.url_base}#${requestFragment(link.fingerprint, link.linkSecret)}`;
    form.reset();
    showResult(shown, created.expires_at, responses, question !== '');
    setVisible(persistNote, !(await persisted));
    await requests.reload();
  } catch (error) {
    announce('');
    if (error instanceof KeyStoreUnavailable) {
      setVisible(unavailable, true);
      showErrors([t('requests.form.keyNotKept')], null);
    } else if (error instanceof SignedOutError) showProblem(errors, error);
    else if (error instanceof ApiError) showErrors(problemMessages(error), null);
    else showErrors([t('requests.form.keyFailed', { error: (error as Error).message })], null);
  } finally {
    fields.disabled = false;
    createButton.textContent = t('requests.form.create');
  }
}

function showResult(link: string, expiresAt: string, responses: number, withPrompt: boolean): void {
  linkField.value = link;
  qrCode.replaceChildren(qrSvg(link, t('requests.result.qrLabel')));
  const facts = [
    t('requests.result.openUntil', { time: describeTime(expiresAt) }),
    t('requests.result.takesUpTo', { count: responses }),
    withPrompt ? t('requests.result.withQuestion') : t('requests.result.noQuestion'),
  ];
  summary.replaceChildren(
    ...facts.map((fact) => {
      const item = document.createElement('li');
      item.textContent = fact;
      return item;
    }),
  );
  setVisible(result, true);
  announce(t('requests.result.ready'));
  focusHeading(resultTitle);
}

function hideResult(): void {
  linkField.value = '';
  qrCode.replaceChildren();
  summary.replaceChildren();
  setVisible(result, false);
}

const requests = pagedList({
  list,
  empty,
  loadMore,
  error: listError,
  words: {
    retryObject: t('requests.list.retryObject'),
    loading: t('requests.list.loading'),
    moreListed: (count) => t('requests.list.moreListed', { count }),
    noMore: t('requests.list.noMore'),
  },
  listFailure: t('requests.list.failed'),
  fetchPage: async (cursor) => {
    const [page, kept] = await Promise.all([withAccess((token) => requestsApi.list(token, pageSize, cursor)), keptRequestIds()]);
    const named = await Promise.all(
      page.items.map(async (request) => ({ request, kept: kept.has(request.id), name: await requestName(request, kept.has(request.id)) })),
    );
    return {
      items: named,
      nextCursor: page.next_cursor,
      draw: (entry: (typeof named)[number]) => requestItem(entry.request, entry.kept, entry.name),
    };
  },
});

/** How often the list is read again while the page is visible: new responses appear without "Refresh". */
const pollEveryMs = 15_000;
let pollTimer: number | undefined;
let polling = false;

/** The first page again: each drawn card whose responses grew says so (its inbox reads them). */
async function poll(): Promise<void> {
  if (polling || document.visibilityState !== 'visible') return;
  polling = true;
  try {
    const page = await withAccess((token) => requestsApi.list(token, pageSize, null));
    for (const request of page.items) {
      const item = list.querySelector<HTMLLIElement>(`li[data-id="${CSS.escape(request.id)}"]`);
      if (item && requestUpdated(item, request)) {
        const name = item.querySelector('[data-role="name"]')?.textContent ?? request.id;
        announce(t('requests.list.newResponse', { name }));
      }
    }
  } catch {
    // A missed poll is not an error to show: the next one, or "Refresh", reads again.
  } finally {
    polling = false;
  }
}

/** Polls only while the page is visible: a hidden tab asks nothing. */
function schedulePolling(): void {
  window.clearInterval(pollTimer);
  pollTimer = undefined;
  if (document.visibilityState !== 'visible') return;
  pollTimer = window.setInterval(() => void poll(), pollEveryMs);
  void poll();
}

form.addEventListener('submit', (event) => void create(event));
copyLink.addEventListener('click', () => void copyField(linkField, copyLink, t('requests.result.linkWhat')));
linkField.addEventListener('focus', () => linkField.select());
another.addEventListener('click', () => {
  hideResult();
  announce('');
  prompt.focus();
});
// The link is in the list's "Show link" while this browser keeps its key; the page keeps no copy once left.
window.addEventListener('pagehide', () => {
  hideResult();
  prompt.value = '';
});

async function main(): Promise<void> {
  const user = await startSignedInPage(listError);
  if (!user) return;
  fields.disabled = false;
  await requests.reload();
  markReady('requests', section);
  document.addEventListener('visibilitychange', schedulePolling);
  window.addEventListener('focus', () => void poll());
  pollTimer = window.setInterval(() => void poll(), pollEveryMs);
}

void main();
