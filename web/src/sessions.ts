/**
 * Devices `/sessions`: where the account is signed in (this one marked), "Sign out this
 * device" and "Sign out everywhere", each after a confirm step (the confirm pattern of every
 * destructive action: nothing is sent until "Yes").
 */
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

function deviceItem(device: DeviceSession): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'item';
  item.dataset.id = device.id;
  item.dataset.current = String(device.current);
  const head = document.createElement('div');
  head.className = 'item-head';
  const title = document.createElement('h2');
  title.className = 'item-title';
  title.textContent = device.device_name;
  head.append(title);
  if (device.current) {
    const badge = document.createElement('span');
    badge.className = 'badge badge-current';
    badge.textContent = 'This device';
    head.append(badge);
  }
  const facts = document.createElement('dl');
  facts.className = 'facts';
  facts.append(fact('Signed in', timeElement(device.created_at)), fact('Last active', timeElement(device.last_used_at)));
  item.append(head, facts);
  return item;
}

const devices = listLoading(
  { error: errorBox, failed: 'Your devices could not be listed: ', object: 'listing your devices', loading: 'Loading your devices…' },
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
    object: 'on this device',
    question: 'Sign out on this device? You will need a new sign-in code to come back; your other devices stay signed in.',
    yes: 'Yes, sign out',
    no: 'Stay signed in',
  },
  () => {
    disableAll(true);
    announce('Signing out…');
    void signOut().then(() => location.assign('/signin?reason=signed-out'));
  },
);

const everywhereStep = confirmStep(
  signOutAll,
  {
    action: 'sign-out-everywhere',
    object: 'on every device',
    question: 'Sign out on every device, this one too? Each of them needs a new sign-in. API keys keep working.',
    yes: 'Yes, sign out everywhere',
    no: 'Stay signed in',
  },
  () => {
    disableAll(true);
    announce('Signing out everywhere…');
    signOutEverywhere().then(
      () => location.assign('/signin?reason=everywhere'),
      (error: unknown) => {
        disableAll(false);
        announce('');
        showProblem(errorBox, error, 'Not signed out: ');
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
