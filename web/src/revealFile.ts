/**
 * The reveal page's file screen, after the claim of a file: the name and size decrypted from
 * the envelope's first bytes (a ranged GET of the claim's presigned URL), then "Save file",
 * which downloads, decrypts chunk by chunk and writes to disk as it goes (`fileDownload.ts`,
 * `saveFile.ts`), with a progress bar and Stop. A file that does not authenticate ends on its
 * own screen with nothing of it kept; a stopped or interrupted download keeps nothing either,
 * and can be saved again while the download works (15 minutes from the claim).
 */
import { EnvelopeError, type OpenInput } from '../../shared/envelope/index.ts';
import { announce, byId, describeTime, focusHeading, plural, setVisible, timeElement } from './dom.ts';
import { DownloadFailed, DownloadStopped, downloadFile, openFile, type OpenedFile, type PlainSink } from './fileDownload.ts';
import type { ClaimedFile } from './filesApi.ts';
import { formatBytes, ProgressView } from './progress.ts';
import { messages, type Message } from './revealMessages.ts';
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

const howText = {
  picker: 'Choose where to save it: it is decrypted in this browser as it downloads, and written to that file as it goes.',
  worker: 'It is decrypted in this browser as it downloads, and your browser saves it as it goes, like any download.',
  blob: 'It is downloaded and decrypted in this browser, then saved as a download.',
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
    sizeField.textContent = `${formatBytes(meta.size)} (${meta.size.toLocaleString('en')} bytes)`;
    untilField.replaceChildren(timeElement(claimed.download.expires_at));
    note.textContent =
      claimed.views_left === 0
        ? 'This was the last view: the file is deleted from the server once its download link runs out. Save it now.'
        : `${plural(claimed.views_left, 'view', 'views')} left. The download works for 15 minutes; opening the link again after that uses another view.`;
    how.textContent = howText[saveMethodFor(meta.size) ?? 'blob'];
    setVisible(transfer, false);
    setVisible(errorBox, false);
    setVisible(saved, false);
    saveButton.textContent = 'Save file';
    document.title = 'Hushlink: your file';
    hooks.show();
    announce(`The file is ${meta.name}, ${formatBytes(meta.size)}.`);
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
      return showError('The file could not be saved', `${(error as Error).message} Nothing was saved; try again.`);
    }
    if (!sink) return announce('Not saved: no place was chosen.');
    running = new AbortController();
    const view = new ProgressView(bar, barStatus, opened.meta.size);
    setVisible(transfer, true);
    saveButton.disabled = true;
    setVisible(stopButton, true);
    announce('Saving the file…');
    try {
      await downloadFile(opened, sink, running.signal, (done) => view.update(done));
      saved.textContent = `Saved “${opened.meta.name}” (${formatBytes(opened.meta.size)}).`;
      setVisible(saved, true);
      saveButton.textContent = 'Save again';
      announce('The file is saved.');
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
    const until = claim ? ` while its download works (until ${describeTime(claim.download.expires_at)})` : '';
    if (error instanceof DownloadStopped) return showError('Stopped', `Nothing of the file was kept. Save it again${until}.`);
    showError('The download failed', `${(error as Error).message} Nothing of the file was kept. Save it again${until}.`);
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
