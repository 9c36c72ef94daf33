/**
 * "Export CSV" / "Export JSON" of a workspace's audit trail. The route takes the bearer token,
 * which a plain download link cannot send, so the page fetches the file and saves it through a
 * Blob and an `<a download>`; a large trail comes in parts (`link: <…>; rel="next"`), each a
 * whole file, saved one by one as "…-part-1.csv", "…-part-2.csv". Object URLs are revoked after
 * 30 s, or when the page is left.
 */
import { announce, byId, element, setVisible } from './dom.ts';
import { t } from './i18n.ts';
import { withAccess } from './session.ts';
import { explainRefusal, type WorkspaceContext } from './workspaceContext.ts';
import { workspacesApi } from './workspacesApi.ts';

const status = byId('export-status');
const error = byId('export-error');
const buttons = { csv: byId<HTMLButtonElement>('export-csv'), json: byId<HTMLButtonElement>('export-json') };

/** Parts of one export, at most: a trail of 4 MB parts this long is far beyond any workspace's. */
const maxParts = 1000;
const urls = new Set<string>();

function saveBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  urls.add(url);
  const link = element('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => {
    URL.revokeObjectURL(url);
    urls.delete(url);
  }, 30_000);
}

/** `hushlink-audit-x.csv` → `hushlink-audit-x-part-2.csv`. */
export const partName = (base: string, part: number): string => base.replace(/(\.[a-z]+)?$/, (extension) => `-part-${part}${extension}`);

async function exportTrail(context: WorkspaceContext, format: 'csv' | 'json'): Promise<void> {
  const { workspace } = context;
  for (const button of Object.values(buttons)) button.disabled = true;
  setVisible(error, false);
  setVisible(status, false);
  announce(t('workspaceAudit.export.exporting', { format: format.toUpperCase() }));
  const saved: string[] = [];
  const seen = new Set<string>();
  let path: string | null = workspacesApi.exportPath(workspace.id, format);
  let base = `hushlink-audit-${workspace.slug}.${format}`;
  try {
    while (path !== null && !seen.has(path) && saved.length < maxParts) {
      seen.add(path);
      const from: string = path;
      const part = await withAccess((token) => workspacesApi.exportPart(token, from, workspace.id));
      if (saved.length === 0) base = part.fileName ?? base;
      const several = saved.length > 0 || part.next !== null;
      const name = several ? partName(base, saved.length + 1) : base;
      saveBlob(part.blob, name);
      saved.push(name);
      path = part.next;
    }
    status.replaceChildren(
      saved.length === 1
        ? t('workspaceAudit.export.savedOne', { file: saved[0]! })
        : t('workspaceAudit.export.savedParts', { count: saved.length }),
    );
    if (saved.length > 1) {
      const list = element('ul');
      list.append(
        ...saved.map((name) => {
          const item = element('li', 'mono', name);
          item.translate = false;
          return item;
        }),
      );
      status.append(list);
    }
    status.dataset.parts = String(saved.length);
    setVisible(status, true);
    announce(saved.length === 1 ? t('workspaceAudit.export.done') : t('workspaceAudit.export.doneParts', { count: saved.length }));
  } catch (problem) {
    announce('');
    const prefix = saved.length > 0 ? t('workspaceAudit.export.stopped', { count: saved.length }) : t('workspaceAudit.export.failed');
    await explainRefusal(context, problem, error, prefix);
  } finally {
    for (const button of Object.values(buttons)) button.disabled = false;
  }
}

export function wireExport(context: () => WorkspaceContext): void {
  buttons.csv.addEventListener('click', () => void exportTrail(context(), 'csv'));
  buttons.json.addEventListener('click', () => void exportTrail(context(), 'json'));
  window.addEventListener('pagehide', () => {
    for (const url of urls) URL.revokeObjectURL(url);
    urls.clear();
  });
}
