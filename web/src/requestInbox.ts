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
import { announce, copyField, describeTime, element, errorBox, setVisible, timeElement } from './dom.ts';
import { t, tNodes } from './i18n.ts';
import { pagedPanel } from './pagedPanel.ts';
import { DownloadFailed, DownloadStopped, downloadFile, openFile, type OpenedFile, type PlainSink } from './fileDownload.ts';
import { formatBytes, ProgressView } from './progress.ts';
import { loadRequest, type DeviceRequest } from './requestKeys.ts';
import { requestsApi, type InboxItem, type OwnedRequest } from './requestsApi.ts';
import { sinkFor } from './saveFile.ts';
import { withAccess } from './session.ts';

const pageSize = requestLimits.inboxPageSize.default;

/** Why a response's envelope did not open, for its owner. */
function unreadableText(code: string): string {
  switch (code) {
    case 'forged':
      return t('requests.response.forged');
    case 'tampered':
      return t('requests.response.tampered');
    case 'wrong_key':
      return t('requests.response.wrongKey');
    case 'key_mismatch':
      return t('requests.response.keyMismatch');
    default:
      return t('requests.response.unreadable', { code });
  }
}

/** Each drawn inbox, by its panel: what the list's polling tells of new responses. */
const inboxes = new WeakMap<HTMLDetailsElement, { inbox: ReturnType<typeof pagedPanel>; summary: Text }>();

/** New responses (the list was read again): the count in the summary, and the first page read again, now if open. */
export function inboxArrived(panel: HTMLDetailsElement, request: OwnedRequest): void {
  const drawn = inboxes.get(panel);
  if (!drawn) return;
  drawn.summary.data = t('requests.inbox.summary', { count: request.responses });
  if (panel.open) void drawn.inbox.load(false);
  else drawn.inbox.forget();
}

export function inboxPanel(request: OwnedRequest): HTMLDetailsElement {
  const empty = element('p', '', t('requests.inbox.empty'));
  empty.dataset.role = 'inbox-empty';
  empty.hidden = true;
  const list = element('ul', 'items');
  list.dataset.role = 'responses';
  list.setAttribute('aria-label', t('requests.inbox.label', { id: request.id }));
  let device: DeviceRequest | null = null;

  /** What opens the responses, from this browser's key store (read once); null, said in the panel, when it cannot be read. */
  async function deviceKeys(): Promise<DeviceRequest | null> {
    const panelError = inbox.error;
    try {
      device ??= await loadRequest(request.id);
      if (device) return device;
      panelError.textContent = t('requests.inbox.keyGone');
    } catch (error) {
      panelError.textContent = t('requests.inbox.storeUnreadable', { error: (error as Error).message });
    }
    setVisible(panelError, true);
    announce('');
    panelError.focus();
    return null;
  }

  const inbox = pagedPanel({
    role: 'inbox',
    summary: t('requests.inbox.summary', { count: request.responses }),
    summaryHidden: ` ${t('requests.item.ofRequest', { id: request.id })}`,
    refresh: { object: t('requests.inbox.object', { id: request.id }), action: 'refresh-inbox' },
    more: { object: t('requests.inbox.object', { id: request.id }), action: 'more-responses' },
    content: [empty, list],
    list,
    empty,
    loading: [t('requests.inbox.opening'), t('requests.inbox.loadingMore')],
    async read(cursor) {
      const keys = await deviceKeys();
      if (!keys) return null;
      const page = await withAccess((token) => requestsApi.inbox(token, request.id, pageSize, cursor));
      return { items: await Promise.all(page.items.map((item) => responseItem(item, request.id, keys))), nextCursor: page.next_cursor };
    },
    shown(items, next, more) {
      const failed = items.filter((item) => item.dataset.outcome !== 'opened').length;
      const values = { count: items.length, failed, more: more ? 'yes' : 'no' };
      return next ? t('requests.inbox.moreShown', values) : t('requests.inbox.shown', values);
    },
    failure: t('requests.inbox.failed'),
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
  const title = element('h4', 'item-title', item.kind === 'file' ? t('requests.response.file') : t('requests.response.text'));
  title.id = `response-${item.response_id}-title`;
  title.tabIndex = -1;
  const received = element('span', 'hint');
  received.id = `response-${item.response_id}-received`;
  received.append(...tNodes('requests.response.received', { time: timeElement(item.created_at) }));
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
    const label = element('label', 'visually-hidden', t('requests.response.textLabel', { time: describeTime(item.created_at) }));
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
    const copy = element('button', 'primary', t('requests.response.copy'));
    copy.type = 'button';
    copy.setAttribute('aria-describedby', `${title.id} ${received.id}`);
    copy.dataset.action = 'copy-response';
    copy.addEventListener('click', () => void copyField(area, copy, t('requests.response.what')));
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
    const notice = element('p', 'notice notice-error', t('requests.response.unreachable', { error: (error as Error).message }));
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
  const name = fact(t('requests.file.name'), meta.name);
  name.dataset.role = 'file-name';
  const nameValue = name.querySelector('dd')!;
  nameValue.className = 'file-name';
  // The file's name is the responder's: never translated.
  nameValue.translate = false;
  facts.append(name, fact(t('requests.file.size'), t('requests.file.sizeValue', { size: formatBytes(meta.size), bytes: meta.size })));
  const transfer = element('div', 'transfer');
  transfer.hidden = true;
  const barId = `progress-${item.response_id}`;
  const barLabel = element('label', 'transfer-name', t('requests.file.savingLabel', { name: meta.name }));
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
  const save = actionButton(t('requests.file.save'), meta.name, 'primary');
  save.dataset.action = 'save-file';
  const stop = actionButton(t('requests.file.stop'), t('requests.file.stopObject', { name: meta.name }));
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
        return said(problem, t('requests.file.sinkFailed', { error: (error as Error).message }));
      }
      if (!sink) return announce(t('requests.file.noPlace'));
      running = new AbortController();
      const view = new ProgressView(bar, barStatus, meta.size);
      setVisible(transfer, true);
      save.disabled = true;
      setVisible(stop, true);
      announce(t('requests.file.saving', { name: meta.name }));
      try {
        await downloadFile(opened, sink, running.signal, (done) => view.update(done));
        saved.textContent = t('requests.file.saved', { name: meta.name, size: formatBytes(meta.size) });
        setVisible(saved, true);
        save.firstChild!.textContent = t('requests.file.saveAgain');
        announce(t('requests.file.savedAnnounce'));
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
  if (error instanceof EnvelopeError) return t('requests.file.untrusted');
  if (error instanceof DownloadStopped) return t('requests.file.stopped');
  if (error instanceof DownloadFailed && error.reason === 'expired') {
    return item.kind === 'file'
      ? t('requests.file.linkExpiredAt', { time: describeTime(item.download.expires_at) })
      : t('requests.file.linkExpired');
  }
  if (error instanceof DownloadFailed && error.reason === 'gone') return t('requests.file.gone');
  return t('requests.file.failed', { error: (error as Error).message });
}

function said(box: HTMLElement, text: string): void {
  box.textContent = text;
  setVisible(box, true);
  announce('');
  box.focus();
}
