import { createRequire } from 'node:module';

/**
 * Every chunk node:crypto seals or opens is a new buffer, dead once copied into its part or
 * written, but V8 frees a dead buffer's memory only when a collection finds it: when the young
 * generation fills (seldom, so few objects does a transfer make) or when external memory has
 * grown 64 MiB. Unhelped, some 30 MiB of dead chunks were held at the upload's peak. A young
 * collection every `collectEvery` bytes costs well under a millisecond and bounds them (ADR 0184).
 */
const collectEvery = 4 * 1024 * 1024;

type Collect = (options: { type: 'minor' }) => void;
let collect: Collect | null | undefined;
let since = 0;

/** Counts `bytes` of new chunk buffers, and runs a young-generation collection every `collectEvery`. */
export function madeGarbage(bytes: number): void {
  since += bytes;
  if (since < collectEvery) return;
  since = 0;
  collect ??= exposedGc();
  collect?.({ type: 'minor' });
}

/** V8's `gc`, which Node hides unless started with --expose-gc: the flag set now, the function read from a fresh context. */
function exposedGc(): Collect | null {
  try {
    // Loaded on first use, not with the program: node:v8 and node:vm cost `hushlink --help` some milliseconds.
    const load = createRequire(import.meta.url);
    (load('node:v8') as typeof import('node:v8')).setFlagsFromString('--expose-gc');
    const gc: unknown = (load('node:vm') as typeof import('node:vm')).runInNewContext('gc');
    return typeof gc === 'function' ? (gc as Collect) : null;
  } catch {
    return null; // a runtime that refuses: the chunks wait for V8's own collections, as before
  }
}
