/**
 * API keys `/keys`: create (the key is shown once, with Copy), list, revoke. The key value is
 * in the read-only field only while it is shown: never stored, cleared on "Done" and when the
 * page is left.
 */
import { accountApi, ApiError, problemMessages, type ApiKeyInfo, type ApiKeyScope } from './api.ts';
import { actionButton, fact, markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { announce, byId, copyField, focusHeading, setVisible, timeElement } from './dom.ts';
import { SignedOutError, withAccess } from './session.ts';

const section = byId('keys-page');
const form = byId<HTMLFormElement>('key-form');
const fields = byId<HTMLFieldSetElement>('key-fields');
const name = byId<HTMLInputElement>('key-name');
const scopeBoxes = [...document.querySelectorAll<HTMLInputElement>('#key-scopes input[type="checkbox"]')];
const firstScope = scopeBoxes[0]!;
const expiry = byId<HTMLSelectElement>('key-expiry');
const errors = byId('key-errors');
const errorList = byId<HTMLUListElement>('key-error-list');

const newKey = byId('new-key');
const newKeyTitle = byId('new-key-title');
const newKeyLabel = byId('new-key-label');
const newKeyValue = byId<HTMLInputElement>('new-key-value');
const copyKey = byId<HTMLButtonElement>('copy-key');
const newKeyDone = byId<HTMLButtonElement>('new-key-done');

const keysError = byId('keys-error');
const keysEmpty = byId('keys-empty');
const list = byId<HTMLUListElement>('keys');
const listTitle = byId('keys-list-title');

const scopeLabels: Record<string, string> = {
  'secrets:write': 'create and revoke secrets',
  'secrets:read': 'list secrets',
  'receipts:read': 'read receipts',
};

function keyItem(key: ApiKeyInfo): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'item';
  item.dataset.id = key.id;
  const head = document.createElement('div');
  head.className = 'item-head';
  const title = document.createElement('h3');
  title.className = 'item-title';
  title.tabIndex = -1;
  title.textContent = key.name;
  const prefix = document.createElement('span');
  prefix.className = 'mono';
  prefix.textContent = `${key.prefix}…`;
  head.append(title, prefix);

  const facts = document.createElement('dl');
  facts.className = 'facts';
  facts.append(fact('Permissions', key.scopes.map((scope) => scopeLabels[scope] ?? scope).join(', ')));
  facts.append(fact('Created', timeElement(key.created_at)));
  facts.append(fact('Expires', key.expires_at ? timeElement(key.expires_at) : 'never'));
  facts.append(fact('Last used', key.last_used_at ? timeElement(key.last_used_at) : 'never'));

  const actions = document.createElement('div');
  actions.className = 'actions';
  const revoke = actionButton('Revoke', `key ${key.name}`, 'danger');
  revoke.dataset.action = 'revoke';
  revoke.addEventListener('click', () => void revokeKey(key, item, revoke));
  actions.append(revoke);
  const error = document.createElement('p');
  error.className = 'notice notice-error';
  error.setAttribute('role', 'alert');
  error.tabIndex = -1;
  error.hidden = true;
  item.append(head, facts, actions, error);
  return item;
}

function render(keys: ApiKeyInfo[]): void {
  list.replaceChildren(...keys.map(keyItem));
  setVisible(keysEmpty, keys.length === 0);
}

async function load(): Promise<void> {
  setVisible(keysError, false);
  try {
    render((await withAccess((token) => accountApi.apiKeys(token))).items);
  } catch (error) {
    showProblem(keysError, error, 'Your keys could not be listed: ');
  }
}

async function revokeKey(key: ApiKeyInfo, item: HTMLLIElement, button: HTMLButtonElement): Promise<void> {
  const error = item.querySelector<HTMLElement>('.notice-error')!;
  button.disabled = true;
  setVisible(error, false);
  announce('Revoking…');
  try {
    await withAccess((token) => accountApi.revokeApiKey(token, key.id));
  } catch (problem) {
    button.disabled = false;
    announce('');
    // Already gone (revoked elsewhere): the list is simply out of date.
    if (!(problem instanceof ApiError && problem.status === 404)) {
      showProblem(error, problem, 'Could not revoke: ');
      return;
    }
  }
  item.remove();
  setVisible(keysEmpty, list.children.length === 0);
  announce(`Key “${key.name}” revoked: it no longer works.`);
  focusHeading(listTitle);
}

function clearErrors(): void {
  errorList.replaceChildren();
  setVisible(errors, false);
  name.removeAttribute('aria-invalid');
  byId('key-scopes').removeAttribute('aria-invalid');
}

function showErrors(messages: string[], invalid: HTMLElement | null): void {
  errorList.replaceChildren(
    ...messages.map((message) => {
      const item = document.createElement('li');
      item.textContent = message;
      return item;
    }),
  );
  setVisible(errors, true);
  if (invalid) {
    invalid.setAttribute('aria-invalid', 'true');
    (invalid === byId('key-scopes') ? firstScope : invalid).focus();
  } else {
    errors.focus();
  }
}

async function create(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  clearErrors();
  const scopes = scopeBoxes.filter((box) => box.checked).map((box) => box.value as ApiKeyScope);
  const messages: string[] = [];
  let invalid: HTMLElement | null = null;
  if (!name.value.trim()) {
    messages.push('Name: give the key a name.');
    invalid = name;
  }
  if (scopes.length === 0) {
    messages.push('Permissions: choose at least one.');
    invalid ??= byId('key-scopes');
  }
  if (messages.length > 0) return showErrors(messages, invalid);

  fields.disabled = true;
  announce('Creating the key…');
  try {
    const created = await withAccess((token) =>
      accountApi.createApiKey(token, { name: name.value.trim(), scopes, ...(expiry.value ? { expires_in: Number(expiry.value) } : {}) }),
    );
    form.reset();
    newKeyLabel.textContent = `API key “${created.name}”`;
    newKeyValue.value = created.key;
    setVisible(newKey, true);
    announce('Key created. Copy it now: it is shown only once.');
    focusHeading(newKeyTitle);
    await load();
  } catch (error) {
    announce('');
    if (error instanceof SignedOutError) return showProblem(errors, error);
    showErrors(error instanceof ApiError ? problemMessages(error) : ['Something went wrong in this page.'], null);
  } finally {
    fields.disabled = false;
  }
}

function hideNewKey(): void {
  newKeyValue.value = '';
  setVisible(newKey, false);
}

form.addEventListener('submit', (event) => void create(event));
copyKey.addEventListener('click', () => void copyField(newKeyValue, copyKey, 'Key'));
newKeyValue.addEventListener('focus', () => newKeyValue.select());
newKeyDone.addEventListener('click', () => {
  hideNewKey();
  announce('The key is hidden. It cannot be shown again.');
  name.focus();
});
// Leaving the page (or it going into the back/forward cache) takes the key off the page.
window.addEventListener('pagehide', hideNewKey);

async function main(): Promise<void> {
  const user = await startSignedInPage(keysError);
  if (!user) return;
  fields.disabled = false;
  await load();
  markReady('keys', section);
}

void main();
