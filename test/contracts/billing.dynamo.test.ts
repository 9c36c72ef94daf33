import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { webhookLimits } from '../../shared/limits.ts';
import { DynamoChatInstallationStore } from '../../shared/store/chatInstallations.ts';
import { DynamoChatSubscriptions } from '../../shared/store/chatSubscriptions.ts';
import { secretKey } from '../../shared/store/items/index.ts';
import { DynamoSecretStore } from '../../shared/store/secrets.ts';
import { DynamoNoticeMarks } from '../../shared/store/noticeMarks.ts';
import { DynamoWebhookStore } from '../../shared/store/webhooks.ts';
import { describeBillingStoreContract } from './billingStore.contract.ts';
import { describeChatInstallationStoreContract, describeChatSubscriptionStoreContract } from './chatStores.contract.ts';
import { describeContractPlanStoreContract } from './contractPlans.contract.ts';
import { dynamoLocal } from './dynamoLocal.ts';
import { describeNoticeMarksContract } from './noticeMarks.contract.ts';
import { describeWebhookStoreContract } from './webhookStore.contract.ts';
import { dynamoWorkspaceWorld } from './workspaceWorld.ts';

/**
 * The billing group's contracts against DynamoDB Local (one emulator for the file): billing,
 * contract plans, chat and webhooks. Tests keep apart by fresh ids in one table; the webhooks'
 * take a fresh table each, since their retry index is the whole table's.
 */
const dynamo = dynamoLocal();
const world = () => dynamoWorkspaceWorld(dynamo.db, dynamo.tableName);

describeBillingStoreContract('dynamo', world);
describeContractPlanStoreContract('dynamo', world);
describeChatInstallationStoreContract('dynamo', () => new DynamoChatInstallationStore(dynamo.db, dynamo.tableName));
describeChatSubscriptionStoreContract('dynamo', () => ({
  subscriptions: new DynamoChatSubscriptions(dynamo.db, dynamo.tableName),
  secrets: new DynamoSecretStore(dynamo.db, dynamo.tableName, 30 * 24 * 3600),
  async subscriptionOf(secretId) {
    const { Item } = await dynamo.db.send(new GetCommand({ TableName: dynamo.tableName, Key: secretKey(secretId), ConsistentRead: true }));
    return typeof Item?.chat_team === 'string' ? { teamId: Item.chat_team, chatUserId: String(Item.chat_user) } : null;
  },
}));
describeWebhookStoreContract(
  'dynamo',
  async () => new DynamoWebhookStore(dynamo.db, await dynamo.freshTable(), webhookLimits.deliveryLogSeconds),
);
describeNoticeMarksContract('dynamo, chat notices', () => new DynamoNoticeMarks(dynamo.db, dynamo.tableName, 'chat_notice'));
describeNoticeMarksContract('dynamo, billing notices', () => new DynamoNoticeMarks(dynamo.db, dynamo.tableName, 'billing_notice'));
