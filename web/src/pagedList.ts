/**
 * A list of the signed-in user's things, a page at a time: the first page (again after a
 * change), and "Load more" while the server gives a next cursor, the new items announced and the
 * first of them focused. The list is aria-busy while a page is read, an empty one shows a loading
 * line meanwhile (unless the page's own still stands), and a failed first page offers "Retry". The
 * page supplies how a page is fetched and how an item is drawn.
 */
import { retryAfter, showLoading, showProblem } from './accountPage.ts';
import { announce, focusHeading, setVisible } from './dom.ts';
import { t } from './i18n.ts';

/** A list's own sentences, from the page's catalogue, in its language's grammar. */
export interface PagedListWords {
  /** Ends "Retry"'s accessible name: "listing your secrets". */
  retryObject: string;
  /** "Loading your secrets…" */
  loading: string;
  /** "3 more secrets listed." (an ICU plural of `count`) */
  moreListed(count: number): string;
  /** "No more secrets." */
  noMore: string;
}

export interface PagedListParts<T> {
  list: HTMLUListElement;
  empty: HTMLElement;
  loadMore: HTMLButtonElement;
  /** Where a failed load says why. */
  error: HTMLElement;
  /** One page from `cursor` (null: the first), and what the items are drawn with. */
  fetchPage(cursor: string | null): Promise<{ items: T[]; nextCursor: string | null; draw(item: T): HTMLLIElement }>;
  /** The list's own sentences: each language words them for its own items (no noun set into a shared one). */
  words: PagedListWords;
  /** "Your secrets could not be listed: " */
  listFailure: string;
}

export function pagedList<T>(parts: PagedListParts<T>) {
  const { list, empty, loadMore, error } = parts;
  const { words } = parts;
  let cursor: string | null = null;
  const retry = retryAfter(error, words.retryObject, () => void reload());

  async function loadPage(first: boolean): Promise<HTMLLIElement[]> {
    const page = await parts.fetchPage(first ? null : cursor);
    const items = page.items.map((item) => page.draw(item));
    if (first) list.replaceChildren(...items);
    else list.append(...items);
    cursor = page.nextCursor;
    setVisible(loadMore, cursor !== null);
    setVisible(empty, list.children.length === 0);
    return items;
  }

  /** The first page again; a failure is said in `error`, with "Retry". */
  async function reload(): Promise<void> {
    setVisible(error, false);
    retry.hide();
    // A line while nothing is listed yet, unless the page's own (accountPage.ts) already stands.
    const quiet = list.children.length > 0 || document.querySelector('.loading-line') !== null;
    const done = quiet ? null : showLoading(list, null, words.loading);
    list.setAttribute('aria-busy', 'true');
    try {
      await loadPage(true);
    } catch (problem) {
      showProblem(error, problem, parts.listFailure);
      retry.failed();
    } finally {
      done?.();
      list.setAttribute('aria-busy', 'false');
    }
  }

  async function more(): Promise<void> {
    loadMore.disabled = true;
    setVisible(error, false);
    retry.hide();
    list.setAttribute('aria-busy', 'true');
    announce(t('common.list.loadingMore'));
    try {
      const added = await loadPage(false);
      announce(added.length > 0 ? words.moreListed(added.length) : words.noMore);
      const first = added[0]?.querySelector<HTMLElement>('.item-title');
      if (first) focusHeading(first);
    } catch (problem) {
      announce('');
      showProblem(error, problem, t('common.list.moreFailed'));
    } finally {
      loadMore.disabled = false;
      list.setAttribute('aria-busy', 'false');
    }
  }

  loadMore.addEventListener('click', () => void more());
  return { reload };
}
