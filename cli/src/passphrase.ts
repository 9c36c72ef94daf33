/** A passphrase: HUSHLINK_PASSPHRASE when set, else asked without echo (twice when sending). */
import type { Context } from './command.ts';
import { usageError } from './errors.ts';
import { t } from './i18n.ts';
import { askHidden } from './prompt.ts';

export async function passphraseFor(context: Context, options: { confirm: boolean }): Promise<string> {
  const given = context.env.HUSHLINK_PASSPHRASE;
  if (given !== undefined) {
    if (given === '') throw usageError(t('cli.passphrase.emptyEnv'), 'empty_passphrase');
    return given;
  }
  const io = { stdin: context.stdin, stderr: context.stderr, noTerminal: t('cli.passphrase.noTerminal') };
  const first = await askHidden(t('cli.passphrase.ask'), io);
  if (first === '') throw usageError(t('cli.passphrase.empty'), 'empty_passphrase');
  if (options.confirm && (await askHidden(t('cli.passphrase.askAgain'), io)) !== first)
    throw usageError(t('cli.passphrase.differ'), 'passphrase_mismatch');
  return first;
}
