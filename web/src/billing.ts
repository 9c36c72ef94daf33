/**
 * Billing `/billing`: the account's plan and the tier it uses (`GET /v1/billing/subscription`),
 * its Pro subscription's status, seats and period, this month's usage, the Team workspaces the
 * caller owns, the invoices (`billingInvoices.ts`), and "Manage billing", which opens the
 * provider's portal. The provider's checkout comes back here with `?checkout=success|cancelled`
 * (and the workspace a Team was bought for), which is said once and taken off the address.
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { locale, t, tNodes } from './i18n.ts';
import { ApiError, type AccountUser } from './api.ts';
import { fact, markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { billingApi, openProviderPage, statusLabel, type BillingSubscription } from './billingApi.ts';
import { invoiceList } from './billingInvoices.ts';
import { isWorkspaceId } from './currentWorkspace.ts';
import { listLoading } from './listLoading.ts';
import { announce, byId, element, setVisible, timeElement } from './dom.ts';
import { formatBytes } from './progress.ts';
import { withAccess } from './session.ts';
import { planLabel } from './workspaceText.ts';
import { workspacesApi, type WorkspaceSummary } from './workspacesApi.ts';

const section = byId('billing-page');
const checkoutNotice = byId('checkout-notice');
const checkoutTitle = byId('checkout-notice-title');
const checkoutText = byId('checkout-notice-text');
const checkoutActions = byId('checkout-actions');
const checkoutCheck = byId<HTMLButtonElement>('checkout-check');
const pageError = byId('billing-error');
const planFacts = byId('plan-facts');
const manage = byId<HTMLButtonElement>('manage-billing');
const portalError = byId('portal-error');
const usageFacts = byId('usage-facts');
const ownedSection = byId('owned-section');
const ownedList = byId<HTMLUListElement>('owned-workspaces');

/** What the provider's checkout came back with, read once at load. */
const returned = (() => {
  const params = new URLSearchParams(location.search);
  const checkout = params.get('checkout');
  const workspace = params.get('workspace');
  return {
    checkout: checkout === 'success' || checkout === 'cancelled' ? checkout : null,
    workspaceId: isWorkspaceId(workspace) ? workspace : null,
  };
})();

let subscription: BillingSubscription | null = null;
let owned: WorkspaceSummary[] = [];

/** Text that is data, not words of the page (a plan's name, a workspace's): never translated. */
function data<E extends HTMLElement>(node: E): E {
  node.translate = false;
  return node;
}

const described = (term: string, value: string | Node, role: string) => {
  const row = fact(term, value);
  row.dataset.role = role;
  return row;
};

function renderPlan(current: BillingSubscription): void {
  const rows = [described(t('billing.plan.plan'), data(element('span', '', planLabel(current.plan))), 'plan')];
  if (current.tier !== current.plan)
    rows.push(described(t('billing.plan.tier'), t('billing.plan.tierValue', { plan: planLabel(current.tier) }), 'tier'));
  if (current.status !== null) rows.push(described(t('billing.plan.status'), statusLabel(current.status), 'status'));
  if (current.seats !== null) rows.push(described(t('billing.plan.seats'), current.seats.toLocaleString(locale), 'seats'));
  if (current.current_period_end !== null) {
    rows.push(described(t('billing.plan.periodEnd'), timeElement(current.current_period_end), 'period-end'));
    rows.push(
      described(
        t('billing.plan.then'),
        current.cancel_at_period_end ? t('billing.plan.ends', { plan: planLabel('free') }) : t('billing.plan.renews'),
        'cancel-at-period-end',
      ),
    );
  }
  planFacts.replaceChildren(...rows);
  const { usage } = current;
  usageFacts.replaceChildren(
    described(t('billing.usage.liveSecrets'), usage.live_secrets.toLocaleString(locale), 'live-secrets'),
    described(t('billing.usage.stored'), formatBytes(usage.bytes_stored), 'bytes-stored'),
    described(t('billing.usage.calls'), usage.calls_this_month.toLocaleString(locale), 'calls'),
  );
}

function ownedItem(workspace: WorkspaceSummary): HTMLLIElement {
  const item = element('li', 'item');
  item.dataset.id = workspace.id;
  const head = element('div', 'item-head');
  const title = element('h3', 'item-title');
  const link = data(element('a', '', workspace.name));
  link.href = `/workspace?id=${encodeURIComponent(workspace.id)}`;
  title.append(link);
  head.append(title, data(element('span', 'badge badge-active', planLabel(workspace.plan))));
  const facts = element('dl', 'facts');
  facts.append(
    described(t('billing.plan.seats'), t('billing.owned.seatsUsed', { members: workspace.members, seats: workspace.seats }), 'seats'),
  );
  item.append(head, facts);
  return item;
}

/** Reads the plan and the owned Team workspaces (again); false when the plan could not be read. */
/** The plan, usage and owned workspaces; "Retry" when they cannot be read. */
const planLoading = listLoading(
  {
    error: pageError,
    failed: t('billing.plan.readFailed'),
    object: t('billing.plan.readObject'),
    loading: t('billing.plan.loading'),
  },
  async () => {
    const [read, listed] = await Promise.all([
      withAccess((token) => billingApi.subscription(token)),
      withAccess((token) => workspacesApi.list(token)),
    ]);
    subscription = read;
    owned = listed.items.filter(
      (workspace) => workspace.role === 'owner' && (workspace.plan === 'team' || workspace.plan === 'enterprise'),
    );
    renderPlan(subscription);
    ownedList.replaceChildren(...owned.map(ownedItem));
    setVisible(ownedSection, owned.length > 0);
  },
);
const load = () => planLoading.load();

/** Whether what was just paid for shows yet: the provider tells the service by its events, which may come a moment after the payer. */
function paidFor(): { done: boolean; what: 'team' | 'workspace' | 'pro'; name: string; link: HTMLAnchorElement | null } {
  if (returned.workspaceId) {
    const workspace = owned.find((item) => item.id === returned.workspaceId);
    const link = workspace ? data(element('a', '', workspace.name)) : null;
    if (link) link.href = `/workspace?id=${encodeURIComponent(workspace!.id)}`;
    return { done: workspace?.plan === 'team', what: workspace ? 'team' : 'workspace', name: workspace?.name ?? '', link };
  }
  return { done: subscription?.plan === 'pro', what: 'pro', name: '', link: null };
}

function sayCheckout(): void {
  setVisible(checkoutActions, false);
  if (returned.checkout === 'cancelled') {
    checkoutTitle.textContent = t('billing.checkout.cancelledTitle');
    checkoutText.textContent = t('billing.checkout.cancelledText');
  } else {
    const paid = paidFor();
    checkoutTitle.textContent = paid.done ? t('billing.checkout.doneTitle') : t('billing.checkout.waitingTitle');
    const what = { what: paid.what, name: paid.name };
    if (paid.done && paid.link)
      checkoutText.replaceChildren(...tNodes('billing.checkout.doneWithLink', { name: paid.name, link: paid.link }));
    else checkoutText.replaceChildren(paid.done ? t('billing.checkout.done', what) : t('billing.checkout.waiting', what));
    setVisible(checkoutActions, !paid.done);
  }
  checkoutNotice.dataset.checkout = returned.checkout ?? '';
  setVisible(checkoutNotice, true);
  announce(t('billing.checkout.announce', { title: checkoutTitle.textContent ?? '', text: checkoutText.textContent ?? '' }));
  checkoutNotice.focus();
}

checkoutCheck.addEventListener('click', () => {
  checkoutCheck.disabled = true;
  void load().then(() => {
    checkoutCheck.disabled = false;
    sayCheckout();
  });
});

manage.addEventListener('click', () => void openPortal());

async function openPortal(): Promise<void> {
  manage.disabled = true;
  setVisible(portalError, false);
  announce(t('billing.portal.opening'));
  try {
    const portal = await withAccess((token) => billingApi.portal(token, '/billing'));
    // The button stays disabled: the page is being left for the provider's.
    if (openProviderPage(portal.url)) return;
    portalError.textContent = t('billing.portal.notWebAddress');
    setVisible(portalError, true);
    portalError.focus();
  } catch (error) {
    announce('');
    if (error instanceof ApiError && error.status === 404) {
      setVisible(manage, false);
      portalError.textContent = t('billing.portal.none');
      setVisible(portalError, true);
      portalError.focus();
    } else showProblem(portalError, error, t('billing.portal.failed'));
  }
  manage.disabled = false;
}

async function main(): Promise<void> {
  const user: AccountUser | null = await startSignedInPage(pageError);
  if (!user) return;
  // Said once: a reload or a bookmark of this address should not say it again.
  if (returned.checkout) history.replaceState(null, '', '/billing');
  const invoices = invoiceList((exists) => setVisible(manage, exists));
  await Promise.all([load(), invoices.reload()]);
  markReady('billing', section);
  if (returned.checkout) sayCheckout();
}

void main();
