/**
 * The one confirm pattern of every destructive action: a confirm step under the action button;
 * nothing happens until its "Yes" is pressed; "No" (which sends nothing) puts focus back on the
 * button that opened it. Confirming first, not undoing after: no route of the API takes a
 * revocation, deletion or sign-out back (ADR 0179).
 */
import { actionButton } from './accountPage.ts';
import { element, setVisible } from './dom.ts';

export interface ConfirmStep {
  box: HTMLElement;
  yes: HTMLButtonElement;
  close(): void;
}

/**
 * `action` names the buttons for the tests and scripts (`data-action`: the opener's `action`,
 * then `confirm-<action>` and `cancel-<action>`); `object` ends every button's accessible name.
 */
export function confirmStep(
  opener: HTMLButtonElement,
  options: { action: string; object: string; question: string | Node; yes: string; no: string },
  onYes: (yes: HTMLButtonElement) => unknown,
): ConfirmStep {
  const box = element('div', 'notice notice-warning');
  box.dataset.role = `confirm-${options.action}`;
  box.hidden = true;
  const question = element('p');
  question.append(options.question);
  const buttons = element('div', 'actions');
  const yes = actionButton(options.yes, options.object, 'danger');
  yes.dataset.action = `confirm-${options.action}`;
  const no = actionButton(options.no, options.object);
  no.dataset.action = `cancel-${options.action}`;
  buttons.append(yes, no);
  box.append(question, buttons);
  const close = () => {
    setVisible(box, false);
    opener.focus();
  };
  opener.addEventListener('click', () => {
    setVisible(box, true);
    yes.focus();
  });
  no.addEventListener('click', close);
  yes.addEventListener('click', () => onYes(yes));
  return { box, yes, close };
}
