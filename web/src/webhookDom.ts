/** Element helpers the webhooks page's modules share (the page, an endpoint's card, its log). */

export const element = <K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text = ''): HTMLElementTagNameMap[K] => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
};

/** A hidden error notice for `showProblem`, found by its `data-role`. */
export function errorBox(role: string): HTMLElement {
  const box = element('p', 'notice notice-error');
  box.dataset['role'] = role;
  box.setAttribute('role', 'alert');
  box.tabIndex = -1;
  box.hidden = true;
  return box;
}
