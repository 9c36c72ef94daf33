/**
 * Compose page: encrypts in this browser, stores the ciphertext, shows the link (`url_base#key`),
 * or one per recipient when it was given personal links (`composeResult.ts`, `composeLinks.ts`).
 * A secret is a text, sent whole to `POST /v1/secrets`, or a file, sealed chunk by chunk as it
 * uploads straight to the files bucket (`composeFile.ts`).
 * The key, passphrase, text and file stay in this page's memory; nothing of them goes to web storage.
 * Signed in (`session.ts`), the secret is created with the access token and gets an owner, and
 * may be sent in one of the person's workspaces, held to its policy (`composeWorkspace.ts`);
 * anonymous, "Keep for my account" puts its `{id, delete_token, expires_at}` in localStorage
 * (`unattached.ts`) so it can be attached to an account later.
 * Opened from a chat link (`/#chat=…`), the chat user is told when it is opened (`composeChat.ts`).
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { holdLanguageSwitch, locale, t, tNodes } from './i18n.ts';
import { sealText, toBase64 } from '../../shared/envelope/index.ts';
import { api, ApiError, type RecipientRequest } from './api.ts';
import { chosenFile, fileProblem, planLimitMessage, resetFile, sendFile, useCaller } from './composeFile.ts';
import { clearRecipientErrors, readRecipients, resetRecipients, type FieldError } from './composeLinks.ts';
import {
  clearComposeErrors,
  problemsOf,
  showComposeErrors,
  updateOptionsSummary,
  watchComposeFields,
  type Problem,
} from './composeErrors.ts';
import { speakIn } from './composePolicy.ts';
import { clearResult, showResult, type ResultSecret } from './composeResult.ts';
import { endChatLink, subscribeChat } from './composeChat.ts';
import {
  applyLimits,
  forgetWorkspaces,
  loadWorkspaces,
  sendWithAccess,
  workspaceField,
  workspaceProblems,
  workspaceRefusal,
} from './composeWorkspace.ts';
import { announce, byId, focusHeading, setVisible } from './dom.ts';
import { filesApi } from './filesApi.ts';
import { UploadCancelled, UploadFailed } from './fileUpload.ts';
import { renderNav } from './nav.ts';
import { LabelStoreUnavailable, LabelTooLong, sealLabel } from './labelKeys.ts';
import { formatBytes } from './progress.ts';
import { resume, SignedOutError, withAccess } from './session.ts';

const limits = {
  expiresIn: { min: 60, max: 30 * 24 * 3600 },
  maxViews: { min: 1, max: 100 },
  /** The API takes text envelopes up to 256 KiB; the header and tag take about 100 bytes. */
  textBytes: 256 * 1024 - 256,
};

const form = byId<HTMLFormElement>('compose-form');
const fields = byId<HTMLFieldSetElement>('compose-fields');
const text = byId<HTMLTextAreaElement>('secret-text');
// A reload would lose a draft, a chosen file or the new link: the switcher waits for the next page.
holdLanguageSwitch(() => text.value !== '' || chosenFile() !== null || !byId('result').hidden);
const expiry = byId<HTMLSelectElement>('expiry');
const customExpiry = byId('custom-expiry');
const customAmount = byId<HTMLInputElement>('custom-expiry-amount');
const customUnit = byId<HTMLSelectElement>('custom-expiry-unit');
const maxViews = byId<HTMLInputElement>('max-views');
const passphrase = byId<HTMLInputElement>('passphrase');
const notBefore = byId<HTMLInputElement>('not-before');
const label = byId<HTMLInputElement>('secret-label');
const createButton = byId<HTMLButtonElement>('create-button');
const composeSection = byId('compose');
const composeTitle = byId('compose-title');
const createAnother = byId<HTMLButtonElement>('create-another');
const ownerNote = byId('compose-owner');

// The policy's words (durations, lists, rules, sizes) in the page's language.
speakIn(locale, t, formatBytes);

/** The sentences with an element in them: the address (filled by nav.ts), a link, emphasis. */
function localizeSentences(): void {
  const email = ownerNote.querySelector('[data-user-email]')!;
  const mySecrets = ownerNote.querySelector('a')!;
  mySecrets.textContent = t('compose.owner.mySecrets');
  ownerNote.replaceChildren(...tNodes('compose.owner.note', { email, mySecrets }));
  const passphraseHint = byId('passphrase-hint');
  const inAdditionTo = passphraseHint.querySelector('strong')!;
  inAdditionTo.textContent = t('compose.passphrase.inAdditionTo');
  passphraseHint.replaceChildren(...tNodes('compose.passphrase.hint', { inAdditionTo }));
}
localizeSentences();

/** Whether this tab is signed in: settled by one refresh at load (none when it holds no session). */
const signedIn: Promise<boolean> = resume().then(
  (user) => user !== null,
  () => false,
);
void signedIn.then(showSignedIn);

/** The plan that limits a file, asked once when a file is first checked (`GET /v1/usage`). */
let plan: ReturnType<typeof filesApi.usage> | null = null;
useCaller(async () => {
  if (!(await signedIn)) return 'anonymous';
  plan ??= withAccess((token) => filesApi.usage(token)).catch((error: unknown) => {
    plan = null;
    throw error;
  });
  return (await plan).plan;
});

function showSignedIn(yes: boolean): void {
  renderNav();
  setVisible(ownerNote, yes);
  if (yes) void loadWorkspaces();
  else forgetWorkspaces();
}

function expiresInSeconds(): number {
  if (expiry.value !== 'custom') return Number(expiry.value);
  return Number(customAmount.value) * Number(customUnit.value);
}

/** The private label sealed in this browser (labelKeys.ts), or a problem on its field. */
async function sealedLabel(): Promise<{ label_envelope?: string } | FieldError> {
  try {
    const sealed = await sealLabel(label.value);
    return sealed === undefined ? {} : { label_envelope: sealed };
  } catch (error) {
    if (error instanceof LabelTooLong || error instanceof LabelStoreUnavailable) return { field: label, message: error.message };
    throw error;
  }
}

async function validate(): Promise<{
  errors: FieldError[];
  notBeforeIso?: string;
  recipients: RecipientRequest[];
  label: { label_envelope?: string };
}> {
  const found: FieldError[] = [];
  const file = chosenFile();
  if (file) {
    const problem = await fileProblem();
    if (problem) found.push(problem);
  } else if (text.value.length === 0) found.push({ field: text, message: t('compose.error.textMissing') });
  else if (new TextEncoder().encode(text.value).length > limits.textBytes) {
    found.push({ field: text, message: t('compose.error.textTooLong') });
  }

  const seconds = expiresInSeconds();
  if (expiry.value === 'custom') {
    if (
      !Number.isInteger(Number(customAmount.value)) ||
      customAmount.value === '' ||
      seconds < limits.expiresIn.min ||
      seconds > limits.expiresIn.max
    ) {
      found.push({ field: customAmount, message: t('compose.error.customExpiry') });
    }
  }

  const views = Number(maxViews.value);
  if (maxViews.value === '' || !Number.isInteger(views) || views < limits.maxViews.min || views > limits.maxViews.max) {
    found.push({ field: maxViews, message: t('compose.error.views') });
  }

  let notBeforeIso: string | undefined;
  if (notBefore.value) {
    // datetime-local has no zone: `new Date` reads it as local time, toISOString gives UTC.
    const at = new Date(notBefore.value).getTime();
    if (Number.isNaN(at)) {
      found.push({ field: notBefore, message: t('compose.error.notBeforeInvalid') });
    } else if (at >= Date.now() + seconds * 1000) {
      found.push({ field: notBefore, message: t('compose.error.notBeforeLate') });
    } else {
      notBeforeIso = new Date(at).toISOString();
    }
  }
  const { recipients, errors: recipientErrors } = readRecipients();
  found.push(...recipientErrors);
  // The workspace's rules after the form's own: one message per field.
  const settings = { expiresIn: seconds, custom: expiry.value === 'custom', views, withPassphrase: passphrase.value !== '', recipients };
  for (const problem of workspaceProblems(settings)) if (!found.some((error) => error.field === problem.field)) found.push(problem);
  // Sealed last, and only for a form otherwise fine: the first label makes this browser's key.
  const sealed = found.length === 0 ? await sealedLabel() : {};
  if ('field' in sealed) found.push(sealed);
  return { errors: found, recipients, label: 'field' in sealed ? {} : sealed, ...(notBeforeIso ? { notBeforeIso } : {}) };
}

function clearErrors(): void {
  clearComposeErrors();
  clearRecipientErrors();
}

function showErrors(problems: Problem[] | string[], title?: string): void {
  clearRecipientErrors();
  showComposeErrors(
    problems.map((problem) => (typeof problem === 'string' ? { field: null, message: problem } : problem)),
    title,
  );
}

async function create(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (fields.disabled) return;
  clearErrors();
  fields.disabled = true;
  const checked = await validate();
  if (checked.errors.length > 0) {
    fields.disabled = false;
    showErrors(checked.errors);
    return;
  }
  createButton.textContent = t('compose.encrypting');
  announce(passphrase.value ? t('compose.encryptingPassphrase') : t('compose.encrypting'));
  const settings = {
    expires_in: expiresInSeconds(),
    max_views: Number(maxViews.value),
    ...(checked.notBeforeIso ? { not_before: checked.notBeforeIso } : {}),
    ...(checked.recipients.length > 0 ? { recipients: checked.recipients } : {}),
    ...workspaceField(),
    ...checked.label,
  };
  try {
    // POST /v1/secrets and /v1/files/multipart are open to anonymous callers, so a stale token answers 403, not 401.
    const owned = await signedIn;
    const file = chosenFile();
    if (file) {
      const { upload, key } = await sendFile(passphrase.value, settings, (body) =>
        owned ? sendWithAccess((token) => filesApi.openUpload(body, token)) : filesApi.openUpload(body),
      );
      return done(
        {
          ...upload,
          max_views: settings.max_views,
          not_before: settings.not_before ?? null,
          file: { name: file.name, size: formatBytes(file.size) },
        },
        key,
        owned,
      );
    }
    const sealed = await sealText(text.value, passphrase.value ? { passphrase: passphrase.value } : {});
    const body = {
      kind: 'text',
      envelope: toBase64(sealed.envelope),
      salt: sealed.salt,
      size_bytes: sealed.envelope.length,
      // Always: a claim must prove the link (and passphrase), so a preview bot or a wrong
      // passphrase cannot use up a view.
      claim_verifier: sealed.claimVerifier,
      // Only a claim that also proves the link (not the passphrase) may count towards a lock.
      link_verifier: sealed.linkVerifier,
      ...settings,
    } as const;
    const secret = owned ? await sendWithAccess((token) => api.createSecret(body, token)) : await api.createSecret(body);
    done(secret, sealed.key, owned);
  } catch (error) {
    fields.disabled = false;
    setVisible(composeSection, true);
    if (error instanceof UploadCancelled) {
      showErrors([t('compose.error.cancelled')], t('compose.error.cancelledTitle'));
    } else if (error instanceof UploadFailed) {
      showErrors([t('compose.error.uploadFailed', { reason: error.message })], t('compose.error.uploadFailedTitle'));
    } else if (error instanceof SignedOutError) {
      showSignedIn(false);
      showErrors([t('compose.error.signedOut')]);
    } else if (error instanceof ApiError) {
      const refusal = workspaceRefusal(error);
      const limit = refusal ? null : await planLimitMessage(error);
      if (refusal) showErrors(refusal.problems, refusal.title);
      else showErrors(limit ? [{ field: byId('secret-file'), message: limit }] : problemsOf(error, chosenFile() !== null));
    } else showErrors([t('compose.error.encryption', { reason: (error as Error).message })]);
    announce(error instanceof UploadCancelled ? t('compose.cancelledAnnounce') : '');
  } finally {
    createButton.textContent = t('compose.create');
  }
}

/** The secret exists: the plaintext, passphrase and file leave the form, the link is shown. */
function done(secret: ResultSecret, key: string, owned: boolean): void {
  const withPassphrase = passphrase.value !== '';
  form.reset();
  resetFile();
  resetRecipients();
  setVisible(customExpiry, false);
  applyLimits();
  updateOptionsSummary();
  setVisible(composeSection, false);
  showResult(secret, key, withPassphrase, owned);
  void subscribeChat(secret);
}

function startOver(): void {
  clearResult();
  endChatLink();
  form.reset();
  resetFile();
  clearErrors();
  setVisible(customExpiry, false);
  applyLimits();
  updateOptionsSummary();
  fields.disabled = false;
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
watchComposeFields(form);
createAnother.addEventListener('click', startOver);

// The form works only with this script: it is disabled in the HTML and enabled here.
fields.disabled = false;
document.documentElement.dataset.ready = 'compose';
