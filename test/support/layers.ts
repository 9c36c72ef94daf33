import { dirname, join, normalize } from 'node:path';

// The layer check's import reader (test/unit/layers.test.ts), outside the test file so that importing it runs no tests.

export interface ValueImport {
  file: string;
  from: string;
  names: string[];
}

/** The names a store imports from shared/domain as values (not `import type`, not `type X`). */
export function domainValueImports(file: string, text: string): ValueImport[] {
  const found: ValueImport[] = [];
  for (const match of text.matchAll(/^import\s+(type\s+)?([\s\S]*?)\s+from\s+'([^']+)';/gm)) {
    const [, typeOnly, clause, specifier] = match as unknown as [string, string | undefined, string, string];
    if (!specifier.startsWith('.')) continue;
    const target = normalize(join(dirname(file), specifier));
    if (!target.startsWith('shared/domain/') || typeOnly) continue;
    const braces = /\{([\s\S]*)\}/.exec(clause);
    const outside = clause
      .replace(/\{[\s\S]*\}/, '')
      .replace(/,/g, '')
      .trim();
    const names = (braces?.[1] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name && !name.startsWith('type '))
      .map((name) => name.split(/\s+as\s+/)[0]!);
    if (outside) names.push(outside);
    if (names.length) found.push({ file, from: target, names });
  }
  return found;
}
