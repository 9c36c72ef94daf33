/** `hushlink status`: a secret's state, views and expiry (nothing is used); its links and receipts for its owner. */
import type { SecretMetadata } from '../../transfer/api.ts';
import { apiClient } from '../api.ts';
import { text, type Command, type CommandHelp } from '../command.ts';
import { columns, type MessageKey, padColumns, t } from '../i18n.ts';
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
    get summary() {
      return t('cli.status.summary');
    },
    get description() {
      return t('cli.status.description');
    },
    get options(): CommandHelp['options'] {
      return [];
    },
    get examples(): CommandHelp['examples'] {
      return [
        ['hushlink status sec_2kQ…', t('cli.status.exampleId')],
        ['hushlink status "$LINK" --json', t('cli.status.exampleJson')],
      ];
    },
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
      context.stderr.write(`${t('cli.status.notYourDeployment', { base, api: context.api, id: ref.id })}\n`);
    }
    if (context.json) {
      context.stdout.write(`${JSON.stringify({ ...metadata, ...(receipts ? { receipts } : {}) }, null, 2)}\n`);
      return;
    }
    // Labels in a column as wide as the widest (12 in English, as it always was).
    const width = Math.max(12, ...labels.map((key) => columns(t(key)) + 2));
    const row = (key: MessageKey, value: string) => `  ${padColumns(t(key), width)}${value}`;
    const linkState = (state: string, left: number, restricted: boolean) =>
      t(restricted ? 'cli.status.linkStateRestricted' : 'cli.status.linkState', { state: stateOf(state), left });
    const kind = t(metadata.kind === 'text' ? 'cli.kind.text' : 'cli.kind.file');
    const lines = [
      `${metadata.id}: ${stateOf(metadata.state)}`,
      row('cli.status.kind', metadata.passphrase ? t('cli.status.withPassphrase', { kind }) : kind),
      row('cli.status.viewsLeft', t('cli.status.viewsOf', { left: metadata.views_left, max: metadata.max_views })),
      row('cli.status.created', metadata.created_at),
      row('cli.status.expires', metadata.expires_at),
      ...(metadata.not_before ? [row('cli.status.opensFrom', metadata.not_before)] : []),
      ...(metadata.ended_at ? [row('cli.status.ended', metadata.ended_at)] : []),
      ...(metadata.recipient
        ? [row('cli.status.thisLink', linkState(metadata.recipient.state, metadata.recipient.views_left, metadata.recipient.restricted))]
        : []),
    ];
    for (const link of metadata.recipients ?? []) {
      lines.push(
        `  ${t('cli.status.link')} ${link.recipient_id}  ${[link.label, link.email].filter(Boolean).join(' ') || '-'}  ${linkState(link.state, link.views_left, link.restricted)}`,
      );
    }
    for (const receipt of receipts ?? []) {
      const opened = [
        t('cli.status.openedVia', { time: receipt.opened_at, channel: receipt.channel }),
        ...(receipt.recipient_id ? [`(${receipt.recipient_id})`] : []),
        ...(receipt.location
          ? [t('cli.status.openedFrom', { place: [receipt.location.region, receipt.location.country].filter(Boolean).join(', ') })]
          : []),
        ...(receipt.device
          ? [t('cli.status.openedOn', { device: [receipt.device.browser, receipt.device.os].filter(Boolean).join(', ') })]
          : []),
      ];
      lines.push(row('cli.status.opened', opened.join(' ')));
    }
    context.stdout.write(`${lines.join('\n')}\n`);
  },
};

/** The row labels, whose widest sets the column. */
const labels: MessageKey[] = [
  'cli.status.kind',
  'cli.status.viewsLeft',
  'cli.status.created',
  'cli.status.expires',
  'cli.status.opensFrom',
  'cli.status.ended',
  'cli.status.thisLink',
  'cli.status.opened',
];

/** A secret's or a link's state as the human output says it (the JSON keeps the API's word). */
const states: Record<string, MessageKey> = {
  pending: 'cli.state.pending',
  active: 'cli.state.active',
  burned: 'cli.state.burned',
  expired: 'cli.state.expired',
  revoked: 'cli.state.revoked',
  locked: 'cli.state.locked',
  used: 'cli.state.used',
};
const stateOf = (state: string): string => (Object.hasOwn(states, state) ? t(states[state]!) : state);
