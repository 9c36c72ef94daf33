/** A passphrase: HUSHLINK_PASSPHRASE when set, else asked without echo (twice when sending). */
import type { Context } from './command.ts';
import { usageError } from './errors.ts';
import { askHidden } from './prompt.ts';

const noTerminal = 'A passphrase is needed and there is no terminal to ask on: set HUSHLINK_PASSPHRASE.';

export async function passphraseFor(context: Context, options: { confirm: boolean }): Promise<string> {
  const given = context.env.HUSHLINK_PASSPHRASE;
  if (given !== undefined) {
    if (given === '') throw usageError('HUSHLINK_PASSPHRASE is set but empty.', 'empty_passphrase');
    return given;
  }
  const io = { stdin: context.stdin, stderr: context.stderr, noTerminal };
  const first = await askHidden('Passphrase: ', io);
  if (first === '') throw usageError('The passphrase was empty.', 'empty_passphrase');
  if (options.confirm && (await askHidden('Passphrase again: ', io)) !== first)
    throw usageError('The two passphrases differ; nothing was sent.', 'passphrase_mismatch');
  return first;
}
