/**
 * An invitation's link `/join#<token>` (mailed by `POST …/invitations`): the token is read from
 * the fragment and the fragment taken off the address bar at once, so it never stays in the
 * history, a bookmark or a shared screen. Signed in, the page accepts at once
 * (`POST /v1/workspaces/invitations/accept`, the token in the body only) and says "You joined
 * <workspace> as <role>". Not signed in, it keeps the token in sessionStorage and sends the
 * person to sign in (`next=/join`), then accepts when they are back.
 *
 * Why sessionStorage, and only until the token is used: signing in is two page loads away and
 * the fragment is gone, so the token must survive navigation in this tab; sessionStorage keeps
 * it in this tab alone and forgets it when the tab closes, where localStorage would keep it on
 * disk for every tab. It is removed as soon as the server answers for good (joined, refused for
 * another address, unknown, used, revoked or expired), and kept only while trying again can help
 * (no free seat yet, too many requests, no connection). The token joins only a session of the
 * invited address, once, within 7 days.
 */
import { ApiError, type AccountUser } from './api.ts';
import { announce, byId, focusHeading, setVisible } from './dom.ts';
import { renderNav } from './nav.ts';
import { goToSignIn, resume, SignedOutError, signOut, withAccess } from './session.ts';
import { roleLabel } from './workspaceText.ts';
import { workspacesApi } from './workspacesApi.ts';

const pendingKey = 'hushlink.invitation';
const tokenShape = /^hli_[A-Za-z0-9_-]{20,200}$/;

const section = byId('join-page');
const title = byId('join-title');
const text = byId('join-text');
const open = byId('join-open');
const openLink = byId<HTMLAnchorElement>('join-link');
const switchButton = byId<HTMLButtonElement>('join-switch');
const retryButton = byId<HTMLButtonElement>('join-retry');

// Before anything else: the token leaves the address bar.
const fromLink = location.hash.replace(/^#/, '').trim();
if (location.hash) history.replaceState(null, '', location.pathname);

function keep(token: string): void {
  try {
    sessionStorage.setItem(pendingKey, token);
  } catch {
    // Without sessionStorage the token cannot cross the sign-in: the page says to open the link again once signed in.
  }
}

function kept(): string | null {
  try {
    return sessionStorage.getItem(pendingKey);
  } catch {
    return null;
  }
}

function forget(): void {
  try {
    sessionStorage.removeItem(pendingKey);
  } catch {
    // Nothing was kept.
  }
}

type Screen =
  | 'joined'
  | 'wrong-address'
  | 'not-found'
  | 'used'
  | 'revoked'
  | 'expired'
  | 'no-seat'
  | 'rate-limited'
  | 'network'
  | 'error'
  | 'no-token';

function show(screen: Screen, heading: string, sentence: string, options: { retry?: boolean; switchAddress?: boolean } = {}): void {
  section.dataset.message = screen;
  title.textContent = heading;
  text.textContent = sentence;
  setVisible(open, screen === 'joined');
  setVisible(retryButton, options.retry === true);
  setVisible(switchButton, options.switchAddress === true);
  section.setAttribute('aria-busy', 'false');
  document.documentElement.dataset.screen = screen;
  focusHeading(title);
}

let token: string | null = null;

async function joined(workspaceId: string, role: string): Promise<void> {
  let name = 'the workspace';
  try {
    name = (await withAccess((access) => workspacesApi.list(access))).items.find((item) => item.id === workspaceId)?.name ?? name;
  } catch {
    // The join happened; the name is only for the sentence.
  }
  openLink.href = `/workspace?id=${encodeURIComponent(workspaceId)}`;
  openLink.textContent = `Open ${name}`;
  show(
    'joined',
    `You joined ${name} as ${roleLabel(role).toLowerCase()}`,
    'Your account and your secrets stay yours: being a member never gives anyone access to what you send.',
  );
  announce(`You joined ${name}.`);
}

async function accept(): Promise<void> {
  if (!token) return;
  setVisible(retryButton, false);
  announce('Accepting the invitation…');
  const invitation = token;
  try {
    const answer = await withAccess((access) => workspacesApi.accept(access, invitation));
    forget();
    token = null;
    await joined(answer.workspace_id, answer.role);
  } catch (error) {
    if (error instanceof SignedOutError) return goToSignIn('invitation');
    if (!(error instanceof ApiError))
      return show('error', 'Something went wrong', 'Something went wrong in this page. Reload it to try again.', { retry: true });
    const reason = error.problem.reason;
    if (error.status === 403 && reason === 'no_free_seat') {
      return show(
        'no-seat',
        'No free seat yet',
        'The workspace has no free seat for you now. Ask its owner to add seats, then try again.',
        { retry: true },
      );
    }
    if (error.status === 429)
      return show('rate-limited', 'Too many requests', `Try again in ${error.retryAfter ?? 60} seconds.`, { retry: true });
    if (error.status === 0)
      return show('network', 'Cannot reach Hushlink', 'Check your connection and try again. The invitation is still waiting for you.', {
        retry: true,
      });
    // The server's answer is final for this token (or, for another address, for this session): it leaves storage.
    forget();
    if (error.status === 403) {
      return show(
        'wrong-address',
        'This invitation is for another address',
        'It was sent to a different email address than the one you are signed in with. Sign in with the invited address to accept it.',
        { switchAddress: true },
      );
    }
    token = null;
    if (error.status === 404)
      return show(
        'not-found',
        'This invitation link is not known',
        'Check that the whole link was copied from the email, or ask for a new invitation.',
      );
    if (error.status === 410 && reason === 'used')
      return show(
        'used',
        'This invitation was used already',
        'An invitation works once. If it was you, you are a member: see your workspaces.',
      );
    if (error.status === 410 && reason === 'revoked')
      return show('revoked', 'This invitation was revoked', 'Whoever sent it took it back. Ask them for a new one if you should join.');
    if (error.status === 410)
      return show('expired', 'This invitation has expired', 'An invitation works for 7 days. Ask whoever sent it for a new one.');
    show('error', 'The invitation could not be accepted', error.problem.detail ?? `The server answered ${error.status}.`);
  }
}

retryButton.addEventListener('click', () => void accept());
switchButton.addEventListener('click', () => {
  switchButton.disabled = true;
  // Kept again, deliberately, for the sign-in with the other address; this session signs out first.
  if (token) keep(token);
  void signOut().then(() => location.assign('/signin?reason=invitation&next=%2Fjoin'));
});
// A link pasted into this open page changes only the fragment: read it as a fresh load.
window.addEventListener('hashchange', () => location.reload());

async function main(): Promise<void> {
  token = tokenShape.test(fromLink) ? fromLink : kept();
  if (token !== null && !tokenShape.test(token)) token = null;
  let user: AccountUser | null;
  try {
    user = await resume();
  } catch {
    renderNav();
    if (token) keep(token);
    document.documentElement.dataset.ready = 'join';
    return show('network', 'Cannot reach Hushlink', 'Check your connection and try again. The invitation is still waiting for you.', {
      retry: true,
    });
  }
  renderNav();
  document.documentElement.dataset.ready = 'join';
  if (!token) {
    return show(
      'no-token',
      'Open the link from your invitation',
      fromLink
        ? 'This link is incomplete: open it again from the invitation email, whole.'
        : 'This page accepts an invitation to a workspace: open it from the link in the invitation email.',
    );
  }
  if (!user) {
    keep(token);
    return goToSignIn('invitation');
  }
  await accept();
}

void main();
