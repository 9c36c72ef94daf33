#!/usr/bin/env node
// In a checkout the sources run through tsx (so an edit is never hidden behind a stale build);
// the packed package holds only dist/, built by `prepack`.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/hushlink.mjs');
}
