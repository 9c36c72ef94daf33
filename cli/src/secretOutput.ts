/** What `send` and `respond` print: links alone on stdout, the rest on stderr, or all of it as JSON. */
import type { Context } from './command.ts';

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
        [item.label, item.email && `<${item.email}>${item.restricted ? ' (restricted)' : ''}`].filter(Boolean).join(' ') ||
        item.recipient_id,
    );
    context.stderr.write(`One link each, in this order: ${names.join(', ')}.\n`);
  } else {
    context.stdout.write(`${sent.link}\n`);
  }
  const views = `${sent.max_views} view${sent.max_views === 1 ? '' : 's'}`;
  context.stderr.write(`Expires ${sent.expires_at} or after ${views}${sent.not_before ? `; opens from ${sent.not_before}` : ''}.\n`);
  context.stderr.write(
    `Delete token: ${sent.delete_token}\n  (to revoke it: hushlink revoke ${sent.id}, with the token in HUSHLINK_DELETE_TOKEN or --token)\n`,
  );
}
