/**
 * The compose page's result: the link (`url_base#key`) with Copy and a QR code, or one card
 * per personal link (`composeLinks.ts`); what was set; "Revoke now"; and, for an anonymous
 * secret, "Keep for my account". The same for a text and a file: a file's link opens it the
 * same way. The delete token lives in this module's memory only.
 */
import { api, ApiError, problemMessages, type CreatedSecret } from './api.ts';
import { clearLinks, showLinks } from './composeLinks.ts';
import { confirmStep } from './confirmStep.ts';
import { announce, byId, copyField, describeTime, focusHeading, plural, setVisible } from './dom.ts';
import { qrSvg } from './qr.ts';
import { forgetUnattached, rememberUnattached } from './unattached.ts';

/** What the result needs of a created secret: `POST /v1/secrets`'s answer, or a file upload's with the settings sent. */
export type ResultSecret = Pick<
  CreatedSecret,
  'id' | 'url_base' | 'delete_token' | 'expires_at' | 'not_before' | 'max_views' | 'recipients'
> & {
  /** A file's name and size, said in the summary. */
  file?: { name: string; size: string };
};

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
const keep = byId('keep');
const keepTitle = byId('keep-title');
const keepText = byId('keep-text');
const keepDone = byId('keep-done');
const keepButton = byId<HTMLButtonElement>('keep-button');
const keepActions = byId('keep-actions');

/** "Revoke now" deletes the secret for good: it asks first (the confirm pattern of every destructive action). */
const revokeQuestion = document.createElement('span');
const revokeConfirm = confirmStep(
  revokeButton,
  { action: 'revoke', object: 'this secret', question: revokeQuestion, yes: 'Yes, revoke', no: 'No, keep it' },
  () => void revoke(),
);
revokeButton.closest('.actions')?.after(revokeConfirm.box);

/** What "Revoke now" and "Keep for my account" need; in memory only, gone with the page. */
let created: { id: string; deleteToken: string; expiresAt: string } | null = null;

export function showResult(secret: ResultSecret, key: string, withPassphrase: boolean, owned: boolean): void {
  created = { id: secret.id, deleteToken: secret.delete_token, expiresAt: secret.expires_at };
  const links = secret.recipients ?? [];
  const opens = secret.max_views === 1 ? 'once' : plural(secret.max_views, 'time', 'times');
  const facts = [
    ...(secret.file ? [`The file “${secret.file.name}” (${secret.file.size}), encrypted.`] : []),
    `Expires ${describeTime(secret.expires_at)}.`,
    links.length > 0
      ? `${plural(links.length, 'personal link', 'personal links')}: each can be opened ${opens}.`
      : `Can be opened ${opens}.`,
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
  revokeQuestion.textContent =
    links.length > 0
      ? `Revoke all ${links.length} links? Nobody can open the secret through any of them afterwards. This cannot be undone.`
      : 'Revoke the link? Nobody can open the secret afterwards. This cannot be undone.';
  setVisible(revokeConfirm.box, false);
  revokedText.textContent =
    links.length > 0
      ? 'The secret was deleted. None of its links opens anything any more.'
      : 'The secret was deleted. The link no longer opens anything.';

  setVisible(resultLive, true);
  setVisible(revoked, false);
  setVisible(resultError, false);
  revokeButton.disabled = false;
  revokeConfirm.yes.disabled = false;
  // An owned secret is listed under My secrets already; an anonymous one can be kept.
  setVisible(keep, !owned);
  setVisible(keepText, true);
  setVisible(keepDone, false);
  setVisible(keepActions, true);
  setVisible(resultSection, true);
  resultTitle.textContent = links.length > 0 ? 'Your links are ready' : 'Your link is ready';
  announce(links.length > 0 ? `Your ${plural(links.length, 'link is', 'links are')} ready.` : 'Your link is ready.');
  focusHeading(resultTitle);
}

/** Takes the result (and so the link and its key) off the page. */
export function clearResult(): void {
  created = null;
  setVisible(keep, false);
  shareLink.value = '';
  qrCode.replaceChildren();
  clearLinks();
  summary.replaceChildren();
  setVisible(resultSection, false);
}

async function revoke(): Promise<void> {
  if (!created) return;
  revokeButton.disabled = true;
  revokeConfirm.yes.disabled = true;
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
    setVisible(revokeConfirm.box, false);
    setVisible(revoked, true);
    announce('Revoked: the link no longer opens anything.');
    focusHeading(revokedTitle);
  } catch (error) {
    revokeButton.disabled = false;
    revokeConfirm.yes.disabled = false;
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

copyLink.addEventListener('click', () => void copyField(shareLink, copyLink, 'Link'));
shareLink.addEventListener('focus', () => shareLink.select());
keepButton.addEventListener('click', keepForAccount);
