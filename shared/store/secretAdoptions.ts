import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Secret } from '../domain/secrets/model.ts';
import type { SecretAdoptions } from '../domain/secrets/ports.ts';
import { isConditionFailure } from './client.ts';
import { ownerListing, secretKey as key } from './items/index.ts';
import { getSecret } from './secretRead.ts';

/**
 * Adoption, apart from the rest of the store: the account function adopts secrets and does
 * nothing else with them, so it carries this class only.
 */
export class DynamoSecretAdoptions implements SecretAdoptions {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  get(id: string): Promise<Secret | null> {
    return getSecret(this.db, this.tableName, id);
  }

  async adopt(id: string, ownerId: string): Promise<boolean> {
    const current = await this.get(id);
    if (!current) return false;
    const listing = ownerListing(ownerId, current.createdAt, id);
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(id),
          // From now on its changes pass the relay's stream filter (it has an owner), which
          // also counts it in the owner's usage.
          UpdateExpression: 'SET owner_id = :owner, gsi1pk = :g1pk, gsi1sk = :g1sk',
          ConditionExpression: 'attribute_not_exists(owner_id) AND #state IN (:active, :pending)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':owner': ownerId,
            ':g1pk': listing.gsi1pk,
            ':g1sk': listing.gsi1sk,
            ':active': 'active',
            ':pending': 'pending',
          },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
