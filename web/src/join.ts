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
// First: the page's language and messages load before any of its code runs (ADR 0183).
import { t } from './i18n.ts';
import { type AccountUser, ApiError, problemText } from './api.ts';
import { announce, byId, describeTime, focusHeading, setVisible } from './dom.ts';
import { renderNav } from './nav.ts';
import { goToSignIn, resume, SignedOutError, signOut, withAccess } from './session.ts';
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

/** Where "Sign in as <address>" goes: the sign-in page with the address filled in, back here after. */
function signInPath(email: string): string {
  return `/signin?${new URLSearchParams({ reason: 'invitation', next: '/join', email }).toString()}`;
}

/** The invitation's facts into the card, and the sentence that names who invited whom to what. */
function describe(invitation: InvitationPreview): string {
  byId('join-workspace').textContent = invitation.workspace.name;
  const inviter = byId('join-inviter');
  inviter.textContent = invitation.inviter?.email ?? t('join.card.inviterGone');
  // An address is data; "someone who has since left" is a sentence.
  inviter.translate = !invitation.inviter?.email;
  byId('join-email').textContent = invitation.email;
  byId('join-role').textContent = t('join.card.roleName', { role: invitation.role });
  byId('join-expires').textContent = describeTime(invitation.expires_at);
  const brandLogo = invitation.workspace.branding?.logo ?? null;
  if (brandLogo?.startsWith('data:image/')) logo.src = brandLogo;
  setVisible(logo, brandLogo !== null && logo.src !== '');
  const { role } = invitation;
  const workspace = invitation.workspace.name;
  return invitation.inviter?.email
    ? t('join.invited.byInviter', { inviter: invitation.inviter.email, workspace, role })
    : t('join.invited.bySomeone', { workspace, role });
}

/** "<inviter> invited you to <workspace> as a member, at <address>. You are signed in as …": the whole sentence, in the language's order. */
function wrongAddress(invitation: InvitationPreview, signedInAs: string): string {
  const values = { workspace: invitation.workspace.name, role: invitation.role, email: invitation.email, user: signedInAs };
  return invitation.inviter?.email
    ? t('join.wrongAddress.byInviter', { ...values, inviter: invitation.inviter.email })
    : t('join.wrongAddress.bySomeone', values);
}

async function joined(workspaceId: string, role: string): Promise<void> {
  let name: string | undefined;
  try {
    name = (await withAccess((access) => workspacesApi.list(access))).items.find((item) => item.id === workspaceId)?.name;
  } catch {
    // The join happened; the name is only for the sentence.
  }
  openLink.href = `/workspace?id=${encodeURIComponent(workspaceId)}`;
  openLink.textContent = name === undefined ? t('join.joined.openUnnamed') : t('join.joined.open', { workspace: name });
  show(
    'joined',
    name === undefined ? t('join.joined.titleUnnamed', { role }) : t('join.joined.title', { workspace: name, role }),
    t('join.joined.text'),
  );
  announce(name === undefined ? t('join.joined.announceUnnamed') : t('join.joined.announce', { workspace: name }));
}

async function accept(): Promise<void> {
  if (!token) return;
  setVisible(retryButton, false);
  announce(t('join.status.accepting'));
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
  if (!(error instanceof ApiError)) return show('error', t('join.error.unexpected'), t('join.error.unexpectedText'), { retry: true });
  const reason = error.problem.reason;
  // Trying again can help: the token stays, for a reload too.
  if (token && (error.status === 429 || error.status === 0 || (error.status === 403 && reason === 'no_free_seat'))) keep(token);
  if (error.status === 403 && reason === 'no_free_seat') {
    return show('no-seat', t('join.error.noSeat'), t('join.error.noSeatText'), { retry: true });
  }
  if (error.status === 429)
    return show('rate-limited', t('join.error.tooMany'), t('join.error.tooManyText', { seconds: error.retryAfter ?? 60 }), { retry: true });
  if (error.status === 0) return show('network', t('join.error.unreachable'), t('join.error.unreachableText'), { retry: true });
  // The server's answer is final for this token (or, for another address, for this session): it leaves storage.
  forget();
  if (error.status === 403) {
    return show('wrong-address', t('join.wrongAddress.title'), t('join.wrongAddress.text'), { switchAddress: true, card: true });
  }
  token = null;
  if (error.status === 404 || error.status === 400) return show('not-found', t('join.error.notFound'), t('join.error.notFoundText'));
  if (error.status === 410 && reason === 'used') return show('used', t('join.error.used'), t('join.error.usedText'));
  if (error.status === 410 && reason === 'revoked') return show('revoked', t('join.error.revoked'), t('join.error.revokedText'));
  if (error.status === 410) return show('expired', t('join.error.expired'), t('join.error.expiredText'));
  show('error', t('join.error.notAccepted'), problemText(error));
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
    return show('no-token', t('join.noToken.title'), fromLink ? t('join.noToken.incomplete') : t('join.noToken.none'));
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
    signInLink.textContent = t('join.signInAs', { email: preview.email });
    return show('invited', sentence, t('join.invited.signIn'), { signIn: true, card: true });
  }
  if (user.email.toLowerCase() !== preview.email.toLowerCase()) {
    // Nothing kept: switching keeps the token again, for the sign-in with the invited address.
    forget();
    return show('wrong-address', t('join.wrongAddress.title'), wrongAddress(preview, user.email), { switchAddress: true, card: true });
  }
  await accept();
}

void main();
