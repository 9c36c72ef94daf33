/**
 * API keys `/keys`: create (the key is shown once, with Copy), list, revoke (after a confirm
 * step: a revoked key cannot be brought back). The key value is
 * in the read-only field only while it is shown: never stored, cleared on "Done" and when the
 * page is left.
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { locale, t } from './i18n.ts';
import { accountApi, ApiError, type ApiKeyInfo, type ApiKeyScope, problemMessages } from './api.ts';
import { actionButton, fact, markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { confirmStep } from './confirmStep.ts';
import { announce, byId, copyField, errorBox, focusHeading, setVisible, timeElement } from './dom.ts';
import { fieldErrors } from './fieldErrors.ts';
import { listLoading } from './listLoading.ts';
import { SignedOutError, withAccess } from './session.ts';

const section = byId('keys-page');
const form = byId<HTMLFormElement>('key-form');
const fields = byId<HTMLFieldSetElement>('key-fields');
const name = byId<HTMLInputElement>('key-name');
const scopesBox = byId<HTMLFieldSetElement>('key-scopes');
const scopeBoxes = [...document.querySelectorAll<HTMLInputElement>('#key-scopes input[type="checkbox"]')];
const expiry = byId<HTMLSelectElement>('key-expiry');
const errors = byId('key-errors');

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

const scopeKeys: Record<string, string> = {
  'secrets:write': 'keys.scopeName.secretsWrite',
  'secrets:read': 'keys.scopeName.secretsRead',
  'receipts:read': 'keys.scopeName.receiptsRead',
};
/** A key's permission in words; an unknown scope stays as the API names it. */
const scopeLabel = (scope: string): string => (scopeKeys[scope] ? t(scopeKeys[scope]) : scope);
const scopeList = new Intl.ListFormat(locale, { style: 'short', type: 'unit' });

/** Each refusal under its field; the scopes' mark goes on their group, focus on its first box. */
const formErrors = fieldErrors(
  {
    name: { input: name, error: byId('key-name-error') },
    scopes: { input: scopesBox, error: byId('key-scopes-error') },
    expires_in: { input: expiry, error: byId('key-expiry-error') },
  },
  errors,
);
type KeyField = 'name' | 'scopes' | 'expires_in';

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
  // The key's name is what its owner typed.
  title.translate = false;
  const prefix = document.createElement('span');
  prefix.className = 'mono';
  prefix.translate = false;
  prefix.textContent = `${key.prefix}…`;
  head.append(title, prefix);

  const facts = document.createElement('dl');
  facts.className = 'facts';
  facts.append(fact(t('keys.fact.permissions'), scopeList.format(key.scopes.map(scopeLabel))));
  facts.append(fact(t('keys.fact.created'), timeElement(key.created_at)));
  facts.append(fact(t('keys.fact.expires'), key.expires_at ? timeElement(key.expires_at) : t('keys.fact.never')));
  facts.append(fact(t('keys.fact.lastUsed'), key.last_used_at ? timeElement(key.last_used_at) : t('keys.fact.never')));

  const actions = document.createElement('div');
  actions.className = 'actions';
  const revoke = actionButton(t('keys.revoke.button'), t('keys.revoke.object', { name: key.name }), 'danger');
  revoke.dataset.action = 'revoke';
  actions.append(revoke);
  const error = errorBox('error');
  const confirm = confirmStep(
    revoke,
    {
      action: 'revoke',
      object: t('keys.revoke.object', { name: key.name }),
      question: t('keys.revoke.question', { name: key.name }),
      yes: t('keys.revoke.yes'),
      no: t('keys.revoke.no'),
    },
    (yes) => void revokeKey(key, item, yes, error),
  );
  item.append(head, facts, actions, confirm.box, error);
  return item;
}

function render(keys: ApiKeyInfo[]): void {
  list.replaceChildren(...keys.map(keyItem));
  setVisible(keysEmpty, keys.length === 0);
}

const keys = listLoading(
  { error: keysError, failed: t('keys.list.failed'), object: t('keys.list.object'), loading: t('keys.list.loading') },
  async () => render((await withAccess((token) => accountApi.apiKeys(token))).items),
);

async function revokeKey(key: ApiKeyInfo, item: HTMLLIElement, button: HTMLButtonElement, error: HTMLElement): Promise<void> {
  button.disabled = true;
  setVisible(error, false);
  announce(t('keys.revoke.revoking'));
  try {
    await withAccess((token) => accountApi.revokeApiKey(token, key.id));
  } catch (problem) {
    button.disabled = false;
    announce('');
    // Already gone (revoked elsewhere): the list is simply out of date.
    if (!(problem instanceof ApiError && problem.status === 404)) {
      showProblem(error, problem, t('keys.revoke.failed'));
      return;
    }
  }
  item.remove();
  setVisible(keysEmpty, list.children.length === 0);
  announce(t('keys.revoke.done', { name: key.name }));
  focusHeading(listTitle);
}

/** The API's refusals (`body.name`, `body.scopes.0`…) under their fields, the rest in the box. */
function showRefusal(error: ApiError): void {
  const messages: Partial<Record<KeyField, string>> = {};
  const other: string[] = [];
  for (const entry of error.problem.errors ?? []) {
    if (typeof entry?.message !== 'string') continue;
    const field = /^body\.(name|scopes|expires_in)\b/.exec(entry.path ?? '')?.[1] as KeyField | undefined;
    if (field) messages[field] = messages[field] ? `${messages[field]} ${entry.message}` : entry.message;
    else other.push(entry.message);
  }
  if (Object.keys(messages).length === 0 && other.length === 0) other.push(...problemMessages(error));
  formErrors.show(messages, other.length > 0 ? t('keys.form.notCreated', { reasons: other.join(' ') }) : null);
}

async function create(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  formErrors.clear();
  const scopes = scopeBoxes.filter((box) => box.checked).map((box) => box.value as ApiKeyScope);
  const messages: Partial<Record<KeyField, string>> = {};
  if (!name.value.trim()) messages.name = t('keys.form.nameMissing');
  if (scopes.length === 0) messages.scopes = t('keys.form.scopesMissing');
  if (Object.keys(messages).length > 0) {
    formErrors.show(messages);
    // A fieldset takes no focus: its first box does.
    if (!messages.name) scopeBoxes[0]!.focus();
    return;
  }

  fields.disabled = true;
  announce(t('keys.form.creating'));
  try {
    const created = await withAccess((token) =>
      accountApi.createApiKey(token, { name: name.value.trim(), scopes, ...(expiry.value ? { expires_in: Number(expiry.value) } : {}) }),
    );
    form.reset();
    newKeyLabel.textContent = t('keys.new.labelNamed', { name: created.name });
    newKeyValue.value = created.key;
    setVisible(newKey, true);
    announce(t('keys.new.created'));
    focusHeading(newKeyTitle);
    await keys.load();
  } catch (error) {
    announce('');
    // Enabled again first: a disabled field cannot take the focus the errors move to it.
    fields.disabled = false;
    if (error instanceof SignedOutError) return showProblem(errors, error);
    if (error instanceof ApiError) return showRefusal(error);
    formErrors.show({}, t('keys.form.unexpected'));
  } finally {
    fields.disabled = false;
  }
}

function hideNewKey(): void {
  newKeyValue.value = '';
  setVisible(newKey, false);
}

form.addEventListener('submit', (event) => void create(event));
name.addEventListener('input', () => formErrors.clearField('name'));
for (const box of scopeBoxes) box.addEventListener('change', () => formErrors.clearField('scopes'));
copyKey.addEventListener('click', () => void copyField(newKeyValue, copyKey, t('keys.new.copyWhat')));
newKeyValue.addEventListener('focus', () => newKeyValue.select());
newKeyDone.addEventListener('click', () => {
  hideNewKey();
  announce(t('keys.new.hidden'));
  name.focus();
});
// Leaving the page (or it going into the back/forward cache) takes the key off the page.
window.addEventListener('pagehide', hideNewKey);

async function main(): Promise<void> {
  const user = await startSignedInPage(keysError);
  if (!user) return;
  fields.disabled = false;
  await keys.load();
  markReady('keys', section);
}

void main();
