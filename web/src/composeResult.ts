/**
 * The compose page's result: the link (`url_base#key`) with Copy and a QR code, or one card
 * per personal link (`composeLinks.ts`); what was set; "Revoke now"; and, for an anonymous
 * secret, "Keep for my account". The same for a text and a file: a file's link opens it the
 * same way. The delete token lives in this module's memory only.
 */
import { api, ApiError, type CreatedSecret, problemText } from './api.ts';
import { clearLinks, showLinks } from './composeLinks.ts';
import { confirmStep } from './confirmStep.ts';
import { announce, byId, copyField, describeTime, focusHeading, setVisible } from './dom.ts';
import { t, tNodes } from './i18n.ts';
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

// "Kept in this browser. Sign in, then …": the link in the sentence, in the language's order.
const keepSignIn = keepDone.querySelector('a')!;
keepSignIn.textContent = t('compose.keep.signIn');
keepDone.replaceChildren(...tNodes('compose.keep.done', { signIn: keepSignIn }));

/** "Revoke now" deletes the secret for good: it asks first (the confirm pattern of every destructive action). */
const revokeQuestion = document.createElement('span');
const revokeConfirm = confirmStep(
  revokeButton,
  {
    action: 'revoke',
    object: t('compose.result.revokeObject'),
    question: revokeQuestion,
    yes: t('compose.result.revokeYes'),
    no: t('compose.result.revokeNo'),
  },
  () => void revoke(),
);
revokeButton.closest('.actions')?.after(revokeConfirm.box);

/** What "Revoke now" and "Keep for my account" need; in memory only, gone with the page. */
let created: { id: string; deleteToken: string; expiresAt: string } | null = null;

export function showResult(secret: ResultSecret, key: string, withPassphrase: boolean, owned: boolean): void {
  created = { id: secret.id, deleteToken: secret.delete_token, expiresAt: secret.expires_at };
  const links = secret.recipients ?? [];
  const views = secret.max_views;
  const facts = [
    ...(secret.file ? [t('compose.result.file', { name: secret.file.name, size: secret.file.size })] : []),
    t('compose.result.expires', { time: describeTime(secret.expires_at) }),
    links.length > 0 ? t('compose.result.links', { links: links.length, views }) : t('compose.result.opens', { views }),
  ];
  if (secret.not_before) facts.push(t('compose.result.notBefore', { time: describeTime(secret.not_before) }));
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
    qrCode.replaceChildren(qrSvg(link, t('compose.result.qrLabel')));
  }
  for (const single of [resultSingle, resultQr]) setVisible(single, links.length === 0);
  setVisible(resultLinksLede, links.length > 0);
  revokeButton.textContent = links.length > 0 ? t('compose.result.revokeAll') : t('compose.result.revokeNow');
  revokeQuestion.textContent =
    links.length > 0 ? t('compose.result.revokeQuestionLinks', { count: links.length }) : t('compose.result.revokeQuestion');
  setVisible(revokeConfirm.box, false);
  revokedText.textContent = links.length > 0 ? t('compose.result.revokedTextLinks') : t('compose.result.revokedText');

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
  resultTitle.textContent = links.length > 0 ? t('compose.result.titleLinks') : t('compose.result.title');
  announce(links.length > 0 ? t('compose.result.announceLinks', { count: links.length }) : t('compose.result.announce'));
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
  announce(t('compose.result.revoking'));
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
    announce(t('compose.result.revokedAnnounce'));
    focusHeading(revokedTitle);
  } catch (error) {
    revokeButton.disabled = false;
    revokeConfirm.yes.disabled = false;
    resultError.textContent =
      error instanceof ApiError ? t('compose.result.revokeFailed', { reason: problemText(error) }) : t('compose.result.revokeFailedPlain');
    setVisible(resultError, true);
    announce('');
  }
}

function keepForAccount(): void {
  if (!created) return;
  if (!rememberUnattached({ id: created.id, delete_token: created.deleteToken, expires_at: created.expiresAt })) {
    keepText.textContent = t('compose.keep.full');
    return;
  }
  setVisible(keepText, false);
  setVisible(keepActions, false);
  setVisible(keepDone, true);
  announce(t('compose.keep.announce'));
  focusHeading(keepTitle);
}

copyLink.addEventListener('click', () => void copyField(shareLink, copyLink, t('compose.result.linkWhat')));
shareLink.addEventListener('focus', () => shareLink.select());
keepButton.addEventListener('click', keepForAccount);
