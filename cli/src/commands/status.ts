/** `hushlink status`: a secret's state, views and expiry (nothing is used); its links and receipts for its owner. */
import type { SecretMetadata } from '../../transfer/api.ts';
import { apiClient } from '../api.ts';
import { text, type Command } from '../command.ts';
import { secretRef } from '../secretRef.ts';

interface Receipt {
  recipient_id: string | null;
  opened_at: string;
  channel: string;
  location: { country: string; region: string | null } | null;
  device: { browser: string | null; os: string | null } | null;
}

export const status: Command = {
  name: 'status',
  positionals: 1,
  options: {},
  help: {
    usage: 'hushlink status LINK|ID',
    summary: "Show a secret's state, views left and expiry.",
    description: `Reads a secret's details without using a view: its state (active, burned, expired, revoked,
locked), views left, expiry and whether it needs a passphrase. Signed in as its owner (or with an API
key), each recipient link's state and the receipts of its views are shown too. Credentials go only to
your deployment (--api, HUSHLINK_API): a link on another host is read there without them.`,
    options: [],
    examples: [
      ['hushlink status sec_2kQ…', 'Is it still unopened?'],
      ['hushlink status "$LINK" --json', 'Everything the service says, as JSON.'],
    ],
  },
  run: async (context) => {
    const ref = secretRef(context.positionals[0], 'status');
    const base = ref.origin && !text(context.values, 'api') ? ref.origin : context.api;
    const api = apiClient(base, context);
    const query = ref.recipientId ? `?${new URLSearchParams({ recipient_id: ref.recipientId }).toString()}` : '';
    const path = `/v1/secrets/${encodeURIComponent(ref.id)}`;
    const metadata = await api.call<SecretMetadata>('GET', `${path}${query}`, { auth: 'optional', signal: context.signal });
    const receipts = metadata.owned
      ? (await api.call<{ items: Receipt[] }>('GET', `${path}/receipts?limit=100`, { auth: 'user', signal: context.signal })).items
      : undefined;
    if (!metadata.owned && base !== context.api && context.env.HUSHLINK_API_KEY) {
      context.stderr.write(
        `(${base} is not your deployment, ${context.api}: HUSHLINK_API_KEY was not sent there, so its links and receipts are not shown. If it is yours, run \`hushlink status ${ref.id}\`.)\n`,
      );
    }
    if (context.json) {
      context.stdout.write(`${JSON.stringify({ ...metadata, ...(receipts ? { receipts } : {}) }, null, 2)}\n`);
      return;
    }
    const lines = [
      `${metadata.id}: ${metadata.state}`,
      `  kind        ${metadata.kind}${metadata.passphrase ? ', with a passphrase' : ''}`,
      `  views left  ${metadata.views_left} of ${metadata.max_views}`,
      `  created     ${metadata.created_at}`,
      `  expires     ${metadata.expires_at}`,
      ...(metadata.not_before ? [`  opens from  ${metadata.not_before}`] : []),
      ...(metadata.ended_at ? [`  ended       ${metadata.ended_at}`] : []),
      ...(metadata.recipient
        ? [
            `  this link   ${metadata.recipient.state}, ${metadata.recipient.views_left} views left${metadata.recipient.restricted ? ', restricted' : ''}`,
          ]
        : []),
    ];
    for (const link of metadata.recipients ?? []) {
      lines.push(
        `  link ${link.recipient_id}  ${[link.label, link.email].filter(Boolean).join(' ') || '-'}  ${link.state}, ${link.views_left} views left${link.restricted ? ', restricted' : ''}`,
      );
    }
    for (const receipt of receipts ?? []) {
      const where = receipt.location ? ` from ${[receipt.location.region, receipt.location.country].filter(Boolean).join(', ')}` : '';
      const device = receipt.device ? ` on ${[receipt.device.browser, receipt.device.os].filter(Boolean).join(', ')}` : '';
      lines.push(
        `  opened      ${receipt.opened_at} via ${receipt.channel}${receipt.recipient_id ? ` (${receipt.recipient_id})` : ''}${where}${device}`,
      );
    }
    context.stdout.write(`${lines.join('\n')}\n`);
  },
};
