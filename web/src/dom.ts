/** Small DOM helpers shared by the pages. No inline styles: visibility is the `hidden` attribute. */
import { language, locale, t } from './i18n.ts';

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

export function setVisible(element: HTMLElement, visible: boolean): void {
  element.hidden = !visible;
}

/** Moves focus to a heading (tabindex="-1") so screen readers announce the new screen. */
export function focusHeading(heading: HTMLElement): void {
  heading.focus({ preventScroll: false });
}

/** The page's polite live region. */
export function announce(text: string): void {
  const status = document.getElementById('status');
  if (!status) return;
  // Clearing first makes a repeated message ("Copied") announced again.
  status.textContent = '';
  if (text) window.setTimeout(() => (status.textContent = text), 30);
}

/**
 * Copies a field's value. Called only from a click handler: the clipboard is written on a user
 * gesture and at no other time. `what` names the value in the page's language ("Link").
 */
export async function copyField(field: HTMLInputElement | HTMLTextAreaElement, button: HTMLButtonElement, what: string): Promise<void> {
  const label = button.dataset.label ?? button.textContent ?? '';
  button.dataset.label = label;
  try {
    await navigator.clipboard.writeText(field.value);
    button.textContent = t('common.copy.copied');
    announce(t('common.copy.announced', { what }));
    window.setTimeout(() => (button.textContent = label), 2500);
  } catch {
    // No clipboard API (or denied): select it so the person can copy with the keyboard.
    field.focus();
    field.select();
    // English says "the link" mid-sentence; the other languages' sentences take the name as given.
    announce(t('common.copy.manual', { what: language === 'en' ? what.toLowerCase() : what }));
  }
}

const absoluteFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
const relativeFormat = new Intl.RelativeTimeFormat(locale, { numeric: 'always' });

/** "12 Mar 2026, 14:05 (in 3 hours)": local time and how far away it is, in the page's language. */
export function describeTime(iso: string, now = Date.now()): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  return t('common.time.withRelative', { time: absoluteFormat.format(at), relative: relativeTime(at - now) });
}

function relativeTime(deltaMs: number): string {
  const seconds = Math.round(deltaMs / 1000);
  const abs = Math.abs(seconds);
  if (abs < 90) return relativeFormat.format(seconds, 'second');
  if (abs < 90 * 60) return relativeFormat.format(Math.round(seconds / 60), 'minute');
  if (abs < 48 * 3600) return relativeFormat.format(Math.round(seconds / 3600), 'hour');
  return relativeFormat.format(Math.round(seconds / 86_400), 'day');
}

/** A `<time>` element showing `describeTime`. */
export function timeElement(iso: string): HTMLTimeElement {
  const time = document.createElement('time');
  time.dateTime = iso;
  time.textContent = describeTime(iso);
  return time;
}

/** A new element with its class and text. */
export const element = <K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text = ''): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
};

/** A hidden error notice for `showProblem`, found by its `data-role`. */
export function errorBox(role: string): HTMLElement {
  const box = element('p', 'notice notice-error');
  box.dataset.role = role;
  box.setAttribute('role', 'alert');
  box.tabIndex = -1;
  box.hidden = true;
  return box;
}
