/**
 * What the compose page reads from a workspace's policy (`GET /v1/workspaces` answers it with
 * each workspace): the limits with every rule resolved, and the rules in plain words. Pure, so a
 * unit test holds `composeLimits` equal to the server's `policyLimitsForCompose`, which the page
 * does not import: shared/domain/workspaces/policy.ts brings zod's error module into a bundle.
 */
import type { ComposeLimits, PolicyReply } from '../../shared/domain/workspaces/policy.ts';
import { secretLimits } from '../../shared/limits.ts';
import { plural } from './dom.ts';
import { formatBytes } from './progress.ts';

export type { ComposeLimits };

/** The service's longest expiry and most views where the policy sets none, as the server resolves them. */
export const composeLimits = (policy: PolicyReply): ComposeLimits => ({
  max_expires_in: policy.max_expires_in ?? secretLimits.expiresInSeconds.max,
  max_views: policy.max_views ?? secretLimits.maxViews.max,
  require_passphrase: policy.require_passphrase ?? false,
  allowed_recipient_domains: policy.allowed_recipient_domains ? [...policy.allowed_recipient_domains] : null,
  allow_files: policy.allow_files ?? true,
  max_file_bytes: policy.max_file_bytes ?? null,
  allow_requests: policy.allow_requests ?? true,
});

/** "1 day", "36 hours", "90 minutes": the largest whole unit (a policy's expiry is any number of seconds from 60). */
export function durationWords(seconds: number): string {
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3600],
    ['minute', 60],
  ] as const) {
    if (seconds % size === 0) return plural(seconds / size, unit, `${unit}s`);
  }
  return plural(seconds, 'second', 'seconds');
}

/** "a.example", "a.example or b.example", "a.example, b.example or c.example". */
export function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/**
 * The rules a policy sets that bear on a secret or a file, in plain words, in the form's order
 * (request links' rule is the requests page's). Empty when it sets none.
 */
export function policySentences(policy: PolicyReply): string[] {
  const sentences: string[] = [];
  if (policy.max_expires_in !== null) sentences.push(`Expires within ${durationWords(policy.max_expires_in)} at most`);
  if (policy.max_views !== null) sentences.push(`At most ${plural(policy.max_views, 'view', 'views')}`);
  if (policy.require_passphrase === true) sentences.push('A passphrase is required');
  if (policy.allowed_recipient_domains !== null)
    sentences.push(`Recipients must be restricted to addresses at ${orList(policy.allowed_recipient_domains)}`);
  if (policy.allow_files === false) sentences.push('Files are not allowed');
  else if (policy.max_file_bytes !== null) sentences.push(`Files up to ${formatBytes(policy.max_file_bytes)}`);
  return sentences;
}

/**
 * An address's domain as a policy names it: lower case, ASCII (IDNA) by the URL parser's host
 * processing, without a trailing dot, as the server compares them (`recipientDomain`); null
 * when it has none. Enough for the page's check: the server checks the address properly.
 */
export function emailDomain(email: string): string | null {
  const at = email.lastIndexOf('@');
  const host = at < 0 ? '' : email.slice(at + 1).trim();
  if (host === '' || /[\s/\\?#@:%[\]*]/.test(host)) return null;
  try {
    const hostname = new URL(`http://${host}/`).hostname;
    return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  } catch {
    return null;
  }
}
