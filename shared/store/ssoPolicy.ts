import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SsoPolicy, SsoRule } from '../domain/accounts/ports.ts';
import { normalizeEmail } from '../domain/accounts/model.ts';
import { newAuditId } from '../ids.ts';
import { emailKey, memberKey, ssoDomainKey } from './items/index.ts';
import { putAuditRow } from './workspaceItems.ts';

/**
 * An email domain whose workspace enforces single sign-on has its SSO domain item `enforced`
 * (items/scim.ts; written by the workspace SSO settings); its addresses cannot sign in with a
 * code, but the workspace's owners' (their account's member item says `owner`).
 */
export class DynamoSsoPolicy implements SsoPolicy {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async ruleFor(email: string): Promise<SsoRule> {
    const address = normalizeEmail(email);
    const domain = address.split('@').at(-1) ?? '';
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: ssoDomainKey(domain) }));
    if (Item?.enforced !== true) return { enforced: false };
    const workspaceId = String(Item.workspace_id);
    const account = await this.db.send(new GetCommand({ TableName: this.tableName, Key: emailKey(address), ConsistentRead: true }));
    const userId = account.Item?.user_id;
    if (typeof userId !== 'string') return { enforced: true, workspaceId, breakGlass: false };
    const member = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: memberKey(workspaceId, userId), ConsistentRead: true }),
    );
    return { enforced: true, workspaceId, breakGlass: member.Item?.role === 'owner' };
  }

  async recordBreakGlass(workspaceId: string, user: { id: string; email: string }, now: number): Promise<void> {
    await putAuditRow(this.db, this.tableName, {
      id: newAuditId(),
      workspaceId,
      at: now,
      actor: { userId: user.id, email: user.email, via: 'session' },
      action: 'sso.break_glass',
      target: user.id,
      details: { method: 'emailed_code' },
    });
  }
}
