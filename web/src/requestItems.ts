/**
 * One request link in "Your requests", named by its private label (opened in this browser,
 * `labelKeys.ts`), else by its question (the prompt opened with the link's `s` this browser
 * keeps), else by when it was made, the id as secondary text: its state (Open, Full, Closed, Expired), the responses
 * received of those allowed, when it expires; "Link and QR code" (the link again, its `s`
 * unsealed from this browser's key store); "Close" behind a confirm step; and "Responses", the
 * inbox (`requestInbox.ts`). A request whose keys this browser does not hold says that its
 * responses open only where it was made.
 */
import { fromBase64, openPrompt, requestFragment } from '../../shared/envelope/index.ts';
import { actionButton, fact, showProblem } from './accountPage.ts';
import { announce, copyField, element, errorBox, focusHeading, setVisible, timeElement } from './dom.ts';
import { locale, t } from './i18n.ts';
import { qrSvg } from './qr.ts';
import { inboxArrived, inboxPanel } from './requestInbox.ts';
import { labelElsewhere, openLabel } from './labelKeys.ts';
import { loadRequest } from './requestKeys.ts';
import { requestsApi, type OwnedRequest } from './requestsApi.ts';
import { withAccess } from './session.ts';

type RequestState = 'open' | 'full' | 'expired' | 'closed';

const stateLabels: Record<RequestState, { label: string; badge: string }> = {
  open: { label: t('requests.state.open'), badge: 'badge-active' },
  full: { label: t('requests.state.full'), badge: '' },
  expired: { label: t('requests.state.expired'), badge: '' },
  closed: { label: t('requests.state.closed'), badge: 'badge-locked' },
};

/** The list says only `open`; why a link is not open follows from its expiry and counts. */
export function stateOf(request: OwnedRequest, now = Date.now()): RequestState {
  if (request.open) return 'open';
  if (Date.parse(request.expires_at) <= now) return 'expired';
  if (request.responses >= request.max_responses) return 'full';
  return 'closed';
}

/** What a request is called on the page, and where the name came from. */
export interface RequestName {
  text: string;
  from: 'label' | 'question' | 'created';
  /** A label this browser cannot open: `text` says so. */
  elsewhere?: boolean;
}

const shortTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
const responseCount = (request: OwnedRequest) =>
  t('requests.item.responsesCount', { count: request.responses, max: request.max_responses });

/**
 * Its label, else its question: read from the link (`GET /v1/requests/{id}`, as a responder
 * reads it, so only while it is open) and opened with the `s` this browser keeps; else when it
 * was made. Never throws.
 */
export async function requestName(request: OwnedRequest, kept: boolean): Promise<RequestName> {
  if (request.label_envelope) {
    const label = await openLabel(request.label_envelope);
    return { text: label, from: 'label', elsewhere: label === labelElsewhere };
  }
  if (kept && request.open) {
    try {
      const [device, served] = await Promise.all([loadRequest(request.id), requestsApi.read(request.id)]);
      if (device && served.prompt_envelope)
        return { text: await openPrompt(fromBase64(served.prompt_envelope), device.link), from: 'question' };
    } catch {
      // Closed meanwhile, or the key store could not be read: named by its date instead.
    }
  }
  return { text: t('requests.item.madeAt', { time: shortTime.format(Date.parse(request.created_at)) }), from: 'created' };
}

export function requestItem(request: OwnedRequest, kept: boolean, name: RequestName): HTMLLIElement {
  const state = stateOf(request);
  const item = element('li', 'item');
  item.dataset.id = request.id;
  item.dataset.state = state;
  item.dataset.kept = String(kept);
  item.dataset.responses = String(request.responses);

  const head = element('div', 'item-head');
  const title = element('h3', `item-title item-title-${name.from}`, name.text);
  title.id = `request-${request.id}-title`;
  title.tabIndex = -1;
  title.dataset.role = 'name';
  title.dataset.from = name.from;
  if (name.elsewhere) title.classList.add('item-title-fallback');
  // A label or a question is the requester's own text, never translated; the others are the page's words.
  else if (name.from !== 'created') title.translate = false;
  const shown = stateLabels[state];
  const badge = element('span', `badge ${shown.badge}`.trim(), shown.label);
  badge.dataset.role = 'state';
  head.append(title, badge);
  // The id is secondary: the CLI and support know requests by it.
  const id = element('p', 'item-id');
  id.dataset.role = 'id';
  const code = element('code', '', request.id);
  code.translate = false;
  id.append(code);

  const facts = element('dl', 'facts');
  const responses = fact(t('requests.item.responses'), responseCount(request));
  responses.dataset.role = 'responses';
  facts.append(responses);
  facts.append(fact(state === 'expired' ? t('requests.item.expired') : t('requests.item.expires'), timeElement(request.expires_at)));
  facts.append(fact(t('requests.item.created'), timeElement(request.created_at)));
  item.append(head, id, facts);

  if (!kept) {
    const elsewhere = element('p', 'notice notice-info', t('requests.item.elsewhere'));
    elsewhere.dataset.role = 'elsewhere';
    item.append(elsewhere);
  }
  if (kept && state === 'open') item.append(linkPanel(request));
  if (state === 'open') item.append(...closeControls(request, item, kept, name));
  if (kept) item.append(inboxPanel(request));
  return item;
}

/**
 * The list read again (the page polls it): a card whose count of responses grew says so, and
 * its inbox reads them (at once when open, else when next opened). True when it grew.
 */
export function requestUpdated(item: HTMLLIElement, request: OwnedRequest): boolean {
  const before = Number(item.dataset.responses);
  if (request.responses === before) return false;
  item.dataset.responses = String(request.responses);
  const count = item.querySelector<HTMLElement>('[data-role="responses"] dd');
  if (count) count.textContent = responseCount(request);
  const state = stateOf(request);
  if (state !== item.dataset.state) {
    item.dataset.state = state;
    const badge = item.querySelector<HTMLElement>('[data-role="state"]');
    if (badge) {
      badge.className = `badge ${stateLabels[state].badge}`.trim();
      badge.textContent = stateLabels[state].label;
    }
  }
  const inbox = item.querySelector<HTMLDetailsElement>('details[data-role="inbox"]');
  if (inbox) inboxArrived(inbox, request);
  return request.responses > before;
}

/** "Link and QR code": the link again, made when first opened from what this browser keeps. */
function linkPanel(request: OwnedRequest): HTMLDetailsElement {
  const panel = element('details', 'options');
  panel.dataset.role = 'link';
  const summary = element('summary', '', t('requests.link.summary'));
  summary.append(element('span', 'visually-hidden', ` ${t('requests.item.ofRequest', { id: request.id })}`));
  const body = element('div');
  const problem = errorBox('link-error');
  panel.append(summary, body, problem);
  panel.addEventListener('toggle', () => {
    if (!panel.open) return body.replaceChildren();
    void (async () => {
      setVisible(problem, false);
      try {
        const kept = await loadRequest(request.id);
        if (!kept) throw new Error(t('requests.link.keyGone'));
        const link = `${kept.urlBase}#${requestFragment(kept.link.fingerprint, kept.link.linkSecret)}`;
        const id = `link-${request.id}`;
        const field = element('div', 'field');
        const label = element('label', '', t('requests.link.label'));
        label.htmlFor = id;
        const row = element('div', 'with-button');
        const input = element('input');
        input.id = id;
        input.type = 'text';
        input.readOnly = true;
        input.spellcheck = false;
        input.autocomplete = 'off';
        input.value = link;
        input.addEventListener('focus', () => input.select());
        // Plain text: the clipboard's "Copied ✓" replaces it; the request is named by its description.
        const copy = element('button', 'primary', t('requests.link.copy'));
        copy.type = 'button';
        copy.setAttribute('aria-describedby', `request-${request.id}-title`);
        copy.dataset.action = 'copy-link';
        copy.addEventListener('click', () => void copyField(input, copy, t('requests.result.linkWhat')));
        row.append(input, copy);
        field.append(label, row);
        const figure = element('figure', 'qr');
        const code = element('div', 'qr-code');
        code.append(qrSvg(link, t('requests.link.qrLabel', { id: request.id })));
        figure.append(code);
        body.replaceChildren(field, figure);
      } catch (error) {
        problem.textContent = t('requests.link.failed', { reason: (error as Error).message });
        setVisible(problem, true);
      }
    })();
  });
  // Leaving the page takes the link off it.
  window.addEventListener('pagehide', () => body.replaceChildren());
  return panel;
}

/** "Close" and its confirm step: nothing is closed until "Yes, close it". */
function closeControls(request: OwnedRequest, item: HTMLLIElement, kept: boolean, name: RequestName): HTMLElement[] {
  const actions = element('div', 'actions');
  const object = t('requests.item.object', { id: request.id });
  const close = actionButton(t('requests.close.button'), object, 'danger');
  close.dataset.action = 'close';
  actions.append(close);
  const confirm = element('div', 'notice notice-warning');
  confirm.dataset.role = 'confirm';
  confirm.hidden = true;
  const confirmActions = element('div', 'actions');
  const yes = actionButton(t('requests.close.yes'), object, 'danger');
  yes.dataset.action = 'confirm-close';
  const no = actionButton(t('requests.close.no'), object);
  no.dataset.action = 'cancel-close';
  confirmActions.append(yes, no);
  confirm.append(element('p', '', t('requests.close.question')), confirmActions);
  const error = errorBox('close-error');
  close.addEventListener('click', () => {
    setVisible(confirm, true);
    yes.focus();
  });
  no.addEventListener('click', () => {
    setVisible(confirm, false);
    close.focus();
  });
  yes.addEventListener('click', () => void closeRequest(request, item, kept, name, yes, error));
  return [actions, confirm, error];
}

async function closeRequest(
  request: OwnedRequest,
  item: HTMLLIElement,
  kept: boolean,
  name: RequestName,
  button: HTMLButtonElement,
  error: HTMLElement,
): Promise<void> {
  button.disabled = true;
  setVisible(error, false);
  announce(t('requests.close.closing'));
  try {
    await withAccess((token) => requestsApi.close(token, request.id));
  } catch (problem) {
    button.disabled = false;
    announce('');
    showProblem(error, problem, t('requests.close.failed'));
    return;
  }
  const replacement = requestItem({ ...request, open: false }, kept, name);
  item.replaceWith(replacement);
  announce(t('requests.close.closed', { name: name.text }));
  focusHeading(replacement.querySelector<HTMLElement>('.item-title')!);
}
