/**
 * The single sign-on section's directory key and SCIM base URL (`workspaceSso.ts`). The key
 * (`hlscim_…`) is in the answer of the first save and of a rotation only, so it is shown that
 * once, with Copy, in a read-only field: never stored, cleared by "Done, hide it" and when the
 * page is left. The base URL comes with every answer and stays.
 */
import { announce, copyField, element, setVisible } from './dom.ts';
import { t } from './i18n.ts';

const keyBox = element('section', 'notice notice-warning');
const keyTitle = element('h3', 'notice-title', t('workspaceSso.key.title'));
const keyValue = element('input');
const scim = element('div', 'field');
const scimUrl = element('input');

/** A read-only value with Copy: its label, and the row of the value and its button. */
function copyable(input: HTMLInputElement, id: string, labelText: string, copy: HTMLButtonElement, what: string): HTMLElement[] {
  input.id = id;
  input.type = 'text';
  input.readOnly = true;
  input.spellcheck = false;
  input.autocomplete = 'off';
  input.translate = false;
  const label = element('label', '', labelText);
  label.htmlFor = id;
  const row = element('div', 'with-button');
  copy.type = 'button';
  copy.id = `${id}-copy`;
  copy.addEventListener('click', () => void copyField(input, copy, what));
  input.addEventListener('focus', () => input.select());
  row.append(input, copy);
  return [label, row];
}

export function hideDirectoryKey(): void {
  keyValue.value = '';
  setVisible(keyBox, false);
}

/** Builds the key's box and the base URL's field, hidden; `hidden` is where focus goes once the key is hidden. */
export function directoryKeyParts(hidden: () => HTMLElement): HTMLElement[] {
  keyBox.id = 'sso-key';
  keyBox.setAttribute('aria-labelledby', 'sso-key-title');
  keyBox.hidden = true;
  keyTitle.id = 'sso-key-title';
  keyTitle.tabIndex = -1;
  const once = element('p', '', t('workspaceSso.key.once'));
  const keyField = element('div', 'field');
  const keyLabel = t('workspaceSso.key.label');
  keyField.append(...copyable(keyValue, 'sso-key-value', keyLabel, element('button', 'primary', t('workspaceSso.key.copy')), keyLabel));
  const done = element('button', '', t('workspaceSso.key.done'));
  done.type = 'button';
  done.id = 'sso-key-done';
  done.addEventListener('click', () => {
    hideDirectoryKey();
    announce(t('workspaceSso.key.hidden'));
    hidden().focus();
  });
  const actions = element('div', 'actions');
  actions.append(done);
  keyBox.append(keyTitle, once, keyField, actions);
  scim.id = 'sso-scim';
  scim.hidden = true;
  const scimLabel = t('workspaceSso.scim.label');
  scim.append(...copyable(scimUrl, 'sso-scim-url', scimLabel, element('button', '', t('workspaceSso.scim.copy')), scimLabel));
  // Leaving the page (or it going into the back/forward cache) takes the key off it.
  window.addEventListener('pagehide', hideDirectoryKey);
  return [keyBox, scim];
}

/** An answer's base URL, and its key when it has one (shown, its heading focused): true when a key was shown. */
export function showDirectory(baseUrl: string, key: string | undefined): boolean {
  scimUrl.value = baseUrl;
  setVisible(scim, true);
  if (!key) return false;
  keyValue.value = key;
  setVisible(keyBox, true);
  keyTitle.focus();
  return true;
}
