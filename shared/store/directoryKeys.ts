import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DirectoryKeyStore } from '../domain/scim/directoryKey.ts';
import { scimKeyKey } from './items/index.ts';

/**
 * Directory keys' lookups (items/scim.ts), written and deleted with the SSO directory
 * (shared/store/workspaceSso.ts): the one read a SCIM request makes before anything else.
 */
export class DynamoDirectoryKeys implements DirectoryKeyStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async workspaceOf(keyHash: string): Promise<string | null> {
    // Consistent: a rotation's delete must stop the old key at once, on every instance.
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: scimKeyKey(keyHash), ConsistentRead: true }));
    return typeof Item?.workspace_id === 'string' ? Item.workspace_id : null;
  }
}
