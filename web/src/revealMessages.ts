/**
 * The reveal page's message screens: a heading, a sentence, sometimes a detail and a button.
 * Each has a stable id, set on the page as `data-message` (tests and styling read it).
 */
import type { EnvelopeErrorCode } from '../../shared/envelope/index.ts';
import type { ApiError } from './api.ts';
import { plural, timeElement } from './dom.ts';

export interface Message {
  id: string;
  title: string;
  text: string;
  detail?: string | Node[];
  retry?: () => void;
  retryLabel?: string;
}

export const messages = {
  missingKey: (): Message => ({
    id: 'missing-key',
    title: 'This link is incomplete',
    text: 'The part of the link after “#” holds the key, and it is missing or damaged. Open the exact link you were sent, copied in full. (The key is removed from the address bar once read, so reloading this page cannot work: open the original link again.)',
  }),
  /**
   * A page without its key (a reload after the last view: the key left the address bar when it
   * was read) whose secret, or link, was opened to its last view. Said without blame: this may be
   * the person who opened it a moment ago.
   */
  openedAndGone: (throughLink: boolean): Message => ({
    id: 'opened-gone',
    title: throughLink ? 'This link was opened, and it is used up' : 'This secret was opened, and it is gone',
    text: throughLink
      ? 'Its last view has been used, so it no longer opens the secret. If you opened it on this page a moment ago, that was the last view: reloading cannot show it again, and nothing can. If you did not open it, tell the sender.'
      : 'Its last view has been used, so the server deleted it. If you opened it on this page a moment ago, that was the last view: reloading cannot show it again, and nothing can. If you did not open it, someone else did: tell the sender.',
  }),
  notFound: (): Message => ({
    id: 'not-found',
    title: 'No secret here',
    text: 'There is no secret at this link: it never existed, or it ended so long ago that no trace is left. Check that the whole link was copied.',
  }),
  /** 404 `unknown_host`: this page is on a workspace's hostname whose domain was deleted (rule 5), or never verified. */
  notServedHere: (): Message => ({
    id: 'not-served-here',
    title: 'This address no longer serves Hushlink links',
    text: `${location.hostname} was removed from the workspace that used it for its links, so no link opens here any more. Nothing was opened or used up: ask whoever sent you the link to send it again.`,
  }),
  gone: (state: string | undefined): Message => {
    const texts: Record<string, string> = {
      burned:
        'This secret has already been viewed, as many times as the sender allowed, and it was deleted. If you did not open it, someone else did: tell the sender.',
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
  /** A per-recipient link whose views are all taken (the secret itself may live on through other links). */
  linkUsed: (): Message => ({
    id: 'link-used',
    title: 'This link has been used up',
    text: 'It was already opened as many times as the sender allowed, so it no longer opens the secret. If you did not open it, someone else did: tell the sender.',
  }),
  /** 410 `recipient_revoked`, or the link's state in metadata. */
  recipientRevoked: (): Message => ({
    id: 'recipient-revoked',
    title: 'The sender revoked this link',
    text: 'This link no longer opens the secret: the sender revoked it. Nothing was opened through it since. If you still need the secret, ask the sender.',
  }),
  /** The secret's own link of a secret shared with personal links (metadata), or 403 `recipient_required`. */
  personalLink: (): Message => ({
    id: 'personal-link',
    title: 'Open the link you were sent',
    text: 'This secret was shared with personal links: each recipient got a link of their own, and only those open it. Open the exact link you were sent (its address goes on with “/r/” after the secret’s id). Nothing was opened or used up.',
  }),
  /** 403 `gate_refused`: the confirmation presented belongs to another link, secret or address. */
  gateRefused: (confirmAgain: () => void): Message => ({
    id: 'gate-refused',
    title: 'This confirmation is for another link',
    text: 'The address confirmation sent with this request does not belong to this link. Open the link you were sent and confirm your address on its page. Nothing was opened or used up.',
    retry: confirmAgain,
    retryLabel: 'Confirm my address again',
  }),
  locked: (): Message => ({
    id: 'locked',
    title: 'This secret is locked',
    text: 'Too many attempts with a wrong passphrase or link were made, so the secret was locked and can no longer be opened. Ask the sender to share it again.',
  }),
  tooEarly: (notBefore: string | null | undefined, checkAgain: () => void): Message => ({
    id: 'too-early',
    title: 'Not yet',
    text: 'The sender set a time before which this secret cannot be opened. Nothing was used up; come back then.',
    ...(notBefore
      ? { detail: [document.createTextNode('It can be opened from '), timeElement(notBefore), document.createTextNode('.')] }
      : {}),
    retry: checkAgain,
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
  unexpected: (error: ApiError, retry: () => void): Message => ({
    id: 'error',
    title: 'Something went wrong',
    text: 'The server could not answer this request. Try again in a moment.',
    detail: `${error.status} ${error.problem.detail ?? error.problem.title ?? ''}`.trim(),
    retry,
  }),
  /** Metadata state `pending`, or 425 `upload_pending`: the sender's upload is not complete. */
  uploading: (checkAgain: () => void): Message => ({
    id: 'uploading',
    title: 'This file is still uploading',
    text: 'The sender’s upload is not finished yet. Nothing was used up; check again in a moment.',
    retry: checkAgain,
    retryLabel: 'Check again',
  }),
  /** Before any claim: no way to save a file this large in this browser. */
  cannotSave: (size: string): Message => ({
    id: 'cannot-save',
    title: 'This browser cannot save a file this large',
    text: `The file is about ${size}, and this browser could only save it by holding all of it in memory. Open the link in a current Chrome, Edge, Firefox or Safari instead. Nothing was opened or used up.`,
  }),
  /** A chunk that does not authenticate, a file cut short or out of order, during the download. */
  fileTampered: (viewsLeft: number): Message => ({
    id: 'file-tampered',
    title: 'This file cannot be trusted',
    text: 'The stored file was altered, cut short or put out of order, so it was not saved: what had been written of it was deleted.',
    detail:
      viewsLeft > 0
        ? `Opening it used a view (${plural(viewsLeft, 'view', 'views')} left). Tell the sender.`
        : 'Opening it used the last view, so the file was deleted. Tell the sender.',
  }),
  /** The claim's presigned download (15 minutes) ran out, or the file was deleted meanwhile. */
  downloadEnded: (reason: 'expired' | 'gone'): Message => ({
    id: reason === 'expired' ? 'download-expired' : 'file-gone',
    title: reason === 'expired' ? 'The download link has run out' : 'The file is no longer stored',
    text:
      reason === 'expired'
        ? 'A file can be downloaded for 15 minutes after it is opened, and that time is over. Nothing more of it was saved; ask the sender to share it again.'
        : 'The file was deleted (the sender may have revoked it) before it was downloaded. Nothing of it was saved; ask the sender to share it again.',
  }),
  /** The storage could not be reached for the file's first bytes; the view is used, its download still works. */
  fileUnreachable: (until: string, retry: () => void): Message => ({
    id: 'file-unreachable',
    title: 'Cannot reach the file storage',
    text: 'The file could not be fetched. Check your connection and try again: the view is used, but its download works for a while.',
    detail: [document.createTextNode('The download works until '), timeElement(until), document.createTextNode('.')],
    retry,
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
      // Request links' codes: a secret's envelope never raises them.
      bad_link: 'The link is incomplete or damaged.',
      key_mismatch: 'The key does not match the link.',
      forged: 'The secret was not made with this link, so it cannot be trusted and is not shown.',
      unknown: 'The secret could not be decrypted in this browser.',
    };
    return {
      id: `decrypt-failed-${code.replaceAll('_', '-')}`,
      title: 'The secret could not be decrypted',
      text: texts[code],
      detail:
        viewsLeft > 0
          ? `This attempt used a view (${plural(viewsLeft, 'view', 'views')} left). Ask the sender to check the link.`
          : 'This attempt used the last view, so the secret was deleted. Ask the sender to share it again.',
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
