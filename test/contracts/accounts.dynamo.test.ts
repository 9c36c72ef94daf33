import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoApiKeyStore } from '../../shared/store/apiKeys.ts';
import { DynamoSessionStore } from '../../shared/store/sessions.ts';
import { DynamoSignInCodeStore } from '../../shared/store/signIn.ts';
import { DynamoSigningKeyStore } from '../../shared/store/signingKeys.ts';
import { DynamoUserStore, userContractPlanWrite, userPlanWrite } from '../../shared/store/users.ts';
import { describeApiKeyStoreContract } from './apiKeys.contract.ts';
import { dynamoLocal } from './dynamoLocal.ts';
import { describeSessionStoreContract } from './sessions.contract.ts';
import { describeSignInCodeStoreContract } from './signInCodes.contract.ts';
import { describeSigningKeyStoreContract } from './signingKeys.contract.ts';
import { describeUserStoreContract } from './users.contract.ts';

/** The accounts group's contracts against DynamoDB Local: one emulator for the file, the same suites as the fakes'. */
const dynamo = dynamoLocal();
const { tableName } = dynamo;

// The account item's plan attributes, written through the user store's own parts, as billing (`plan`) and scripts/set-plan.ts (`contract_plan`) write them.
const send = (part: ReturnType<typeof userPlanWrite>) => dynamo.db.send(new UpdateCommand(part.Update!)).then(() => undefined);
describeUserStoreContract('dynamo', () => ({
  users: new DynamoUserStore(dynamo.db, tableName),
  plans: {
    setPlan: (userId, plan) => send(userPlanWrite(tableName, userId, plan)),
    setContractPlan: (userId, plan) =>
      send(userContractPlanWrite(tableName, userId, plan, { at: 0, by: 'contract', note: 'contract test' })),
  },
}));
describeSessionStoreContract('dynamo', () => new DynamoSessionStore(dynamo.db, tableName));
describeApiKeyStoreContract('dynamo', () => new DynamoApiKeyStore(dynamo.db, tableName));
describeSignInCodeStoreContract('dynamo', () => new DynamoSignInCodeStore(dynamo.db, tableName));
// A fresh table per test: the signing keys are one item of the whole table.
describeSigningKeyStoreContract('dynamo', async () => new DynamoSigningKeyStore(dynamo.db, await dynamo.freshTable()));
