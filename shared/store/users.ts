import {
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type { Plan, User } from '../domain/accounts/model.ts';
import { languages, type Language } from '../languages.ts';
import type { UserStore } from '../domain/accounts/ports.ts';
import type { ContractRecord } from '../domain/contractPlans.ts';
import { emailKey, userKey, type EmailItem, type UserItem } from './items/index.ts';
import { contractPlanUpdate, planFactsOf, providerPlanUpdate } from './planAttributes.ts';

type TransactWriteItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

function fromItem(item: Record<string, unknown>): User {
  return {
    id: item.id as string,
    email: item.email as string,
    // Both plans as written: the provider's and a contract's (the domain's planInUse takes the higher).
    ...planFactsOf(item),
    createdAt: item.created_at as number,
    ...(item.tos_version === undefined ? {} : { tosVersion: item.tos_version as string, tosAcceptedAt: item.tos_accepted_at as number }),
    // A language this build does not speak (written by a later one, say) reads as none chosen.
    ...(languages.includes(item.locale as Language) ? { locale: item.locale as Language } : {}),
  };
}

/**
 * The users' parts of others' writes: the account's item is this store's alone, so billing
 * (the provider's `plan`, in its subscription's transaction) and sales' contract command
 * (`contract_plan`) write it through these. Each fails its transaction when the account is gone.
 */
export const userPlanWrite = (tableName: string, userId: string, plan: Plan): TransactWriteItem => ({
  Update: { TableName: tableName, Key: userKey(userId), ...providerPlanUpdate(plan) },
});
export const userContractPlanWrite = (tableName: string, userId: string, plan: Plan | null, record: ContractRecord): TransactWriteItem => ({
  Update: { TableName: tableName, Key: userKey(userId), ...contractPlanUpdate(plan, record) },
});

export class DynamoUserStore implements UserStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(id: string): Promise<User | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: userKey(id) }));
    return Item ? fromItem(Item) : null;
  }

  async findByEmail(email: string): Promise<User | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: emailKey(email), ConsistentRead: true }));
    return Item ? this.get(Item.user_id as string) : null;
  }

  async createOrGet(user: User): Promise<User> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.tableName,
                // One item per address, written with the user: one account per email.
                Item: { ...emailKey(user.email), type: 'email', user_id: user.id } satisfies EmailItem,
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: {
                  ...userKey(user.id),
                  type: 'user',
                  id: user.id,
                  email: user.email,
                  plan: user.plan,
                  created_at: user.createdAt,
                } satisfies UserItem,
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return { id: user.id, email: user.email, plan: user.plan, createdAt: user.createdAt };
    } catch (error) {
      if ((error as { name?: string }).name !== 'TransactionCanceledException') throw error;
      const existing = await this.findByEmail(user.email);
      if (!existing) throw error;
      return existing;
    }
  }

  async acceptTerms(id: string, version: string, at: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: userKey(id),
        UpdateExpression: 'SET tos_version = :version, tos_accepted_at = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':version': version, ':at': at },
      }),
    );
  }

  async setLocale(id: string, locale: Language | null): Promise<User | null> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: userKey(id),
          ...(locale === null
            ? { UpdateExpression: 'REMOVE #locale' }
            : { UpdateExpression: 'SET #locale = :locale', ExpressionAttributeValues: { ':locale': locale } }),
          ExpressionAttributeNames: { '#locale': 'locale' },
          ConditionExpression: 'attribute_exists(pk)',
          ReturnValues: 'ALL_NEW',
        }),
      );
      return Attributes ? fromItem(Attributes) : null;
    } catch (error) {
      if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return null;
      throw error;
    }
  }
}
