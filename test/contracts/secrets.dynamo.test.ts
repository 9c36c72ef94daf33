import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoCounters } from '../../shared/store/counters.ts';
import { DynamoGateStore } from '../../shared/store/gate.ts';
import { DynamoHostClaims } from '../../shared/store/hostClaims.ts';
import { hostnameKey, memberKey, userKey, workspaceKey } from '../../shared/store/items/index.ts';
import { DynamoRateCounter } from '../../shared/store/rateLimits.ts';
import { DynamoReceiptStore } from '../../shared/store/receipts.ts';
import { DynamoRequestStore } from '../../shared/store/requests.ts';
import { DynamoSecretAdoptions } from '../../shared/store/secretAdoptions.ts';
import { DynamoSecretStore } from '../../shared/store/secrets.ts';
import { DynamoTierSource } from '../../shared/store/tiers.ts';
import { toMemberItem } from '../../shared/store/workspaceItems.ts';
import { describeCountersContract } from './counters.contract.ts';
import { dynamoLocal } from './dynamoLocal.ts';
import { describeGateStoreContract } from './gate.contract.ts';
import { describeHostClaimsContract } from './hostClaims.contract.ts';
import { describeRateCounterContract } from './rateCounter.contract.ts';
import { describeReceiptStoreContract } from './receipts.contract.ts';
import { describeRequestStoreContract } from './requests.contract.ts';
import { describeSecretStoreContract } from './secrets.contract.ts';
import { describeTierSourceContract, type PlanHolder } from './tiers.contract.ts';

/** The secrets group's contracts against DynamoDB Local: one emulator for the file, the same suites as the fakes'. */
const dynamo = dynamoLocal();
const { tableName } = dynamo;
const tombstoneSeconds = 30 * 24 * 3600;

// A fresh table per test: the work indexes (expiry, uploads, purges) are the whole table's.
describeSecretStoreContract('dynamo', async () => {
  const table = await dynamo.freshTable();
  return { secrets: new DynamoSecretStore(dynamo.db, table, tombstoneSeconds), adoptions: new DynamoSecretAdoptions(dynamo.db, table) };
});
describeGateStoreContract('dynamo', () => new DynamoGateStore(dynamo.db, tableName));
describeReceiptStoreContract('dynamo', () => new DynamoReceiptStore(dynamo.db, tableName));
describeRateCounterContract('dynamo', () => new DynamoRateCounter(dynamo.db, tableName));
describeCountersContract('dynamo', () => new DynamoCounters(dynamo.db, tableName));
describeRequestStoreContract('dynamo', () => ({
  requests: new DynamoRequestStore(dynamo.db, tableName),
  secrets: new DynamoSecretStore(dynamo.db, tableName, tombstoneSeconds),
}));

// What the tier source reads, written as the user, workspace and member items are (users.ts, workspaces.ts, workspaceItems.ts):
// the provider's plan always (free when made), a contract's when there is one.
const plans = (holder: PlanHolder = {}) => ({
  plan: holder.plan ?? 'free',
  ...(holder.contractPlan ? { contract_plan: holder.contractPlan } : {}),
});
const put = (Item: object) =>
  dynamo.db.send(new PutCommand({ TableName: tableName, Item: Item as Record<string, unknown> })).then(() => undefined);
describeTierSourceContract('dynamo', () => ({
  tiers: new DynamoTierSource(dynamo.db, tableName),
  seed: {
    user: (userId, holder) =>
      put({ ...userKey(userId), type: 'user', id: userId, email: `${userId}@example.com`, created_at: 0, ...plans(holder) }),
    workspace: (workspaceId, holder) => put({ ...workspaceKey(workspaceId), type: 'workspace', id: workspaceId, ...plans(holder) }),
    join: (workspaceId, userId) =>
      put(toMemberItem({ workspaceId, userId, email: `${userId}@example.com`, role: 'member', joinedAt: 0, source: 'invitation' })),
    leave: (workspaceId, userId) =>
      dynamo.db.send(new DeleteCommand({ TableName: tableName, Key: memberKey(workspaceId, userId) })).then(() => undefined),
  },
}));

// A hostname's verified claim, as the domains store writes it on verify (workspaceDomains.ts).
describeHostClaimsContract('dynamo', () => ({
  claims: new DynamoHostClaims(dynamo.db, tableName),
  seed: {
    verify: (claim) =>
      put({
        ...hostnameKey(claim.hostname),
        type: 'hostname',
        hostname: claim.hostname,
        domain_id: claim.domainId,
        workspace_id: claim.workspaceId,
        verified_at: 0,
      }),
    remove: (hostname) => dynamo.db.send(new DeleteCommand({ TableName: tableName, Key: hostnameKey(hostname) })).then(() => undefined),
  },
}));
