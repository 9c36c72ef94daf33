/**
 * Billing `/billing`: the account's plan and the tier it uses (`GET /v1/billing/subscription`),
 * its Pro subscription's status, seats and period, this month's usage, the Team workspaces the
 * caller owns, the invoices (`billingInvoices.ts`), and "Manage billing", which opens the
 * provider's portal. The provider's checkout comes back here with `?checkout=success|cancelled`
 * (and the workspace a Team was bought for), which is said once and taken off the address.
 */
import { ApiError, type AccountUser } from './api.ts';
import { fact, markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { billingApi, openProviderPage, statusLabel, type BillingSubscription } from './billingApi.ts';
import { invoiceList } from './billingInvoices.ts';
import { isWorkspaceId } from './currentWorkspace.ts';
import { listLoading } from './listLoading.ts';
import { announce, byId, element, plural, setVisible, timeElement } from './dom.ts';
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

const described = (term: string, value: string | Node, role: string) => {
  const row = fact(term, value);
  row.dataset.role = role;
  return row;
};

function renderPlan(current: BillingSubscription): void {
  const rows = [described('Plan', planLabel(current.plan), 'plan')];
  if (current.tier !== current.plan)
    rows.push(described('What you use', `${planLabel(current.tier)}, through a workspace you are in`, 'tier'));
  if (current.status !== null) rows.push(described('Status', statusLabel(current.status), 'status'));
  if (current.seats !== null) rows.push(described('Seats', String(current.seats), 'seats'));
  if (current.current_period_end !== null) {
    rows.push(described('Current period ends', timeElement(current.current_period_end), 'period-end'));
    rows.push(
      described(
        'Then',
        current.cancel_at_period_end
          ? `It ends, as you cancelled it: your account goes back to ${planLabel('free')}.`
          : 'It renews, and is paid for again.',
        'cancel-at-period-end',
      ),
    );
  }
  planFacts.replaceChildren(...rows);
  const { usage } = current;
  usageFacts.replaceChildren(
    described('Live secrets', usage.live_secrets.toLocaleString(), 'live-secrets'),
    described('Stored', formatBytes(usage.bytes_stored), 'bytes-stored'),
    described('API calls', usage.calls_this_month.toLocaleString(), 'calls'),
  );
}

function ownedItem(workspace: WorkspaceSummary): HTMLLIElement {
  const item = element('li', 'item');
  item.dataset.id = workspace.id;
  const head = element('div', 'item-head');
  const title = element('h3', 'item-title');
  const link = element('a', '', workspace.name);
  link.href = `/workspace?id=${encodeURIComponent(workspace.id)}`;
  title.append(link);
  head.append(title, element('span', 'badge badge-active', planLabel(workspace.plan)));
  const facts = element('dl', 'facts');
  facts.append(described('Seats', `${workspace.members} of ${plural(workspace.seats, 'seat', 'seats')} used by members`, 'seats'));
  item.append(head, facts);
  return item;
}

/** Reads the plan and the owned Team workspaces (again); false when the plan could not be read. */
/** The plan, usage and owned workspaces; "Retry" when they cannot be read. */
const planLoading = listLoading(
  { error: pageError, failed: 'Your plan could not be read: ', object: 'reading your plan', loading: 'Loading your plan…' },
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
function paidFor(): { done: boolean; what: string; link: HTMLAnchorElement | null } {
  if (returned.workspaceId) {
    const workspace = owned.find((item) => item.id === returned.workspaceId);
    const link = workspace ? element('a', '', workspace.name) : null;
    if (link) link.href = `/workspace?id=${encodeURIComponent(workspace!.id)}`;
    return { done: workspace?.plan === 'team', what: workspace ? `Team for ${workspace.name}` : 'Team for your workspace', link };
  }
  return { done: subscription?.plan === 'pro', what: 'Pro for your account', link: null };
}

function sayCheckout(): void {
  setVisible(checkoutActions, false);
  if (returned.checkout === 'cancelled') {
    checkoutTitle.textContent = 'Payment cancelled';
    checkoutText.textContent = 'Nothing was paid, and your plan is as it was.';
  } else {
    const paid = paidFor();
    checkoutTitle.textContent = paid.done ? 'Thank you: payment received' : 'Payment received: waiting for confirmation';
    checkoutText.replaceChildren(
      paid.done
        ? `${paid.what} is active now.`
        : `${paid.what} shows here once the payment provider confirms the payment, usually within seconds.`,
    );
    if (paid.done && paid.link) checkoutText.append(' Its seats change on its page: ', paid.link, '.');
    setVisible(checkoutActions, !paid.done);
  }
  checkoutNotice.dataset.checkout = returned.checkout ?? '';
  setVisible(checkoutNotice, true);
  announce(`${checkoutTitle.textContent}. ${checkoutText.textContent}`);
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
  announce('Opening the billing pages…');
  try {
    const portal = await withAccess((token) => billingApi.portal(token, '/billing'));
    // The button stays disabled: the page is being left for the provider's.
    if (openProviderPage(portal.url)) return;
    portalError.textContent = 'The billing pages’ address is not a web address, so it was not opened.';
    setVisible(portalError, true);
    portalError.focus();
  } catch (error) {
    announce('');
    if (error instanceof ApiError && error.status === 404) {
      setVisible(manage, false);
      portalError.textContent = 'Your account has no billing yet: buy a plan first, and its billing pages open from here.';
      setVisible(portalError, true);
      portalError.focus();
    } else showProblem(portalError, error, 'The billing pages could not be opened: ');
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
