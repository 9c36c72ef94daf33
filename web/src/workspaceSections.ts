/**
 * The workspace page's index of its sections (ADR 0181): a list of links, beside the sections on
 * a wide screen (it stays in view while the page scrolls) and above them on a phone. A link
 * scrolls to its section and puts focus on the section's heading, and the address's fragment
 * names it (`#policy-section`) so a reload or a shared link opens there. Every section stays in the
 * page: find in page, a screen reader's list of headings and printing see all of it. Each
 * section's first read says it is loading (role=status) and, when it fails, offers Retry beside
 * the section's own error. Which sections show follows the caller's role and the workspace's plan
 * (`workspace.ts` decides); a Free workspace's Team areas are one section of one-line explanations.
 */
import { element, setVisible } from './dom.ts';
import { t } from './i18n.ts';

export type SectionId = 'members' | 'policy' | 'branding' | 'domains' | 'sso' | 'audit' | 'team';

interface Section {
  id: SectionId;
  panel: HTMLElement;
  entry: HTMLLIElement;
  link: HTMLAnchorElement;
  loading: HTMLElement;
  retry: HTMLButtonElement;
}

const index = element('nav', 'workspace-index');
const list = element('ul');
const sections: Section[] = [];

function go(section: Section): void {
  for (const each of sections) each.link.removeAttribute('aria-current');
  section.link.setAttribute('aria-current', 'location');
  history.replaceState(null, '', `${location.pathname}${location.search}#${section.panel.id}`);
  section.panel.scrollIntoView({ block: 'start' });
  // The heading takes the focus (it has tabindex=-1): a screen reader reads where the link led, and Tab goes on from there.
  section.panel.querySelector<HTMLElement>('h2')?.focus({ preventScroll: true });
}

/**
 * Adds `panel` to the index, in the order called, named `workspace.section.<id>` (and
 * `workspace.sectionLoading.<id>` while it loads). `error` is the section's own error box: Retry
 * shows beside it once a read failed, and runs `retry`.
 */
export function defineSection(id: SectionId, panel: HTMLElement, error: HTMLElement | null, retry: () => void): void {
  const entry = element('li');
  entry.hidden = true;
  const link = element('a', '', t(`workspace.section.${id}`));
  link.href = `#${panel.id}`;
  link.dataset.section = id;
  entry.append(link);
  list.append(entry);
  const loading = element('p', 'hint section-loading', t(`workspace.sectionLoading.${id}`));
  loading.setAttribute('role', 'status');
  loading.hidden = true;
  const retryButton = element('button', 'section-retry', t('common.retry'));
  retryButton.type = 'button';
  retryButton.dataset.action = `retry-${id}`;
  retryButton.hidden = true;
  retryButton.addEventListener('click', () => {
    retryButton.hidden = true;
    retry();
  });
  (panel.querySelector('h2') ?? panel.firstChild)?.after(loading);
  (error ?? loading).after(retryButton);
  const section: Section = { id, panel, entry, link, loading, retry: retryButton };
  link.addEventListener('click', (event) => {
    event.preventDefault();
    go(section);
  });
  sections.push(section);
}

/** Puts the index after `after` (once); the page's layout puts it beside the sections on a wide screen. */
export function placeIndex(after: HTMLElement): void {
  index.id = 'workspace-index';
  index.setAttribute('aria-label', t('workspace.index.label'));
  index.hidden = true;
  index.append(element('p', 'workspace-index-title', t('workspace.index.title')), list);
  after.after(index);
}

let arrived = false;

/** Shows the sections `available` allows (and their entries in the index); the first time, goes to the fragment's section. */
export function showSections(available: Partial<Record<SectionId, boolean>>): void {
  for (const section of sections) {
    const shown = available[section.id] === true;
    setVisible(section.panel, shown);
    section.entry.hidden = !shown;
  }
  setVisible(
    index,
    sections.some((section) => available[section.id] === true),
  );
  if (arrived) return;
  arrived = true;
  const wanted = sections.find((section) => `#${section.panel.id}` === location.hash && !section.panel.hidden);
  if (wanted) wanted.panel.scrollIntoView({ block: 'start' });
}

/** Every section hidden with the index (the workspace is gone or was never there). */
export function hideSections(): void {
  showSections({});
}

/**
 * A section's read: "Loading …" until it ends, the first time only (a later read keeps what is
 * shown), then Retry when the section's error box shows.
 */
export async function loadingSection(id: SectionId, read: Promise<unknown>): Promise<void> {
  const section = sections.find((each) => each.id === id);
  if (!section) return void (await read);
  if (section.panel.dataset.loaded !== 'true') section.loading.hidden = false;
  section.panel.setAttribute('aria-busy', 'true');
  try {
    await read;
  } finally {
    section.loading.hidden = true;
    section.panel.setAttribute('aria-busy', 'false');
    section.panel.dataset.loaded = 'true';
    const error = section.retry.previousElementSibling as HTMLElement | null;
    section.retry.hidden = !(error && error !== section.loading && !error.hidden);
  }
}
