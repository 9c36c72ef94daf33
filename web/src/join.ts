/**
 * An invitation's link `/join#<token>` (mailed by `POST …/invitations`): the token is read from
 * the fragment and the fragment taken off the address bar at once, so it never stays in the
 * history, a bookmark or a shared screen. The page first reads what the invitation says
 * (`POST /v1/workspaces/invitations/preview`, ADR 0181: the workspace, the inviter, the address,
 * the role) and says "<inviter> invited you to <workspace> as a member". Not signed in, it keeps
 * the token in sessionStorage and offers "Sign in as <address>" (`/signin?…&email=`, the address
 * filled in there), then accepts when they are back. Signed in as the invited address, it
 * accepts at once (`POST /v1/workspaces/invitations/accept`, the token in the body only) and says
 * "You joined <workspace> as <role>"; signed in as another, it says so and offers to switch.
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
import { announce, byId, describeTime, focusHeading, setVisible } from './dom.ts';
import { renderNav } from './nav.ts';
import { goToSignIn, resume, SignedOutError, signOut, withAccess } from './session.ts';
import { roleLabel } from './workspaceText.ts';
import { workspacesApi, type InvitationPreview } from './workspacesApi.ts';

const pendingKey = 'hushlink.invitation';
const tokenShape = /^hli_[A-Za-z0-9_-]{20,200}$/;

const section = byId('join-page');
const title = byId('join-title');
const text = byId('join-text');
const open = byId('join-open');
const openLink = byId<HTMLAnchorElement>('join-link');
const switchButton = byId<HTMLButtonElement>('join-switch');
const signInLink = byId<HTMLAnchorElement>('join-signin');
const card = byId('join-invitation');
const logo = byId<HTMLImageElement>('join-logo');
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
  | 'no-token'
  | 'invited';

function show(
  screen: Screen,
  heading: string,
  sentence: string,
  options: { retry?: boolean; switchAddress?: boolean; signIn?: boolean; card?: boolean } = {},
): void {
  section.dataset.message = screen;
  title.textContent = heading;
  text.textContent = sentence;
  setVisible(open, screen === 'joined');
  setVisible(retryButton, options.retry === true);
  setVisible(switchButton, options.switchAddress === true);
  setVisible(signInLink, options.signIn === true);
  // The invitation's facts stay beside what is asked of the person, never beside a refusal of it.
  setVisible(card, options.card === true && preview !== null);
  section.setAttribute('aria-busy', 'false');
  document.documentElement.dataset.screen = screen;
  focusHeading(title);
}

let token: string | null = null;
let preview: InvitationPreview | null = null;

const withArticle = (role: string) => (role === 'admin' ? 'an admin' : `a ${roleLabel(role).toLowerCase()}`);

/** Where "Sign in as <address>" goes: the sign-in page with the address filled in, back here after. */
function signInPath(email: string): string {
  return `/signin?${new URLSearchParams({ reason: 'invitation', next: '/join', email }).toString()}`;
}

/** The invitation's facts into the card, and the sentence that names who invited whom to what. */
function describe(invitation: InvitationPreview): string {
  byId('join-workspace').textContent = invitation.workspace.name;
  byId('join-inviter').textContent = invitation.inviter?.email ?? 'someone who has since left Hushlink';
  byId('join-email').textContent = invitation.email;
  byId('join-role').textContent = roleLabel(invitation.role);
  byId('join-expires').textContent = describeTime(invitation.expires_at);
  const brandLogo = invitation.workspace.branding?.logo ?? null;
  if (brandLogo?.startsWith('data:image/')) logo.src = brandLogo;
  setVisible(logo, brandLogo !== null && logo.src !== '');
  const who = invitation.inviter?.email ?? 'Someone';
  return `${who} invited you to ${invitation.workspace.name} as ${withArticle(invitation.role)}`;
}

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
    refused(error);
  }
}

/** What an answer about the token says: a preview's or an acceptance's refusal, final or worth retrying. */
function refused(error: unknown): void {
  if (!(error instanceof ApiError))
    return show('error', 'Something went wrong', 'Something went wrong in this page. Reload it to try again.', { retry: true });
  const reason = error.problem.reason;
  // Trying again can help: the token stays, for a reload too.
  if (token && (error.status === 429 || error.status === 0 || (error.status === 403 && reason === 'no_free_seat'))) keep(token);
  if (error.status === 403 && reason === 'no_free_seat') {
    return show('no-seat', 'No free seat yet', 'The workspace has no free seat for you now. Ask its owner to add seats, then try again.', {
      retry: true,
    });
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
      { switchAddress: true, card: true },
    );
  }
  token = null;
  if (error.status === 404 || error.status === 400)
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

retryButton.addEventListener('click', () => void (preview ? accept() : proceed()));
switchButton.addEventListener('click', () => {
  switchButton.disabled = true;
  // Kept again, deliberately, for the sign-in with the other address; this session signs out first.
  if (token) keep(token);
  void signOut().then(() => location.assign(preview ? signInPath(preview.email) : '/signin?reason=invitation&next=%2Fjoin'));
});
// A link pasted into this open page changes only the fragment: read it as a fresh load.
window.addEventListener('hashchange', () => location.reload());

/** Who is signed in: undefined until the session could be read (no connection), then a user or null. */
let user: AccountUser | null | undefined;

async function main(): Promise<void> {
  token = tokenShape.test(fromLink) ? fromLink : kept();
  if (token !== null && !tokenShape.test(token)) token = null;
  try {
    user = await resume();
  } catch {
    user = undefined;
  }
  renderNav();
  document.documentElement.dataset.ready = 'join';
  await proceed();
}

/** Reads what the invitation says, then asks for what is missing: a sign-in, another address, or nothing (it is accepted). */
async function proceed(): Promise<void> {
  if (!token) {
    return show(
      'no-token',
      'Open the link from your invitation',
      fromLink
        ? 'This link is incomplete: open it again from the invitation email, whole.'
        : 'This page accepts an invitation to a workspace: open it from the link in the invitation email.',
    );
  }
  const invitation = token;
  try {
    if (user === undefined) user = await resume();
    preview = await workspacesApi.preview(invitation);
  } catch (error) {
    return refused(error instanceof ApiError ? error : new ApiError(0, { status: 0, code: 'network' }, null));
  }
  const sentence = describe(preview);
  if (!user) {
    // Kept for the sign-in: the fragment is gone, and the page accepts when the person is back.
    keep(invitation);
    signInLink.href = signInPath(preview.email);
    signInLink.textContent = `Sign in as ${preview.email}`;
    return show(
      'invited',
      sentence,
      'Sign in with the address it was sent to, and you join at once. Signing in sends a code to that address.',
      {
        signIn: true,
        card: true,
      },
    );
  }
  if (user.email.toLowerCase() !== preview.email.toLowerCase()) {
    // Nothing kept: switching keeps the token again, for the sign-in with the invited address.
    forget();
    return show(
      'wrong-address',
      'This invitation is for another address',
      `${sentence}, at ${preview.email}. You are signed in as ${user.email}: sign out and sign in with ${preview.email} to accept it.`,
      { switchAddress: true, card: true },
    );
  }
  await accept();
}

void main();
