import { describeDomainStoreContract } from './domainStore.contract.ts';
import { dynamoLocal } from './dynamoLocal.ts';
import { describeHostingStoreContract } from './hostingStore.contract.ts';
import { describeMembershipChangesContract } from './membershipChanges.contract.ts';
import { describeScimUserStoreContract } from './scimUserStore.contract.ts';
import { describeSsoStoreContract } from './ssoStore.contract.ts';
import { describeSsoSignInStoreContract } from './ssoSignIns.contract.ts';
import { DynamoSsoSignIns } from '../../shared/store/ssoSignIns.ts';
import { describeWorkspaceMembershipContract } from './workspaceMembership.contract.ts';
import { describeWorkspaceStoreContract } from './workspaceStore.contract.ts';
import { dynamoWorkspaceWorld } from './workspaceWorld.ts';

/**
 * The workspace group's contracts against DynamoDB Local (one emulator for the file): the
 * workspaces, membership changes and the reads other groups make of them, SCIM Users, SSO with
 * its directory keys and sign-in policy, domains and hosting. Tests keep apart by fresh ids in
 * one table; those that read a work index (domain checks, hosting) take a fresh table each,
 * since the index is the whole table's.
 */
const dynamo = dynamoLocal();
const world = () => dynamoWorkspaceWorld(dynamo.db, dynamo.tableName);
const freshWorld = async () => dynamoWorkspaceWorld(dynamo.db, await dynamo.freshTable());

describeWorkspaceStoreContract('dynamo', world);
describeMembershipChangesContract('dynamo', world);
describeWorkspaceMembershipContract('dynamo', world);
describeScimUserStoreContract('dynamo', world);
describeSsoStoreContract('dynamo', world);
describeSsoSignInStoreContract('dynamo', () => new DynamoSsoSignIns(dynamo.db, dynamo.tableName));
describeDomainStoreContract('dynamo', freshWorld);
describeHostingStoreContract('dynamo', freshWorld);
