import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DomainStore, HostClaim } from '../domain/domains/model.ts';
import { hostnameKey } from './items/index.ts';

/**
 * A hostname's verified claim (items/domains.ts: its domain and workspace), written when a
 * workspace's claim is verified and removed with it (workspaceDomains.ts). Every API function
 * reads it for the host a request arrived on, and nothing else of domains.
 */

export class DynamoHostClaims implements Pick<DomainStore, 'verifiedClaim'> {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async verifiedClaim(hostname: string): Promise<HostClaim | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: hostnameKey(hostname), ConsistentRead: true }));
    return Item ? { hostname, domainId: String(Item.domain_id), workspaceId: String(Item.workspace_id) } : null;
  }
}
