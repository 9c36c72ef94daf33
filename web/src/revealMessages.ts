/**
 * The reveal page's message screens: a heading, a sentence, sometimes a detail and a button.
 * Each has a stable id, set on the page as `data-message` (tests and styling read it).
 */
import type { EnvelopeErrorCode } from '../../shared/envelope/index.ts';
import { type ApiError, problemText } from './api.ts';
import { timeElement } from './dom.ts';
import { language, t, tNodes } from './i18n.ts';

export interface Message {
  id: string;
  title: string;
  text: string;
  detail?: string | (string | Node)[];
  retry?: () => void;
  retryLabel?: string;
}

/**
 * Data shown inside a sentence (an address, a file's name): isolated, so a right-to-left sentence
 * cannot reorder it, and marked as never translated.
 */
export function dataNode(text: string): HTMLElement {
  const node = document.createElement('bdi');
  node.translate = false;
  node.textContent = text;
  return node;
}

/**
 * An unexpected refusal's detail: its status, and in English the server's own words; in another
 * language the problem's localized message (by its `code`), never the English `detail`.
 */
export function unexpectedDetail(error: ApiError): string {
  const words = language === 'en' ? (error.problem.detail ?? error.problem.title ?? '') : problemText(error);
  return `${error.status} ${words}`.trim();
}

export const messages = {
  missingKey: (): Message => ({
    id: 'missing-key',
    title: t('reveal.missingKey.title'),
    text: t('reveal.missingKey.text'),
  }),
  /**
   * A page without its key (a reload after the last view: the key left the address bar when it
   * was read) whose secret, or link, was opened to its last view. Said without blame: this may be
   * the person who opened it a moment ago.
   */
  openedAndGone: (throughLink: boolean): Message =>
    throughLink
      ? { id: 'opened-gone', title: t('reveal.openedGone.linkTitle'), text: t('reveal.openedGone.linkText') }
      : { id: 'opened-gone', title: t('reveal.openedGone.secretTitle'), text: t('reveal.openedGone.secretText') },
  notFound: (): Message => ({
    id: 'not-found',
    title: t('reveal.notFound.title'),
    text: t('reveal.notFound.text'),
  }),
  /** 404 `unknown_host`: this page is on a workspace's hostname whose domain was deleted (rule 5), or never verified. */
  notServedHere: (): Message => ({
    id: 'not-served-here',
    title: t('reveal.notServedHere.title'),
    text: t('reveal.notServedHere.text', { host: location.hostname }),
  }),
  gone: (state: string | undefined): Message => {
    switch (state) {
      case 'burned':
        return { id: 'gone-burned', title: t('reveal.gone.burnedTitle'), text: t('reveal.gone.burnedText') };
      case 'expired':
        return { id: 'gone-expired', title: t('reveal.gone.expiredTitle'), text: t('reveal.gone.expiredText') };
      case 'revoked':
        return { id: 'gone-revoked', title: t('reveal.gone.revokedTitle'), text: t('reveal.gone.revokedText') };
      default:
        return { id: 'gone', title: t('reveal.gone.title'), text: t('reveal.gone.text') };
    }
  },
  /** A per-recipient link whose views are all taken (the secret itself may live on through other links). */
  linkUsed: (): Message => ({
    id: 'link-used',
    title: t('reveal.linkUsed.title'),
    text: t('reveal.linkUsed.text'),
  }),
  /** 410 `recipient_revoked`, or the link's state in metadata. */
  recipientRevoked: (): Message => ({
    id: 'recipient-revoked',
    title: t('reveal.recipientRevoked.title'),
    text: t('reveal.recipientRevoked.text'),
  }),
  /** The secret's own link of a secret shared with personal links (metadata), or 403 `recipient_required`. */
  personalLink: (): Message => ({
    id: 'personal-link',
    title: t('reveal.personalLink.title'),
    text: t('reveal.personalLink.text'),
  }),
  /** 403 `gate_refused`: the confirmation presented belongs to another link, secret or address. */
  gateRefused: (confirmAgain: () => void): Message => ({
    id: 'gate-refused',
    title: t('reveal.gateRefused.title'),
    text: t('reveal.gateRefused.text'),
    retry: confirmAgain,
    retryLabel: t('reveal.gateRefused.retry'),
  }),
  locked: (): Message => ({
    id: 'locked',
    title: t('reveal.locked.title'),
    text: t('reveal.locked.text'),
  }),
  tooEarly: (notBefore: string | null | undefined, checkAgain: () => void): Message => ({
    id: 'too-early',
    title: t('reveal.tooEarly.title'),
    text: t('reveal.tooEarly.text'),
    ...(notBefore ? { detail: tNodes('reveal.tooEarly.detail', { time: timeElement(notBefore) }) } : {}),
    retry: checkAgain,
    retryLabel: t('reveal.message.checkAgain'),
  }),
  rateLimited: (retryAfter: number | null, retry: () => void): Message => ({
    id: 'rate-limited',
    title: t('reveal.rateLimited.title'),
    text: t('reveal.rateLimited.text'),
    ...(retryAfter !== null ? { detail: t('reveal.rateLimited.detail', { seconds: Math.max(1, retryAfter) }) } : {}),
    retry,
    retryLabel: t('reveal.message.tryAgain'),
  }),
  network: (retry: () => void): Message => ({
    id: 'network',
    title: t('reveal.network.title'),
    text: t('reveal.network.text'),
    retry,
    retryLabel: t('reveal.message.tryAgain'),
  }),
  unavailable: (): Message => ({
    id: 'unavailable',
    title: t('reveal.unavailable.title'),
    text: t('reveal.unavailable.text'),
  }),
  unexpected: (error: ApiError, retry: () => void): Message => ({
    id: 'error',
    title: t('reveal.unexpected.title'),
    text: t('reveal.unexpected.text'),
    detail: unexpectedDetail(error),
    retry,
    retryLabel: t('reveal.message.tryAgain'),
  }),
  /** Metadata state `pending`, or 425 `upload_pending`: the sender's upload is not complete. */
  uploading: (checkAgain: () => void): Message => ({
    id: 'uploading',
    title: t('reveal.uploading.title'),
    text: t('reveal.uploading.text'),
    retry: checkAgain,
    retryLabel: t('reveal.message.checkAgain'),
  }),
  /** Before any claim: no way to save a file this large in this browser. */
  cannotSave: (size: string): Message => ({
    id: 'cannot-save',
    title: t('reveal.cannotSave.title'),
    text: t('reveal.cannotSave.text', { size }),
  }),
  /** A chunk that does not authenticate, a file cut short or out of order, during the download. */
  fileTampered: (viewsLeft: number): Message => ({
    id: 'file-tampered',
    title: t('reveal.fileTampered.title'),
    text: t('reveal.fileTampered.text'),
    detail: viewsLeft > 0 ? t('reveal.fileTampered.detailViewsLeft', { count: viewsLeft }) : t('reveal.fileTampered.detailLastView'),
  }),
  /** The claim's presigned download (15 minutes) ran out, or the file was deleted meanwhile. */
  downloadEnded: (reason: 'expired' | 'gone'): Message =>
    reason === 'expired'
      ? { id: 'download-expired', title: t('reveal.downloadEnded.expiredTitle'), text: t('reveal.downloadEnded.expiredText') }
      : { id: 'file-gone', title: t('reveal.downloadEnded.goneTitle'), text: t('reveal.downloadEnded.goneText') },
  /** The storage could not be reached for the file's first bytes; the view is used, its download still works. */
  fileUnreachable: (until: string, retry: () => void): Message => ({
    id: 'file-unreachable',
    title: t('reveal.fileUnreachable.title'),
    text: t('reveal.fileUnreachable.text'),
    detail: tNodes('reveal.fileUnreachable.detail', { time: timeElement(until) }),
    retry,
    retryLabel: t('reveal.message.tryAgain'),
  }),
  undecryptable: (code: EnvelopeErrorCode | 'unknown', viewsLeft: number): Message => {
    const texts: Record<EnvelopeErrorCode | 'unknown', () => string> = {
      not_envelope: () => t('reveal.undecryptable.notEnvelope'),
      unsupported_version: () => t('reveal.undecryptable.unsupportedVersion'),
      malformed: () => t('reveal.undecryptable.malformed'),
      salt_mismatch: () => t('reveal.undecryptable.saltMismatch'),
      wrong_key: () => t('reveal.undecryptable.wrongKey'),
      wrong_passphrase: () => t('reveal.undecryptable.wrongPassphrase'),
      passphrase_required: () => t('reveal.undecryptable.passphraseRequired'),
      tampered: () => t('reveal.undecryptable.tampered'),
      // Request links' codes: a secret's envelope never raises them.
      bad_link: () => t('reveal.undecryptable.badLink'),
      key_mismatch: () => t('reveal.undecryptable.keyMismatch'),
      forged: () => t('reveal.undecryptable.forged'),
      unknown: () => t('reveal.undecryptable.unknown'),
    };
    return {
      id: `decrypt-failed-${code.replaceAll('_', '-')}`,
      title: t('reveal.undecryptable.title'),
      text: texts[code](),
      detail: viewsLeft > 0 ? t('reveal.undecryptable.detailViewsLeft', { count: viewsLeft }) : t('reveal.undecryptable.detailLastView'),
    };
  },
};

/** What a refusal screen may offer (read the link again, confirm the address again), and what it says. */
export interface RefusalContext {
  reload: () => void;
  confirmAgain: () => void;
  /** The page is a per-recipient link's. */
  throughLink: boolean;
  notBefore: string | null | undefined;
}

/** Where an API refusal leads. */
export function messageForError(error: ApiError, context: RefusalContext): Message {
  switch (error.status) {
    case 0:
      return messages.network(context.reload);
    case 403:
      if (error.code === 'recipient_required') return messages.personalLink();
      if (error.code === 'gate_refused') return messages.gateRefused(context.confirmAgain);
      return messages.unexpected(error, context.reload);
    case 404:
      return error.problem.reason === 'unknown_host' ? messages.notServedHere() : messages.notFound();
    case 410: {
      if (error.code === 'recipient_revoked') return messages.recipientRevoked();
      const state = typeof error.problem.state === 'string' ? error.problem.state : undefined;
      // Through a link, "burned" is this link's views used up (or every link's: the same to its holder).
      return context.throughLink && state === 'burned' ? messages.linkUsed() : messages.gone(state);
    }
    case 423:
      return messages.locked();
    case 425:
      if (error.code === 'upload_pending') return messages.uploading(context.reload);
      return messages.tooEarly(error.problem.not_before ?? context.notBefore, context.reload);
    case 429:
      return messages.rateLimited(error.retryAfter, context.reload);
    default:
      return messages.unexpected(error, context.reload);
  }
}
