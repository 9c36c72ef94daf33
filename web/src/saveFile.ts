/**
 * Where a downloaded file's plaintext goes, chunk by chunk, and how each way leaves nothing
 * behind when the download fails:
 *
 * 1. The File System Access API (`showSaveFilePicker`, Chromium browsers): the person picks
 *    the file, chunks are written to it as they come; `abort()` discards them (the browser
 *    writes to a swap file that replaces the chosen one only on `close()`).
 * 2. A service worker stream (`downloadWorker.ts`, scope `/download/`): the page navigates to
 *    `/download/<random id>`, the worker answers with a stream the page feeds as the browser
 *    asks for more, and the browser's own download saves it; an error fails the download,
 *    and the browser deletes its partial file.
 * 3. A Blob, under 256 MB: the chunks are kept in memory and saved at the end, so a failure
 *    has written nothing; the object URL is revoked 30 s after the download began.
 */
import { DownloadStopped, type PlainSink } from './fileDownload.ts';
import { t } from './i18n.ts';

export type SaveMethod = 'picker' | 'worker' | 'blob';

/** The largest file kept whole in memory to be saved (the last resort). */
export const blobLimit = 256 * 1024 * 1024;

interface SaveFilePickerWindow {
  showSaveFilePicker(options: { suggestedName?: string }): Promise<FileSystemFileHandle>;
}

/** How this browser would save a file of `size` bytes as it downloads; null when it cannot. */
export function saveMethodFor(size: number): SaveMethod | null {
  if ('showSaveFilePicker' in window) return 'picker';
  if (navigator.serviceWorker && window.isSecureContext) return 'worker';
  return size < blobLimit ? 'blob' : null;
}

/**
 * A name the file system takes: no path separators, control characters or leading dots
 * (the name comes from the sender, inside the envelope).
 */
export function safeFileName(name: string): string {
  const cleaned = name
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '_')
    .replace(/^[.\s]+/, '')
    .trim()
    .slice(0, 200);
  return cleaned || 'download';
}

/**
 * Asks where to save (the picker needs the click's user activation: call it first thing in
 * the handler). Null when the person closed the picker.
 */
export async function pickerSink(name: string): Promise<PlainSink | null> {
  let handle: FileSystemFileHandle;
  try {
    handle = await (window as unknown as SaveFilePickerWindow).showSaveFilePicker({ suggestedName: safeFileName(name) });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') return null;
    throw error;
  }
  const writable = await handle.createWritable();
  return {
    write: (bytes) => writable.write(bytes),
    close: () => writable.close(),
    abort: (reason) => writable.abort(reason),
  };
}

/** Keeps the chunks and saves them as one Blob at the end. */
export function blobSink(name: string): PlainSink {
  let chunks: Uint8Array<ArrayBuffer>[] = [];
  return {
    write: async (bytes) => void chunks.push(bytes),
    async close() {
      const url = URL.createObjectURL(new Blob(chunks, { type: 'application/octet-stream' }));
      chunks = [];
      const link = document.createElement('a');
      link.href = url;
      link.download = safeFileName(name);
      link.hidden = true;
      document.body.append(link);
      link.click();
      link.remove();
      // The browser has taken the download by then; the page keeps no copy after it.
      window.setTimeout(() => URL.revokeObjectURL(url), 30_000);
      window.addEventListener('pagehide', () => URL.revokeObjectURL(url), { once: true });
    },
    abort: async () => void (chunks = []),
  };
}

/**
 * Where a file's plaintext goes, by the first way this browser has (`saveMethodFor`). The picker
 * must be asked first thing after the click (it needs the click's activation): call this first
 * in the handler. Null when the person closed the picker.
 */
export async function sinkFor(name: string, size: number): Promise<PlainSink | null> {
  const method = saveMethodFor(size);
  if (method === 'picker') return pickerSink(name);
  if (method === 'worker') {
    try {
      return await workerSink(name, size);
    } catch (error) {
      // A browser that refuses service workers here (private windows of some) may still take a Blob.
      if (size < blobLimit && !(error instanceof DownloadStopped)) return blobSink(name);
      throw error;
    }
  }
  if (method === 'blob') return blobSink(name);
  throw new Error(t('common.download.tooLarge'));
}

/** How long the worker may take to be ready, and the browser to start reading. */
const workerTimeoutMs = 15_000;
/** The page pings the worker this often during a download, so the browser keeps it running. */
const keepAliveMs = 10_000;

/** Hands the plaintext to the download worker, which streams it to the browser's download. */
export async function workerSink(name: string, size: number): Promise<PlainSink> {
  const worker = await activeDownloadWorker();
  const id = [...crypto.getRandomValues(new Uint8Array(16))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  const { port1: port, port2 } = new MessageChannel();
  const channel = new WorkerChannel(port);
  const pinger = window.setInterval(() => worker.postMessage({ type: 'keepalive' }), keepAliveMs);
  const finish = () => {
    window.clearInterval(pinger);
    port.close();
  };
  worker.postMessage({ type: 'download', id, name: safeFileName(name), size }, [port2]);
  try {
    await channel.until(() => channel.ready, t('common.download.notPrepared'), workerTimeoutMs);
    // A navigation the worker answers with an attachment: the browser downloads, the page stays.
    location.assign(`/download/${id}`);
    await channel.until(() => channel.pulls > 0, t('common.download.notStarted'), workerTimeoutMs);
  } catch (error) {
    finish();
    throw error;
  }
  return {
    async write(bytes) {
      // The browser asks for each chunk as it takes the last one: the page never runs ahead of the disk.
      await channel.until(() => channel.pulls > 0, t('common.download.notTaken'));
      channel.pulls--;
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      port.postMessage({ type: 'chunk', bytes: whole }, [whole.buffer]);
    },
    async close() {
      port.postMessage({ type: 'end' });
      finish();
    },
    async abort() {
      port.postMessage({ type: 'error' });
      finish();
    },
  };
}

/** The page's end of one download's channel: what the worker said so far. */
class WorkerChannel {
  ready = false;
  /** Requests for a chunk the page has not answered yet. */
  pulls = 0;
  private cancelled = false;
  private wake: (() => void) | null = null;

  constructor(port: MessagePort) {
    port.onmessage = ({ data }: MessageEvent<{ type?: unknown }>) => {
      if (data.type === 'ready') this.ready = true;
      if (data.type === 'pull') this.pulls++;
      // The person cancelled the download in the browser.
      if (data.type === 'cancel') this.cancelled = true;
      this.wake?.();
    };
  }

  /** Resolves once `condition` holds; rejects when the download was cancelled, or after `timeoutMs` (saying `failure`). */
  async until(condition: () => boolean, failure: string, timeoutMs?: number): Promise<void> {
    const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
    while (!this.cancelled && !condition()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(failure);
      await new Promise<void>((resolve) => {
        const timer = Number.isFinite(left) ? window.setTimeout(resolve, left) : undefined;
        this.wake = () => {
          window.clearTimeout(timer);
          this.wake = null;
          resolve();
        };
      });
    }
    if (this.cancelled) throw new DownloadStopped();
  }
}

/** The download worker, registered for `/download/` only and active. */
async function activeDownloadWorker(): Promise<ServiceWorker> {
  const registration = await navigator.serviceWorker.register('/download/worker.js', { scope: '/download/' });
  const worker = registration.installing ?? registration.waiting ?? registration.active;
  if (!worker) throw new Error(t('common.download.workerNotInstalled'));
  if (worker.state !== 'activated') {
    await new Promise<void>((resolve, reject) => {
      const timer = window.setTimeout(() => reject(new Error(t('common.download.workerNotStarted'))), workerTimeoutMs);
      worker.addEventListener('statechange', () => {
        if (worker.state === 'activated') window.clearTimeout(timer), resolve();
        if (worker.state === 'redundant') window.clearTimeout(timer), reject(new Error(t('common.download.workerDropped')));
      });
    });
  }
  return worker;
}
