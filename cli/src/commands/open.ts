/**
 * `hushlink open LINK`: reads the secret's metadata first (nothing is used up), asks for what
 * it needs (a passphrase, a restricted link's emailed code), and claims only then. A text goes
 * to stdout, a file to `-o` or to the name the sender gave it, never over an existing file.
 */
import { constants } from 'node:fs';
import { access, open as openFile, rm, type FileHandle } from 'node:fs/promises';
import { basename } from 'node:path';
import { claimTokenFor, fromBase64, iterationRange, linkTokenFor, openText } from '../../../shared/envelope/index.ts';
import { downloadFile, parseLink } from '../../transfer/index.ts';
import type { ClaimedSecret, SecretMetadata } from '../../transfer/api.ts';
import { apiClient, type ApiClient } from '../api.ts';
import { flag, text, type Command, type CommandHelp, type Context } from '../command.ts';
import { CliError, exitCodes, usageError } from '../errors.ts';
import { type MessageKey, sentences, t } from '../i18n.ts';
import { passphraseFor } from '../passphrase.ts';
import { answerer } from '../prompt.ts';
import { printable } from '../printable.ts';
import { progressBar } from '../progress.ts';

export const open: Command = {
  name: 'open',
  positionals: 1,
  options: {
    output: { type: 'string', short: 'o' },
    force: { type: 'boolean' },
    email: { type: 'string' },
  },
  help: {
    usage: 'hushlink open LINK [-o FILE] [options]',
    get summary() {
      return t('cli.open.summary');
    },
    get description() {
      return t('cli.open.description');
    },
    get options(): CommandHelp['options'] {
      return [
        ['-o, --output FILE', t('cli.open.optionOutput')],
        ['--force', t('cli.open.optionForce')],
        ['--email ADDRESS', t('cli.open.optionEmail')],
      ];
    },
    get examples(): CommandHelp['examples'] {
      return [
        ['hushlink open "https://hushlink.example.com/s/sec_…#…"', t('cli.open.exampleText')],
        ['hushlink open "$LINK" -o ~/.ssh/id_deploy', t('cli.open.exampleFile')],
        ['HUSHLINK_PASSPHRASE=… hushlink open "$LINK" > out.txt', t('cli.open.exampleScript')],
        ['hushlink open "$LINK" --json', t('cli.open.exampleJson')],
      ];
    },
  },
  run: async (context) => {
    const given = context.positionals[0];
    if (given === undefined) throw usageError(t('cli.open.missingLink'));
    const link = parseLink(given);
    const api = apiClient(link.origin, context);
    const query = link.recipientId ? `?${new URLSearchParams({ recipient_id: link.recipientId }).toString()}` : '';
    const metadata = await api.call<SecretMetadata>('GET', `/v1/secrets/${encodeURIComponent(link.id)}${query}`, {
      signal: context.signal,
    });
    refuseUnopenable(metadata);

    const output = text(context.values, 'output');
    const force = flag(context.values, 'force');
    // Refused before the claim, so no view is used.
    if (output !== undefined && !force && (await exists(output))) throw usageError(t('cli.open.exists', { path: output }), 'exists');
    const passphrase = metadata.passphrase ? await passphraseFor(context, { confirm: false }) : undefined;
    const gateToken = metadata.recipient?.restricted ? await passGate(context, api, link.id, metadata.recipient.recipient_id) : undefined;

    if (metadata.kind === 'file') {
      const bar = progressBar(t('cli.progress.downloading'), metadata.size_bytes, context);
      try {
        const saved = await downloadFile({
          link: given,
          to: output ?? ((name) => safeName(name, link.id)),
          overwrite: force,
          signal: context.signal,
          onProgress: (step) => bar.update(step.receivedBytes, step.totalBytes),
          ...(passphrase === undefined ? {} : { passphrase }),
          ...(gateToken === undefined ? {} : { gateToken }),
        });
        bar.stop();
        if (context.json)
          context.stdout.write(
            `${JSON.stringify({ kind: 'file', path: saved.path, name: saved.name, type: saved.type, size: saved.size, views_left: saved.viewsLeft }, null, 2)}\n`,
          );
        else
          context.stderr.write(
            `${sentences(t('cli.open.savedFile', { name: printable(saved.name), size: saved.size, path: printable(saved.path) }), viewsLeft(saved.viewsLeft))}\n`,
          );
      } catch (error) {
        bar.stop();
        throw error;
      }
      return;
    }

    // The file a text goes to is opened before the claim: a folder that cannot take it fails while no view is used.
    const target = output === undefined ? undefined : await openFile(output, force ? 'a' : 'wx', 0o600);
    try {
      await claimText(context, { api, link, metadata, passphrase, gateToken, target, output });
    } catch (error) {
      await target?.close().catch(() => undefined);
      if (target && !force) await rm(output!, { force: true });
      throw error;
    }
  },
};

interface TextClaim {
  api: ApiClient;
  link: ReturnType<typeof parseLink>;
  metadata: SecretMetadata;
  passphrase: string | undefined;
  gateToken: string | undefined;
  target: FileHandle | undefined;
  output: string | undefined;
}

async function claimText(context: Context, { api, link, metadata, passphrase, gateToken, target, output }: TextClaim): Promise<void> {
  const iterations = metadata.kdf_iterations || iterationRange.default;
  const [claimToken, linkToken] = await Promise.all([
    claimTokenFor({ key: link.key, salt: metadata.salt, passphrase, iterations }),
    linkTokenFor({ key: link.key, salt: metadata.salt }),
  ]);
  const claimed = await api.call<ClaimedSecret>('POST', `/v1/secrets/${encodeURIComponent(link.id)}/claim`, {
    signal: context.signal,
    json: {
      claim_token: claimToken,
      link_token: linkToken,
      ...(link.recipientId ? { recipient_id: link.recipientId } : {}),
      ...(gateToken ? { gate_token: gateToken } : {}),
    },
  });
  if (claimed.kind !== 'text') throw new CliError(exitCodes.refused, 'unexpected_kind', t('cli.open.unexpectedKind'));
  const plaintext = await openText(fromBase64(claimed.envelope), { key: link.key, salt: claimed.salt, passphrase });
  if (target) {
    await target.truncate(0);
    await target.write(plaintext);
    await target.close();
  }
  if (context.json) {
    context.stdout.write(
      `${JSON.stringify({ kind: 'text', ...(output ? { path: output } : { text: plaintext }), views_left: claimed.views_left }, null, 2)}\n`,
    );
    return;
  }
  if (output !== undefined) {
    context.stderr.write(`${sentences(t('cli.open.savedText', { path: printable(output) }), viewsLeft(claimed.views_left))}\n`);
    return;
  }
  // Exactly the text when piped; on a terminal, a final newline so the prompt starts on its own line.
  context.stdout.write(context.stdout.isTTY && !plaintext.endsWith('\n') ? `${plaintext}\n` : plaintext);
  if (context.stderr.isTTY) context.stderr.write(`${viewsLeft(claimed.views_left)}\n`);
}

const viewsLeft = (left: number) => (left === 0 ? t('cli.open.gone') : t('cli.open.viewsLeft', { left }));

/** A secret that cannot be claimed, reported from its metadata (no view used, no attempt counted). */
function refuseUnopenable(metadata: SecretMetadata): void {
  const state = metadata.recipient?.state === 'revoked' ? 'revoked' : metadata.recipient?.state === 'used' ? 'burned' : metadata.state;
  const refusals: Record<string, [string, MessageKey]> = {
    burned: ['gone', 'cli.open.burned'],
    expired: ['gone', 'cli.open.expired'],
    revoked: ['gone', 'cli.open.revoked'],
    locked: ['locked', 'cli.refusal.locked'],
    pending: ['not_ready', 'cli.open.pending'],
  };
  const refusal = Object.hasOwn(refusals, state) ? refusals[state] : undefined;
  if (refusal) throw new CliError(exitCodes.refused, refusal[0], t(refusal[1]));
  // A `not_before` still ahead is left to the claim's 425: the service's clock decides, not this machine's.
}

/** A restricted link: the holder's address, the code emailed to it, and the gate session it buys. */
async function passGate(context: Context, api: ApiClient, id: string, recipientId: string): Promise<string> {
  const ask = answerer(context);
  const email = text(context.values, 'email') ?? (await ask(t('cli.open.askEmail')));
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw usageError(t('cli.open.badEmail', { email }));
  const path = `/v1/secrets/${encodeURIComponent(id)}/gate`;
  await api.call('POST', `${path}/start`, { json: { recipient_id: recipientId, email }, signal: context.signal });
  context.stderr.write(`${t('cli.open.codeSent', { email })}\n`);
  const code = (await ask(t('cli.open.askCode'))).replace(/\s+/g, '');
  const session = await api.call<{ gate_token: string }>('POST', `${path}/verify`, {
    json: { recipient_id: recipientId, email, code },
    signal: context.signal,
  });
  return session.gate_token;
}

const exists = (path: string) =>
  access(path, constants.F_OK).then(
    () => true,
    () => false,
  );

/**
 * The sender's name as a file name here: no folders, no control characters or bidirectional
 * overrides, not hidden, and at most 200 bytes (file systems count bytes, up to 255, and the
 * ` (1)` of a taken name comes on top).
 */
export function safeName(name: string, id: string): string {
  let cleaned = printable(basename(name.replaceAll('\\', '/')))
    .replace(/^\.+/, '')
    .trim();
  while (Buffer.byteLength(cleaned) > 200) cleaned = [...cleaned].slice(0, -1).join('');
  return cleaned === '' ? `hushlink-${id}` : cleaned;
}
