/**
 * Devices `/sessions`: where the account is signed in (this one marked), "Sign out this
 * device" and "Sign out everywhere".
 */
import { accountApi, type DeviceSession } from './api.ts';
import { fact, markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { announce, byId, setVisible, timeElement } from './dom.ts';
import { signOut, signOutEverywhere, withAccess } from './session.ts';

const section = byId('sessions-page');
const errorBox = byId('sessions-error');
const list = byId<HTMLUListElement>('devices');
const signOutHere = byId<HTMLButtonElement>('sign-out-here');
const signOutAll = byId<HTMLButtonElement>('sign-out-everywhere');

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

async function load(): Promise<void> {
  setVisible(errorBox, false);
  try {
    const page = await withAccess((token) => accountApi.sessions(token));
    // This device first, then the most recently active.
    const devices = [...page.items].sort((a, b) => Number(b.current) - Number(a.current));
    list.replaceChildren(...devices.map(deviceItem));
  } catch (error) {
    showProblem(errorBox, error, 'Your devices could not be listed: ');
  }
}

signOutHere.addEventListener('click', () => {
  signOutHere.disabled = true;
  signOutAll.disabled = true;
  announce('Signing out…');
  void signOut().then(() => location.assign('/signin?reason=signed-out'));
});

signOutAll.addEventListener('click', () => {
  signOutHere.disabled = true;
  signOutAll.disabled = true;
  setVisible(errorBox, false);
  announce('Signing out everywhere…');
  signOutEverywhere().then(
    () => location.assign('/signin?reason=everywhere'),
    (error: unknown) => {
      signOutHere.disabled = false;
      signOutAll.disabled = false;
      announce('');
      showProblem(errorBox, error, 'Not signed out: ');
    },
  );
});

async function main(): Promise<void> {
  const user = await startSignedInPage(errorBox);
  if (!user) return;
  await load();
  markReady('sessions', section);
}

void main();
