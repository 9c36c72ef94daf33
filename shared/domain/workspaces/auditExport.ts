/**
 * The audit trail as a file (issue 15): CSV (RFC 4180) or JSON, written a page of rows at a
 * time, so a trail of any length passes through in pieces and none is held whole. Each chunk is
 * one page's rows; the first chunk is the CSV's header or the JSON's opening, and JSON ends with
 * its closing, so the chunks joined are always one valid file, even of no rows.
 */
import { toIso } from '../../clock.ts';
import type { AuditRow } from './model.ts';

export type ExportFormat = 'csv' | 'json';

/** A row as the API answers it (`GET …/audit`'s items), and as the JSON export writes it. */
export const auditItem = (row: AuditRow) => ({
  id: row.id,
  at: toIso(row.at),
  actor: { user_id: row.actor.userId, email: row.actor.email, via: row.actor.via },
  action: row.action,
  target: row.target,
  details: row.details,
});

export const exportContentType = (format: ExportFormat): string =>
  format === 'csv' ? 'text/csv; charset=utf-8; header=present' : 'application/json';

/** `hushlink-audit-<slug>-<UTC time, ISO 8601 basic>.<format>`: ASCII letters, digits and dashes, safe in a quoted `filename`. */
export function exportFileName(workspaceSlug: string, format: ExportFormat, now: number): string {
  const slug = workspaceSlug
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .slice(0, 40);
  const time = toIso(now)
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return `hushlink-audit-${slug}-${time}.${format}`;
}

/** The chunks of the export: one per non-empty page, after the header (CSV) or between the opening and closing (JSON). */
export async function* auditExport(format: ExportFormat, pages: AsyncIterable<AuditRow[]>): AsyncGenerator<string> {
  const writer = writers[format];
  yield writer.start;
  let first = true;
  for await (const rows of pages) {
    if (rows.length === 0) continue;
    yield writer.page(rows, first);
    first = false;
  }
  if (writer.end) yield writer.end;
}

interface Writer {
  start: string;
  page(rows: AuditRow[], first: boolean): string;
  end?: string;
}

const writers: Record<ExportFormat, Writer> = {
  csv: {
    // A byte order mark: Excel reads a CSV without one in the system's legacy code page, and
    // addresses and names are not all ASCII. RFC 4180 readers that keep it see it before `id`.
    start: `\uFEFF${['id', 'at', 'actor_user_id', 'actor_email', 'via', 'action', 'target', 'details'].join(',')}\r\n`,
    page: (rows) =>
      rows
        .map(
          (row) =>
            `${[row.id, toIso(row.at), row.actor.userId, row.actor.email, row.actor.via, row.action, row.target, detailsCell(row.details)].map(csvCell).join(',')}\r\n`,
        )
        .join(''),
  },
  json: {
    // An object, as the listing answers (`items`), with one row a line.
    start: '{"items":[',
    page: (rows, first) => (first ? '\n' : ',\n') + rows.map((row) => JSON.stringify(auditItem(row))).join(',\n'),
    end: '\n]}\n',
  },
};

/**
 * What spreadsheets take for the start of a formula (OWASP, CSV Injection): `=`, `+`, `-`, `@`,
 * tab and CR, and NUL (ASVS 5.0, 1.2.10); also their full-width forms, which some East Asian
 * spreadsheets read as the ASCII ones. Looked for after any leading whitespace, since importers
 * that trim cells (Google Sheets does by default) would otherwise uncover them.
 */
const formulaStart = /^[\s\u0000]*[=+\-@\t\r\u0000\uFF1D\uFF0B\uFF0D\uFF20]/;

/** One field: a formula's start made text by a leading `'`, then quoted when RFC 4180 needs it. */
export function csvCell(value: string | null): string {
  if (value === null) return '';
  const text = formulaStart.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * Details as compact JSON. Spreadsheets in locales that list with `;` split a CSV on it, and a
 * cell they cut out of the middle of ours could start with `=`; inside JSON strings `;` is
 * written `\u003b` (the same JSON), and JSON has no raw line breaks, so no such cut exists. The
 * other columns are identifiers, enum values and checked addresses.
 */
const detailsCell = (details: AuditRow['details']): string => JSON.stringify(details).replaceAll(';', '\\u003b');
