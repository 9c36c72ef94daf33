import { workspaceLimits } from '../../limits.ts';
import { authorize, noSuchWorkspace } from './access.ts';
import { auditExport, exportContentType, exportFileName } from './auditExport.ts';
import type { AuditRow } from './model.ts';
import type { WorkspacePorts } from './ports.ts';

/**
 * An export answers at most this many bytes: Lambda answers through API Gateway at most 6 MB,
 * so a larger trail is exported in parts, each ending on a whole page of rows, the next named by
 * a `link: <…>; rel="next"` header (10,000 rows make about 3 MB: one part).
 */
export const exportPartBytes = 5 * 1024 * 1024;

/** The trail, newest first: owners and admins only; anyone else gets 404 (the route lists no 403). */
export async function readAudit(workspaceId: string, userId: string, limit: number, cursor: string | null, ports: WorkspacePorts) {
  await authorize(workspaceId, userId, 'readAudit', ports);
  return ports.workspaces.auditPage(workspaceId, limit, cursor);
}

export interface AuditExportPart {
  contentType: string;
  fileName: string;
  body: string;
  /** Where the next part starts, when the trail did not fit in this one. */
  nextCursor: string | null;
}

/**
 * The trail as a CSV or JSON file, read and written a page at a time (`auditExport` turns each
 * page into its chunk and keeps nothing of the rows), until the trail ends or the part is full.
 */
export async function exportAudit(
  workspaceId: string,
  userId: string,
  format: 'csv' | 'json',
  cursor: string | null,
  ports: WorkspacePorts,
): Promise<AuditExportPart> {
  await authorize(workspaceId, userId, 'readAudit', ports);
  const workspace = await ports.workspaces.get(workspaceId);
  if (!workspace) throw noSuchWorkspace();
  let next: string | null = cursor;
  let size = 0;
  let full = false;
  async function* pages(): AsyncGenerator<AuditRow[]> {
    do {
      const page = await ports.workspaces.auditPage(workspaceId, workspaceLimits.auditExportPageSize, next);
      next = page.nextCursor;
      yield page.items;
    } while (next !== null && !full);
  }
  const chunks: string[] = [];
  for await (const chunk of auditExport(format, pages())) {
    chunks.push(chunk);
    size += Buffer.byteLength(chunk);
    // Room for one more page (500 rows of at most ~2 KB each) or stop here.
    if (size > exportPartBytes - workspaceLimits.auditExportPageSize * 2048) full = true;
  }
  return {
    contentType: exportContentType(format),
    fileName: exportFileName(workspace.slug, format, ports.clock.now()),
    body: chunks.join(''),
    nextCursor: next,
  };
}
