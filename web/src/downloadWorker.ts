/**
 * The download worker, served at `/download/worker.js` and registered for the scope
 * `/download/` only, so it sees no request of any page: it turns a stream the reveal page
 * feeds into a download the browser saves as it goes (`saveFile.ts`, `workerSink`).
 *
 * The page posts `{type: 'download', id, name, size}` with a MessagePort; the worker keeps a
 * stream for `/download/<id>` and says `ready`; the page navigates there; the worker answers
 * that one request with the stream as an attachment, asking the page for each chunk (`pull`)
 * as the browser takes the last one. `error` from the page fails the download (the browser
 * deletes its partial file), the browser's Cancel is told to the page (`cancel`). It fetches
 * nothing, stores nothing, and an id is served once.
 */

interface ExtendableEventLike extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEventLike extends Event {
  request: Request;
  respondWith(response: Response | Promise<Response>): void;
}
interface WorkerScope {
  location: Location;
  skipWaiting(): Promise<void>;
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEventLike) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEventLike) => void): void;
  addEventListener(type: 'message', listener: (event: MessageEvent) => void): void;
}
const scope = self as unknown as WorkerScope;

/** A download waits this long for the page's navigation, then is dropped. */
const unclaimedMs = 60_000;

const downloads = new Map<string, { stream: ReadableStream<Uint8Array>; name: string; size: number }>();

scope.addEventListener('install', (event) => event.waitUntil(scope.skipWaiting()));

scope.addEventListener('message', (event) => {
  const data = event.data as { type?: unknown; id?: unknown; name?: unknown; size?: unknown } | null;
  const port = event.ports[0];
  if (data?.type !== 'download' || !port) return;
  const { id, name, size } = data;
  if (
    typeof id !== 'string' ||
    !/^[0-9a-f]{32}$/.test(id) ||
    typeof name !== 'string' ||
    typeof size !== 'number' ||
    !Number.isSafeInteger(size) ||
    size < 0
  ) {
    port.close();
    return;
  }
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let answered: (() => void) | null = null;
  const settle = () => {
    answered?.();
    answered = null;
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start: (c) => void (controller = c),
      // One chunk at a time, when the browser wants it: the page never runs ahead of the disk.
      pull: () =>
        new Promise<void>((resolve) => {
          answered = resolve;
          port.postMessage({ type: 'pull' });
        }),
      cancel: () => {
        port.postMessage({ type: 'cancel' });
        port.close();
      },
    },
    { highWaterMark: 0 },
  );
  port.onmessage = ({ data: message }: MessageEvent<{ type?: unknown; bytes?: unknown }>) => {
    if (message.type === 'chunk' && message.bytes instanceof Uint8Array) {
      controller.enqueue(message.bytes);
    } else if (message.type === 'end') {
      controller.close();
      port.close();
    } else {
      // `error`, or anything unexpected: fail the download, so no partial file is kept.
      controller.error(new Error('the download failed'));
      port.close();
    }
    settle();
  };
  downloads.set(id, { stream, name, size });
  setTimeout(() => downloads.delete(id), unclaimedMs);
  port.postMessage({ type: 'ready' });
});

scope.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (url.origin !== scope.location.origin || !url.pathname.startsWith('/download/')) return;
  const id = url.pathname.slice('/download/'.length);
  const download = downloads.get(id);
  downloads.delete(id);
  // Nothing (an unknown id, or one served already): 204 leaves the page where it is.
  if (!download || event.request.method !== 'GET') {
    event.respondWith(new Response(null, { status: 204 }));
    return;
  }
  event.respondWith(
    new Response(download.stream, {
      headers: {
        // Always bytes to save, never a type the browser would render.
        'content-type': 'application/octet-stream',
        'content-disposition': `attachment; filename="${asciiName(download.name)}"; filename*=UTF-8''${encodeRfc5987(download.name)}`,
        'content-length': String(download.size),
        'content-security-policy': "default-src 'none'; sandbox",
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'no-referrer',
        'cache-control': 'no-store',
      },
    }),
  );
});

/** The name for browsers that read only `filename=`: ASCII, without quotes or backslashes. */
const asciiName = (name: string) => name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');

/** RFC 5987 `filename*`: UTF-8, percent-encoded beyond the attribute characters. */
const encodeRfc5987 = (name: string) =>
  encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
