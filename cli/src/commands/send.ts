/**
 * `hushlink send`: a text (stdin, or a small UTF-8 file) sealed whole and created in one call,
 * or a file sealed as it is read and uploaded in presigned parts.
 */
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { sealText, toBase64 } from '../../../shared/envelope/index.ts';
import { secretLimits } from '../../../shared/limits.ts';
import { uploadFile } from '../../transfer/index.ts';
import { apiClient } from '../api.ts';
import { flag, list, text, type Command, type CommandHelp, type Context } from '../command.ts';
import { countWithin, durationWithin, parseInstant } from '../duration.ts';
import { usageError } from '../errors.ts';
import { t } from '../i18n.ts';
import { progressBar } from '../progress.ts';
import { passphraseFor } from '../passphrase.ts';
import { readSmallText, readStdin } from '../input.ts';
import { printSent, type SentSecret } from '../secretOutput.ts';

interface Recipient {
  label?: string;
  email?: string;
  restricted?: boolean;
}

export const send: Command = {
  name: 'send',
  positionals: 1,
  options: {
    views: { type: 'string' },
    expires: { type: 'string' },
    passphrase: { type: 'boolean' },
    'not-before': { type: 'string' },
    recipient: { type: 'string', multiple: true },
    'no-restrict': { type: 'boolean' },
    'as-file': { type: 'boolean' },
    name: { type: 'string' },
  },
  help: {
    usage: 'hushlink send [FILE|-] [options]',
    get summary() {
      return t('cli.send.summary');
    },
    get description() {
      return t('cli.send.description');
    },
    get options(): CommandHelp['options'] {
      return [
        ['--views N', t('cli.send.optionViews')],
        ['--expires DURATION', t('cli.send.optionExpires')],
        ['--passphrase', t('cli.send.optionPassphrase')],
        ['--not-before WHEN', t('cli.send.optionNotBefore')],
        ['--recipient LABEL[:EMAIL]', t('cli.send.optionRecipient')],
        ['--no-restrict', t('cli.send.optionNoRestrict')],
        ['--as-file', t('cli.send.optionAsFile')],
        ['--name NAME', t('cli.send.optionName')],
      ];
    },
    get examples(): CommandHelp['examples'] {
      return [
        ['echo "s3cr3t" | hushlink send', t('cli.send.exampleStdin')],
        ['hushlink send id_rsa --expires 1h --views 1', t('cli.send.exampleKey')],
        ['hushlink send backup.tar.gz --passphrase', t('cli.send.exampleLarge')],
        ['hushlink send creds.txt --recipient alice:alice@example.com --recipient bob', t('cli.send.exampleRecipients')],
        ['hushlink send - --json < token.txt', t('cli.send.exampleJson')],
      ];
    },
  },
  run: async (context) => {
    const values = context.values;
    const source = context.positionals[0] ?? '-';
    const settings = secretSettings(context);
    const recipients = recipientsOf(list(values, 'recipient'), !flag(values, 'no-restrict'));
    // The file is looked at before anything is asked: a passphrase typed for a missing file is wasted.
    const file = source === '-' ? undefined : await stat(source).catch(() => null);
    if (file !== undefined && !file?.isFile()) {
      // `--passphrase VALUE` reads VALUE as the FILE: it is not repeated, since it may be the passphrase.
      if (flag(values, 'passphrase')) throw usageError(t('cli.send.passphraseTakesNoValue'), 'no_such_file');
      throw usageError(t('cli.common.notAFile', { path: source }), 'no_such_file');
    }
    if (file === undefined && (flag(values, 'as-file') || text(values, 'name'))) throw usageError(t('cli.common.asFileNeedsFile'));
    const passphrase = flag(values, 'passphrase') ? await passphraseFor(context, { confirm: true }) : undefined;
    const api = apiClient(context.api, context);

    if (file) {
      // A name of its own makes it a file: only a file shows one.
      const asFile = flag(values, 'as-file') || text(values, 'name') !== undefined;
      const small = !asFile && file.size <= secretLimits.textEnvelopeBytes ? await readSmallText(source) : undefined;
      if (small === undefined) {
        return void printSent(
          context,
          await sendFile(context, source, file.size, { ...settings, recipients, passphrase, credential: await api.bearer('optional') }),
        );
      }
      return void printSent(context, await sendText(context, small, { ...settings, recipients, passphrase }));
    }
    if (context.stdin.isTTY) context.stderr.write(`${t('cli.send.typeSecret')}\n`);
    const typed = await readStdin(context.stdin, secretLimits.textEnvelopeBytes, context.signal);
    if (typed === undefined)
      throw usageError(t('cli.send.stdinLimit', { size: secretLimits.textEnvelopeBytes / 1024 }), 'payload_too_large');
    if (typed.length === 0) throw usageError(t('cli.common.emptyStdin'), 'empty');
    return void printSent(context, await sendText(context, typed, { ...settings, recipients, passphrase }));

    async function sendText(
      context: Context,
      plaintext: string,
      options: Settings & { recipients?: Recipient[]; passphrase?: string },
    ): Promise<SentSecret> {
      const sealed = await sealText(plaintext, options.passphrase ? { passphrase: options.passphrase } : {});
      if (sealed.envelope.length > secretLimits.textEnvelopeBytes) {
        throw usageError(t('cli.send.textTooLong'), 'payload_too_large');
      }
      const created = await api.call<Created>('POST', '/v1/secrets', {
        auth: 'optional',
        signal: context.signal,
        json: {
          kind: 'text',
          envelope: toBase64(sealed.envelope),
          salt: sealed.salt,
          size_bytes: sealed.envelope.length,
          // A claim must prove the link (and passphrase), so a preview bot or a wrong passphrase never uses a view.
          claim_verifier: sealed.claimVerifier,
          link_verifier: sealed.linkVerifier,
          ...(options.expiresIn === undefined ? {} : { expires_in: options.expiresIn }),
          ...(options.maxViews === undefined ? {} : { max_views: options.maxViews }),
          ...(options.notBefore === undefined ? {} : { not_before: options.notBefore }),
          ...(options.recipients ? { recipients: options.recipients } : {}),
        },
      });
      return {
        id: created.id,
        link: `${created.url_base}#${sealed.key}`,
        delete_token: created.delete_token,
        expires_at: created.expires_at,
        max_views: created.max_views,
        not_before: created.not_before,
        ...(created.recipients
          ? { links: created.recipients.map(({ url_base, ...recipient }) => ({ ...recipient, link: `${url_base}#${sealed.key}` })) }
          : {}),
      };
    }
  },
};

interface Settings {
  expiresIn?: number;
  maxViews?: number;
  notBefore?: string;
}

interface Created {
  id: string;
  url_base: string;
  delete_token: string;
  expires_at: string;
  not_before: string | null;
  max_views: number;
  recipients?: Array<{ recipient_id: string; label: string | null; email: string | null; restricted: boolean; url_base: string }>;
}

function secretSettings(context: Context): Settings {
  const values = context.values;
  const settings: Settings = {};
  const maxViews = countWithin(text(values, 'views'), '--views', secretLimits.maxViews);
  if (maxViews !== undefined) settings.maxViews = maxViews;
  const expiresIn = durationWithin(text(values, 'expires'), '--expires', secretLimits.expiresInSeconds);
  if (expiresIn !== undefined) settings.expiresIn = expiresIn;
  const notBefore = text(values, 'not-before');
  if (notBefore !== undefined) settings.notBefore = parseInstant(notBefore, '--not-before');
  return settings;
}

/** `label`, `label:email`, or `email` alone; with an address, restricted unless told otherwise. */
export function recipientsOf(given: string[], restrict: boolean): Recipient[] | undefined {
  if (given.length === 0) return undefined;
  const { max } = secretLimits.recipients;
  if (given.length > max) throw usageError(t('cli.send.tooManyRecipients', { max, count: given.length }));
  return given.map((item) => {
    const at = item.lastIndexOf(':');
    const [label, email] = at === -1 ? (item.includes('@') ? ['', item] : [item, '']) : [item.slice(0, at), item.slice(at + 1)];
    if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw usageError(t('cli.send.badRecipientEmail', { given: item, email }));
    if (label.length > secretLimits.recipientLabelChars)
      throw usageError(t('cli.send.labelTooLong', { given: item, max: secretLimits.recipientLabelChars }));
    if (!label && !email) throw usageError(t('cli.send.badRecipient'));
    return { ...(label ? { label } : {}), ...(email ? { email, ...(restrict ? { restricted: true } : {}) } : {}) };
  });
}

async function sendFile(
  context: Context,
  path: string,
  size: number,
  options: Settings & { recipients?: Recipient[] | undefined; passphrase?: string | undefined; credential: string | undefined },
): Promise<SentSecret> {
  const bar = progressBar(t('cli.progress.uploading'), size, context);
  try {
    const uploaded = await uploadFile({
      api: context.api,
      credential: options.credential,
      file: path,
      name: text(context.values, 'name') ?? basename(path),
      signal: context.signal,
      onProgress: (step) => bar.update(step.sentBytes, step.totalBytes),
      ...(options.expiresIn === undefined ? {} : { expiresIn: options.expiresIn }),
      ...(options.maxViews === undefined ? {} : { maxViews: options.maxViews }),
      ...(options.notBefore === undefined ? {} : { notBefore: options.notBefore }),
      ...(options.passphrase === undefined ? {} : { passphrase: options.passphrase }),
      ...(options.recipients ? { recipients: options.recipients } : {}),
    });
    bar.stop();
    return {
      id: uploaded.id,
      link: uploaded.link,
      delete_token: uploaded.deleteToken,
      expires_at: uploaded.expiresAt,
      max_views: options.maxViews ?? 1,
      not_before: options.notBefore ?? null,
      ...(uploaded.recipientLinks
        ? {
            links: uploaded.recipientLinks.map((item, index) => {
              const asked = options.recipients?.[index];
              return {
                recipient_id: item.recipientId,
                label: asked?.label ?? null,
                email: asked?.email ?? null,
                restricted: asked?.restricted ?? false,
                link: item.link,
              };
            }),
          }
        : {}),
    };
  } catch (error) {
    bar.stop();
    throw error;
  }
}
