/**
 * The compose form's refusals beside their fields (`fieldErrors.ts`): each named field's message
 * under it, what belongs to no field (a recipient row, an upload that failed) in the box under
 * the form, and focus on the first field refused. "Options" opens first when a refused field is
 * in it, so focus can land there. Also keeps the folded options' summary ("1 day, 1 view") saying
 * what is chosen.
 */
import { ApiError, fieldProblemMessage, problemMessages } from './api.ts';
import { durationWords } from './composePolicy.ts';
import { byId, setVisible } from './dom.ts';
import { fieldErrors, type FieldParts } from './fieldErrors.ts';
import { t, tNodes } from './i18n.ts';

/**
 * A refusal: the input it is about (its named field's, or a row's), or null for none. A named
 * field's message is said beside it without the field's name ("A whole number from 1 to 100.");
 * any other's names what it is about ("Recipient 1, email address: …").
 */
export interface Problem {
  field: HTMLElement | null;
  message: string;
}

/** The named fields, in the form's order (focus goes to the first refused). */
const fieldIds = ['send-in', 'secret-text', 'secret-file', 'expiry', 'max-views', 'passphrase', 'not-before', 'secret-label'] as const;
type FieldId = (typeof fieldIds)[number];

const expiry = byId<HTMLSelectElement>('expiry');
const customAmount = byId<HTMLInputElement>('custom-expiry-amount');
const customUnit = byId<HTMLSelectElement>('custom-expiry-unit');
const maxViews = byId<HTMLInputElement>('max-views');
const moreOptions = byId<HTMLDetailsElement>('more-options');
const summary = byId('options-summary');
const box = byId('compose-errors');
const boxTitle = byId('compose-errors-title');
const boxList = byId<HTMLUListElement>('compose-error-list');

// "Options: 1 day, 1 view": the words around the choice in the page's language.
moreOptions.querySelector('summary')!.replaceChildren(...tNodes('compose.options.summary', { choice: summary }));

/** The inputs that belong to each named field: the custom expiry's two belong to "Expires after". */
const inputsOf = (id: FieldId): HTMLElement[] => (id === 'expiry' ? [expiry, customAmount, customUnit] : [byId(id)]);
const fieldOf = (input: HTMLElement): FieldId | null => fieldIds.find((id) => inputsOf(id).includes(input)) ?? null;

/**
 * The server's refusal of a named field, said beside it: its name is said there already, so
 * "Views allowed: a whole number…" (`problemMessages`' words) reads "A whole number…".
 */
export function besideField(message: string): string {
  const text = message.replace(/^[\p{Lu}\p{Lo}][\p{L}\p{M}\p{N} ]{0,24}[:：] ?/u, '');
  return text.charAt(0).toLocaleUpperCase() + text.slice(1);
}

/** Inputs marked by the last refusal that no named field covers (recipient rows, the add button). */
let markedElsewhere: HTMLElement[] = [];

export function clearComposeErrors(): void {
  for (const id of fieldIds) {
    setVisible(byId(`${id}-error`), false);
    for (const input of inputsOf(id)) input.removeAttribute('aria-invalid');
  }
  for (const input of markedElsewhere) input.removeAttribute('aria-invalid');
  markedElsewhere = [];
  boxList.replaceChildren();
  setVisible(box, false);
}

/** Shows each problem beside its field, the rest in the box under `title`; focus on the first field refused. */
export function showComposeErrors(problems: readonly Problem[], title = t('compose.errors.title')): void {
  clearComposeErrors();
  const messages: Partial<Record<FieldId, string>> = {};
  const parts = {} as Record<FieldId, FieldParts>;
  const elsewhere: Problem[] = [];
  for (const problem of problems) {
    const id = problem.field ? fieldOf(problem.field) : null;
    if (id && problem.field) {
      // One message per field: the first found (the form's own checks come before a workspace's).
      if (messages[id] !== undefined) continue;
      messages[id] = problem.message;
      parts[id] = { input: problem.field, error: byId(`${id}-error`) };
    } else elsewhere.push(problem);
  }
  for (const id of fieldIds) parts[id] ??= { input: inputsOf(id)[0]!, error: byId(`${id}-error`) };
  // A field in the folded options can take focus only once they are open.
  if (problems.some((problem) => problem.field && moreOptions.contains(problem.field))) moreOptions.open = true;
  let other: DocumentFragment | null = null;
  if (elsewhere.length > 0) {
    boxTitle.textContent = title;
    other = document.createDocumentFragment();
    for (const problem of elsewhere) {
      const item = document.createElement('li');
      item.textContent = problem.message;
      other.append(item);
      if (problem.field) {
        problem.field.setAttribute('aria-invalid', 'true');
        markedElsewhere.push(problem.field);
      }
    }
  }
  fieldErrors(parts, box, boxList).show(messages, other);
  // Nothing named refused, but a row's input was: focus it rather than the box.
  const firstElsewhere = elsewhere.find((problem) => problem.field)?.field;
  if (Object.keys(messages).length === 0 && firstElsewhere) firstElsewhere.focus();
}

/** The server's field paths, as the compose form's inputs. */
const inputForPath: Record<string, () => HTMLElement> = {
  'body.envelope': () => byId('secret-text'),
  'body.size_bytes': () => byId('secret-text'),
  'body.expires_in': () => (expiry.value === 'custom' ? customAmount : expiry),
  'body.max_views': () => maxViews,
  'body.not_before': () => byId('not-before'),
  'body.label_envelope': () => byId('secret-label'),
  'body.workspace_id': () => byId('send-in'),
};

/** A refusal of the API, field by field where a path names one of the form's inputs. */
export function serverProblems(error: ApiError, isFile: boolean): Problem[] {
  const entries = error.problem.errors ?? [];
  const messages = problemMessages(error);
  if (entries.length === 0) return messages.map((message) => ({ field: null, message }));
  return entries.map((entry) => {
    const path = typeof entry.path === 'string' ? entry.path : '';
    const input = path === 'body.size_bytes' && isFile ? byId('secret-file') : inputForPath[path]?.();
    // Each entry its own sentence: problemMessages folds repeats, so its list is not the entries'.
    const message = fieldProblemMessage(error, entry);
    return { field: input ?? null, message: input ? besideField(message) : message };
  });
}

/** Any error at all, as problems: an API refusal field by field, anything else in the box. */
export const problemsOf = (error: unknown, isFile: boolean): Problem[] =>
  error instanceof ApiError ? serverProblems(error, isFile) : [{ field: null, message: (error as Error).message }];

/** "1 day, 1 view": what the folded options hold, said in their summary. */
export function updateOptionsSummary(): void {
  const custom = expiry.value === 'custom';
  const seconds = custom ? Number(customAmount.value) * Number(customUnit.value) : Number(expiry.value);
  const life = Number.isInteger(seconds) && seconds > 0 ? durationWords(seconds) : t('compose.options.customExpiry');
  const count = Number(maxViews.value);
  const views = Number.isInteger(count) && count > 0 ? t('compose.options.views', { count }) : t('compose.options.viewsToChoose');
  summary.textContent = t('compose.options.choice', { life, views });
}

/** A field being changed loses its message; the summary follows every change. */
export function watchComposeFields(form: HTMLFormElement): void {
  const errors = fieldErrors(Object.fromEntries(fieldIds.map((id) => [id, { input: inputsOf(id)[0]!, error: byId(`${id}-error`) }])), box);
  for (const id of fieldIds) {
    for (const input of inputsOf(id)) {
      const clear = () => {
        errors.clearField(id);
        for (const other of inputsOf(id)) other.removeAttribute('aria-invalid');
      };
      input.addEventListener('input', clear);
      input.addEventListener('change', clear);
    }
  }
  form.addEventListener('input', updateOptionsSummary);
  form.addEventListener('change', updateOptionsSummary);
  form.addEventListener('reset', () => queueMicrotask(updateOptionsSummary));
  updateOptionsSummary();
}
