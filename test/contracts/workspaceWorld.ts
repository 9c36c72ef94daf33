import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Plan, User } from '../../shared/domain/accounts/model.ts';
import type { SsoPolicy } from '../../shared/domain/accounts/ports.ts';
import type { CheckoutWorkspaces } from '../../shared/domain/billing/ports.ts';
import { planInUse } from '../../shared/domain/billing/tier.ts';
import type { BillingStore } from '../../shared/domain/billing/ports.ts';
import type { ContractPlanStore } from '../../shared/domain/contractPlans.ts';
import type { DomainStore } from '../../shared/domain/domains/model.ts';
import type { HostingRecord, HostingStore, StopOrder } from '../../shared/domain/domains/ports.ts';
import type { DirectoryKeyStore } from '../../shared/domain/scim/directoryKey.ts';
import type { ScimUserStore } from '../../shared/domain/scim/ports.ts';
import type { SsoStore } from '../../shared/domain/sso/directory.ts';
import type { WorkspaceMembership } from '../../shared/domain/workspaces/membership.ts';
import type { MembershipChanges, WorkspaceStore } from '../../shared/domain/workspaces/ports.ts';
import { DynamoBillingStore } from '../../shared/store/billing.ts';
import { DynamoContractPlans } from '../../shared/store/contractPlans.ts';
import { DynamoDirectoryKeys } from '../../shared/store/directoryKeys.ts';
import { DynamoDomainHosting } from '../../shared/store/domainHosting.ts';
import { DynamoSsoPolicy } from '../../shared/store/ssoPolicy.ts';
import { DynamoUserStore } from '../../shared/store/users.ts';
import { DynamoDomainStore } from '../../shared/store/workspaceDomains.ts';
import { DynamoCheckoutWorkspaces, DynamoWorkspaceMembership } from '../../shared/store/workspaceMembership.ts';
import { DynamoMembershipChanges } from '../../shared/store/workspaceMembershipChanges.ts';
import { DynamoWorkspaceStore } from '../../shared/store/workspaces.ts';
import { DynamoScimUserStore } from '../../shared/store/workspaceScim.ts';
import { DynamoSsoStore } from '../../shared/store/workspaceSso.ts';
import { memoryWorkspacePorts } from '../fakes/workspaceGroup.ts';

/**
 * The workspace and billing group's stores over one table (or one fake's data): a contract sets
 * its scene through the ports themselves (a workspace made, a subscription applied) and reads
 * the effects through them, so one port's writes are checked against the others' reads on both
 * sides. What no port of the group writes (an account's sign-up, an operator's SSO enforcement)
 * is a fixture here.
 */
export interface WorkspaceWorld {
  workspaces: WorkspaceStore;
  memberships: MembershipChanges;
  membership: WorkspaceMembership;
  checkout: CheckoutWorkspaces;
  scim: ScimUserStore;
  directoryKeys: DirectoryKeyStore;
  sso: SsoStore;
  ssoPolicy: SsoPolicy;
  domains: DomainStore;
  hosting: HostingStore & {
    hostingOf(claim: { workspaceId: string; hostname: string; domainId: string }): Promise<HostingRecord | null>;
    stopOrderOf(domainId: string): Promise<StopOrder | null>;
  };
  billing: BillingStore;
  contracts: ContractPlanStore;
  /** An account signed up (UserStore.createOrGet's items). */
  addAccount(user: User): Promise<void>;
  /** The account's plan in use, as the domain reads UserStore.get's answer (null: no account). */
  accountPlan(userId: string): Promise<Plan | null>;
}

export type MakeWorkspaceWorld = () => WorkspaceWorld | Promise<WorkspaceWorld>;

const planInUseOf = (user: User | null): Plan | null => (user ? planInUse(user) : null);

export function memoryWorkspaceWorld(): WorkspaceWorld {
  const ports = memoryWorkspacePorts();
  return {
    ...ports,
    membership: ports.workspaceMembership,
    checkout: ports.checkoutWorkspaces,
    scim: ports.scimUsers,
    hosting: ports.domainHosting,
    addAccount: async (user) => void ports.accounts.add(user),
    accountPlan: async (userId) => planInUseOf(await ports.accounts.get(userId)),
  };
}

export function dynamoWorkspaceWorld(db: DynamoDBDocumentClient, tableName: string): WorkspaceWorld {
  const users = new DynamoUserStore(db, tableName);
  return {
    workspaces: new DynamoWorkspaceStore(db, tableName),
    memberships: new DynamoMembershipChanges(db, tableName),
    membership: new DynamoWorkspaceMembership(db, tableName),
    checkout: new DynamoCheckoutWorkspaces(db, tableName),
    scim: new DynamoScimUserStore(db, tableName),
    directoryKeys: new DynamoDirectoryKeys(db, tableName),
    sso: new DynamoSsoStore(db, tableName),
    ssoPolicy: new DynamoSsoPolicy(db, tableName),
    domains: new DynamoDomainStore(db, tableName),
    hosting: new DynamoDomainHosting(db, tableName),
    billing: new DynamoBillingStore(db, tableName),
    contracts: new DynamoContractPlans(db, tableName),
    addAccount: async (user) => void (await users.createOrGet(user)),
    accountPlan: async (userId) => planInUseOf(await users.get(userId)),
  };
}
