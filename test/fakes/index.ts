// Secrets and accounts groups (fakes-a): in-memory ports, each held to its contract in test/contracts/.
export { MemorySecretAdoptions, MemorySecretStore } from './secrets.ts';
export { MemoryGateStore } from './gate.ts';
export { MemoryReceiptStore } from './receipts.ts';
export { MemoryRateCounter } from './rateCounter.ts';
export { MemoryCounters } from './counters.ts';
export { MemoryRequestStore } from './requests.ts';
export { MemoryTierSource, type PlanHolder, type TierFacts } from './tiers.ts';
export { MemoryHostClaims } from './hostClaims.ts';
export { MemoryUserStore } from './users.ts';
export { MemorySessionStore } from './sessions.ts';
export { MemoryApiKeyStore } from './apiKeys.ts';
export { MemorySignInCodeStore } from './signInCodes.ts';
export { MemorySigningKeyStore } from './signingKeys.ts';
export { MemoryMailer } from './mailer.ts';
export { memorySecretPorts, type MemorySecretPorts } from './secretGroup.ts';
export { memoryAccountPorts, type MemoryAccountPorts } from './accountGroup.ts';
// Workspace and billing groups (fakes-b): the workspace fakes share one WorkspaceData, as the DynamoDB stores share the table.
export { WorkspaceData } from './workspaceData.ts';
export { MemoryAccountPlans, type AccountPlans, type AccountPlanRow } from './accountPlans.ts';
export { MemoryWorkspaceStore } from './workspaceStore.ts';
export { MemoryMembershipChanges } from './membershipChanges.ts';
export { MemoryCheckoutWorkspaces, MemoryWorkspaceMembership } from './workspaceMembership.ts';
export { MemoryScimUserStore } from './scimUserStore.ts';
export { MemoryScimGroupStore } from './scimGroupStore.ts';
export { MemoryDirectoryKeys, MemorySsoPolicy, MemorySsoStore } from './ssoStore.ts';
export { MemoryDomainStore } from './domainStore.ts';
export { MemoryHostingStore } from './hostingStore.ts';
export { MemoryBillingStore } from './billingStore.ts';
export { MemoryContractPlans } from './contractPlans.ts';
export { MemoryChatInstallationStore, MemoryChatSubscriptions } from './chatStores.ts';
export { MemoryWebhookStore } from './webhookStore.ts';
export { FakePaymentProvider, fakeSigningSecret, providerRefusal, type ProviderCall } from './paymentProvider.ts';
export { FakeProviderAccount, fakePrices, type FakeCheckout } from './paymentAccount.ts';
export {
  memoryBillingPorts,
  memoryChatPorts,
  memoryWorkspacePorts,
  type MemoryBillingPorts,
  type MemoryWorkspacePorts,
} from './workspaceGroup.ts';
export { MemoryQueue } from './queue.ts';
export { MemoryNoticeMarks } from './noticeMarks.ts';
