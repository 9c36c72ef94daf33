/**
 * A form's refusals field by field: each message under its field (the field marked
 * `aria-invalid`), what belongs to no field in the form's error box, and focus on the first
 * field refused (in the form's order: the order `fields` is written in), else on the box.
 */

// No import of dom.ts (nor of the page's messages): no words here, and the unit tests run it without a page.
const setVisible = (element: HTMLElement, visible: boolean) => {
  element.hidden = !visible;
};

export interface FieldParts {
  input: HTMLElement;
  /** The message under it, hidden while there is none. */
  error: HTMLElement;
}

export interface FieldErrors<F extends string> {
  /** Every message hidden, the box's too, and no field marked. */
  clear(): void;
  /** One field's message hidden and its mark taken off (it is being changed). */
  clearField(field: F): void;
  /** Each field's message (an empty one is none), and `other` in the box. */
  show(messages: Partial<Record<F, string>>, other?: string | Node | null): void;
}

/** `text`: where `other` is written inside `box`, when not the box itself. */
export function fieldErrors<F extends string>(fields: Record<F, FieldParts>, box: HTMLElement, text: HTMLElement = box): FieldErrors<F> {
  const order = Object.keys(fields) as F[];
  const clearField = (field: F) => {
    setVisible(fields[field].error, false);
    fields[field].input.removeAttribute('aria-invalid');
  };
  return {
    clear() {
      setVisible(box, false);
      for (const field of order) clearField(field);
    },
    clearField,
    show(messages, other = null) {
      let first: HTMLElement | null = null;
      for (const field of order) {
        const message = messages[field];
        if (!message) continue;
        const { input, error } = fields[field];
        error.textContent = message;
        setVisible(error, true);
        input.setAttribute('aria-invalid', 'true');
        first ??= input;
      }
      if (other) {
        text.replaceChildren(other);
        setVisible(box, true);
      }
      (first ?? box).focus();
    },
  };
}
