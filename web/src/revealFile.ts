/**
 * The reveal page's file screen, after the claim of a file: the name and size decrypted from
 * the envelope's first bytes (a ranged GET of the claim's presigned URL), then "Save file",
 * which downloads, decrypts chunk by chunk and writes to disk as it goes (`fileDownload.ts`,
 * `saveFile.ts`), with a progress bar and Stop. A file that does not authenticate ends on its
 * own screen with nothing of it kept; a stopped or interrupted download keeps nothing either,
 * and can be saved again while the download works (15 minutes from the claim).
 */
import { EnvelopeError, type OpenInput } from '../../shared/envelope/index.ts';
import { announce, byId, describeTime, focusHeading, setVisible, timeElement } from './dom.ts';
import { DownloadFailed, DownloadStopped, downloadFile, openFile, type OpenedFile, type PlainSink } from './fileDownload.ts';
import type { ClaimedFile } from './filesApi.ts';
import { t, tNodes } from './i18n.ts';
import { formatBytes, ProgressView } from './progress.ts';
import { dataNode, messages, type Message } from './revealMessages.ts';
import { saveMethodFor, sinkFor } from './saveFile.ts';

const title = byId('file-title');
const note = byId('file-note');
const nameField = byId('file-name');
const sizeField = byId('file-size');
const untilField = byId('file-until');
const how = byId('file-how');
const transfer = byId('file-transfer');
const bar = byId<HTMLProgressElement>('file-progress');
const barStatus = byId('file-progress-status');
const errorBox = byId('file-error');
const errorTitle = byId('file-error-title');
const errorText = byId('file-error-text');
const saved = byId('file-saved');
const saveButton = byId<HTMLButtonElement>('save-file');
const stopButton = byId<HTMLButtonElement>('stop-save');

/** How the file will be saved (`saveMethodFor`): a file picked, a download saved as it goes, or one saved at the end. */
const howText = {
  picker: () => t('reveal.file.howPicker'),
  worker: () => t('reveal.file.howWorker'),
  blob: () => t('reveal.file.howBlob'),
} as const;

export interface FileRevealHooks {
  show(): void;
  message(message: Message): void;
}

/** The file screen; `open` is called with a claim whose kind is `file`. */
export function createFileReveal(hooks: FileRevealHooks) {
  let claim: ClaimedFile | null = null;
  let file: OpenedFile | null = null;
  let running: AbortController | null = null;

  async function open(claimed: ClaimedFile, input: OpenInput): Promise<void> {
    claim = claimed;
    try {
      file = await openFile(claimed.download, claimed.size_bytes, input);
    } catch (error) {
      return failed(error, () => void open(claimed, input));
    }
    const { meta } = file;
    nameField.textContent = meta.name;
    sizeField.textContent = t('reveal.file.sizeValue', { size: formatBytes(meta.size), bytes: meta.size });
    untilField.replaceChildren(timeElement(claimed.download.expires_at));
    note.textContent = claimed.views_left === 0 ? t('reveal.file.lastView') : t('reveal.file.viewsLeft', { count: claimed.views_left });
    how.textContent = howText[saveMethodFor(meta.size) ?? 'blob']();
    setVisible(transfer, false);
    setVisible(errorBox, false);
    setVisible(saved, false);
    saveButton.textContent = t('reveal.file.save');
    document.title = t('reveal.file.documentTitle');
    hooks.show();
    announce(t('reveal.file.announce', { name: meta.name, size: formatBytes(meta.size) }));
    focusHeading(title);
  }

  async function save(): Promise<void> {
    if (!file || !claim || running) return;
    const opened = file;
    setVisible(errorBox, false);
    setVisible(saved, false);
    let sink: PlainSink | null;
    try {
      sink = await sinkFor(opened.meta.name, opened.meta.size);
    } catch (error) {
      return showError(t('reveal.file.saveFailedTitle'), t('reveal.file.saveFailedText', { reason: (error as Error).message }));
    }
    if (!sink) return announce(t('reveal.file.notChosen'));
    running = new AbortController();
    const view = new ProgressView(bar, barStatus, opened.meta.size);
    setVisible(transfer, true);
    saveButton.disabled = true;
    setVisible(stopButton, true);
    announce(t('reveal.file.savingAnnounce'));
    try {
      await downloadFile(opened, sink, running.signal, (done) => view.update(done));
      saved.replaceChildren(...tNodes('reveal.file.saved', { name: dataNode(opened.meta.name), size: formatBytes(opened.meta.size) }));
      setVisible(saved, true);
      saveButton.textContent = t('reveal.file.saveAgain');
      announce(t('reveal.file.savedAnnounce'));
      focusHeading(saved);
    } catch (error) {
      setVisible(transfer, false);
      failed(error, null);
    } finally {
      running = null;
      saveButton.disabled = false;
      setVisible(stopButton, false);
    }
  }

  /** Says why; a file that does not authenticate, or a download that can no longer work, ends here. */
  function failed(error: unknown, retry: (() => void) | null): void {
    const viewsLeft = claim?.views_left ?? 0;
    if (error instanceof EnvelopeError) {
      return hooks.message(error.code === 'tampered' ? messages.fileTampered(viewsLeft) : messages.undecryptable(error.code, viewsLeft));
    }
    if (error instanceof DownloadFailed && (error.reason === 'expired' || error.reason === 'gone'))
      return hooks.message(messages.downloadEnded(error.reason));
    if (retry && claim) return hooks.message(messages.fileUnreachable(claim.download.expires_at, retry));
    const until = claim ? describeTime(claim.download.expires_at) : null;
    if (error instanceof DownloadStopped)
      return showError(
        t('reveal.file.stoppedTitle'),
        until === null ? t('reveal.file.stoppedText') : t('reveal.file.stoppedTextUntil', { until }),
      );
    const reason = (error as Error).message;
    showError(
      t('reveal.file.failedTitle'),
      until === null ? t('reveal.file.failedText', { reason }) : t('reveal.file.failedTextUntil', { reason, until }),
    );
  }

  function showError(heading: string, text: string): void {
    errorTitle.textContent = heading;
    errorText.textContent = text;
    setVisible(errorBox, true);
    announce('');
    errorBox.focus();
  }

  saveButton.addEventListener('click', () => void save());
  stopButton.addEventListener('click', () => running?.abort());
  return { open };
}
