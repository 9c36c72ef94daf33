/**
 * A request's "Responses": its inbox (`GET /v1/requests/{id}/inbox`, newest first, "More" while
 * `next_cursor` is set), each response opened in this browser: the wrapped key unwrapped with
 * the device's private key and the PSK from the link's `s` (`unwrapResponseKey`), then the
 * envelope opened as any secret's. A text is shown with "Copy"; a file's name and size are read
 * from its first bytes and "Save file" downloads and decrypts it as the reveal page does
 * (`fileDownload.ts`, `saveFile.ts`). A response that does not open says why (a forgery, made
 * without the link's secret, says so) and the others open all the same.
 */
import { EnvelopeError, fromBase64, openText, unwrapResponseKey } from '../../shared/envelope/index.ts';
import { requestLimits } from '../../shared/limits.ts';
import { actionButton, fact } from './accountPage.ts';
import { announce, copyField, describeTime, element, errorBox, plural, setVisible, timeElement } from './dom.ts';
import { pagedPanel } from './pagedPanel.ts';
import { DownloadFailed, DownloadStopped, downloadFile, openFile, type OpenedFile, type PlainSink } from './fileDownload.ts';
import { formatBytes, ProgressView } from './progress.ts';
import { loadRequest, type DeviceRequest } from './requestKeys.ts';
import { requestsApi, type InboxItem, type OwnedRequest } from './requestsApi.ts';
import { sinkFor } from './saveFile.ts';
import { withAccess } from './session.ts';

const pageSize = requestLimits.inboxPageSize.default;

/** Why a response's envelope did not open, for its owner. */
const unreadable: Partial<Record<string, string>> = {
  forged:
    'This response cannot be trusted, so it is not shown: it was not made with your link. Someone who had only this request’s public key made it, or it was changed on the way.',
  tampered: 'This response was altered or cut short after it was sent, so it cannot be trusted and is not shown.',
  wrong_key: 'This response does not open with the key it came with: it was altered after it was sent, and is not shown.',
  key_mismatch: 'The key this browser keeps is not the one this request’s link names, so its responses cannot be opened here.',
};
const unreadableText = (code: string) => unreadable[code] ?? `This response could not be opened in this browser (${code}).`;

/** Each drawn inbox, by its panel: what the list's polling tells of new responses. */
const inboxes = new WeakMap<HTMLDetailsElement, { inbox: ReturnType<typeof pagedPanel>; summary: Text }>();

/** New responses (the list was read again): the count in the summary, and the first page read again, now if open. */
export function inboxArrived(panel: HTMLDetailsElement, request: OwnedRequest): void {
  const drawn = inboxes.get(panel);
  if (!drawn) return;
  drawn.summary.data = `Responses (${request.responses})`;
  if (panel.open) void drawn.inbox.load(false);
  else drawn.inbox.forget();
}

export function inboxPanel(request: OwnedRequest): HTMLDetailsElement {
  const empty = element('p', '', 'No responses yet.');
  empty.dataset.role = 'inbox-empty';
  empty.hidden = true;
  const list = element('ul', 'items');
  list.dataset.role = 'responses';
  list.setAttribute('aria-label', `Responses to request ${request.id}, newest first`);
  let device: DeviceRequest | null = null;

  /** What opens the responses, from this browser's key store (read once); null, said in the panel, when it cannot be read. */
  async function deviceKeys(): Promise<DeviceRequest | null> {
    const panelError = inbox.error;
    try {
      device ??= await loadRequest(request.id);
      if (device) return device;
      panelError.textContent = 'The responses cannot be opened here: this browser no longer keeps this request’s key.';
    } catch (error) {
      panelError.textContent = `The responses cannot be opened here: this browser’s key store could not be read (${(error as Error).message}).`;
    }
    setVisible(panelError, true);
    announce('');
    panelError.focus();
    return null;
  }

  const inbox = pagedPanel({
    role: 'inbox',
    summary: `Responses (${request.responses})`,
    summaryHidden: ` of request ${request.id}`,
    refresh: { object: `responses of request ${request.id}`, action: 'refresh-inbox' },
    more: { object: `responses of request ${request.id}`, action: 'more-responses' },
    content: [empty, list],
    list,
    empty,
    loading: ['Opening the responses…', 'Loading more responses…'],
    async read(cursor) {
      const keys = await deviceKeys();
      if (!keys) return null;
      const page = await withAccess((token) => requestsApi.inbox(token, request.id, pageSize, cursor));
      return { items: await Promise.all(page.items.map((item) => responseItem(item, request.id, keys))), nextCursor: page.next_cursor };
    },
    shown(items, next, more) {
      const failed = items.filter((item) => item.dataset.outcome !== 'opened').length;
      return (
        `${plural(items.length, next ? 'more response' : 'response', next ? 'more responses' : 'responses')} shown` +
        (failed > 0 ? `; ${failed} could not be opened.` : '.') +
        (more ? ' More to load.' : '')
      );
    },
    failure: 'Could not load the responses: ',
  });
  const summaryText = inbox.panel.querySelector('summary')?.firstChild;
  if (summaryText instanceof Text) inboxes.set(inbox.panel, { inbox, summary: summaryText });
  // Leaving the page takes the plaintexts off it (and the next visit reads them again).
  window.addEventListener('pagehide', () => {
    list.replaceChildren();
    inbox.forget();
    inbox.panel.open = false;
  });
  return inbox.panel;
}

/** One response, opened; never throws (a response that does not open says so in its item). */
async function responseItem(item: InboxItem, requestId: string, device: DeviceRequest): Promise<HTMLLIElement> {
  const li = element('li', 'item');
  li.dataset.responseId = item.response_id;
  li.dataset.kind = item.kind;
  const head = element('div', 'item-head');
  const title = element('h4', 'item-title', item.kind === 'file' ? 'A file' : 'A text');
  title.id = `response-${item.response_id}-title`;
  title.tabIndex = -1;
  const received = element('span', 'hint');
  received.id = `response-${item.response_id}-received`;
  received.append('received ', timeElement(item.created_at));
  head.append(title, received);
  li.append(head);
  const fail = (code: string) => {
    li.dataset.outcome = code === 'forged' ? 'forged' : 'unreadable';
    li.dataset.code = code;
    const notice = element('p', 'notice notice-error', unreadableText(code));
    notice.dataset.role = 'unreadable';
    li.append(notice);
    return li;
  };
  let key: Uint8Array;
  try {
    key = await unwrapResponseKey({ ...device.link, requestId, keys: device.keys, enc: item.enc, wrappedKey: item.wrapped_key });
  } catch (error) {
    return fail(error instanceof EnvelopeError ? error.code : 'unknown');
  }
  if (item.kind === 'text') {
    let text: string;
    try {
      text = await openText(fromBase64(item.envelope), { key, salt: item.salt });
    } catch (error) {
      return fail(error instanceof EnvelopeError ? error.code : 'unknown');
    }
    li.dataset.outcome = 'opened';
    const id = `response-${item.response_id}`;
    const field = element('div', 'field');
    const label = element('label', 'visually-hidden', `Text received ${describeTime(item.created_at)}`);
    label.htmlFor = id;
    const area = element('textarea');
    area.id = id;
    area.rows = Math.min(8, Math.max(2, text.split('\n').length));
    area.readOnly = true;
    area.spellcheck = false;
    area.autocomplete = 'off';
    area.value = text;
    field.append(label, area);
    const actions = element('div', 'actions');
    // Plain text: the clipboard's "Copied ✓" replaces it; the response is named by its description.
    const copy = element('button', 'primary', 'Copy');
    copy.type = 'button';
    copy.setAttribute('aria-describedby', `${title.id} ${received.id}`);
    copy.dataset.action = 'copy-response';
    copy.addEventListener('click', () => void copyField(area, copy, 'Response'));
    actions.append(copy);
    li.append(field, actions);
    return li;
  }
  let opened: OpenedFile;
  try {
    opened = await openFile(item.download, item.size_bytes, { key, salt: item.salt });
  } catch (error) {
    if (error instanceof EnvelopeError) return fail(error.code);
    li.dataset.outcome = 'unreachable';
    const notice = element(
      'p',
      'notice notice-error',
      `The file could not be fetched (${(error as Error).message}). Choose Refresh to try again.`,
    );
    notice.dataset.role = 'unreachable';
    li.append(notice);
    return li;
  }
  li.dataset.outcome = 'opened';
  li.append(...fileControls(opened, item));
  return li;
}

/** A file response's name and size, "Save file" (and Stop), its progress and how it ended. */
function fileControls(opened: OpenedFile, item: InboxItem): HTMLElement[] {
  const { meta } = opened;
  const facts = element('dl', 'facts');
  const name = fact('Name', meta.name);
  name.dataset.role = 'file-name';
  name.querySelector('dd')!.className = 'file-name';
  facts.append(name, fact('Size', `${formatBytes(meta.size)} (${meta.size.toLocaleString('en')} bytes)`));
  const transfer = element('div', 'transfer');
  transfer.hidden = true;
  const barId = `progress-${item.response_id}`;
  const barLabel = element('label', 'transfer-name', `Saving ${meta.name}`);
  barLabel.htmlFor = barId;
  const bar = element('progress');
  bar.id = barId;
  const barStatus = element('p', 'hint');
  barStatus.id = `${barId}-status`;
  bar.setAttribute('aria-describedby', barStatus.id);
  transfer.append(barLabel, bar, barStatus);
  const saved = element('p', 'notice notice-info');
  saved.dataset.role = 'saved';
  saved.tabIndex = -1;
  saved.hidden = true;
  const problem = errorBox('save-error');
  const actions = element('div', 'actions');
  const save = actionButton('Save file', meta.name, 'primary');
  save.dataset.action = 'save-file';
  const stop = actionButton('Stop', `saving ${meta.name}`);
  stop.hidden = true;
  actions.append(save, stop);
  let running: AbortController | null = null;

  save.addEventListener('click', () => {
    if (running) return;
    void (async () => {
      setVisible(problem, false);
      setVisible(saved, false);
      let sink: PlainSink | null;
      try {
        sink = await sinkFor(meta.name, meta.size);
      } catch (error) {
        return said(problem, `The file could not be saved: ${(error as Error).message} Nothing was saved; try again.`);
      }
      if (!sink) return announce('Not saved: no place was chosen.');
      running = new AbortController();
      const view = new ProgressView(bar, barStatus, meta.size);
      setVisible(transfer, true);
      save.disabled = true;
      setVisible(stop, true);
      announce(`Saving ${meta.name}…`);
      try {
        await downloadFile(opened, sink, running.signal, (done) => view.update(done));
        saved.textContent = `Saved “${meta.name}” (${formatBytes(meta.size)}).`;
        setVisible(saved, true);
        save.firstChild!.textContent = 'Save again';
        announce('The file is saved.');
        saved.focus();
      } catch (error) {
        setVisible(transfer, false);
        said(problem, saveFailure(error, item));
      } finally {
        running = null;
        save.disabled = false;
        setVisible(stop, false);
      }
    })();
  });
  stop.addEventListener('click', () => running?.abort());
  return [facts, transfer, saved, problem, actions];
}

function saveFailure(error: unknown, item: InboxItem): string {
  if (error instanceof EnvelopeError)
    return 'This file cannot be trusted: it was altered, cut short or put out of order since it was sent. What had been written of it was deleted.';
  if (error instanceof DownloadStopped) return 'Stopped: nothing of the file was kept.';
  if (error instanceof DownloadFailed && error.reason === 'expired') {
    const until = item.kind === 'file' ? ` (at ${describeTime(item.download.expires_at)})` : '';
    return `The download link ran out${until}: choose Refresh, then save it again. Nothing of the file was kept.`;
  }
  if (error instanceof DownloadFailed && error.reason === 'gone') return 'The file is no longer stored. Nothing of it was kept.';
  return `The download failed: ${(error as Error).message} Nothing of the file was kept; try again.`;
}

function said(box: HTMLElement, text: string): void {
  box.textContent = text;
  setVisible(box, true);
  announce('');
  box.focus();
}
