/**
 * Plans `/plans`: what each plan includes, drawn from the plan table (shared/domain/plans.ts,
 * bundled as is) and never restated here; the paid plans' prices as the payment provider has
 * them (`plansPrices.ts`), never an amount of our own. Upgrades go through the provider's checkout: Pro for the account,
 * Team for a workspace the caller owns (`plansTeam.ts`); Enterprise is an enquiry to sales
 * (`plansEnquiry.ts`), which needs no account. Signed out, an upgrade goes to sign-in and back.
 */
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
  receipts_time: 'Receipts: when each link was opened',
  receipts_channel: 'Receipts: how it was opened (web page, command line, chat, API)',
  receipts_location: 'Receipts: roughly where it was opened',
  receipts_device: 'Receipts: on what device (browser and system)',
  seats: 'Seats for the people of a workspace',
  workspaces: 'Workspaces: members and their roles',
  policy: 'A policy every secret sent in the workspace keeps',
  branding: 'Your name, logo and colour on the pages that open your secrets',
  sso: 'Single sign-on',
  scim: 'Members kept in step with your directory (SCIM)',
  custom_domains: 'Your own domain',
  audit: 'An audit trail, with CSV and JSON exports',
};

/** How each plan is had: who buys it, and how. */
const howBought: Record<Plan, string> = {
  free: 'Every account starts here.',
  pro: 'For one person: bought for your account.',
  team: 'For a team: bought for a workspace you own, per seat.',
  enterprise: 'For an organization: arranged with sales.',
};

const rank = (plan: Plan) => plans.indexOf(plan);

/** The price line of a plan the provider has no price for (or whose prices could not be read). */
function priceText(plan: Plan): string {
  if (plan === defaultPlan) return 'No payment.';
  if (!planTable[plan].selfServe) return 'Agreed with sales.';
  return `${plan === 'team' ? 'Per seat, as' : 'As'} this service sets it: the payment page shows it before you pay.`;
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
  title.id = `plan-${plan}-title`;
  title.tabIndex = -1;
  head.append(title);

  const facts = element('dl', 'facts');
  const files = fact('Files up to', formatBytes(definition.fileBytes));
  files.dataset.role = 'file-limit';
  const price = fact('Price', priceText(plan));
  price.dataset.role = 'price';
  if (plan !== defaultPlan && definition.selfServe) priceCells.set(plan, price.querySelector('dd')!);
  facts.append(files, price);

  // Each plan's features past the one before it in the table: the table decides what is listed.
  const previous = index > 0 ? plans[index - 1]! : null;
  const added = definition.features.filter((feature) => !previous || !planTable[previous].features.includes(feature));
  const includes = element(
    'p',
    'plan-includes',
    previous ? `Everything in ${planLabel(previous)}${added.length > 0 ? ', and:' : '.'}` : 'Includes:',
  );
  const features = element('ul', 'plan-features');
  features.dataset.role = 'features';
  features.setAttribute('aria-label', `What ${planLabel(plan)} includes`);
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

function alreadyPaying(card: PlanCard, sentence: string): void {
  card.error.replaceChildren(sentence, ' ');
  const link = element('a', '', 'Manage it on Billing');
  link.href = '/billing';
  card.error.append(link, '.');
  setVisible(card.error, true);
  card.error.focus();
}

async function upgradeToPro(button: HTMLButtonElement, card: PlanCard): Promise<void> {
  button.disabled = true;
  setVisible(card.error, false);
  announce('Opening the payment page…');
  try {
    const session = await withAccess((token) => billingApi.checkout(token, { plan: 'pro' }));
    // The button stays disabled: the page is being left for the provider's.
    if (openProviderPage(session.url)) return;
    card.error.textContent = 'The payment page’s address is not a web address, so it was not opened. Nothing was paid.';
    setVisible(card.error, true);
    card.error.focus();
  } catch (error) {
    announce('');
    if (error instanceof ApiError && error.status === 409) alreadyPaying(card, 'Your account has Pro already.');
    else showProblem(card.error, error, 'The payment page could not be opened: ');
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
        const note = element('p', 'hint', `Your account has ${planLabel(subscription.plan)}. `);
        const link = element('a', '', 'See it on Billing');
        link.href = '/billing';
        note.append(link, '.');
        card.actions.append(note);
        continue;
      }
      const button = user ? plainButton('Upgrade to Pro') : actionButton('Sign in to upgrade', 'to Pro', 'primary');
      button.dataset.action = 'upgrade-pro';
      button.addEventListener('click', () => (user ? void upgradeToPro(button, card) : signInToUpgrade()));
      card.actions.append(button);
    } else if (plan === 'team') {
      const button = user ? plainButton('Buy Team for a workspace') : actionButton('Sign in to upgrade', 'to Team', 'primary');
      button.dataset.action = 'buy-team';
      if (user) {
        button.setAttribute('aria-controls', 'team-form');
        button.setAttribute('aria-expanded', 'false');
      }
      button.addEventListener('click', () => (user ? void openTeamForm(button) : signInToUpgrade()));
      card.actions.append(button);
    } else if (!planTable[plan].selfServe) {
      const button = actionButton('Contact sales', `about ${planLabel(plan)}`);
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
  badge(subscription.plan, 'Your plan', 'your-plan');
  if (subscription.tier !== subscription.plan) badge(subscription.tier, 'Yours through a workspace', 'your-tier');
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
    showProblem(pageError, error, 'Your sign-in could not be checked: ');
  }
  renderNav();
  let subscription: BillingSubscription | null = null;
  if (user) {
    try {
      subscription = await withAccess((token) => billingApi.subscription(token));
      markCurrent(subscription);
    } catch (error) {
      showProblem(pageError, error, 'Your plan could not be read: ');
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
