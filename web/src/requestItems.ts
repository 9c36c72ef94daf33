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
import { qrSvg } from './qr.ts';
import { inboxArrived, inboxPanel } from './requestInbox.ts';
import { labelElsewhere, openLabel } from './labelKeys.ts';
import { loadRequest } from './requestKeys.ts';
import { requestsApi, type OwnedRequest } from './requestsApi.ts';
import { withAccess } from './session.ts';

type RequestState = 'open' | 'full' | 'expired' | 'closed';

const stateLabels: Record<RequestState, { label: string; badge: string }> = {
  open: { label: 'Open', badge: 'badge-active' },
  full: { label: 'Full', badge: '' },
  expired: { label: 'Expired', badge: '' },
  closed: { label: 'Closed', badge: 'badge-locked' },
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
}

const shortTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/**
 * Its label, else its question: read from the link (`GET /v1/requests/{id}`, as a responder
 * reads it, so only while it is open) and opened with the `s` this browser keeps; else when it
 * was made. Never throws.
 */
export async function requestName(request: OwnedRequest, kept: boolean): Promise<RequestName> {
  if (request.label_envelope) return { text: await openLabel(request.label_envelope), from: 'label' };
  if (kept && request.open) {
    try {
      const [device, served] = await Promise.all([loadRequest(request.id), requestsApi.read(request.id)]);
      if (device && served.prompt_envelope)
        return { text: await openPrompt(fromBase64(served.prompt_envelope), device.link), from: 'question' };
    } catch {
      // Closed meanwhile, or the key store could not be read: named by its date instead.
    }
  }
  return { text: `Request made ${shortTime.format(Date.parse(request.created_at))}`, from: 'created' };
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
  if (name.text === labelElsewhere) title.classList.add('item-title-fallback');
  const shown = stateLabels[state];
  const badge = element('span', `badge ${shown.badge}`.trim(), shown.label);
  badge.dataset.role = 'state';
  head.append(title, badge);
  // The id is secondary: the CLI and support know requests by it.
  const id = element('p', 'item-id');
  id.dataset.role = 'id';
  id.append(element('code', '', request.id));

  const facts = element('dl', 'facts');
  const responses = fact('Responses', `${request.responses} of ${request.max_responses}`);
  responses.dataset.role = 'responses';
  facts.append(responses);
  facts.append(fact(state === 'expired' ? 'Expired' : 'Expires', timeElement(request.expires_at)));
  facts.append(fact('Created', timeElement(request.created_at)));
  item.append(head, id, facts);

  if (!kept) {
    const elsewhere = element(
      'p',
      'notice notice-info',
      'Made in another browser, or this browser’s data was cleared since: its responses can be opened only where it was made, not here.',
    );
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
  if (count) count.textContent = `${request.responses} of ${request.max_responses}`;
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
  const summary = element('summary', '', 'Link and QR code');
  summary.append(element('span', 'visually-hidden', ` of request ${request.id}`));
  const body = element('div');
  const problem = errorBox('link-error');
  panel.append(summary, body, problem);
  panel.addEventListener('toggle', () => {
    if (!panel.open) return body.replaceChildren();
    void (async () => {
      setVisible(problem, false);
      try {
        const kept = await loadRequest(request.id);
        if (!kept) throw new Error('This browser no longer keeps this request’s key.');
        const link = `${kept.urlBase}#${requestFragment(kept.link.fingerprint, kept.link.linkSecret)}`;
        const id = `link-${request.id}`;
        const field = element('div', 'field');
        const label = element('label', '', 'Request link');
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
        const copy = element('button', 'primary', 'Copy link');
        copy.type = 'button';
        copy.setAttribute('aria-describedby', `request-${request.id}-title`);
        copy.dataset.action = 'copy-link';
        copy.addEventListener('click', () => void copyField(input, copy, 'Link'));
        row.append(input, copy);
        field.append(label, row);
        const figure = element('figure', 'qr');
        const code = element('div', 'qr-code');
        code.append(qrSvg(link, `QR code of the link of request ${request.id}`));
        figure.append(code);
        body.replaceChildren(field, figure);
      } catch (error) {
        problem.textContent = `The link cannot be shown: ${(error as Error).message}`;
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
  const close = actionButton('Close', `request ${request.id}`, 'danger');
  close.dataset.action = 'close';
  actions.append(close);
  const confirm = element('div', 'notice notice-warning');
  confirm.dataset.role = 'confirm';
  confirm.hidden = true;
  const confirmActions = element('div', 'actions');
  const yes = actionButton('Yes, close it', `request ${request.id}`, 'danger');
  yes.dataset.action = 'confirm-close';
  const no = actionButton('Keep it open', `request ${request.id}`);
  no.dataset.action = 'cancel-close';
  confirmActions.append(yes, no);
  confirm.append(
    element(
      'p',
      '',
      'Close this request? Its link stops taking responses at once, for good. The responses already received stay readable here.',
    ),
    confirmActions,
  );
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
  announce('Closing…');
  try {
    await withAccess((token) => requestsApi.close(token, request.id));
  } catch (problem) {
    button.disabled = false;
    announce('');
    showProblem(error, problem, 'Could not close: ');
    return;
  }
  const replacement = requestItem({ ...request, open: false }, kept, name);
  item.replaceWith(replacement);
  announce(`“${name.text}” closed: its link takes no more responses. The responses already received stay readable.`);
  focusHeading(replacement.querySelector<HTMLElement>('.item-title')!);
}
