import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { domainValueImports } from '../support/layers.ts';

// The one layer rule dependency-cruiser cannot check here: a store imports only TYPES from the
// domain (the rules stay in the domain). dependency-cruiser tells type-only imports apart with
// TypeScript's own parser, which TypeScript 7 no longer ships as a library, so this reads the
// import declarations itself. The other rules are in .dependency-cruiser.cjs (`npm run lint:layers`).

/** The pure helpers a store may call, each with why the store, not the domain, must call it. At most 10. */
const allowed: Record<string, Record<string, string>> = {
  'shared/store/secretItem.ts': {
    recipientEmailHash: "the stored hash of a restricted link's address must be exactly the one the gate compares with",
  },
  'shared/store/ssoPolicy.ts': {
    normalizeEmail: "an address's domain is keyed normalized as accounts normalize addresses, or a lookup misses",
  },
  'shared/store/usage.ts': {
    monthOf: 'calls are counted under the month key the usage read and the rollup ask for: one definition of a month',
  },
  'shared/store/workspaceMembership.ts': {
    isWorkspaceId: 'a malformed workspace id is no key: refused without a read, by the one definition of an id',
  },
  'shared/store/workspaceScim.ts': {
    foldCase: 'the userName uniqueness key is the folded userName, folded as the filters fold it (SCIM: any case)',
  },
  'shared/store/scimUserItems.ts': {
    storedEnterprise: 'a manager stored as a bare id before it was an object reads back as the object, on every read of a User (ADR 0176)',
  },
  'shared/store/scimGroups.ts': {
    foldCase: 'the displayName uniqueness key is the folded displayName, folded as SCIM compares it (any case)',
  },
};

const root = join(import.meta.dirname, '..', '..');

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

describe('layers', () => {
  it('finds value imports, and passes type-only ones', () => {
    const text = [
      "import type { Secret } from '../domain/secrets/model.ts';",
      "import { type Recipient, isTerminal } from '../domain/secrets/model.ts';",
      "import {\n  type A,\n  type B,\n} from '../domain/x.ts';",
      "import { keyOf } from './items/index.ts';",
    ].join('\n');
    expect(domainValueImports('shared/store/example.ts', text)).toEqual([
      { file: 'shared/store/example.ts', from: 'shared/domain/secrets/model.ts', names: ['isTerminal'] },
    ]);
  });

  it('a store imports from the domain only types, and the named helpers of the allowlist', () => {
    const violations = sourceFiles('shared/store').flatMap((file) =>
      domainValueImports(file, readFileSync(join(root, file), 'utf8')).flatMap(({ from, names }) =>
        names.filter((name) => !allowed[file]?.[name]).map((name) => `${file} imports ${name} from ${from}`),
      ),
    );
    expect(violations).toEqual([]);
  });

  it('keeps the allowlist short, each entry with its reason', () => {
    const entries = Object.values(allowed).flatMap((names) => Object.values(names));
    expect(entries.length).toBeLessThanOrEqual(10);
    for (const reason of entries) expect(reason.length).toBeGreaterThan(20);
  });
});
