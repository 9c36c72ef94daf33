import { foldCase } from '../../shared/domain/scim/filter.ts';
import type { ScimUser, ScimUserAttributes } from '../../shared/domain/scim/model.ts';
import type { ScimAccount, ScimPageStart, ScimUserStore } from '../../shared/domain/scim/ports.ts';
import type { AuditRow } from '../../shared/domain/workspaces/model.ts';
import { pair, stored, WorkspaceData } from './workspaceData.ts';

const userNameKey = (userName: string) => `USERNAME#${foldCase(userName)}`;
const externalKey = (externalId: string) => `EXTERNAL#${externalId}`;
const accountKey = (userId: string) => `ACCOUNT#${userId}`;

/** How long a page's start is remembered, as the table keeps it (an hour). */
const pageStartMs = 3_600_000;

/** What a User's membership change does, decided before anything is written. */
type MembershipChange =
  | { kind: 'none' }
  | { kind: 'linked' }
  | { kind: 'join'; userId: string; email: string }
  | { kind: 'leave'; userId: string };

/**
 * ScimUserStore in memory (shared/store/workspaceScim.ts): userName (in any case), externalId
 * and the account unique per workspace, an active User a member holding a seat; the membership
 * goes with the User, the account stays. Refusals are answered in the store's order:
 * duplicate, then no seat.
 */
export class MemoryScimUserStore implements ScimUserStore {
  /** Users read by listings (`list`, `listAfter`), for tests that a listing reads what its pages hold. */
  usersRead = 0;
  /** Reads by `listAfter` (a Query each on the table). */
  queries = 0;
  private readonly pageStarts = new Map<string, { start: ScimPageStart; until: number }>();

  constructor(readonly data: WorkspaceData = new WorkspaceData()) {}

  async create(
    workspaceId: string,
    id: string,
    attributes: ScimUserAttributes,
    account: ScimAccount,
    now: number,
    audit: AuditRow,
  ): Promise<'created' | 'duplicate' | 'no_seat' | 'already_member'> {
    const user: ScimUser = {
      ...stored(attributes),
      id,
      workspaceId,
      userId: account.userId,
      createdAt: now,
      lastModified: now,
      version: 1,
    };
    const claims = [
      userNameKey(user.userName),
      ...(user.externalId === undefined ? [] : [externalKey(user.externalId)]),
      accountKey(account.userId),
    ];
    if (this.data.scimUsers.has(pair(workspaceId, id)) || claims.some((claim) => this.data.scimUnique.has(pair(workspaceId, claim))))
      return 'duplicate';
    const membership: MembershipChange = attributes.active ? this.join(workspaceId, account) : { kind: 'none' };
    if (!this.seatFor(workspaceId, membership)) return 'no_seat';
    this.data.scimUsers.set(pair(workspaceId, id), { user: stored(user), accountEmail: account.email });
    for (const claim of claims) this.data.scimUnique.set(pair(workspaceId, claim), id);
    this.apply(workspaceId, membership, now);
    this.data.writeAudit(audit);
    return membership.kind === 'linked' ? 'already_member' : 'created';
  }

  async get(workspaceId: string, id: string): Promise<ScimUser | null> {
    const held = this.data.scimUsers.get(pair(workspaceId, id));
    return held ? stored(held.user) : null;
  }

  async byUserName(workspaceId: string, userName: string): Promise<ScimUser | null> {
    const id = this.data.scimUnique.get(pair(workspaceId, userNameKey(userName)));
    return id === undefined ? null : this.get(workspaceId, id);
  }

  async byExternalId(workspaceId: string, externalId: string): Promise<ScimUser | null> {
    const id = this.data.scimUnique.get(pair(workspaceId, externalKey(externalId)));
    return id === undefined ? null : this.get(workspaceId, id);
  }

  async list(workspaceId: string): Promise<ScimUser[]> {
    const users = this.inIdOrder(workspaceId);
    this.usersRead += users.length;
    return users.map(stored);
  }

  async listAfter(workspaceId: string, after: string | null, limit: number): Promise<{ users: ScimUser[]; more: boolean }> {
    // As the table's Query reads: one User past the page, to say whether more follow.
    const read = this.inIdOrder(workspaceId)
      .filter((user) => after === null || user.id > after)
      .slice(0, limit + 1);
    this.usersRead += read.length;
    this.queries += 1;
    return { users: read.slice(0, limit).map(stored), more: read.length > limit };
  }

  async count(workspaceId: string): Promise<number> {
    return this.inIdOrder(workspaceId).length;
  }

  async pageStart(workspaceId: string, listing: string, startIndex: number, now: number): Promise<ScimPageStart | null> {
    const held = this.pageStarts.get(pair(workspaceId, `${listing}#${startIndex}`));
    return held && held.until > now ? held.start : null;
  }

  async rememberPageStart(workspaceId: string, listing: string, startIndex: number, start: ScimPageStart, now: number): Promise<void> {
    this.pageStarts.set(pair(workspaceId, `${listing}#${startIndex}`), { start: { ...start }, until: now + pageStartMs });
  }

  /** The workspace's Users in the table's order: by id (the sort key), as JavaScript compares strings (ids are ASCII). */
  private inIdOrder(workspaceId: string): ScimUser[] {
    return [...this.data.scimUsers.values()]
      .filter((held) => held.user.workspaceId === workspaceId)
      .map((held) => held.user)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async replace(
    workspaceId: string,
    id: string,
    attributes: ScimUserAttributes,
    previousVersion: number,
    now: number,
    audit: AuditRow,
  ): Promise<'replaced' | 'conflict' | 'duplicate' | 'no_seat' | 'privileged'> {
    const held = this.data.scimUsers.get(pair(workspaceId, id));
    if (!held || held.user.version !== previousVersion) return 'conflict';
    const before = held.user;
    const after: ScimUser = {
      ...stored(attributes),
      id,
      workspaceId,
      userId: before.userId,
      createdAt: before.createdAt,
      lastModified: now,
      version: previousVersion + 1,
    };
    const account = { userId: before.userId, email: held.accountEmail };
    const membership: MembershipChange | 'privileged' =
      before.active === after.active
        ? { kind: 'none' }
        : after.active
          ? this.join(workspaceId, account)
          : this.leave(workspaceId, before.userId);
    if (membership === 'privileged') return 'privileged';
    // A userName changed only in case keeps its claim; a new one (or a new externalId) claims anew.
    const release: string[] = [];
    const claim: string[] = [];
    if (foldCase(before.userName) !== foldCase(after.userName)) {
      release.push(userNameKey(before.userName));
      claim.push(userNameKey(after.userName));
    }
    if (before.externalId !== after.externalId) {
      if (before.externalId !== undefined) release.push(externalKey(before.externalId));
      if (after.externalId !== undefined) claim.push(externalKey(after.externalId));
    }
    if (claim.some((key) => this.data.scimUnique.has(pair(workspaceId, key)))) return 'duplicate';
    if (!this.seatFor(workspaceId, membership)) return 'no_seat';
    for (const key of release)
      if (this.data.scimUnique.get(pair(workspaceId, key)) === id) this.data.scimUnique.delete(pair(workspaceId, key));
    for (const key of claim) this.data.scimUnique.set(pair(workspaceId, key), id);
    held.user = stored(after);
    this.apply(workspaceId, membership, now);
    this.data.writeAudit(audit);
    return 'replaced';
  }

  async delete(workspaceId: string, id: string, audit: AuditRow): Promise<'deleted' | 'gone' | 'conflict' | 'privileged'> {
    const held = this.data.scimUsers.get(pair(workspaceId, id));
    if (!held) return 'gone';
    const { user } = held;
    const membership = user.active ? this.leave(workspaceId, user.userId) : ({ kind: 'none' } as const);
    if (membership === 'privileged') return 'privileged';
    this.data.scimUsers.delete(pair(workspaceId, id));
    for (const key of [
      userNameKey(user.userName),
      ...(user.externalId === undefined ? [] : [externalKey(user.externalId)]),
      accountKey(user.userId),
    ]) {
      this.data.scimUnique.delete(pair(workspaceId, key));
    }
    this.apply(workspaceId, membership, 0);
    this.data.writeAudit(audit);
    return 'deleted';
  }

  /** Joining: linked to a membership the account has already (no second seat), else a new one. */
  private join(workspaceId: string, account: ScimAccount): MembershipChange {
    return this.data.members.has(pair(workspaceId, account.userId))
      ? { kind: 'linked' }
      : { kind: 'join', userId: account.userId, email: account.email };
  }

  /** Leaving: none to remove is nothing to do; an admin's or the owner's membership is never the directory's to remove. */
  private leave(workspaceId: string, userId: string): MembershipChange | 'privileged' {
    const member = this.data.members.get(pair(workspaceId, userId));
    if (!member) return { kind: 'none' };
    return member.role === 'member' ? { kind: 'leave', userId } : 'privileged';
  }

  /** A join needs a seat: `members < seats AND used < seats`. */
  private seatFor(workspaceId: string, change: MembershipChange): boolean {
    if (change.kind !== 'join') return true;
    const roster = this.data.rosters.get(workspaceId);
    return roster !== undefined && roster.members < roster.seats && roster.used < roster.seats;
  }

  private apply(workspaceId: string, change: MembershipChange, now: number): void {
    const roster = this.data.rosters.get(workspaceId);
    if (change.kind === 'join') {
      this.data.members.set(pair(workspaceId, change.userId), {
        workspaceId,
        userId: change.userId,
        email: change.email,
        role: 'member',
        joinedAt: now,
        source: 'scim',
      });
      roster!.members += 1;
      roster!.used += 1;
    } else if (change.kind === 'leave') {
      this.data.members.delete(pair(workspaceId, change.userId));
      roster!.members -= 1;
      roster!.used -= 1;
    }
  }
}
