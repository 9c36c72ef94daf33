/**
 * The one confirm pattern of every destructive action: a confirm step under the action button;
 * nothing happens until its "Yes" is pressed; "No" (which sends nothing) puts focus back on the
 * button that opened it. Where the server allows an undo, `undo` adds an "Undo" line (a status)
 * for a few seconds after the action succeeded.
 */
import { actionButton } from './accountPage.ts';
import { element, setVisible } from './dom.ts';

export interface ConfirmStep {
  box: HTMLElement;
  yes: HTMLButtonElement;
  close(): void;
}

export interface UndoOption {
  /** Takes the action back (the page's call to the server). */
  run(): void;
  /** How long "Undo" is offered; 10 seconds unless said. */
  seconds?: number;
  /** What the line says beside "Undo": "Link revoked." */
  done: string;
  /** Where the line goes (one that stays when the item it acted on leaves); after the step's box unless said. */
  into?: HTMLElement;
}

const defaultUndoSeconds = 10;

/**
 * `action` names the buttons for the tests and scripts (`data-action`: the opener's `action`,
 * then `confirm-<action>`, `cancel-<action>` and `undo-<action>`); `object` ends every button's
 * accessible name. `onYes` may answer a promise: "Undo" is offered once it settles, unless it
 * answered `false` (the action failed).
 */
export function confirmStep(
  opener: HTMLButtonElement,
  options: { action: string; object: string; question: string | Node; yes: string; no: string; undo?: UndoOption },
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
  const offerUndo = options.undo ? undoLine(box, options.action, options.object, options.undo) : null;
  yes.addEventListener('click', () => {
    const outcome = onYes(yes);
    if (!offerUndo) return;
    void Promise.resolve(outcome).then(
      (result) => result !== false && offerUndo(),
      () => undefined,
    );
  });
  return { box, yes, close };
}

/** The "Undo" line, hidden until offered; offered again, its time starts over. */
function undoLine(box: HTMLElement, action: string, object: string, undo: UndoOption): () => void {
  const line = element('div', 'undo-line');
  line.dataset.role = `undo-${action}`;
  line.setAttribute('role', 'status');
  line.hidden = true;
  const text = element('p', '', undo.done);
  const button = actionButton('Undo', object);
  button.dataset.action = `undo-${action}`;
  line.append(text, button);
  let timer: number | undefined;
  const hide = () => {
    window.clearTimeout(timer);
    setVisible(line, false);
  };
  button.addEventListener('click', () => {
    hide();
    undo.run();
  });
  return () => {
    if (!line.isConnected) {
      if (undo.into) undo.into.append(line);
      else box.after(line);
    }
    setVisible(line, true);
    window.clearTimeout(timer);
    timer = window.setTimeout(hide, (undo.seconds ?? defaultUndoSeconds) * 1000);
  };
}
