/**
 * "My secrets" `/account`: the signed-in user's secrets (state, views left, expiry), revoke,
 * each one's links and receipts (`secretLinks.ts`), "Load more", and attaching the secrets this
 * browser created anonymously; and "Add to Slack" (`chatInstall.ts`).
 */
import { accountApi, api, type AdoptionResult, type OwnedSecret } from './api.ts';
import './chatInstall.ts';
import { actionButton, fact, markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { announce, byId, focusHeading, plural, setVisible, timeElement } from './dom.ts';
import type { OwnerMetadata } from './linksApi.ts';
import { linksPanel } from './secretLinks.ts';
import { pagedList } from './pagedList.ts';
import { withAccess } from './session.ts';
import { forgetUnattached, listUnattached } from './unattached.ts';

const pageSize = 20;

const section = byId('account');
const attach = byId('attach');
const attachTitle = byId('attach-title');
const attachText = byId('attach-text');
const attachButton = byId<HTMLButtonElement>('attach-button');
const attachForget = byId<HTMLButtonElement>('attach-forget');
const attachResults = byId<HTMLUListElement>('attach-results');
const attachError = byId('attach-error');
const listError = byId('list-error');
const empty = byId('secrets-empty');
const list = byId<HTMLUListElement>('secrets');
const loadMore = byId<HTMLButtonElement>('load-more');

let email = '';

const stateLabels: Record<string, string> = {
  pending: 'Uploading',
  active: 'Active',
  burned: 'Viewed',
  expired: 'Expired',
  revoked: 'Revoked',
  locked: 'Locked',
};

const revocable = (state: string) => state === 'active' || state === 'pending';

/**
 * A secret's views left. With personal links the count is every link's together, which the
 * listing does not say; it shows when the count is more than one link may have.
 */
function viewsText(secret: Pick<OwnedSecret, 'views_left' | 'max_views'>, links?: number): string {
  if (links) return `${secret.views_left} in all (${plural(links, 'personal link', 'personal links')}, up to ${secret.max_views} each)`;
  if (secret.views_left > secret.max_views) return `${secret.views_left} in all, over its personal links`;
  return `${secret.views_left} of ${secret.max_views}`;
}

/** Shows what the owner's read says now (the panel read it, or a link was revoked): state, views, revoke. */
function applyMetadata(item: HTMLLIElement, metadata: OwnerMetadata): void {
  item.dataset.state = metadata.state;
  const badge = item.querySelector<HTMLElement>('[data-role="state"]')!;
  badge.className = `badge badge-${metadata.state}`;
  badge.textContent = stateLabels[metadata.state] ?? metadata.state;
  item.querySelector<HTMLElement>('[data-role="views"] dd')!.textContent = viewsText(metadata, metadata.recipients?.length);
  if (!revocable(metadata.state)) item.querySelector('button[data-action="revoke"]')?.closest('.actions')?.remove();
}

function secretItem(secret: OwnedSecret): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'item';
  item.dataset.id = secret.id;
  item.dataset.state = secret.state;

  const head = document.createElement('div');
  head.className = 'item-head';
  const title = document.createElement('h2');
  title.className = 'item-title';
  title.tabIndex = -1;
  const id = document.createElement('code');
  id.textContent = secret.id;
  title.append(id);
  const badge = document.createElement('span');
  badge.className = `badge badge-${secret.state}`;
  badge.dataset.role = 'state';
  badge.textContent = stateLabels[secret.state] ?? secret.state;
  head.append(title, badge);

  const facts = document.createElement('dl');
  facts.className = 'facts';
  const views = fact('Views left', viewsText(secret));
  views.dataset.role = 'views';
  facts.append(views);
  if (secret.ended_at) facts.append(fact('Ended', timeElement(secret.ended_at)));
  else facts.append(fact('Expires', timeElement(secret.expires_at)));
  if (secret.not_before && !secret.ended_at && Date.parse(secret.not_before) > Date.now())
    facts.append(fact('Opens', timeElement(secret.not_before)));
  if (secret.created_at) facts.append(fact('Created', timeElement(secret.created_at)));
  item.append(head, facts);

  if (revocable(secret.state)) {
    const actions = document.createElement('div');
    actions.className = 'actions';
    const revoke = actionButton('Revoke', `secret ${secret.id}`, 'danger');
    revoke.dataset.action = 'revoke';
    revoke.addEventListener('click', () => void revokeSecret(secret, item, revoke));
    const error = document.createElement('p');
    error.className = 'notice notice-error';
    error.setAttribute('role', 'alert');
    error.tabIndex = -1;
    error.hidden = true;
    actions.append(revoke);
    item.append(actions, error);
  }
  item.append(linksPanel(secret, { updated: (metadata) => applyMetadata(item, metadata) }));
  return item;
}

async function revokeSecret(secret: OwnedSecret, item: HTMLLIElement, button: HTMLButtonElement): Promise<void> {
  const error = item.querySelector<HTMLElement>('.notice-error')!;
  button.disabled = true;
  setVisible(error, false);
  announce('Revoking…');
  try {
    // DELETE accepts anonymous callers too, so a stale token answers 403 rather than 401.
    await withAccess((token) => accountApi.revokeOwnedSecret(token, secret.id), [401, 403]);
  } catch (problem) {
    button.disabled = false;
    announce('');
    showProblem(error, problem, 'Could not revoke: ');
    return;
  }
  // The state as the server now says (the last view may have been taken just before).
  let updated: OwnedSecret = { ...secret, state: 'revoked', ended_at: new Date().toISOString() };
  try {
    const metadata = await api.readSecret(secret.id);
    updated = { ...secret, state: metadata.state, views_left: metadata.views_left, ended_at: metadata.ended_at ?? updated.ended_at };
  } catch {
    // The revoke worked; showing it as revoked is right.
  }
  const replacement = secretItem(updated);
  item.replaceWith(replacement);
  announce(`Secret ${secret.id} revoked: its link no longer opens anything.`);
  focusHeading(replacement.querySelector<HTMLElement>('.item-title')!);
}

const secrets = pagedList({
  list,
  empty,
  loadMore,
  error: listError,
  noun: ['secret', 'secrets'],
  listFailure: 'Your secrets could not be listed: ',
  fetchPage: async (cursor) => {
    const page = await withAccess((token) => accountApi.secrets(token, pageSize, cursor));
    return { items: page.items, nextCursor: page.next_cursor, draw: secretItem };
  },
});

function renderAttach(): void {
  const entries = listUnattached();
  const count = entries.length;
  setVisible(attachButton, count > 0);
  setVisible(attachForget, count > 0);
  if (count > 0) {
    attachButton.textContent = `Attach ${plural(count, 'secret', 'secrets')} created in this browser`;
    attachText.textContent =
      `${count === 1 ? 'A secret was' : `${count} secrets were`} created in this browser without an account. Attach ${count === 1 ? 'it' : 'them'} to ${email} ` +
      'to see ' +
      (count === 1 ? 'its' : 'their') +
      ' state here and revoke ' +
      (count === 1 ? 'it' : 'them') +
      ' from any device. This browser keeps only ' +
      (count === 1 ? 'its revoke token' : 'their revoke tokens') +
      ' (not the links): attaching or forgetting removes ' +
      (count === 1 ? 'it' : 'them') +
      '.';
  }
  setVisible(attach, count > 0 || !attachResults.hidden);
}

const reasonText: Record<string, string> = {
  not_found: 'it no longer exists',
  forbidden: 'the revoke token kept in this browser was refused',
  ended: 'it has already ended (viewed, expired or revoked)',
  owned: 'it belongs to another account',
};

async function attachAll(): Promise<void> {
  const entries = listUnattached();
  if (entries.length === 0) return renderAttach();
  attachButton.disabled = true;
  attachForget.disabled = true;
  setVisible(attachError, false);
  announce('Attaching…');
  let results: AdoptionResult[];
  try {
    results = (
      await withAccess((token) =>
        accountApi.adoptSecrets(
          token,
          entries.map(({ id, delete_token }) => ({ id, delete_token })),
        ),
      )
    ).items;
  } catch (error) {
    announce('');
    attachButton.disabled = false;
    attachForget.disabled = false;
    showProblem(attachError, error, 'Nothing was attached: ');
    return;
  }
  // Answered items leave this browser either way: attached ones are the account's now, and
  // refused ones can never be attached.
  forgetUnattached(results.map((result) => result.id));
  attachResults.replaceChildren(
    ...results.map((result) => {
      const line = document.createElement('li');
      line.dataset.id = result.id;
      line.dataset.adopted = String(result.adopted);
      const id = document.createElement('code');
      id.textContent = result.id;
      if (result.adopted) {
        line.className = 'ok';
        line.append(id, ': attached.');
      } else {
        line.className = 'failed';
        line.append(id, `: not attached, ${reasonText[result.reason ?? ''] ?? result.reason ?? 'refused'}.`);
      }
      return line;
    }),
  );
  setVisible(attachResults, true);
  attachButton.disabled = false;
  attachForget.disabled = false;
  const attached = results.filter((result) => result.adopted).length;
  attachTitle.textContent = attached === results.length ? 'Attached' : 'Attached, with exceptions';
  attachText.textContent = `${plural(attached, 'secret', 'secrets')} of ${results.length} attached to your account.`;
  renderAttach();
  // Said and focused with the results, not after the list is read again: focus must not wait on the network.
  announce(attachText.textContent);
  focusHeading(attachTitle);
  await secrets.reload();
}

function forgetAll(): void {
  forgetUnattached(listUnattached().map((entry) => entry.id));
  attachResults.replaceChildren();
  setVisible(attachResults, false);
  renderAttach();
  announce('The revoke tokens kept in this browser were removed.');
  focusHeading(byId('account-title'));
}

attachButton.addEventListener('click', () => void attachAll());
attachForget.addEventListener('click', forgetAll);

async function main(): Promise<void> {
  const user = await startSignedInPage(listError);
  if (!user) return;
  email = user.email;
  renderAttach();
  await secrets.reload();
  markReady('account', section);
}

void main();
