/**
 * The responder page's message screens: a heading, a sentence, sometimes a detail and a button,
 * each with a stable id set on the page as `data-message` (as the reveal page's, `Message`).
 * Every one of them says whether anything was sent.
 */
import type { ApiError } from './api.ts';
import { timeElement } from './dom.ts';
import { t, tNodes } from './i18n.ts';
import { type Message, unexpectedDetail } from './revealMessages.ts';

export const respondMessages = {
  /** No fragment, or not `<fp>.<s>` (nothing is requested). */
  badLink: (): Message => ({
    id: 'bad-link',
    title: t('respond.badLink.title'),
    text: t('respond.badLink.text'),
  }),
  /** The served public key does not hash to the link's fingerprint. */
  keyMismatch: (): Message => ({
    id: 'key-mismatch',
    title: t('respond.keyMismatch.title'),
    text: t('respond.keyMismatch.text'),
  }),
  /** The key matched but the sealed prompt does not open with the link's secret. */
  damagedLink: (): Message => ({
    id: 'damaged-link',
    title: t('respond.damagedLink.title'),
    text: t('respond.damagedLink.text'),
  }),
  notFound: (): Message => ({
    id: 'not-found',
    title: t('respond.notFound.title'),
    text: t('respond.notFound.text'),
  }),
  /** 404 `unknown_host`: this page is on a workspace's hostname whose domain was deleted (rule 5), or never verified. */
  notServedHere: (): Message => ({
    id: 'not-served-here',
    title: t('respond.notServedHere.title'),
    text: t('respond.notServedHere.text', { host: location.hostname }),
  }),
  closed: (): Message => ({
    id: 'closed',
    title: t('respond.closed.title'),
    text: t('respond.closed.text'),
  }),
  expired: (until?: string): Message => ({
    id: 'expired',
    title: t('respond.expired.title'),
    text: t('respond.expired.text'),
    ...(until ? { detail: tNodes('respond.expired.detail', { time: timeElement(until) }) } : {}),
  }),
  full: (): Message => ({
    id: 'full',
    title: t('respond.full.title'),
    text: t('respond.full.text'),
  }),
  rateLimited: (retryAfter: number | null, retry: () => void): Message => ({
    id: 'rate-limited',
    title: t('respond.rateLimited.title'),
    text: t('respond.rateLimited.text'),
    ...(retryAfter !== null ? { detail: t('respond.rateLimited.detail', { seconds: Math.max(1, retryAfter) }) } : {}),
    retry,
    retryLabel: t('respond.message.tryAgain'),
  }),
  network: (retry: () => void): Message => ({
    id: 'network',
    title: t('respond.network.title'),
    text: t('respond.network.text'),
    retry,
    retryLabel: t('respond.message.tryAgain'),
  }),
  unexpected: (error: ApiError, retry: () => void): Message => ({
    id: 'error',
    title: t('respond.unexpected.title'),
    text: t('respond.unexpected.text'),
    detail: unexpectedDetail(error),
    retry,
    retryLabel: t('respond.message.tryAgain'),
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
