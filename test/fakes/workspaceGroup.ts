import { MemoryQueue } from './queue.ts';
import type { Clock } from '../../shared/clock.ts';
import type { SecretStore } from '../../shared/domain/secrets/ports.ts';
import { MemoryAccountPlans } from './accountPlans.ts';
import { MemoryBillingStore } from './billingStore.ts';
import { MemoryChatInstallationStore, MemoryChatSubscriptions } from './chatStores.ts';
import { MemoryContractPlans } from './contractPlans.ts';
import { MemoryDomainStore } from './domainStore.ts';
import { MemoryHostingStore } from './hostingStore.ts';
import { MemoryMembershipChanges } from './membershipChanges.ts';
import { FakePaymentProvider } from './paymentProvider.ts';
import { MemoryScimUserStore } from './scimUserStore.ts';
import { MemoryDirectoryKeys, MemorySsoPolicy, MemorySsoStore } from './ssoStore.ts';
import { WorkspaceData } from './workspaceData.ts';
import { MemoryCheckoutWorkspaces, MemoryWorkspaceMembership } from './workspaceMembership.ts';
import { MemoryWorkspaceStore } from './workspaceStore.ts';

/**
 * Every workspace-group fake over one WorkspaceData, as the DynamoDB stores share one table:
 * what a membership change does is what SCIM, billing, contracts and sending then read.
 * `accounts` (also `users`, as UserStore's reads) holds the accounts billing and contracts write
 * plans on; `accounts.add` signs one up.
 */
export function memoryWorkspacePorts(accounts = new MemoryAccountPlans()) {
  const data = new WorkspaceData(accounts);
  return {
    data,
    accounts,
    users: accounts,
    workspaces: new MemoryWorkspaceStore(data),
    memberships: new MemoryMembershipChanges(data),
    workspaceMembership: new MemoryWorkspaceMembership(data),
    checkoutWorkspaces: new MemoryCheckoutWorkspaces(data),
    scimUsers: new MemoryScimUserStore(data),
    directoryKeys: new MemoryDirectoryKeys(data),
    sso: new MemorySsoStore(data),
    ssoPolicy: new MemorySsoPolicy(data),
    domains: new MemoryDomainStore(data),
    domainHosting: new MemoryHostingStore(data),
    billing: new MemoryBillingStore(data),
    contracts: new MemoryContractPlans(data),
  };
}

export type MemoryWorkspacePorts = ReturnType<typeof memoryWorkspacePorts>;

/** The billing use cases' stores and provider, over the workspace fakes (billing writes workspaces' plans and seats). Add `mailer` and `config`. */
export function memoryBillingPorts(clock: Clock, workspaces: MemoryWorkspacePorts = memoryWorkspacePorts()) {
  return { ...workspaces, provider: new FakePaymentProvider(clock), queue: new MemoryQueue(), clock };
}

export type MemoryBillingPorts = ReturnType<typeof memoryBillingPorts>;

/** The chat stores; subscriptions read the secrets fake they are given (test/fakes/secrets.ts's, say). */
export function memoryChatPorts(secrets: Pick<SecretStore, 'get'>) {
  return { chatInstallations: new MemoryChatInstallationStore(), subscriptions: new MemoryChatSubscriptions(secrets) };
}
