/**
 * "My secrets" `/account`: the signed-in user's secrets, each named by its private label (opened
 * in this browser, `labelKeys.ts`) or else by its kind and creation time, with the id as
 * secondary text (state, views left over all its links, expiry), revoke behind a confirm step,
 * each one's links and receipts (`secretLinks.ts`), "Load more", and attaching the secrets this
 * browser created anonymously; and "Add to Slack" (`chatInstall.ts`).
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { hasMessage, locale, t, tNodes } from './i18n.ts';
import { accountApi, api, type AdoptionResult, type OwnedSecret } from './api.ts';
import './chatInstall.ts';
import { actionButton, fact, markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { confirmStep } from './confirmStep.ts';
import { labelElsewhere, openLabel } from './labelKeys.ts';
import { announce, byId, element, focusHeading, setVisible, timeElement } from './dom.ts';
import type { OwnerMetadata } from './linksApi.ts';
import { linksPanel, ownerRead } from './secretLinks.ts';
import { pagedList } from './pagedList.ts';
import { mountAccountLanguage } from './accountLanguage.ts';
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

// The markup's sentences with an element in them, in the language's word order (its English stays
// when the messages could not be fetched).
if (hasMessage('account.empty.text')) {
  const share = element('a', '', t('account.empty.share'));
  share.href = '/';
  empty.replaceChildren(...tNodes('account.empty.text', { share }));
  const command = element('code', '', '/secret');
  command.translate = false;
  byId('chat-text').replaceChildren(...tNodes('account.chat.text', { command }));
}

const stateLabel = (state: string): string => t('account.state', { state });

const revocable = (state: string) => state === 'active' || state === 'pending';

/** A listed secret with its label as this browser reads it, and how many personal links its owner read found. */
type ListedSecret = OwnedSecret & { label: string | null; links?: number };

/**
 * A secret's views left. With personal links the count is every link's together and `max_views`
 * each link's: the listing does not say how many links there are, so the page asks the owner's
 * read (`links`); without it, only the count left is said, never a total it cannot know.
 */
function viewsText(secret: Pick<OwnedSecret, 'views_left' | 'max_views'>, links: number | undefined): string {
  const values = { left: secret.views_left, max: secret.max_views };
  if (links) return t('account.views.links', { ...values, links });
  if (links === 0) return t('account.views.of', values);
  if (secret.views_left > secret.max_views) return t('account.views.overLinks', values);
  return t('account.views.left', values);
}

const shortTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });

/** What a card is called: its label, else its kind and when it was made ("Text secret, 29 Nov 2026, 14:02"). */
const nameOf = (secret: ListedSecret): string =>
  secret.label ?? t('account.name.unlabelled', { kind: secret.kind, created: shortTime.format(Date.parse(secret.created_at)) });

/**
 * The page's secrets ready to draw: labels opened here, and for those still open the owner's
 * read, which says how many personal links share the views (a failed read leaves it unsaid).
 */
async function listed(secret: OwnedSecret): Promise<ListedSecret> {
  const label = secret.label_envelope ? await openLabel(secret.label_envelope) : null;
  if (!revocable(secret.state)) return { ...secret, label };
  const metadata = await ownerRead(secret.id).catch(() => null);
  return metadata
    ? { ...secret, label, state: metadata.state, views_left: metadata.views_left, links: metadata.recipients?.length ?? 0 }
    : { ...secret, label };
}

/** Shows what the owner's read says now (the panel read it, or a link was revoked): state, views, revoke. */
function applyMetadata(item: HTMLLIElement, metadata: OwnerMetadata): void {
  item.dataset.state = metadata.state;
  const badge = item.querySelector<HTMLElement>('[data-role="state"]')!;
  badge.className = `badge badge-${metadata.state}`;
  badge.textContent = stateLabel(metadata.state);
  item.querySelector<HTMLElement>('[data-role="views"] dd')!.textContent = viewsText(metadata, metadata.recipients?.length ?? 0);
  if (!revocable(metadata.state)) item.querySelector('button[data-action="revoke"]')?.closest('.actions')?.remove();
}

function secretItem(secret: ListedSecret): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'item';
  item.dataset.id = secret.id;
  item.dataset.state = secret.state;

  const head = document.createElement('div');
  head.className = 'item-head';
  const title = document.createElement('h2');
  title.className = 'item-title';
  title.tabIndex = -1;
  title.textContent = nameOf(secret);
  title.dataset.role = 'name';
  if (secret.label === null || secret.label === labelElsewhere) title.classList.add('item-title-fallback');
  // A label is what its owner typed.
  else title.translate = false;
  const badge = document.createElement('span');
  badge.className = `badge badge-${secret.state}`;
  badge.dataset.role = 'state';
  badge.textContent = stateLabel(secret.state);
  head.append(title, badge);
  // The id is secondary: support and the CLI know secrets by it.
  const id = element('p', 'item-id');
  id.dataset.role = 'id';
  const code = element('code', '', secret.id);
  code.translate = false;
  id.append(code);

  const facts = document.createElement('dl');
  facts.className = 'facts';
  const views = fact(t('account.fact.viewsLeft'), viewsText(secret, secret.links));
  views.dataset.role = 'views';
  facts.append(views);
  if (secret.ended_at) facts.append(fact(t('account.fact.ended'), timeElement(secret.ended_at)));
  else facts.append(fact(t('account.fact.expires'), timeElement(secret.expires_at)));
  if (secret.not_before && !secret.ended_at && Date.parse(secret.not_before) > Date.now())
    facts.append(fact(t('account.fact.opens'), timeElement(secret.not_before)));
  if (secret.created_at) facts.append(fact(t('account.fact.created'), timeElement(secret.created_at)));
  item.append(head, id, facts);

  if (revocable(secret.state)) {
    const actions = document.createElement('div');
    actions.className = 'actions';
    const revoke = actionButton(t('account.revoke.button'), t('account.revoke.object', { name: nameOf(secret) }), 'danger');
    revoke.dataset.action = 'revoke';
    const confirm = confirmStep(
      revoke,
      {
        action: 'revoke',
        object: t('account.revoke.object', { name: nameOf(secret) }),
        question: t('account.revoke.question', { name: nameOf(secret) }),
        yes: t('account.revoke.yes'),
        no: t('account.revoke.no'),
      },
      (yes) => void revokeSecret(secret, item, yes),
    );
    const error = document.createElement('p');
    error.className = 'notice notice-error';
    error.setAttribute('role', 'alert');
    error.tabIndex = -1;
    error.hidden = true;
    actions.append(revoke);
    item.append(actions, confirm.box, error);
  }
  item.append(linksPanel(secret, { updated: (metadata) => applyMetadata(item, metadata) }));
  return item;
}

async function revokeSecret(secret: ListedSecret, item: HTMLLIElement, button: HTMLButtonElement): Promise<void> {
  const error = item.querySelector<HTMLElement>('.notice-error')!;
  button.disabled = true;
  setVisible(error, false);
  announce(t('account.revoke.revoking'));
  try {
    // DELETE accepts anonymous callers too, so a stale token answers 403 rather than 401.
    await withAccess((token) => accountApi.revokeOwnedSecret(token, secret.id), [401, 403]);
  } catch (problem) {
    button.disabled = false;
    announce('');
    showProblem(error, problem, t('account.revoke.failed'));
    return;
  }
  // The state as the server now says (the last view may have been taken just before).
  let updated: ListedSecret = { ...secret, state: 'revoked', ended_at: new Date().toISOString() };
  try {
    const metadata = await api.readSecret(secret.id);
    updated = { ...secret, state: metadata.state, views_left: metadata.views_left, ended_at: metadata.ended_at ?? updated.ended_at };
  } catch {
    // The revoke worked; showing it as revoked is right.
  }
  const replacement = secretItem(updated);
  item.replaceWith(replacement);
  announce(t('account.revoke.done', { name: nameOf(secret) }));
  focusHeading(replacement.querySelector<HTMLElement>('.item-title')!);
}

const secrets = pagedList({
  list,
  empty,
  loadMore,
  error: listError,
  words: {
    retryObject: t('account.list.retryObject'),
    loading: t('account.list.loading'),
    moreListed: (count) => t('account.list.moreListed', { count }),
    noMore: t('account.list.noMore'),
  },
  listFailure: t('account.list.failed'),
  fetchPage: async (cursor) => {
    const page = await withAccess((token) => accountApi.secrets(token, pageSize, cursor));
    return { items: await Promise.all(page.items.map(listed)), nextCursor: page.next_cursor, draw: secretItem };
  },
});

function renderAttach(): void {
  const entries = listUnattached();
  const count = entries.length;
  setVisible(attachButton, count > 0);
  setVisible(attachForget, count > 0);
  if (count > 0) {
    attachButton.textContent = t('account.attach.button', { count });
    attachText.textContent = t('account.attach.text', { count, email });
  }
  setVisible(attach, count > 0 || !attachResults.hidden);
}

async function attachAll(): Promise<void> {
  const entries = listUnattached();
  if (entries.length === 0) return renderAttach();
  attachButton.disabled = true;
  attachForget.disabled = true;
  setVisible(attachError, false);
  announce(t('account.attach.attaching'));
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
    showProblem(attachError, error, t('account.attach.failed'));
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
      id.translate = false;
      if (result.adopted) {
        line.className = 'ok';
        line.append(...tNodes('account.attach.attached', { id }));
      } else {
        line.className = 'failed';
        line.append(...tNodes('account.attach.notAttached', { id, reason: result.reason ?? 'refused' }));
      }
      return line;
    }),
  );
  setVisible(attachResults, true);
  attachButton.disabled = false;
  attachForget.disabled = false;
  const attached = results.filter((result) => result.adopted).length;
  attachTitle.textContent = attached === results.length ? t('account.attach.doneTitle') : t('account.attach.doneWithExceptions');
  attachText.textContent = t('account.attach.done', { attached, total: results.length });
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
  announce(t('account.attach.forgotten'));
  focusHeading(byId('account-title'));
}

attachButton.addEventListener('click', () => void attachAll());
attachForget.addEventListener('click', forgetAll);

async function main(): Promise<void> {
  const user = await startSignedInPage(listError);
  if (!user) return;
  email = user.email;
  renderAttach();
  mountAccountLanguage(byId('account-language'), () => withAccess(async (token) => token));
  await secrets.reload();
  markReady('account', section);
}

void main();
