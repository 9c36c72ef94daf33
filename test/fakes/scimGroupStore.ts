import { foldCase } from '../../shared/domain/scim/filter.ts';
import type {
  AdminGroupFact,
  GroupAsRead,
  RoleStep,
  ScimGroup,
  ScimGroupPage,
  ScimGroupStore,
} from '../../shared/domain/scim/groupModel.ts';
import type { AuditRow, Role } from '../../shared/domain/workspaces/model.ts';
import { pair, stored, WorkspaceData } from './workspaceData.ts';

/** The Groups store sharing each WorkspaceData: the workspace store's policy save checks its Groups (as its transaction does). */
export const scimGroupsOf = new WeakMap<WorkspaceData, MemoryScimGroupStore>();

/** A Group as its item holds it: role settlements are counted on the item, not written by a change. */
const asItem = ({ roleSettles: _, ...group }: ScimGroup): ScimGroup => stored(group);

/**
 * ScimGroupStore in memory (shared/store/scimGroups.ts): Groups in key (id) order, displayName
 * (any case) and externalId unique per workspace, and every write refused, as the transaction
 * is, when a fact it was decided on moved: the Group's version, the policy's admin Group, a
 * moved member's role. `conflicts` makes the next writes lose as to a racing transaction
 * (TransactionCanceledException), for tests of the retries.
 */
export class MemoryScimGroupStore implements ScimGroupStore {
  /** By pair(workspace, id). */
  readonly groups = new Map<string, ScimGroup>();
  /** By pair(workspace, `NAME#<folded>` | `EXT#<id>`). */
  private readonly unique = new Map<string, string>();
  /** Groups read by pages, for tests that a listing reads only what its pages hold. */
  groupsRead = 0;
  /** Writes still to refuse as conflicts. */
  conflicts = 0;
  private readonly pageEnds = new Map<string, string>();

  constructor(readonly data: WorkspaceData = new WorkspaceData()) {
    scimGroupsOf.set(data, this);
  }

  async create(group: ScimGroup, fact: AdminGroupFact, roles: RoleStep[], audit: AuditRow): Promise<'created' | 'duplicate' | 'conflict'> {
    const claims = this.claims(group);
    if (this.groups.has(pair(group.workspaceId, group.id)) || claims.some((claim) => this.unique.has(claim))) return 'duplicate';
    if (!this.factsHold(group.workspaceId, fact, roles)) return 'conflict';
    this.groups.set(pair(group.workspaceId, group.id), asItem(group));
    for (const claim of claims) this.unique.set(claim, group.id);
    this.applyRoles(group.workspaceId, roles);
    this.data.writeAudit(audit);
    return 'created';
  }

  async get(workspaceId: string, id: string): Promise<ScimGroup | null> {
    const group = this.groups.get(pair(workspaceId, id));
    return group ? stored(group) : null;
  }

  async byDisplayName(workspaceId: string, displayName: string): Promise<ScimGroup | null> {
    const id = this.unique.get(pair(workspaceId, `NAME#${foldCase(displayName)}`));
    return id === undefined ? null : this.get(workspaceId, id);
  }

  async byExternalId(workspaceId: string, externalId: string): Promise<ScimGroup | null> {
    const id = this.unique.get(pair(workspaceId, `EXT#${externalId}`));
    return id === undefined ? null : this.get(workspaceId, id);
  }

  async page(workspaceId: string, startIndex: number, count: number): Promise<ScimGroupPage> {
    const all = this.ofWorkspace(workspaceId);
    if (count === 0 || startIndex > all.length) return { groups: [], totalResults: all.length };
    const after = this.pageEnds.get(pair(workspaceId, String(startIndex)));
    const from = after === undefined ? startIndex - 1 : all.findIndex((group) => group.id > after);
    const skipped = after === undefined ? startIndex - 1 : 0;
    const groups = from < 0 ? [] : all.slice(from, from + count);
    this.groupsRead += skipped + groups.length;
    if (groups.length === count) this.pageEnds.set(pair(workspaceId, String(startIndex + count)), groups[groups.length - 1]!.id);
    return { groups: groups.map((group) => stored(group)), totalResults: all.length };
  }

  async withMember(workspaceId: string, scimUserId: string): Promise<ScimGroup[]> {
    return this.ofWorkspace(workspaceId).filter((group) => group.members.includes(scimUserId));
  }

  async replace(
    before: ScimGroup,
    after: ScimGroup,
    fact: AdminGroupFact,
    roles: RoleStep[],
    audit: AuditRow,
  ): Promise<'replaced' | 'duplicate' | 'conflict'> {
    const held = this.groups.get(pair(before.workspaceId, before.id));
    if (!held || held.version !== before.version || !this.factsHold(before.workspaceId, fact, roles)) return 'conflict';
    const released = new Set(this.claims(before));
    const claims = this.claims(after).filter((claim) => !released.has(claim));
    if (claims.some((claim) => this.unique.has(claim))) return 'duplicate';
    for (const claim of released) this.unique.delete(claim);
    for (const claim of this.claims(after)) this.unique.set(claim, after.id);
    this.groups.set(pair(after.workspaceId, after.id), asItem(after));
    this.applyRoles(after.workspaceId, roles);
    this.data.writeAudit(audit);
    return 'replaced';
  }

  async delete(group: ScimGroup, fact: AdminGroupFact, roles: RoleStep[], audit: AuditRow): Promise<'deleted' | 'gone' | 'conflict'> {
    const held = this.groups.get(pair(group.workspaceId, group.id));
    if (!held) return 'gone';
    if (held.version !== group.version || held.roleSettles !== group.roleSettles || !this.factsHold(group.workspaceId, fact, roles)) {
      return 'conflict';
    }
    this.groups.delete(pair(group.workspaceId, group.id));
    for (const claim of this.claims(group)) this.unique.delete(claim);
    // The admin Group deleted: the policy names none.
    const policy = this.data.workspaces.get(group.workspaceId)?.workspace.policy;
    if (policy && fact.adminGroupId === group.id) delete policy.scimAdminGroup;
    this.applyRoles(group.workspaceId, roles);
    this.data.writeAudit(audit);
    return 'deleted';
  }

  async settleRoles(group: GroupAsRead, fact: AdminGroupFact, roles: RoleStep[]): Promise<'settled' | 'conflict'> {
    const held = group.id === null ? undefined : this.groups.get(pair(group.workspaceId, group.id));
    const asRead = group.id === null || (group.version === null ? held === undefined : held?.version === group.version);
    if (!asRead || !this.factsHold(group.workspaceId, fact, roles)) return 'conflict';
    if (held) held.roleSettles = (held.roleSettles ?? 0) + 1;
    this.applyRoles(group.workspaceId, roles);
    return 'settled';
  }

  /** The version of the Group (null: none), as the policy save's condition reads it. */
  versionOf(workspaceId: string, id: string): number | null {
    return this.groups.get(pair(workspaceId, id))?.version ?? null;
  }

  async adminGroupOf(workspaceId: string): Promise<string | null> {
    return this.data.workspaces.get(workspaceId)?.workspace.policy.scimAdminGroup ?? null;
  }

  async roles(workspaceId: string, userIds: string[]): Promise<Map<string, Role>> {
    return new Map(
      userIds.flatMap((userId) => {
        const member = this.data.members.get(pair(workspaceId, userId));
        return member ? [[userId, member.role] as const] : [];
      }),
    );
  }

  private ofWorkspace(workspaceId: string): ScimGroup[] {
    return [...this.groups.values()]
      .filter((group) => group.workspaceId === workspaceId)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  private claims(group: ScimGroup): string[] {
    return [
      pair(group.workspaceId, `NAME#${foldCase(group.displayName)}`),
      ...(group.externalId === undefined ? [] : [pair(group.workspaceId, `EXT#${group.externalId}`)]),
    ];
  }

  /** The transaction's conditions: the policy's admin Group and each moved member's role, as read. */
  private factsHold(workspaceId: string, fact: AdminGroupFact, roles: RoleStep[]): boolean {
    if (this.conflicts > 0) {
      this.conflicts--;
      return false;
    }
    if (((this.data.workspaces.get(workspaceId)?.workspace.policy.scimAdminGroup ?? null) as string | null) !== fact.adminGroupId)
      return false;
    return roles.every((step) => {
      const role = this.data.members.get(pair(workspaceId, step.userId))?.role;
      return step.kind === 'absent' ? role === undefined : step.kind === 'holds' ? role === step.role : role === step.from;
    });
  }

  private applyRoles(workspaceId: string, roles: RoleStep[]): void {
    for (const step of roles) {
      if (step.kind !== 'set') continue;
      const member = this.data.members.get(pair(workspaceId, step.userId))!;
      this.data.members.set(pair(workspaceId, step.userId), { ...member, role: step.to });
      this.data.writeAudit(step.audit);
    }
  }
}
