import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SsoPolicy } from '../domain/accounts/ports.ts';
import { normalizeEmail } from '../domain/accounts/model.ts';
import { ssoDomainKey } from './items/index.ts';

/**
 * An email domain whose workspace enforces single sign-on has its SSO domain item `enforced`
 * (items/scim.ts; written by the workspace SSO settings); its addresses cannot sign in with a code.
 */
export class DynamoSsoPolicy implements SsoPolicy {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async enforcedFor(email: string): Promise<boolean> {
    const domain = normalizeEmail(email).split('@').at(-1) ?? '';
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: ssoDomainKey(domain) }));
    return Item?.enforced === true;
  }
}
