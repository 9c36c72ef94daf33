/**
 * A page's screens (or a form's steps), one shown at a time, the one shown named on an element
 * (`<html data-screen>` by default; tests and styling read it), from `screenSwitcher.ts`; and the
 * message screen the reveal and responder pages share: a heading, a sentence, sometimes a detail
 * and a button (#message-title, #message-text, #message-detail, #message-retry), in the page's
 * language (the page's title too).
 */
import { announce, byId, focusHeading, setVisible } from './dom.ts';
import { t } from './i18n.ts';
import type { Message } from './revealMessages.ts';

export { screenSwitcher } from './screenSwitcher.ts';

/**
 * Fills the message screen (its `data-message` the message's id, the page's title the message's)
 * and shows it with `show`, its heading focused. Its button runs the message's `retry`.
 */
export function messageScreen(screen: HTMLElement, show: () => void): (message: Message) => void {
  const title = byId('message-title');
  const text = byId('message-text');
  const detail = byId('message-detail');
  const retry = byId<HTMLButtonElement>('message-retry');
  let retryAction: (() => void) | null = null;
  retry.addEventListener('click', () => retryAction?.());
  return (message) => {
    title.textContent = message.title;
    text.textContent = message.text;
    detail.replaceChildren(...(message.detail === undefined ? [] : typeof message.detail === 'string' ? [message.detail] : message.detail));
    setVisible(detail, message.detail !== undefined);
    retryAction = message.retry ?? null;
    retry.textContent = message.retryLabel ?? t('common.tryAgain');
    setVisible(retry, retryAction !== null);
    screen.dataset.message = message.id;
    document.title = t('common.documentTitle', { title: message.title });
    show();
    announce('');
    focusHeading(title);
  };
}
