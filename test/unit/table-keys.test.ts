import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as items from '../../shared/store/items/index.ts';
import { auditKey, emailKey, subscriptionKey, userKey, workspaceKey, writtenBy } from '../../shared/store/items/index.ts';

// The table has one owner of its keys (issue 27): shared/store/items/. A key template or a key
// literal spelled anywhere else in the code that ships or touches the table fails here.

const root = join(import.meta.dirname, '..', '..');
/** Where code that builds keys could live (tests may write raw items, old formats included). */
const scanned = ['shared', 'functions', 'local', 'lib', 'scripts', 'bench', 'cli'];
const owner = 'shared/store/items/';

/**
 * Literals that look like keys and are not the table's, each with why. Keep it short.
 * Keyed by file, then the literal as written in the source (its quotes or backticks included).
 */
const allowed: Record<string, Record<string, string>> = {
  'bench/claim.ts': {
    "'BENCH#raw-update'": 'the bench’s own scratch counter for its raw UpdateItem baseline: never written by the service',
    "'BENCH#raw-update-2'": 'the second scratch counter of the same baseline (two updates in parallel)',
    "sk: { S: 'BENCH' }": 'the sort key of those two scratch counters',
  },
};

interface Literal {
  /** As written, quotes included. */
  source: string;
  /** Its text without quotes; a template's `${…}` parts as `${}`. */
  text: string;
  line: number;
}

/**
 * The string and template literals of a TypeScript file, and its code with comments blanked out
 * (TypeScript 7 has no parser to lend; this reads strings, templates and their `${}`, comments,
 * and regular expressions where an operand is expected, enough for the code of this repository).
 */
function lex(source: string): { literals: Literal[]; code: string } {
  const literals: Literal[] = [];
  let code = '';
  let i = 0;
  let line = 1;
  let lastSignificant = '';
  const regexMayFollow = () =>
    lastSignificant === '' ||
    /[(,=:[!&|?{};+\-*%<>~^]$/.test(lastSignificant) ||
    /\b(return|typeof|case|of|in|new|delete|void|throw|else|yield|await)$/.test(lastSignificant);
  const take = (text: string) => {
    for (const char of text) if (char === '\n') line++;
    code += text;
  };
  /** A template from its backtick at `start` to its closing one; templates nested in its `${…}` are literals too. */
  const template = (start: number): { end: number; text: string } => {
    let j = start + 1;
    let text = '';
    while (j < source.length && source[j] !== '`') {
      if (source[j] === '\\') {
        text += source.slice(j, j + 2);
        j += 2;
      } else if (source[j] === '$' && source[j + 1] === '{') {
        let depth = 1;
        j += 2;
        while (j < source.length && depth > 0) {
          if (source[j] === '`') {
            const nested = template(j);
            literals.push({
              source: source.slice(j, nested.end),
              text: nested.text,
              line: line + (source.slice(start, j).match(/\n/g)?.length ?? 0),
            });
            j = nested.end;
            continue;
          }
          if (source[j] === "'" || source[j] === '"') {
            const quote = source[j];
            j++;
            while (j < source.length && source[j] !== quote) j += source[j] === '\\' ? 2 : 1;
          } else if (source[j] === '{') depth++;
          else if (source[j] === '}') depth--;
          j++;
        }
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a template's text keeps `${}` where each of its substitutions was
        text += '${}';
      } else text += source[j++];
    }
    return { end: j + 1, text };
  };
  while (i < source.length) {
    const char = source[i]!;
    const next = source[i + 1];
    if (char === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      i = end === -1 ? source.length : end;
      code += ' ';
    } else if (char === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2) + 2;
      take(source.slice(i, end).replace(/[^\n]/g, ' '));
      i = end;
    } else if (char === "'" || char === '"') {
      let j = i + 1;
      while (j < source.length && source[j] !== char && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
      const written = source.slice(i, j + 1);
      literals.push({ source: written, text: written.slice(1, -1), line });
      take(written);
      i = j + 1;
      lastSignificant = 'x';
    } else if (char === '`') {
      const { end, text } = template(i);
      literals.push({ source: source.slice(i, end), text, line });
      take(source.slice(i, end));
      i = end;
      lastSignificant = 'x';
    } else if (char === '/' && regexMayFollow()) {
      let j = i + 1;
      let inClass = false;
      while (j < source.length && (inClass || source[j] !== '/') && source[j] !== '\n') {
        if (source[j] === '\\') j++;
        else if (source[j] === '[') inClass = true;
        else if (source[j] === ']') inClass = false;
        j++;
      }
      take(source.slice(i, j + 1));
      i = j + 1;
      lastSignificant = 'x';
    } else {
      take(char);
      if (!/\s/.test(char)) lastSignificant = /\w/.test(char) ? (/\w$/.test(lastSignificant) ? lastSignificant + char : char) : char;
      i++;
    }
  }
  return { literals, code };
}

/** Why a literal or a line of code looks like a key, or null. */
function keyLike(literals: Literal[], code: string): Array<{ line: number; found: string; why: string }> {
  const found: Array<{ line: number; found: string; why: string }> = [];
  for (const literal of literals) {
    if (literal.source.startsWith('`') && /(^|[^A-Za-z0-9_])[A-Z][A-Z0-9_]+#/.test(literal.text))
      found.push({ line: literal.line, found: literal.source, why: 'a key template (`WORD#…`)' });
    else if (!literal.source.startsWith('`') && /^[A-Z][A-Z0-9_]+#/.test(literal.text))
      found.push({ line: literal.line, found: literal.source, why: "a key prefix ('WORD#…')" });
  }
  const lines = code.split('\n');
  lines.forEach((text, index) => {
    for (const match of text.matchAll(
      /\b(?:pk|sk|gsi[12](?:pk|sk))\s*:\s*(?:(['"`])[A-Z][A-Z0-9_]*\1|\{\s*S\s*:\s*(['"`])[A-Z][A-Z0-9_]*\2\s*\})/g,
    )) {
      found.push({ line: index + 1, found: match[0], why: "a key literal (`sk: 'WORD'`)" });
    }
  });
  return found;
}

/**
 * The writes a store file builds (a transaction's Put, Update or Delete, a Put, Update or Delete
 * command, a workspace store's `this.put`), each with the item key builders it calls, by the
 * names items/ exports them under (an import's alias read back).
 */
function writesOf(source: string): Array<{ line: number; builders: string[] }> {
  const { code } = lex(source);
  const aliases = new Map<string, string>();
  for (const match of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'\.\/items\/index\.ts'/g)) {
    for (const name of match[1]!
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part && !part.startsWith('type '))) {
      const [exported, local] = name.split(/\s+as\s+/);
      aliases.set((local ?? exported)!, exported!);
    }
  }
  const writes: Array<{ line: number; builders: string[] }> = [];
  for (const match of code.matchAll(/\b(?:Put|Update|Delete)\s*:\s*\{|\bnew\s+(?:Put|Update|Delete)Command\s*\(|\bthis\.put\s*\(/g)) {
    // The construct's own text: from its opening bracket to the one that closes it.
    let at = match.index + match[0].length - 1;
    let depth = 0;
    const start = at;
    do {
      if (code[at] === '{' || code[at] === '(') depth++;
      else if (code[at] === '}' || code[at] === ')') depth--;
      at++;
    } while (depth > 0 && at < code.length);
    const text = code.slice(start, at);
    const builders = [...text.matchAll(/\b(\w+)\s*\(/g)]
      .map((call) => aliases.get(call[1]!))
      .filter((name): name is string => name !== undefined && Object.hasOwn(writtenBy, name));
    writes.push({ line: code.slice(0, match.index).split('\n').length, builders: [...new Set(builders)] });
  }
  return writes;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .filter((file) => !file.split('/').some((part) => part === 'node_modules' || part === 'dist'));
}

describe('the table’s keys', () => {
  it('reads literals, templates and code the way the scan needs', () => {
    // biome-ignore-start lint/suspicious/noTemplateCurlyInString: the scanner under test reads source text, so these strings spell key templates as code does
    const { literals, code } = lex(
      [
        'const a = `USER#${id}#SESSIONS`; // `SECRET#${x}` in a comment',
        "/* 'RECEIPT#' */ const b = { pk, sk: 'PROFILE' };",
        'const c = `${queue}#${shard}`, d = /[\'"]#/g, e = x / 2;',
        'const f = `${`WORKSPACE#${id}`}`;',
      ].join('\n'),
    );
    // A template nested in another one's `${}` is a literal of its own (before the one holding it).
    expect(literals.map((literal) => literal.source)).toEqual([
      '`USER#${id}#SESSIONS`',
      "'PROFILE'",
      '`${queue}#${shard}`',
      '`WORKSPACE#${id}`',
      '`${`WORKSPACE#${id}`}`',
    ]);
    expect(code).not.toContain('RECEIPT');
    expect(keyLike(literals, code).map((hit) => [hit.line, hit.found])).toEqual([
      [1, '`USER#${id}#SESSIONS`'],
      [4, '`WORKSPACE#${id}`'],
      [2, "sk: 'PROFILE'"],
    ]);
    // biome-ignore-end lint/suspicious/noTemplateCurlyInString: the scanner's source text ends here
    expect(keyLike([], "Key: { pk: { S: 'CONFIG' }, sk: { S: 'SIGNING_KEYS' } }").map((hit) => hit.found)).toEqual([
      "pk: { S: 'CONFIG' }",
      "sk: { S: 'SIGNING_KEYS' }",
    ]);
  });

  it('are spelled only in shared/store/items/ (a short, explained allowlist aside)', () => {
    const violations = scanned
      .flatMap(sourceFiles)
      .filter((file) => !file.startsWith(owner))
      .flatMap((file) => {
        const { literals, code } = lex(readFileSync(join(root, file), 'utf8'));
        return keyLike(literals, code)
          .filter((hit) => !allowed[file]?.[hit.found])
          .map((hit) => `${file}:${hit.line} ${hit.found}: ${hit.why}`);
      });
    expect(violations).toEqual([]);
  });

  it('keeps the allowlist short, each entry with its reason', () => {
    const entries = Object.values(allowed).flatMap((found) => Object.values(found));
    expect(entries.length).toBeLessThanOrEqual(6);
    for (const reason of entries) expect(reason.length).toBeGreaterThan(20);
  });

  it('names the store that writes each item type, for every key builder of items/', () => {
    const builders = Object.entries(items)
      .filter(([name, value]) => typeof value === 'function' && name.endsWith('Key'))
      .map(([name]) => name)
      .sort();
    expect(builders).toEqual(Object.keys(writtenBy).sort());
    const stores = new Set(readdirSync(join(root, 'shared/store')).filter((file) => file.endsWith('.ts')));
    for (const [builder, owners] of Object.entries(writtenBy))
      for (const file of owners) expect(stores.has(file), `${builder}: ${file}`).toBe(true);
  });

  it('are written only by the store that owns their item: others put the owner’s part in their transaction', () => {
    const sample = [
      "import { rosterKey as roster, userKey, type UserItem } from './items/index.ts';",
      "const a = { Update: { TableName: t, Key: roster(id), UpdateExpression: 'SET seats = :s' } };",
      'await db.send(new GetCommand({ TableName: t, Key: userKey(id) }));',
      "this.put({ ...userKey(id), type: 'user' } satisfies UserItem);",
    ].join('\n');
    expect(writesOf(sample)).toEqual([
      { line: 2, builders: ['rosterKey'] },
      { line: 4, builders: ['userKey'] },
    ]);
    const violations = readdirSync(join(root, 'shared/store'))
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        writesOf(readFileSync(join(root, 'shared/store', file), 'utf8')).flatMap(({ line, builders }) =>
          builders
            .filter((builder) => !(writtenBy[builder as keyof typeof writtenBy] as readonly string[]).includes(file))
            .map(
              (builder) =>
                `shared/store/${file}:${line} writes a ${builder} item, which ${writtenBy[builder as keyof typeof writtenBy].join(' / ')} owns`,
            ),
        ),
      );
    expect(violations).toEqual([]);
  });

  it('grants sales’ admin command (docs/operations.md) exactly the partitions its writes and reads key', () => {
    // The IAM policy's LeadingKeys name partitions by prefix: each one must be a key items/ builds.
    const built: Record<string, string> = {
      'EMAIL#': emailKey('x').pk,
      'USER#': userKey('x').pk,
      'WORKSPACE#': workspaceKey('x').pk,
      'SUBSCRIPTION#': subscriptionKey('x').pk,
      'AUDIT#': auditKey('x', 0, 'y').pk,
    };
    const policy = readFileSync(join(root, 'docs/operations.md'), 'utf8');
    const granted = new Set(
      [...policy.matchAll(/"dynamodb:LeadingKeys": \[([^\]]*)\]/g)].flatMap((match) =>
        [...match[1]!.matchAll(/"([^"]+)\*"/g)].map((prefix) => prefix[1]!),
      ),
    );
    expect([...granted].sort()).toEqual(Object.keys(built).sort());
    for (const [prefix, key] of Object.entries(built)) expect(key, prefix).toBe(`${prefix}x`);
  });
});
