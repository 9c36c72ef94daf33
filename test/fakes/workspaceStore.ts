import type {
  AuditRow,
  Invitation,
  Member,
  Roster,
  StoredWorkspace,
  Workspace,
  WorkspaceBranding,
  WorkspacePolicy,
} from '../../shared/domain/workspaces/model.ts';
import type { Actor, AdminGroupSwitch, StoredMembership, WorkspaceStore } from '../../shared/domain/workspaces/ports.ts';
import { decodeCursor, encodeCursor } from '../../shared/store/cursor.ts';
import { scimGroupsOf } from './scimGroupStore.ts';
import { pair, stored, WorkspaceData } from './workspaceData.ts';

const rosterOf = (record: Roster): Roster => ({ seats: record.seats, used: record.used, owners: record.owners, members: record.members });

/** WorkspaceStore in memory (shared/store/workspaces.ts): the same refusals, the same orders. */
export class MemoryWorkspaceStore implements WorkspaceStore {
  constructor(readonly data: WorkspaceData = new WorkspaceData()) {}

  async create(workspace: Workspace, roster: Roster, owner: Member, audit: AuditRow): Promise<'created' | 'slug_taken'> {
    const { data } = this;
    // One transaction: the slug, the workspace, its roster and its owner, each only if new.
    if (
      data.slugs.has(workspace.slug) ||
      data.workspaces.has(workspace.id) ||
      data.rosters.has(workspace.id) ||
      data.members.has(pair(owner.workspaceId, owner.userId))
    ) {
      return 'slug_taken';
    }
    data.slugs.set(workspace.slug, workspace.id);
    data.workspaces.set(workspace.id, { workspace: stored(workspace), contractPlan: null, contract: null });
    data.rosters.set(workspace.id, rosterOf(roster));
    data.members.set(pair(owner.workspaceId, owner.userId), stored(owner));
    data.writeAudit(audit);
    return 'created';
  }

  async get(id: string): Promise<StoredWorkspace | null> {
    return this.data.storedWorkspaceOf(id);
  }

  async roster(id: string): Promise<Roster | null> {
    const record = this.data.rosters.get(id);
    return record ? rosterOf(record) : null;
  }

  async member(workspaceId: string, userId: string): Promise<Member | null> {
    const member = this.data.members.get(pair(workspaceId, userId));
    return member ? stored(member) : null;
  }

  async membershipsOf(userId: string): Promise<StoredMembership[]> {
    const { data } = this;
    // The index's order: `WORKSPACE#<id>`.
    const mine = [...data.members.values()]
      .filter((member) => member.userId === userId)
      .sort((a, b) => (a.workspaceId < b.workspaceId ? -1 : 1));
    return mine.flatMap((member) => {
      const workspace = data.storedWorkspaceOf(member.workspaceId);
      const roster = data.rosters.get(member.workspaceId);
      const branding = data.branding.get(member.workspaceId);
      return workspace && roster
        ? [{ workspace, roster: rosterOf(roster), role: member.role, branding: branding ? stored(branding) : null }]
        : [];
    });
  }

  async roll(workspaceId: string): Promise<{ members: Member[]; invitations: Invitation[] }> {
    const { data } = this;
    // The partition's order: `INVITATION#<id>`, then `MEMBER#<user>`.
    const members = [...data.members.values()]
      .filter((member) => member.workspaceId === workspaceId)
      .sort((a, b) => (a.userId < b.userId ? -1 : 1));
    const invitations = [...data.invitations.values()]
      .filter((invitation) => invitation.workspaceId === workspaceId)
      .sort((a, b) => (a.id < b.id ? -1 : 1));
    return { members: members.map(stored), invitations: invitations.map(stored) };
  }

  async setPolicy(
    workspaceId: string,
    policy: WorkspacePolicy,
    actor: Actor,
    audit: AuditRow,
    adminGroup?: AdminGroupSwitch,
  ): Promise<boolean> {
    const record = this.data.workspaces.get(workspaceId);
    if (!record || !this.data.actorHolds(workspaceId, actor)) return false;
    if (adminGroup !== undefined && (record.workspace.policy.scimAdminGroup ?? null) !== adminGroup.was) return false;
    // The Groups' conditions, as the transaction's: the one named before at the version read, the one named there.
    const groups = scimGroupsOf.get(this.data);
    if (groups && adminGroup?.was && adminGroup.wasVersion !== undefined && adminGroup.next !== adminGroup.was) {
      if (groups.versionOf(workspaceId, adminGroup.was) !== adminGroup.wasVersion) return false;
    }
    if (groups && adminGroup?.next && adminGroup.next !== adminGroup.was && groups.versionOf(workspaceId, adminGroup.next) === null) {
      return false;
    }
    record.workspace.policy = stored(policy);
    this.data.writeAudit(audit);
    return true;
  }

  async setBranding(workspaceId: string, branding: WorkspaceBranding, actor: Actor, audit: AuditRow): Promise<boolean> {
    // The branding item is put whatever is there; only the actor is checked.
    if (!this.data.actorHolds(workspaceId, actor)) return false;
    this.data.branding.set(workspaceId, {
      displayName: branding.displayName,
      logo: branding.logo ?? null,
      accent: branding.accent ?? null,
    });
    this.data.writeAudit(audit);
    return true;
  }

  async auditPage(workspaceId: string, limit: number, cursor: string | null): Promise<{ items: AuditRow[]; nextCursor: string | null }> {
    const pk = `AUDIT#${workspaceId}`;
    // The same cursors as the DynamoDB store (the last item's key), refused the same way when changed.
    const after = cursor === null ? null : decodeCursor(cursor, pk, 'pk').sk!;
    const keys = [...(this.data.audit.get(workspaceId)?.keys() ?? [])].sort().reverse();
    const from = after === null ? keys : keys.filter((sk) => sk < after);
    const page = from.slice(0, limit);
    const trail = this.data.audit.get(workspaceId);
    return {
      items: page.map((sk) => stored(trail!.get(sk)!)),
      nextCursor: from.length > limit ? encodeCursor({ pk, sk: page.at(-1)! }) : null,
    };
  }
}
