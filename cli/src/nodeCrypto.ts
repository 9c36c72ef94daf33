import { createRequire } from 'node:module';

let loaded: typeof import('node:crypto') | undefined;

/**
 * node:crypto, loaded on first use rather than with the program: importing it costs every
 * `hushlink --help` some milliseconds of a start-up held to 1.5x `node -e ''` (issue 33).
 */
export const nodeCrypto = (): typeof import('node:crypto') => (loaded ??= createRequire(import.meta.url)('node:crypto'));
