/**
 * A page's screens (or a form's steps), one shown at a time, the one shown named on an element
 * (`<html data-screen>` by default; tests and styling read it). No words and no page messages
 * here, so it runs without a page (test/unit/web-helpers.test.ts); `screens.ts` re-exports it.
 */

/** Shows `name` and hides the others; `attribute` on `holder` says which. */
export function screenSwitcher<N extends string>(
  screens: Record<N, HTMLElement>,
  attribute = 'screen',
  holder: HTMLElement = document.documentElement,
): (name: N) => void {
  return (name) => {
    for (const [screen, element] of Object.entries<HTMLElement>(screens)) element.hidden = screen !== name;
    holder.dataset[attribute] = name;
  };
}
