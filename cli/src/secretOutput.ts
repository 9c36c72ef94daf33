/** What `send` and `respond` print: links alone on stdout, the rest on stderr, or all of it as JSON. */
import type { Context } from './command.ts';
import { t } from './i18n.ts';

export interface SentSecret {
  id: string;
  link: string;
  delete_token: string;
  expires_at: string;
  max_views: number;
  not_before?: string | null;
  links?: Array<{ recipient_id: string; label: string | null; email: string | null; restricted: boolean; link: string }>;
}

export function printSent(context: Context, sent: SentSecret): void {
  if (context.json) {
    context.stdout.write(`${JSON.stringify(sent, null, 2)}\n`);
    return;
  }
  if (sent.links?.length) {
    for (const item of sent.links) context.stdout.write(`${item.link}\n`);
    const names = sent.links.map(
      (item) =>
        [item.label, item.email && (item.restricted ? t('cli.send.restrictedAddress', { email: item.email }) : `<${item.email}>`)]
          .filter(Boolean)
          .join(' ') || item.recipient_id,
    );
    context.stderr.write(`${t('cli.send.linkOrder', { names: names.join(', ') })}\n`);
  } else {
    context.stdout.write(`${sent.link}\n`);
  }
  const expires = sent.not_before
    ? t('cli.send.expiresOpensFrom', { expires: sent.expires_at, views: sent.max_views, notBefore: sent.not_before })
    : t('cli.send.expires', { expires: sent.expires_at, views: sent.max_views });
  context.stderr.write(`${expires}\n`);
  context.stderr.write(`${t('cli.send.deleteToken', { token: sent.delete_token })}\n  ${t('cli.send.revokeHint', { id: sent.id })}\n`);
}
