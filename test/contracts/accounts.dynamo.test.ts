import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Plan } from '../../shared/domain/accounts/model.ts';
import { DynamoApiKeyStore } from '../../shared/store/apiKeys.ts';
import { DynamoSessionStore } from '../../shared/store/sessions.ts';
import { DynamoSignInCodeStore } from '../../shared/store/signIn.ts';
import { DynamoSigningKeyStore } from '../../shared/store/signingKeys.ts';
import { DynamoUserStore } from '../../shared/store/users.ts';
import { describeApiKeyStoreContract } from './apiKeys.contract.ts';
import { dynamoLocal } from './dynamoLocal.ts';
import { describeSessionStoreContract } from './sessions.contract.ts';
import { describeSignInCodeStoreContract } from './signInCodes.contract.ts';
import { describeSigningKeyStoreContract } from './signingKeys.contract.ts';
import { describeUserStoreContract } from './users.contract.ts';

/** The accounts group's contracts against DynamoDB Local: one emulator for the file, the same suites as the fakes'. */
const dynamo = dynamoLocal();
const { tableName } = dynamo;

// The account item's plan attributes, as billing (`plan`) and scripts/set-plan.ts (`contract_plan`) write them.
const setPlanAttribute = (attribute: 'plan' | 'contract_plan') => (userId: string, plan: Plan) =>
  dynamo.db
    .send(new UpdateCommand({ TableName: tableName, Key: { pk: `USER#${userId}`, sk: 'PROFILE' }, UpdateExpression: 'SET #plan = :plan', ExpressionAttributeNames: { '#plan': attribute }, ExpressionAttributeValues: { ':plan': plan } }))
    .then(() => undefined);
describeUserStoreContract('dynamo', () => ({ users: new DynamoUserStore(dynamo.db, tableName), plans: { setPlan: setPlanAttribute('plan'), setContractPlan: setPlanAttribute('contract_plan') } }));
describeSessionStoreContract('dynamo', () => new DynamoSessionStore(dynamo.db, tableName));
describeApiKeyStoreContract('dynamo', () => new DynamoApiKeyStore(dynamo.db, tableName));
describeSignInCodeStoreContract('dynamo', () => new DynamoSignInCodeStore(dynamo.db, tableName));
// A fresh table per test: the signing keys are one item of the whole table.
describeSigningKeyStoreContract('dynamo', async () => new DynamoSigningKeyStore(dynamo.db, await dynamo.freshTable()));
