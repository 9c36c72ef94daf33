/**
 * The responder page's message screens: a heading, a sentence, sometimes a detail and a button,
 * each with a stable id set on the page as `data-message` (as the reveal page's, `Message`).
 * Every one of them says whether anything was sent.
 */
import type { ApiError } from './api.ts';
import { plural, timeElement } from './dom.ts';
import type { Message } from './revealMessages.ts';

export const respondMessages = {
  /** No fragment, or not `<fp>.<s>` (nothing is requested). */
  badLink: (): Message => ({
    id: 'bad-link',
    title: 'This link is incomplete',
    text: 'The part of the link after “#” holds what checks the request and encrypts your answer, and it is missing or damaged. Open the exact link you were sent, copied in full. (It is removed from the address bar once read, so reloading this page cannot work: open the original link again.) Nothing was sent.',
  }),
  /** The served public key does not hash to the link's fingerprint. */
  keyMismatch: (): Message => ({
    id: 'key-mismatch',
    title: 'This link does not match its request',
    text: 'The key the server gave for this request is not the one the link names, so the link or the stored request may have been tampered with. Nothing was sent, and nothing can be: tell the person who asked, another way than this link.',
  }),
  /** The key matched but the sealed prompt does not open with the link's secret. */
  damagedLink: (): Message => ({
    id: 'damaged-link',
    title: 'This link is damaged',
    text: 'The request’s message does not open with this link, so the link was probably changed or cut short when it was copied, and an answer sent through it could not be opened either. Ask for the link again. Nothing was sent.',
  }),
  notFound: (): Message => ({
    id: 'not-found',
    title: 'No request here',
    text: 'There is no request at this link: it never existed, or it ended long ago. Check that the whole link was copied. Nothing was sent.',
  }),
  /** 404 `unknown_host`: this page is on a workspace's hostname whose domain was deleted (rule 5), or never verified. */
  notServedHere: (): Message => ({
    id: 'not-served-here',
    title: 'This address no longer serves Hushlink links',
    text: `${location.hostname} was removed from the workspace that used it for its links, so no request takes answers here any more. Nothing was sent: ask the person who asked for a new link.`,
  }),
  closed: (): Message => ({
    id: 'closed',
    title: 'This request is closed',
    text: 'The person who asked closed this link, so it takes no more answers. If they still need something from you, they will send a new link. Nothing was sent.',
  }),
  expired: (until?: string): Message => ({
    id: 'expired',
    title: 'This request has expired',
    text: 'This link took answers for a limited time, and that time is over. Ask the person who asked for a new link. Nothing was sent.',
    ...(until ? { detail: [document.createTextNode('It was open until '), timeElement(until), document.createTextNode('.')] } : {}),
  }),
  full: (): Message => ({
    id: 'full',
    title: 'This request has all its answers',
    text: 'This link takes a set number of answers, and they have all been sent. Ask the person who asked for a new link if they still need yours. Nothing was sent.',
  }),
  rateLimited: (retryAfter: number | null, retry: () => void): Message => ({
    id: 'rate-limited',
    title: 'Too many attempts',
    text: 'Too many requests came from your network in a short time. Nothing was sent. Wait a little and try again.',
    ...(retryAfter !== null ? { detail: `Try again in ${plural(Math.max(1, retryAfter), 'second', 'seconds')}.` } : {}),
    retry,
  }),
  network: (retry: () => void): Message => ({
    id: 'network',
    title: 'Cannot reach Hushlink',
    text: 'The server could not be reached. Check your connection and try again; nothing was sent.',
    retry,
  }),
  unexpected: (error: ApiError, retry: () => void): Message => ({
    id: 'error',
    title: 'Something went wrong',
    text: 'The server could not answer this request. Try again in a moment; nothing was sent.',
    detail: `${error.status} ${error.problem.detail ?? error.problem.title ?? ''}`.trim(),
    retry,
  }),
};

/** A refusal that ends the page's work: the link cannot take this answer, whatever is typed. */
export function endingMessage(error: ApiError, retry: () => void): Message | null {
  const reason = typeof error.problem.reason === 'string' ? error.problem.reason : '';
  if (error.status === 404 && reason === 'unknown_host') return respondMessages.notServedHere();
  if (error.status === 404 || reason === 'request_not_found') return respondMessages.notFound();
  if ((error.status === 410 && reason === 'expired') || reason === 'request_expired') return respondMessages.expired();
  if (error.status === 410 || reason === 'request_closed') return respondMessages.closed();
  if (reason === 'request_full') return respondMessages.full();
  if (error.status === 0) return respondMessages.network(retry);
  if (error.status === 429) return respondMessages.rateLimited(error.retryAfter, retry);
  return null;
}
