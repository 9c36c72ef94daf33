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
import { flag, list, text, type Command, type Context } from '../command.ts';
import { countWithin, durationWithin, parseInstant } from '../duration.ts';
import { usageError } from '../errors.ts';
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
    summary: 'Send a text or a file; prints its link.',
    description: `Encrypts on this machine and prints the link: the key is only in the link's #fragment, never sent.
Text comes from stdin (or is typed, ended by Ctrl-D); a FILE of UTF-8 text up to 256 KiB is sent as
text, any other file as a file (uploaded in parts, with a progress bar on a terminal). Only the
link (one per recipient) goes to stdout; the delete token and expiry go to stderr.`,
    options: [
      ['--views N', 'How many times it can be opened, 1 to 100 (default 1).'],
      ['--expires DURATION', 'When it expires: 10m, 1h, 2d, 1w… from 1 minute to 30 days (default 1 day; files 7 days).'],
      ['--passphrase', 'Also lock it with a passphrase: prompted without echo, or HUSHLINK_PASSPHRASE.'],
      ['--not-before WHEN', 'It cannot be opened before this date-time (ISO 8601) or duration from now (2h).'],
      [
        '--recipient LABEL[:EMAIL]',
        'One link per recipient (repeat, up to 20); with an address, only its holder opens it, after an emailed code.',
      ],
      ['--no-restrict', "Recipients' addresses are only labels: anyone with their link may open it."],
      ['--as-file', 'Send FILE as a file (with its name) even when it is short text.'],
      ['--name NAME', "The file name the recipient sees (default: FILE's own name)."],
    ],
    examples: [
      ['echo "s3cr3t" | hushlink send', 'Send a text; prints the link.'],
      ['hushlink send id_rsa --expires 1h --views 1', 'Send a key file that works for one view within an hour.'],
      ['hushlink send backup.tar.gz --passphrase', 'Send a large file, locked with a passphrase too.'],
      ['hushlink send creds.txt --recipient alice:alice@example.com --recipient bob', 'One link each; Alice must prove her address.'],
      ['hushlink send - --json < token.txt', 'Print the id, link, delete token and expiry as JSON.'],
    ],
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
      if (flag(values, 'passphrase'))
        throw usageError(
          'FILE is not a file that can be read (--passphrase takes no value: it is asked for, or read from HUSHLINK_PASSPHRASE).',
          'no_such_file',
        );
      throw usageError(`${source} is not a file that can be read.`, 'no_such_file');
    }
    if (file === undefined && (flag(values, 'as-file') || text(values, 'name'))) throw usageError('--as-file and --name need a FILE.');
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
    if (context.stdin.isTTY) context.stderr.write('Type the secret, then press Ctrl-D on a new line:\n');
    const typed = await readStdin(context.stdin, secretLimits.textEnvelopeBytes, context.signal);
    if (typed === undefined)
      throw usageError(
        `Text from stdin is limited to ${secretLimits.textEnvelopeBytes / 1024} KiB: save it to a file and run \`hushlink send FILE\`.`,
        'payload_too_large',
      );
    if (typed.length === 0) throw usageError('There was nothing to send (stdin was empty).', 'empty');
    return void printSent(context, await sendText(context, typed, { ...settings, recipients, passphrase }));

    async function sendText(
      context: Context,
      plaintext: string,
      options: Settings & { recipients?: Recipient[]; passphrase?: string },
    ): Promise<SentSecret> {
      const sealed = await sealText(plaintext, options.passphrase ? { passphrase: options.passphrase } : {});
      if (sealed.envelope.length > secretLimits.textEnvelopeBytes) {
        throw usageError(
          `This text is too long to send as text; save it to a file and run \`hushlink send FILE --as-file\`.`,
          'payload_too_large',
        );
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
  if (given.length > max) throw usageError(`At most ${max} recipients (got ${given.length}).`);
  return given.map((item) => {
    const at = item.lastIndexOf(':');
    const [label, email] = at === -1 ? (item.includes('@') ? ['', item] : [item, '']) : [item.slice(0, at), item.slice(at + 1)];
    if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw usageError(`--recipient ${item}: "${email}" is not an email address.`);
    if (label.length > secretLimits.recipientLabelChars)
      throw usageError(`--recipient ${item}: a label is at most ${secretLimits.recipientLabelChars} characters.`);
    if (!label && !email) throw usageError('--recipient takes LABEL, LABEL:EMAIL or EMAIL.');
    return { ...(label ? { label } : {}), ...(email ? { email, ...(restrict ? { restricted: true } : {}) } : {}) };
  });
}

async function sendFile(
  context: Context,
  path: string,
  size: number,
  options: Settings & { recipients?: Recipient[] | undefined; passphrase?: string | undefined; credential: string | undefined },
): Promise<SentSecret> {
  const bar = progressBar('Uploading', size, context);
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
