/**
 * Plans `/plans`: what each plan includes, drawn from the plan table (shared/domain/plans.ts,
 * bundled as is) and never restated here; the paid plans' prices as the payment provider has
 * them (`plansPrices.ts`), never an amount of our own. Upgrades go through the provider's checkout: Pro for the account,
 * Team for a workspace the caller owns (`plansTeam.ts`); Enterprise is an enquiry to sales
 * (`plansEnquiry.ts`), which needs no account. Signed out, an upgrade goes to sign-in and back.
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { t, tNodes } from './i18n.ts';
import { defaultPlan, planTable, plans, type Feature } from '../../shared/domain/plans.ts';
import { ApiError, type AccountUser } from './api.ts';
import { actionButton, fact, markReady, showProblem } from './accountPage.ts';
import { billingApi, openProviderPage, type BillingSubscription, type Plan } from './billingApi.ts';
import { announce, byId, element, errorBox, setVisible } from './dom.ts';
import { renderNav } from './nav.ts';
import { wireEnquiryForm } from './plansEnquiry.ts';
import { showPrices } from './plansPrices.ts';
import { openTeamForm, wireTeamForm } from './plansTeam.ts';
import { formatBytes } from './progress.ts';
import { resume, withAccess } from './session.ts';
import { planLabel } from './workspaceText.ts';

const section = byId('plans-page');
const pageError = byId('plans-error');
const signedOutNote = byId('plans-signed-out');
const list = byId<HTMLUListElement>('plans');
const enquiryName = byId<HTMLInputElement>('enquiry-name');
const pricesNotice = byId('plans-prices-error');

/** What each feature of the plan table gives, in the words of the pages that use it. */
const featureLabels: Record<Feature, string> = {
  receipts_time: t('plans.feature.receiptsTime'),
  receipts_channel: t('plans.feature.receiptsChannel'),
  receipts_location: t('plans.feature.receiptsLocation'),
  receipts_device: t('plans.feature.receiptsDevice'),
  seats: t('plans.feature.seats'),
  workspaces: t('plans.feature.workspaces'),
  policy: t('plans.feature.policy'),
  branding: t('plans.feature.branding'),
  sso: t('plans.feature.sso'),
  scim: t('plans.feature.scim'),
  custom_domains: t('plans.feature.customDomains'),
  audit: t('plans.feature.audit'),
};

/** How each plan is had: who buys it, and how. */
const howBought: Record<Plan, string> = {
  free: t('plans.howBought.free'),
  pro: t('plans.howBought.pro'),
  team: t('plans.howBought.team'),
  enterprise: t('plans.howBought.enterprise'),
};

const rank = (plan: Plan) => plans.indexOf(plan);

/** The price line of a plan the provider has no price for (or whose prices could not be read). */
function priceText(plan: Plan): string {
  if (plan === defaultPlan) return t('plans.price.none');
  if (!planTable[plan].selfServe) return t('plans.price.sales');
  return plan === 'team' ? t('plans.price.unknownPerSeat') : t('plans.price.unknown');
}

/** The price cells of the plans bought through the provider, for `showPrices`. */
const priceCells = new Map<string, HTMLElement>();

interface PlanCard {
  item: HTMLLIElement;
  head: HTMLElement;
  actions: HTMLElement;
  error: HTMLElement;
}

const cards = new Map<Plan, PlanCard>();

function planCard(plan: Plan, index: number): PlanCard {
  const definition = planTable[plan];
  const item = element('li', 'item plan');
  item.dataset.plan = plan;
  const head = element('div', 'item-head');
  const title = element('h2', 'item-title', planLabel(plan));
  // The plans' names are names, the same in every language.
  title.translate = false;
  title.id = `plan-${plan}-title`;
  title.tabIndex = -1;
  head.append(title);

  const facts = element('dl', 'facts');
  const files = fact(t('plans.card.files'), formatBytes(definition.fileBytes));
  files.dataset.role = 'file-limit';
  const price = fact(t('plans.card.price'), priceText(plan));
  price.dataset.role = 'price';
  if (plan !== defaultPlan && definition.selfServe) priceCells.set(plan, price.querySelector('dd')!);
  facts.append(files, price);

  // Each plan's features past the one before it in the table: the table decides what is listed.
  const previous = index > 0 ? plans[index - 1]! : null;
  const added = definition.features.filter((feature) => !previous || !planTable[previous].features.includes(feature));
  const includes = element(
    'p',
    'plan-includes',
    previous
      ? added.length > 0
        ? t('plans.card.everythingAnd', { plan: planLabel(previous) })
        : t('plans.card.everything', { plan: planLabel(previous) })
      : t('plans.card.includes'),
  );
  const features = element('ul', 'plan-features');
  features.dataset.role = 'features';
  features.setAttribute('aria-label', t('plans.card.featuresLabel', { plan: planLabel(plan) }));
  for (const feature of added) {
    const entry = element('li', '', featureLabels[feature]);
    entry.dataset.feature = feature;
    features.append(entry);
  }
  setVisible(features, added.length > 0);

  const actions = element('div', 'actions');
  const error = errorBox('plan-error');
  item.append(head, element('p', 'hint', howBought[plan]), facts, includes, features, actions, error);
  return { item, head, actions, error };
}

// ---- Upgrades ----

/** Signed out: sign in first, then back here to choose again. */
const signInToUpgrade = () => location.assign(`/signin?${new URLSearchParams({ reason: 'upgrade', next: '/plans' }).toString()}`);

/** 409: the account pays for Pro already. */
function alreadyPaying(card: PlanCard): void {
  const link = element('a', '', t('plans.pro.manageOnBilling'));
  link.href = '/billing';
  card.error.replaceChildren(...tNodes('plans.pro.already', { link }));
  setVisible(card.error, true);
  card.error.focus();
}

async function upgradeToPro(button: HTMLButtonElement, card: PlanCard): Promise<void> {
  button.disabled = true;
  setVisible(card.error, false);
  announce(t('plans.openingPayment'));
  try {
    const session = await withAccess((token) => billingApi.checkout(token, { plan: 'pro' }));
    // The button stays disabled: the page is being left for the provider's.
    if (openProviderPage(session.url)) return;
    card.error.textContent = t('plans.paymentNotWebAddress');
    setVisible(card.error, true);
    card.error.focus();
  } catch (error) {
    announce('');
    if (error instanceof ApiError && error.status === 409) alreadyPaying(card);
    else showProblem(card.error, error, t('plans.paymentFailed'));
  }
  button.disabled = false;
}

function plainButton(label: string): HTMLButtonElement {
  const button = element('button', 'primary', label);
  button.type = 'button';
  return button;
}

function drawActions(user: AccountUser | null, subscription: BillingSubscription | null): void {
  for (const [plan, card] of cards) {
    card.actions.replaceChildren();
    if (plan === 'pro') {
      if (subscription && rank(subscription.plan) >= rank('pro')) {
        const note = element('p', 'hint');
        const link = element('a', '', t('plans.pro.seeOnBilling'));
        link.href = '/billing';
        note.append(...tNodes('plans.pro.yours', { plan: planLabel(subscription.plan), link }));
        card.actions.append(note);
        continue;
      }
      const button = user
        ? plainButton(t('plans.pro.upgrade'))
        : actionButton(t('plans.signInToUpgrade'), t('plans.signInToUpgradePro'), 'primary');
      button.dataset.action = 'upgrade-pro';
      button.addEventListener('click', () => (user ? void upgradeToPro(button, card) : signInToUpgrade()));
      card.actions.append(button);
    } else if (plan === 'team') {
      const button = user
        ? plainButton(t('plans.team.buy'))
        : actionButton(t('plans.signInToUpgrade'), t('plans.signInToUpgradeTeam'), 'primary');
      button.dataset.action = 'buy-team';
      if (user) {
        button.setAttribute('aria-controls', 'team-form');
        button.setAttribute('aria-expanded', 'false');
      }
      button.addEventListener('click', () => (user ? void openTeamForm(button) : signInToUpgrade()));
      card.actions.append(button);
    } else if (!planTable[plan].selfServe) {
      const button = actionButton(t('plans.contactSales'), t('plans.contactSalesAbout', { plan: planLabel(plan) }));
      button.dataset.action = 'contact-sales';
      button.addEventListener('click', () => {
        enquiryName.scrollIntoView({ block: 'center' });
        enquiryName.focus();
      });
      card.actions.append(button);
    }
    setVisible(card.actions, card.actions.childElementCount > 0);
  }
}

/** "Your plan" on the account's own plan; the plan it uses through a workspace, when that is higher. */
function markCurrent(subscription: BillingSubscription): void {
  const badge = (plan: Plan, text: string, role: string) => {
    const mark = element('span', 'badge badge-current', text);
    mark.dataset.role = role;
    cards.get(plan)?.head.append(mark);
  };
  badge(subscription.plan, t('plans.yourPlan'), 'your-plan');
  if (subscription.tier !== subscription.plan) badge(subscription.tier, t('plans.yoursThroughWorkspace'), 'your-tier');
}

async function main(): Promise<void> {
  plans.forEach((plan, index) => {
    cards.set(plan, planCard(plan, index));
  });
  list.replaceChildren(...[...cards.values()].map((card) => card.item));
  const prices = showPrices(priceCells, pricesNotice, (plan) => priceText(plan as Plan));

  let user: AccountUser | null = null;
  try {
    user = await resume();
  } catch (error) {
    // Unreachable: the plans still read, and the buttons say what fails when pressed.
    showProblem(pageError, error, t('plans.signInCheckFailed'));
  }
  renderNav();
  let subscription: BillingSubscription | null = null;
  if (user) {
    try {
      subscription = await withAccess((token) => billingApi.subscription(token));
      markCurrent(subscription);
    } catch (error) {
      showProblem(pageError, error, t('plans.planReadFailed'));
    }
  }
  setVisible(signedOutNote, !user);
  drawActions(user, subscription);
  wireTeamForm();
  wireEnquiryForm(user);
  await prices;
  markReady('plans', section);
}

void main();
