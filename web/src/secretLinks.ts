/**
 * One secret's "Links and receipts" on My secrets: a `<details>` loaded when first opened with
 * the owner's metadata read (each personal link's name, address, state and views left, and
 * "Revoke this link" behind a confirm step) and the secret's receipts, newest first (time,
 * link, channel; location and device only when the plan's flags include them).
 */
import { ApiError, type OwnedSecret } from './api.ts';
import { actionButton, fact, showProblem } from './accountPage.ts';
import { announce, element, errorBox, setVisible, timeElement } from './dom.ts';
import { t } from './i18n.ts';
import { pagedPanel } from './pagedPanel.ts';
import { ownerLinksApi, type Flags, type OwnedLink, type OwnerMetadata, type Receipt } from './linksApi.ts';
import { withAccess } from './session.ts';

const receiptsPageSize = 10;

const linkBadges: Record<string, string> = { active: 'badge-active', used: '', revoked: 'badge-locked' };

/** The plan's flags, read once per page (the first panel opened asks). */
let flagsRead: Promise<Flags> | null = null;
function planFlags(): Promise<Flags> {
  // Open to anonymous callers, so a stale token answers 403.
  flagsRead ??= withAccess((token) => ownerLinksApi.flags(token), [401, 403]).then(
    (answer) => answer.flags,
    (error: unknown) => {
      flagsRead = null;
      throw error;
    },
  );
  return flagsRead;
}

/**
 * The owner's read. It is lenient (a token it no longer takes reads as anybody's, without the
 * links), so an answer that does not say `owned` is treated as a stale token: refresh, retry once.
 */
export const ownerRead = (id: string) =>
  withAccess(async (token) => {
    const metadata = await ownerLinksApi.read(token, id);
    if (!metadata.owned) throw new ApiError(401, { status: 401, code: 'unauthorized', detail: t('account.links.sessionRefused') }, null);
    return metadata;
  });

export const linkName = (link: Pick<OwnedLink, 'label' | 'email'>, position: number) =>
  link.label ?? link.email ?? t('account.links.numbered', { position });

export interface LinksPanelHooks {
  /** The secret as its owner's read now says (after loading, and after revoking a link). */
  updated(metadata: OwnerMetadata): void;
}

export function linksPanel(secret: OwnedSecret, hooks: LinksPanelHooks): HTMLDetailsElement {
  const linksTitle = element('h3', 'panel-title', t('account.links.title'));
  const single = element('p', '', t('account.links.single'));
  single.dataset.role = 'single-link';
  single.hidden = true;
  const links = element('ul', 'items');
  links.dataset.role = 'links';
  links.setAttribute('aria-label', t('account.links.listLabel', { id: secret.id }));

  const receiptsTitle = element('h3', 'panel-title', t('account.receipts.title'));
  const planNote = element('p', 'hint', t('account.receipts.planNote'));
  planNote.hidden = true;
  const empty = element('p', '', t('account.receipts.empty'));
  empty.dataset.role = 'receipts-empty';
  empty.hidden = true;
  const tableWrap = element('div', 'table-wrap');
  const table = element('table', 'receipts');
  table.dataset.role = 'receipts';
  const caption = element('caption', 'visually-hidden', t('account.receipts.caption', { id: secret.id }));
  const head = element('thead');
  const body = element('tbody');
  table.append(caption, head, body);
  tableWrap.append(table);
  tableWrap.hidden = true;

  const state = { metadata: null as OwnerMetadata | null, flags: null as Flags | null };

  const nameOf = (recipientId: string | null): string => {
    if (recipientId === null) return t('account.receipts.secretLink');
    const position = state.metadata?.recipients?.findIndex((link) => link.recipient_id === recipientId) ?? -1;
    const link = state.metadata?.recipients?.[position];
    return link ? linkName(link, position + 1) : recipientId;
  };

  function receiptRow(receipt: Receipt): HTMLTableRowElement {
    const row = element('tr');
    row.dataset.recipientId = receipt.recipient_id ?? '';
    row.dataset.channel = receipt.channel;
    const cell = (content: string | Node, role: string) => {
      const td = element('td');
      td.dataset.role = role;
      td.append(content);
      return td;
    };
    row.append(
      cell(timeElement(receipt.opened_at), 'opened'),
      cell(nameOf(receipt.recipient_id), 'link'),
      cell(t('account.receipts.channel', { channel: receipt.channel }), 'channel'),
    );
    if (state.flags?.receipts_location) {
      const where = receipt.location ? [receipt.location.country, receipt.location.region].filter(Boolean).join(', ') : '';
      row.append(cell(where || t('account.receipts.unknown'), 'location'));
    }
    if (state.flags?.receipts_device) {
      const browser = receipt.device?.browser || '';
      const os = receipt.device?.os || '';
      const device = browser && os ? t('account.receipts.deviceOn', { browser, os }) : browser || os;
      row.append(cell(device || t('account.receipts.unknown'), 'device'));
    }
    return row;
  }

  function renderHead(): void {
    const columns = [t('account.receipts.opened'), t('account.receipts.link'), t('account.receipts.channelColumn')];
    if (state.flags?.receipts_location) columns.push(t('account.receipts.location'));
    if (state.flags?.receipts_device) columns.push(t('account.receipts.device'));
    const row = element('tr');
    for (const column of columns) {
      const th = element('th', '', column);
      th.scope = 'col';
      row.append(th);
    }
    head.replaceChildren(row);
    setVisible(planNote, !(state.flags?.receipts_location && state.flags.receipts_device));
  }

  function renderLinks(metadata: OwnerMetadata): void {
    const owned = metadata.recipients ?? [];
    setVisible(single, owned.length === 0);
    setVisible(links, owned.length > 0);
    links.replaceChildren(...owned.map((link, index) => linkItem(link, index + 1, metadata)));
  }

  function linkItem(link: OwnedLink, position: number, metadata: OwnerMetadata): HTMLLIElement {
    const name = linkName(link, position);
    const item = element('li', 'item');
    item.dataset.recipientId = link.recipient_id;
    item.dataset.state = link.state;
    const itemHead = element('div', 'item-head');
    const title = element('h4', 'item-title', name);
    title.tabIndex = -1;
    // A link's label or address is data; only "Link 2" is words.
    if (link.label ?? link.email) title.translate = false;
    const badge = element('span', `badge ${linkBadges[link.state] ?? ''}`.trim(), t('account.links.state', { state: link.state }));
    badge.dataset.role = 'link-state';
    itemHead.append(title, badge);
    const facts = element('dl', 'facts');
    if (link.email)
      facts.append(fact(t('account.links.address'), link.restricted ? t('account.links.restricted', { email: link.email }) : link.email));
    const views = fact(t('account.fact.viewsLeft'), t('account.views.of', { left: link.views_left, max: metadata.max_views }));
    views.dataset.role = 'link-views';
    facts.append(views);
    item.append(itemHead, facts);
    if (link.state !== 'active' || metadata.state !== 'active') return item;

    const actions = element('div', 'actions');
    const revoke = actionButton(t('account.links.revoke'), t('account.links.revokeObject', { name }), 'danger');
    revoke.dataset.action = 'revoke-link';
    actions.append(revoke);
    // The confirm step: nothing is revoked until "Yes, revoke it".
    const confirm = element('div', 'notice notice-warning');
    confirm.dataset.role = 'confirm';
    confirm.hidden = true;
    const confirmActions = element('div', 'actions');
    const yes = actionButton(t('account.links.revokeYes'), t('account.links.confirmObject', { name }), 'danger');
    yes.dataset.action = 'confirm-revoke-link';
    const no = actionButton(t('account.links.revokeNo'), t('account.links.confirmObject', { name }));
    no.dataset.action = 'cancel-revoke-link';
    confirmActions.append(yes, no);
    confirm.append(element('p', '', t('account.links.revokeQuestion', { name })), confirmActions);
    const error = errorBox('link-error');
    revoke.addEventListener('click', () => {
      setVisible(confirm, true);
      yes.focus();
    });
    no.addEventListener('click', () => {
      setVisible(confirm, false);
      revoke.focus();
    });
    yes.addEventListener('click', () => void revokeLink(link, name, yes, error));
    item.append(actions, confirm, error);
    return item;
  }

  async function revokeLink(link: OwnedLink, name: string, button: HTMLButtonElement, error: HTMLElement): Promise<void> {
    button.disabled = true;
    setVisible(error, false);
    announce(t('account.links.revoking'));
    try {
      await withAccess((token) => ownerLinksApi.revokeLink(token, secret.id, link.recipient_id));
    } catch (problem) {
      button.disabled = false;
      announce('');
      showProblem(error, problem, t('account.links.revokeFailed'));
      return;
    }
    // Read back: its state, the others', and the secret's (it burns when no link has a view left).
    await panel.load(false);
    announce(t('account.links.revoked', { name }));
    links.querySelector<HTMLElement>(`li[data-recipient-id="${CSS.escape(link.recipient_id)}"] .item-title`)?.focus();
  }

  const panel = pagedPanel({
    role: 'details',
    summary: t('account.panel.summary'),
    summaryHidden: t('account.panel.summaryHidden', { id: secret.id }),
    refresh: { object: t('account.panel.refreshObject', { id: secret.id }), action: 'refresh' },
    more: { object: t('account.panel.moreObject', { id: secret.id }), action: 'more-receipts' },
    content: [linksTitle, single, links, receiptsTitle, planNote, empty, tableWrap],
    list: body,
    empty,
    loading: [t('account.panel.loading'), null],
    async read(cursor, next) {
      const [flags, metadata, page] = await Promise.all([
        planFlags(),
        next ? Promise.resolve(state.metadata!) : ownerRead(secret.id),
        withAccess((token) => ownerLinksApi.receipts(token, secret.id, receiptsPageSize, cursor)),
      ]);
      state.flags = flags;
      state.metadata = metadata;
      if (!next) {
        renderLinks(metadata);
        renderHead();
        hooks.updated(metadata);
      }
      return { items: page.items.map(receiptRow), nextCursor: page.next_cursor };
    },
    shown(rows, next, more) {
      const count = body.children.length;
      setVisible(tableWrap, count > 0);
      return next
        ? t('account.panel.moreShown', { count: rows.length })
        : t('account.panel.shown', { links: state.metadata?.recipients?.length ?? 0, count, more: more ? 'yes' : 'no' });
    },
    failure: t('account.panel.failed'),
  });
  return panel.panel;
}
