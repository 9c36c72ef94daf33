import { toIso } from '../../shared/clock.ts';
import type { Plan } from '../../shared/domain/accounts/model.ts';
import type { SubscriptionRecord } from '../../shared/domain/billing/model.ts';
import type { ContractRecord } from '../../shared/domain/contractPlans.ts';
import type { Domain, HostClaim } from '../../shared/domain/domains/model.ts';
import type { HostingRecord, StopOrder } from '../../shared/domain/domains/ports.ts';
import type { ScimUser } from '../../shared/domain/scim/model.ts';
import type { SsoDirectory } from '../../shared/domain/sso/directory.ts';
import {
  workspaceInUse,
  type AuditRow,
  type Invitation,
  type Member,
  type Roster,
  type StoredWorkspace,
  type Workspace,
  type WorkspaceBranding,
} from '../../shared/domain/workspaces/model.ts';
import type { Actor, InvitationToken } from '../../shared/domain/workspaces/ports.ts';
import { MemoryAccountPlans, type AccountPlans } from './accountPlans.ts';

/**
 * What the workspace and billing fakes share, as the DynamoDB stores share one table: a
 * workspace's items (workspaceItems.ts's layout), its SCIM Users, SSO directory, domain claims
 * and hosting, and billing's links and subscriptions. Each fake changes it inside one
 * synchronous stretch (no await between a check and its write), which is what a transaction's
 * conditions give the DynamoDB stores. Values go in and come out as structured clones.
 */

/** A deep copy with `undefined` properties dropped, as the document client's `removeUndefinedValues` stores them. */
export function stored<T>(value: T): T {
  const copy = structuredClone(value);
  const drop = (node: unknown): void => {
    if (node === null || typeof node !== 'object' || ArrayBuffer.isView(node)) return;
    if (Array.isArray(node)) {
      node.forEach(drop);
      return;
    }
    for (const [name, inner] of Object.entries(node)) {
      if (inner === undefined) delete (node as Record<string, unknown>)[name];
      else drop(inner);
    }
  };
  drop(copy);
  return copy;
}

/** What a change refused in a transaction-like stretch throws, as the DynamoDB client's conditional writes do. */
export const conditionFailed = (what: string): Error =>
  Object.assign(new Error(`The conditional request failed: ${what}`), { name: 'ConditionalCheckFailedException' });

export const pair = (a: string, b: string): string => `${a}\u0000${b}`;

/** The workspace item: `plan` is the provider's (billing writes it), `contractPlan` sales' (readers take the higher). */
export interface WorkspaceRecord {
  workspace: Workspace;
  contractPlan: Plan | null;
  contract: ContractRecord | null;
}

/** The roster item; `contractSeats` is what a contract set (the provider's events leave the seats alone then). */
export interface RosterRecord extends Roster {
  contractSeats?: number;
}

/** A domain claim with what the DynamoDB item keeps beside it: its entry on the work index and its hosting. */
export interface ClaimRecord {
  domain: Domain;
  /** gsi2: a pending claim's next check, or a verified one's next hosting step; null when off the index. */
  due: { kind: 'check' | 'hosting'; at: number } | null;
  /** `hosting_*` attributes, absent until verified (`step` undefined reads as `due`). */
  hosting: Partial<HostingRecord>;
}

export interface StopRecord extends StopOrder {
  /** gsi2 `HOSTING_STOP#…`: the order's next try. */
  dueAt: number;
}

export type BillingTargetKey = { kind: 'user'; userId: string } | { kind: 'workspace'; workspaceId: string };

export class WorkspaceData {
  readonly workspaces = new Map<string, WorkspaceRecord>();
  readonly rosters = new Map<string, RosterRecord>();
  /** By pair(workspace, user). */
  readonly members = new Map<string, Member>();
  /** By pair(workspace, invitation id). */
  readonly invitations = new Map<string, Invitation>();
  readonly tokens = new Map<string, InvitationToken>();
  readonly slugs = new Map<string, string>();
  readonly branding = new Map<string, WorkspaceBranding>();
  /** By workspace, then the audit item's sort key (`<ISO time>#<id>`). */
  readonly audit = new Map<string, Map<string, AuditRow>>();

  /** By pair(workspace, SCIM id). */
  readonly scimUsers = new Map<string, { user: ScimUser; accountEmail: string }>();
  /** By pair(workspace, `USERNAME#<folded>` | `EXTERNAL#<id>` | `ACCOUNT#<user>`): the SCIM id holding it. */
  readonly scimUnique = new Map<string, string>();

  readonly ssoDirectories = new Map<string, SsoDirectory>();
  /** `SSO_DOMAIN#<domain>`: the one directory speaking for an email domain (`enforced` while the directory enforces). */
  readonly ssoDomains = new Map<string, { workspaceId: string; issuer: string; enforced?: boolean }>();
  /** `SCIM_KEY#<sha256>`: the workspace a directory key belongs to. */
  readonly scimKeys = new Map<string, string>();

  /** By pair(workspace, hostname). */
  readonly claims = new Map<string, ClaimRecord>();
  /** `DOMAIN#<id>`: where a claim is. */
  readonly domainPointers = new Map<string, { workspaceId: string; hostname: string }>();
  readonly hostnames = new Map<string, HostClaim & { verifiedAt: number }>();
  readonly stopOrders = new Map<string, StopRecord>();

  /** A target's `BILLING` item. */
  readonly billing = new Map<string, { customerId?: string; subscriptionId?: string }>();
  readonly subscriptions = new Map<string, SubscriptionRecord>();
  readonly providerEvents = new Set<string>();

  constructor(readonly accounts: AccountPlans = new MemoryAccountPlans()) {}

  /** The workspace as the store reads it: the provider's plan and a contract's, as held (the fakes' ports answer this). */
  storedWorkspaceOf(id: string): StoredWorkspace | null {
    const record = this.workspaces.get(id);
    if (!record) return null;
    return { ...structuredClone(record.workspace), ...(record.contractPlan === null ? {} : { contractPlan: record.contractPlan }) };
  }

  /** The workspace on the plan it is on, as the domain decides it (for tests that look). */
  workspaceOf(id: string): Workspace | null {
    return workspaceInUse(this.storedWorkspaceOf(id));
  }

  /** The actor is a member with one of its roles (the transactions' ConditionCheck). */
  actorHolds(workspaceId: string, actor: Actor): boolean {
    const member = this.members.get(pair(workspaceId, actor.userId));
    return member !== undefined && actor.roles.includes(member.role);
  }

  writeAudit(row: AuditRow): void {
    const trail = this.audit.get(row.workspaceId) ?? this.audit.set(row.workspaceId, new Map()).get(row.workspaceId)!;
    trail.set(`${toIso(row.at)}#${row.id}`, stored(row));
  }

  billingKey(target: BillingTargetKey): string {
    return target.kind === 'user' ? `USER#${target.userId}` : `WORKSPACE#${target.workspaceId}`;
  }
}

/** The work index's order: `<ISO time>#<id>`, oldest first. */
export const dueOrder = (at: number, id: string): string => `${toIso(at)}#${id}`;
