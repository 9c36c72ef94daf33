import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { User } from '../domain/accounts/model.ts';
import type { UserStore } from '../domain/accounts/ports.ts';
import { planOfItem } from './planAttributes.ts';

const userKey = (id: string) => ({ pk: `USER#${id}`, sk: 'PROFILE' });
/** One item per address, written with the user in one transaction: one account per email. */
const emailKey = (email: string) => ({ pk: `EMAIL#${email}`, sk: 'EMAIL' });

function fromItem(item: Record<string, unknown>): User {
  return {
    id: item.id as string,
    email: item.email as string,
    // The provider's plan or a contract's, the higher: the account's own plan, whoever set it.
    plan: planOfItem(item),
    createdAt: item.created_at as number,
    ...(item.tos_version === undefined ? {} : { tosVersion: item.tos_version as string, tosAcceptedAt: item.tos_accepted_at as number }),
  };
}

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
                Item: { ...emailKey(user.email), type: 'email', user_id: user.id },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: { ...userKey(user.id), type: 'user', id: user.id, email: user.email, plan: user.plan, created_at: user.createdAt },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return user;
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
}
