/**
 * A workspace `/workspace?id=<id>`: its members and invitations, seats (`workspaceSeats.ts`,
 * its owner's), policy, branding, domains (`workspaceDomains.ts`), single sign-on
 * (`workspaceSso.ts`) and audit trail, each section shown only to the roles that may use it
 * (`permissions.ts`: a member sees the members and the domains; owners and admins the rest; the
 * seats the owner of a Team workspace). The server still decides: a 404 or a 403 for a role
 * that changed meanwhile reads the page again (`workspaceContext.ts`). There is no route for one
 * workspace: the page reads `GET /v1/workspaces` and finds it there. The sections have an index
 * (`workspaceSections.ts`); the areas a Free workspace's plan lacks are one line each under
 * "More with Team" (`workspacePlanAreas.ts`) rather than forms it cannot use.
 */
// First: the page's language and messages load before any of its code runs (ADR 0183).
import './i18n.ts';
import { mayDo } from '../../shared/domain/workspaces/permissions.ts';
import type { AccountUser } from './api.ts';
import { fact, markReady, showProblem, startSignedInPage } from './accountPage.ts';
import { chooseWorkspace, currentWorkspaceId, isWorkspaceId } from './currentWorkspace.ts';
import { announce, byId, element, focusHeading, setVisible } from './dom.ts';
import { t, tNodes } from './i18n.ts';
import { withAccess } from './session.ts';
import { knowMembers, loadAudit, wireAudit } from './workspaceAudit.ts';
import { planName, roleName } from './workspaceAuditValues.ts';
import { renderBranding, wireBrandingForm } from './workspaceBranding.ts';
import { sentences, type WorkspaceContext } from './workspaceContext.ts';
import { domainsSection, loadDomains, wireDomains } from './workspaceDomains.ts';
import { wireExport } from './workspaceExport.ts';
import { invitationItem, wireInviteForm } from './workspaceInvitations.ts';
import { memberItem, type MemberActions } from './workspaceMembers.ts';
import { planHas, renderPlanAreas, type PlanArea } from './workspacePlanAreas.ts';
import { renderPolicy, wirePolicyForm } from './workspacePolicy.ts';
import { renderSeats, wireSeats } from './workspaceSeats.ts';
import { defineSection, hideSections, loadingSection, placeIndex, showSections } from './workspaceSections.ts';
import { renderSso, ssoSection, wireSso } from './workspaceSso.ts';
import { workspacesApi, type MemberList, type WorkspaceSummary } from './workspacesApi.ts';

const section = byId('workspace-page');
const title = byId('workspace-title');
const facts = byId('workspace-facts');
const pageError = byId('workspace-error');
const pageNotice = byId('workspace-notice');
/** Retry for the page's own read (the workspace list), beside its error. */
const pageRetry = element('button', 'section-retry', t('common.retry'));
const sections = {
  members: byId('members-section'),
  policy: byId('policy-section'),
  branding: byId('branding-section'),
  domains: domainsSection,
  sso: ssoSection,
  audit: byId('audit-section'),
  team: byId('team-section'),
};
const membersTitle = byId('members-title');
const seatsLine = byId('seats-line');
const membersError = byId('members-error');
const members = byId<HTMLUListElement>('members');
const inviteForm = byId('invite-form');
const invitations = byId<HTMLUListElement>('invitations');
const invitationsEmpty = byId('invitations-empty');

const workspaceId = new URLSearchParams(location.search).get('id');
let user: AccountUser | null = null;
let workspace: WorkspaceSummary | null = null;
let roll: MemberList | null = null;

const context: WorkspaceContext = {
  get workspace() {
    return workspace!;
  },
  get user() {
    return user!;
  },
  refresh,
  notice(text: string) {
    pageNotice.textContent = text;
    setVisible(pageNotice, true);
    pageNotice.focus();
  },
};

const roleRank = { owner: 0, admin: 1, member: 2 } as const;
const seatsUsed = () => (roll ? roll.items.length + roll.invitations.length : (workspace?.members ?? 0));

/**
 * The page without the workspace: it does not exist, the caller is not (or no longer) in it, or
 * left it. `sentence` is the message's key: its `{link}` is the way back to the list.
 */
function withoutWorkspace(heading: string, sentence: string, name = ''): void {
  workspace = null;
  hideSections();
  setVisible(facts, false);
  title.textContent = heading;
  title.translate = true;
  const link = element('a', '', t('workspace.missing.link'));
  link.href = '/workspaces';
  pageError.replaceChildren(...tNodes(sentence, { name, link }));
  setVisible(pageError, true);
  document.title = t('workspace.documentTitleOf', { name: heading });
  focusHeading(title);
}

function renderHeader(current: WorkspaceSummary): void {
  title.textContent = current.name;
  title.translate = false;
  document.title = t('workspace.documentTitleOf', { name: current.name });
  const role = fact(
    t('workspace.facts.role'),
    t('workspace.facts.roleValue', { role: roleName(current.role), description: t(`workspaceWords.roleDescription.${current.role}`) }),
  );
  role.dataset.role = 'your-role';
  const slug = element('span', 'mono', current.slug);
  slug.translate = false;
  facts.replaceChildren(fact(t('workspace.facts.slug'), slug), role, fact(t('workspace.facts.plan'), planName(current.plan)));
  setVisible(facts, true);
}

function renderMembers(current: WorkspaceSummary, list: MemberList): void {
  const sorted = [...list.items].sort((a, b) => roleRank[a.role] - roleRank[b.role] || a.email.localeCompare(b.email));
  members.replaceChildren(...sorted.map((member) => memberItem(member, context, memberActions)));
  invitations.replaceChildren(...list.invitations.map((invitation) => invitationItem(invitation, context, changed)));
  setVisible(invitationsEmpty, list.invitations.length === 0);
  const used = seatsUsed();
  const full = used >= current.seats;
  const seats = t('workspace.members.seats', {
    used,
    seats: current.seats,
    members: list.items.length,
    invitations: list.invitations.length,
  });
  seatsLine.textContent = full ? sentences(seats, t('workspace.members.noSeatFree')) : seats;
  seatsLine.dataset.used = String(used);
}

async function loadMembers(current: WorkspaceSummary): Promise<void> {
  setVisible(membersError, false);
  try {
    roll = await withAccess((token) => workspacesApi.members(token, current.id));
  } catch (error) {
    showProblem(membersError, error, t('workspace.members.failed'));
    return;
  }
  renderMembers(current, roll);
  knowMembers(roll.items);
}

let refreshing: Promise<void> | null = null;

/** Reads the workspace (and its members and audit trail) again and redraws what the caller's role may use. */
function refresh(): Promise<void> {
  refreshing ??= (async () => {
    try {
      const listed = await withAccess((token) => workspacesApi.list(token));
      const found = listed.items.find((item) => item.id === workspaceId) ?? null;
      if (!found) {
        if (currentWorkspaceId() === workspaceId) chooseWorkspace(null);
        return withoutWorkspace(t('workspace.missing.title'), 'workspace.missing.text');
      }
      workspace = found;
      setVisible(pageError, false);
      setVisible(pageRetry, false);
      renderHeader(found);
      setVisible(inviteForm, mayDo(found.role, 'invite'));
      // The areas the role may see, each shown only where the plan has it; the rest are one line each.
      const byRole: Record<PlanArea, boolean> = {
        policy: mayDo(found.role, 'setPolicy'),
        branding: mayDo(found.role, 'setBranding'),
        domains: true,
        sso: mayDo(found.role, 'setSso'),
      };
      const available = (area: PlanArea) => byRole[area] && planHas(found.plan, area);
      const missing = (Object.keys(byRole) as PlanArea[]).filter((area) => byRole[area] && !planHas(found.plan, area));
      renderPlanAreas(found.plan, found.role, missing);
      showSections({
        members: true,
        policy: available('policy'),
        branding: available('branding'),
        domains: available('domains'),
        sso: available('sso'),
        audit: mayDo(found.role, 'readAudit'),
        team: missing.length > 0,
      });
      if (available('policy')) renderPolicy(context);
      if (available('branding')) renderBranding(context);
      renderSeats(context);
      const domains = loadDomains(context).then((listed) => renderSso(context, listed));
      await Promise.all([
        loadingSection('members', loadMembers(found)),
        mayDo(found.role, 'readAudit') ? loadingSection('audit', loadAudit(context)) : null,
        loadingSection('domains', domains),
        loadingSection('sso', domains),
      ]);
    } catch (error) {
      showProblem(pageError, error, t('workspace.failed'));
      setVisible(pageRetry, true);
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** After a change on this page: read it again, say what happened, and put focus where it happened. */
async function changed(announcement: string, focusUserId?: string): Promise<void> {
  await refresh();
  announce(announcement);
  const target = focusUserId ? document.getElementById(`member-${focusUserId}-title`) : null;
  focusHeading(target ?? membersTitle);
}

const memberActions: MemberActions = {
  changed,
  left() {
    const name = workspace?.name ?? '';
    withoutWorkspace(t('workspace.left.title', { name }), 'workspace.left.text', name);
    announce(t('workspace.left.announce', { name }));
  },
};

async function main(): Promise<void> {
  const signedIn = await startSignedInPage(pageError);
  if (!signedIn) return;
  user = signedIn;
  if (!isWorkspaceId(workspaceId)) {
    withoutWorkspace(t('workspace.noneChosen.title'), 'workspace.noneChosen.text');
  } else {
    wireInviteForm(
      () => context,
      seatsUsed,
      async (invitation) => {
        await refresh();
        announce(t('workspace.invite.sentAnnounce', { email: invitation.email }));
      },
    );
    wirePolicyForm(() => context);
    wireBrandingForm(() => context);
    wireSeats(() => context, seatsUsed);
    wireDomains(() => context);
    wireSso(() => context);
    wireAudit();
    wireExport(() => context);
    pageRetry.type = 'button';
    pageRetry.dataset.action = 'retry-workspace';
    pageRetry.hidden = true;
    pageRetry.addEventListener('click', () => void refresh());
    pageError.after(pageRetry);
    placeIndex(facts);
    const retry = () => void refresh();
    defineSection('members', sections.members, membersError, retry);
    defineSection('policy', sections.policy, null, retry);
    defineSection('branding', sections.branding, null, retry);
    defineSection('domains', sections.domains, sections.domains.querySelector<HTMLElement>('[data-role="domains-error"]'), retry);
    defineSection('sso', sections.sso, null, retry);
    // In the page's order: the Team areas' lines stand where the forms would be, before the trail.
    defineSection('team', sections.team, null, retry);
    defineSection('audit', sections.audit, byId('audit-error'), retry);
    await refresh();
  }
  markReady('workspace', section);
}

void main();
