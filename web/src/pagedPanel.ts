/**
 * A `<details>` panel read a page at a time (an endpoint's delivery log, a request's responses,
 * a secret's links and receipts): its first page read when it is first opened, "Refresh" the
 * first page again, "More" the next while there is one (`pageCursor.ts`). One read at a time,
 * both buttons disabled meanwhile and the list aria-busy; while an empty list is read a loading
 * line (role=status) says so; a failure is said in the panel's error box, with "Retry". After "More", the
 * first new item's `.item-title` (where it has one) takes the focus. The page supplies the
 * reading, the drawing and the words.
 */
import { actionButton, retryAfter, showLoading, showProblem } from './accountPage.ts';
import { announce, element, errorBox, setVisible } from './dom.ts';
import { t } from './i18n.ts';
import { PageCursor } from './pageCursor.ts';

export interface PagedPanelOptions {
  /** The panel's `data-role` (its error box's is `<role>-error`). */
  role: string;
  /** The summary's text, and what follows it for screen readers only (" of secret sec_…"). */
  summary: string;
  summaryHidden?: string;
  /** What the buttons act on (the end of their accessible names), and their `data-action`. */
  refresh: { object: string; action: string };
  more: { object: string; action: string };
  /** What the panel shows between its error box and "More"; `list` is among it (or inside it). */
  content: Node[];
  /** Where the items go (replaced by the first page, added to by "More"), and what is shown when it is empty. */
  list: HTMLElement;
  empty: HTMLElement;
  /** Said while the first page, or the next, is read (nothing for null). */
  loading: readonly [first: string, next: string | null];
  /** Reads the page at `cursor` (null: the first) and draws its items; null when nothing could be read (the page said why). */
  read(cursor: string | null, next: boolean): Promise<{ items: HTMLElement[]; nextCursor: string | null } | null>;
  /** Once the page is in and `more` known: the page's own updates, and what is announced. */
  shown(items: HTMLElement[], next: boolean, more: boolean): string;
  /** "Could not load the responses: " */
  failure: string;
  /** A refusal the page handles itself (true), instead of the error box. */
  refused?(problem: unknown): boolean;
  /** "More" that brought nothing (and so hid itself) moves the focus to "Refresh". */
  refocusRefresh?: boolean;
}

export interface PagedPanel {
  panel: HTMLDetailsElement;
  error: HTMLElement;
  load(next: boolean): Promise<void>;
  /** Read the first page again when next opened (what it showed was taken off the page). */
  forget(): void;
}

export function pagedPanel(options: PagedPanelOptions): PagedPanel {
  const panel = element('details', 'options');
  panel.dataset.role = options.role;
  const summary = element('summary', '', options.summary);
  if (options.summaryHidden) summary.append(element('span', 'visually-hidden', options.summaryHidden));
  const refreshActions = element('div', 'actions');
  const refresh = actionButton(t('common.refresh'), options.refresh.object);
  refresh.dataset.action = options.refresh.action;
  refreshActions.append(refresh);
  const error = errorBox(`${options.role}-error`);
  const moreActions = element('div', 'actions');
  const more = actionButton(t('common.more'), options.more.object);
  more.dataset.action = options.more.action;
  more.hidden = true;
  moreActions.append(more);
  panel.append(summary, refreshActions, error, ...options.content, moreActions);

  const cursor = new PageCursor();
  const { list, empty } = options;
  let lastNext = false;
  const retry = retryAfter(error, options.refresh.object, () => void load(lastNext));

  async function load(next: boolean): Promise<void> {
    const from = cursor.begin(next);
    if (from === undefined) return;
    refresh.disabled = true;
    more.disabled = true;
    setVisible(error, false);
    retry.hide();
    lastNext = next;
    const loading = options.loading[next ? 1 : 0];
    // Nothing listed yet: a line in the panel says it is loading (a status, so it is announced).
    const done = !next && list.children.length === 0 ? showLoading(list, list, loading ?? t('common.loading')) : null;
    if (loading && !done) announce(loading);
    list.setAttribute('aria-busy', 'true');
    try {
      const page = await options.read(from, next);
      if (!page) return;
      if (next) list.append(...page.items);
      else list.replaceChildren(...page.items);
      panel.dataset.loaded = 'true';
      const hasMore = cursor.took(page.items.length, page.nextCursor);
      setVisible(more, hasMore);
      setVisible(empty, list.children.length === 0);
      announce(options.shown(page.items, next, hasMore));
      if (next && page.items[0]) page.items[0].querySelector<HTMLElement>('.item-title')?.focus();
      else if (next && options.refocusRefresh) refresh.focus();
    } catch (problem) {
      announce('');
      if (options.refused?.(problem)) return;
      showProblem(error, problem, options.failure);
      retry.failed();
    } finally {
      done?.();
      list.setAttribute('aria-busy', 'false');
      cursor.end();
      refresh.disabled = false;
      more.disabled = false;
    }
  }

  panel.addEventListener('toggle', () => {
    if (panel.open && !cursor.loaded) void load(false);
  });
  refresh.addEventListener('click', () => void load(false));
  more.addEventListener('click', () => void load(true));
  return {
    panel,
    error,
    load,
    forget() {
      cursor.loaded = false;
    },
  };
}
