/**
 * The compose page's file: chosen with the picker or dropped on the form (a secret is a text
 * or a file: a chosen file is shared instead of the text, which is set aside), checked against
 * the plan's size limit before anything is sent, then sealed and uploaded (`fileUpload.ts`)
 * with a progress screen and Cancel. The file is read a chunk at a time as it is sealed; the
 * page keeps only the `File` handle.
 */
import { fileSealer } from '../../shared/envelope/index.ts';
import { planTable } from '../../shared/domain/plans.ts';
import type { ApiError } from './api.ts';
import { announce, byId, setVisible } from './dom.ts';
import type { FileUpload, FileUploadBody, Plan } from './filesApi.ts';
import type { UploadInput } from './fileUpload.ts';
import { guardedUpload } from './guardedUpload.ts';
import { t } from './i18n.ts';
import { formatBytes } from './progress.ts';

const form = byId<HTMLFormElement>('compose-form');
const composeSection = byId('compose');
const textField = byId('text-field');
const fileInput = byId<HTMLInputElement>('secret-file');
const fileLabel = byId('secret-file-label');
const chosen = byId('file-chosen');
const chosenText = byId('file-chosen-text');
const removeButton = byId<HTMLButtonElement>('file-remove');
const limitNotice = byId('file-limit');

const uploadSection = byId('upload');

let file: File | null = null;

/** Who is sending: the plan sets the largest file; without an account, Free's. */
export type Caller = Plan | 'anonymous';
/** How the page learns it (null: not known, and only the server checks). */
let callerOf: () => Promise<Caller | null> = async () => 'anonymous';

export function useCaller(lookup: () => Promise<Caller | null>): void {
  callerOf = lookup;
}

/** A workspace's rules on files, while the secret is to be sent in one (`composeWorkspace.ts`). */
export interface FileRule {
  allowed: boolean;
  /** The largest envelope, as the server compares `size_bytes`; null: the plan alone bounds it. */
  maxBytes: number | null;
}
let fileRuleOf: () => FileRule | null = () => null;

export function useFileRule(lookup: () => FileRule | null): void {
  fileRuleOf = lookup;
}

export function chosenFile(): File | null {
  return file;
}

/** The plans' names: names, never translated. */
const planNames: Record<Plan, string> = { free: 'Free', pro: 'Pro', team: 'Team', enterprise: 'Enterprise' };
const limitOf = (caller: Caller) => planTable[caller === 'anonymous' ? 'free' : caller].fileBytes;

/** What the envelope says of the file, encrypted: its name, type and size. */
const metaOf = (picked: File) => ({ name: picked.name, type: picked.type || 'application/octet-stream', size: picked.size });

/** The envelope's length for `picked`: what the plan's limit is measured on. */
async function envelopeBytes(picked: File): Promise<number> {
  // A throwaway key: the header and meta block are as long with any key.
  const sealer = await fileSealer({ meta: metaOf(picked) });
  return sealer.envelopeSize(picked.size);
}

/**
 * "“name” is 101 MB, and files are limited to 100 MB in this workspace.": in bytes when the
 * rounded sizes would read alike. `where`: the workspace, no account, the caller's plan, or a plan not known.
 */
function sizeAgainst(picked: File, limit: number, where: 'workspace' | 'anonymous' | Plan | null): string {
  const near = formatBytes(picked.size) === formatBytes(limit);
  return t('compose.file.tooLarge', {
    name: picked.name,
    size: near ? t('compose.file.bytes', { count: picked.size }) : formatBytes(picked.size),
    max: near ? t('compose.file.bytesAbout', { count: limit, size: formatBytes(limit) }) : formatBytes(limit),
    just: picked.size <= limit ? 'yes' : 'no',
    where: where === null ? 'unknown' : where === 'workspace' || where === 'anonymous' ? where : 'plan',
    plan: where === null || where === 'workspace' || where === 'anonymous' ? '' : planNames[where],
  });
}

/** Why a file this large cannot go, and which plan would take it. */
function overLimitText(picked: File, limit: number, caller: Caller | null): string {
  const first = sizeAgainst(picked, limit, caller);
  const [pro, team] = [formatBytes(planTable.pro.fileBytes), formatBytes(planTable.team.fileBytes)];
  const second =
    planTable.pro.fileBytes > limit
      ? t(caller === 'anonymous' ? 'compose.file.upgradeAnonymous' : 'compose.file.upgradeBoth', { pro, team })
      : planTable.team.fileBytes > limit
        ? t('compose.file.upgradeTeam', { team })
        : null;
  return second === null ? first : t('compose.sentences', { first, second });
}

/**
 * The workspace's rules on files, then the plan's limit, checked in the page before anything is
 * sent; null when the file may go (or the plan is not known).
 */
export async function fileProblem(): Promise<{ field: HTMLElement; message: string } | null> {
  const picked = file;
  if (!picked) return null;
  const rule = fileRuleOf();
  if (rule && !rule.allowed) return { field: fileInput, message: t('compose.file.noFiles', { name: picked.name }) };
  const envelope = await envelopeBytes(picked);
  if (rule?.maxBytes != null && envelope > rule.maxBytes)
    return { field: fileInput, message: sizeAgainst(picked, rule.maxBytes, 'workspace') };
  const caller = await callerOf().catch(() => null);
  if (caller === null || envelope <= limitOf(caller)) return null;
  return { field: fileInput, message: overLimitText(picked, limitOf(caller), caller) };
}

/** The server's 403 `plan_limit`, in the words of the limit it gave (the plan may have changed meanwhile). */
export async function planLimitMessage(error: ApiError): Promise<string | null> {
  if (error.status !== 403 || error.problem.reason !== 'plan_limit' || !file) return null;
  const limit = Number(error.problem.limit_bytes);
  const plan = (['free', 'pro', 'team'] as const).find((name) => planTable[name].fileBytes === limit) ?? null;
  const caller = plan === 'free' && (await callerOf().catch(() => null)) === 'anonymous' ? 'anonymous' : plan;
  return overLimitText(file, limit, caller);
}

async function choose(picked: File | null): Promise<void> {
  file = picked;
  setVisible(textField, !picked);
  fileLabel.textContent = picked ? t('compose.file.labelChosen') : t('compose.file.label');
  setVisible(chosen, Boolean(picked));
  setVisible(limitNotice, false);
  fileInput.removeAttribute('aria-invalid');
  if (!picked) {
    fileInput.value = '';
    return;
  }
  const size = formatBytes(picked.size);
  chosenText.textContent = t('compose.file.chosen', { name: picked.name, size, kept: textOf() ? 'yes' : 'no' });
  announce(t('compose.file.chosenAnnounce', { name: picked.name, size }));
  await recheckFile();
}

/** The notice under the input, for the chosen file as the rules now stand (a file chosen, or another workspace). */
export async function recheckFile(): Promise<void> {
  const picked = file;
  const problem = picked ? await fileProblem() : null;
  if (file !== picked) return;
  limitNotice.textContent = problem?.message ?? '';
  setVisible(limitNotice, problem !== null);
}

const textOf = () => byId<HTMLTextAreaElement>('secret-text').value;

/** Forgets the file (after a secret is created, or "Create another"). */
export function resetFile(): void {
  void choose(null);
}

/**
 * Seals and uploads the chosen file, showing its progress instead of the form. Answers the
 * finished upload and the link's key; throws `UploadCancelled`, `UploadFailed` or `ApiError`.
 */
export async function sendFile(
  passphrase: string,
  settings: UploadInput['settings'],
  open: (body: FileUploadBody) => Promise<FileUpload>,
): Promise<{ upload: FileUpload; key: string }> {
  const picked = file!;
  const sealer = await fileSealer({ meta: metaOf(picked), ...(passphrase ? { passphrase } : {}) });
  try {
    const upload = await guardedUpload({ file: picked, sealer, open, settings }, () => {
      setVisible(composeSection, false);
      setVisible(uploadSection, true);
    });
    return { upload, key: sealer.key };
  } finally {
    setVisible(uploadSection, false);
  }
}

fileInput.addEventListener('change', () => void choose(fileInput.files?.[0] ?? null));
removeButton.addEventListener('click', () => {
  void choose(null);
  announce(t('compose.file.removed'));
  byId('secret-text').focus();
});

// Drag and drop anywhere on the form; a file dropped elsewhere on the page is not opened by the browser.
const carriesFiles = (event: DragEvent) => Array.from(event.dataTransfer?.types ?? []).includes('Files');
composeSection.addEventListener('dragover', (event) => {
  if (!carriesFiles(event) || fileInput.matches(':disabled')) return;
  event.preventDefault();
  event.dataTransfer!.dropEffect = 'copy';
  form.classList.add('dropping');
});
composeSection.addEventListener('dragleave', (event) => {
  if (!composeSection.contains(event.relatedTarget as Node | null)) form.classList.remove('dropping');
});
composeSection.addEventListener('drop', (event) => {
  form.classList.remove('dropping');
  if (!carriesFiles(event) || fileInput.matches(':disabled')) return;
  event.preventDefault();
  const { files, items } = event.dataTransfer!;
  const entry = items[0]?.webkitGetAsEntry?.();
  if (files.length !== 1 || entry?.isDirectory) {
    limitNotice.textContent = files.length > 1 ? t('compose.file.oneAtATime') : t('compose.file.folder');
    setVisible(limitNotice, true);
    return;
  }
  fileInput.files = files;
  void choose(files[0]!);
});
for (const type of ['dragover', 'drop'] as const) {
  window.addEventListener(type, (event) => {
    if (carriesFiles(event) && !composeSection.contains(event.target as Node)) {
      event.preventDefault();
      event.dataTransfer!.dropEffect = 'none';
    }
  });
}
