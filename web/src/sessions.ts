/**
 * Devices `/sessions`: where the account is signed in (this one marked), "Sign out this
 * device" and "Sign out everywhere", each after a confirm step (the confirm pattern of every
 * destructive action: nothing is sent until "Yes").
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { t } from './i18n.ts';
import { accountApi, type DeviceSession } from './api.ts';
import { fact, markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { confirmStep } from './confirmStep.ts';
import { announce, byId, timeElement } from './dom.ts';
import { listLoading } from './listLoading.ts';
import { signOut, signOutEverywhere, withAccess } from './session.ts';

const section = byId('sessions-page');
const errorBox = byId('sessions-error');
const list = byId<HTMLUListElement>('devices');
const signOutHere = byId<HTMLButtonElement>('sign-out-here');
const signOutAll = byId<HTMLButtonElement>('sign-out-everywhere');
const actions = byId('sign-out-actions');

/** The server's own name for a device it named from its user agent (shared/domain/accounts/sessions.ts). */
const derivedName = /^(Edge|Firefox|Chrome|Safari|curl) on (Windows|macOS|Android|iOS|Linux)$/;

/**
 * A device's name in the page's language when the server made it ("Chrome on Linux", "Unknown
 * device"), else as given (a name the CLI or a person chose, a product name alone): that is data.
 */
function nameDevice(title: HTMLElement, name: string): void {
  const derived = derivedName.exec(name);
  if (derived) title.textContent = t('sessions.device.browserOn', { browser: derived[1]!, os: derived[2]! });
  else if (name === 'Unknown device') title.textContent = t('sessions.device.unknown');
  else {
    title.textContent = name;
    title.translate = false;
  }
}

function deviceItem(device: DeviceSession): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'item';
  item.dataset.id = device.id;
  item.dataset.current = String(device.current);
  const head = document.createElement('div');
  head.className = 'item-head';
  const title = document.createElement('h2');
  title.className = 'item-title';
  nameDevice(title, device.device_name);
  head.append(title);
  if (device.current) {
    const badge = document.createElement('span');
    badge.className = 'badge badge-current';
    badge.textContent = t('sessions.thisDevice');
    head.append(badge);
  }
  const facts = document.createElement('dl');
  facts.className = 'facts';
  facts.append(
    fact(t('sessions.fact.signedIn'), timeElement(device.created_at)),
    fact(t('sessions.fact.lastActive'), timeElement(device.last_used_at)),
  );
  item.append(head, facts);
  return item;
}

const devices = listLoading(
  {
    error: errorBox,
    failed: t('sessions.list.failed'),
    object: t('sessions.list.object'),
    loading: t('sessions.list.loading'),
  },
  async () => {
    const page = await withAccess((token) => accountApi.sessions(token));
    // This device first, then the most recently active.
    const sorted = [...page.items].sort((a, b) => Number(b.current) - Number(a.current));
    list.replaceChildren(...sorted.map(deviceItem));
  },
);

const disableAll = (disabled: boolean) => {
  for (const button of actions.querySelectorAll('button')) button.disabled = disabled;
};

const hereStep = confirmStep(
  signOutHere,
  {
    action: 'sign-out-here',
    object: t('sessions.here.object'),
    question: t('sessions.here.question'),
    yes: t('sessions.here.yes'),
    no: t('sessions.stay'),
  },
  () => {
    disableAll(true);
    announce(t('sessions.here.signingOut'));
    void signOut().then(() => location.assign('/signin?reason=signed-out'));
  },
);

const everywhereStep = confirmStep(
  signOutAll,
  {
    action: 'sign-out-everywhere',
    object: t('sessions.everywhere.object'),
    question: t('sessions.everywhere.question'),
    yes: t('sessions.everywhere.yes'),
    no: t('sessions.stay'),
  },
  () => {
    disableAll(true);
    announce(t('sessions.everywhere.signingOut'));
    signOutEverywhere().then(
      () => location.assign('/signin?reason=everywhere'),
      (error: unknown) => {
        disableAll(false);
        announce('');
        showProblem(errorBox, error, t('sessions.everywhere.failed'));
      },
    );
  },
);
// One question at a time: opening one step closes the other.
signOutHere.addEventListener('click', () => (everywhereStep.box.hidden = true));
signOutAll.addEventListener('click', () => (hereStep.box.hidden = true));
actions.after(hereStep.box, everywhereStep.box);

async function main(): Promise<void> {
  const user = await startSignedInPage(errorBox);
  if (!user) return;
  await devices.load();
  markReady('sessions', section);
}

void main();
