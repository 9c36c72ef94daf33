import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Domain } from '../domain/domains/model.ts';
import type { SsoDirectory, SsoStore } from '../domain/sso/directory.ts';
import type { AuditRow } from '../domain/workspaces/model.ts';
import type { Actor } from '../domain/workspaces/ports.ts';
import {
  claimKey,
  scimKeyKey,
  ssoDirectoryKey as directoryKey,
  ssoDomainKey,
  type ScimKeyItem,
  type SsoDirectoryItem,
  type SsoDomainItem,
} from './items/index.ts';
import { WorkspaceTable, type TransactWriteItem } from './workspaceItems.ts';

/**
 * A workspace's SSO directory (with its OIDC client, the secret sealed, issue 29), the email domain
 * it speaks for (at most one workspace's, by its condition; discovery reads it, and so does
 * sign-in's SSO policy, shared/store/ssoPolicy.ts, which refuses codes where it is `enforced`),
 * and its directory key's lookup (what SCIM requests are checked against, issue 18), all written
 * in one transaction so a rotated key stops at once and enforcement starts and stops with the
 * save. The layout is in items/scim.ts; all three are this store's.
 */

/** The SSO store's part of a domain claim's deletion: the directory stops speaking for the email domain the claim proved, if it is still this workspace's. */
export const ssoDomainRelease = (tableName: string, emailDomain: string, workspaceId: string): TransactWriteItem => ({
  Delete: {
    TableName: tableName,
    Key: ssoDomainKey(emailDomain),
    ConditionExpression: 'workspace_id = :workspace',
    ExpressionAttributeValues: { ':workspace': workspaceId },
  },
});

export class DynamoSsoStore extends WorkspaceTable implements SsoStore {
  async directory(workspaceId: string): Promise<SsoDirectory | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: directoryKey(workspaceId), ConsistentRead: true }),
    );
    if (!Item) return null;
    return {
      workspaceId,
      issuer: String(Item.issuer),
      emailDomain: String(Item.email_domain),
      keyHash: String(Item.key_hash),
      keyCreatedAt: Number(Item.key_created_at),
      // Directories saved before issue 29 have neither.
      client:
        typeof Item.client_id === 'string' && typeof Item.sealed_client_secret === 'string'
          ? { id: Item.client_id, sealedSecret: Item.sealed_client_secret }
          : null,
      enforce: Item.enforce === true,
      ...(Item.sso_jit === true ? { jit: true } : {}),
      updatedAt: Number(Item.updated_at),
    };
  }

  async save(
    directory: SsoDirectory,
    previous: SsoDirectory | null,
    proof: Domain,
    actor: Actor,
    audit: AuditRow,
  ): Promise<'saved' | 'domain_claimed' | 'unverified' | 'refused' | 'stale'> {
    const { workspaceId } = directory;
    const mine = { ':workspace': workspaceId };
    // The previous domain's claim goes only if it is still this directory's (a deleted domain's claim released it already).
    const previousDomain =
      previous && previous.emailDomain !== directory.emailDomain
        ? (await this.db.send(new GetCommand({ TableName: this.tableName, Key: ssoDomainKey(previous.emailDomain), ConsistentRead: true })))
            .Item?.workspace_id === workspaceId
          ? previous.emailDomain
          : null
        : null;
    const items: TransactWriteItem[] = [
      this.put(
        {
          ...ssoDomainKey(directory.emailDomain),
          type: 'sso_domain',
          domain: directory.emailDomain,
          workspace_id: workspaceId,
          issuer: directory.issuer,
          // Sign-in by code stops for the domain's addresses with this save, and starts again with one without it.
          ...(directory.enforce ? { enforced: true } : {}),
        } satisfies SsoDomainItem,
        // One directory speaks for a domain.
        'attribute_not_exists(pk) OR workspace_id = :workspace',
        mine,
      ),
      this.actorCheck(workspaceId, actor),
      this.audit(audit),
      this.put(
        {
          ...directoryKey(workspaceId),
          type: 'sso',
          workspace_id: workspaceId,
          issuer: directory.issuer,
          email_domain: directory.emailDomain,
          key_hash: directory.keyHash,
          key_created_at: directory.keyCreatedAt,
          ...(directory.client ? { client_id: directory.client.id, sealed_client_secret: directory.client.sealedSecret } : {}),
          enforce: directory.enforce,
          ...(directory.jit ? { sso_jit: true } : {}),
          updated_at: directory.updatedAt,
        } satisfies SsoDirectoryItem,
        // Over the directory this change read, and no other: two changes at once must not both
        // make a key, leaving one no rotation would ever remove.
        previous ? 'key_hash = :previous' : 'attribute_not_exists(pk)',
        previous ? { ':previous': previous.keyHash } : undefined,
      ),
      // The claim that proves the domain is still there, still verified, as this commits.
      {
        ConditionCheck: {
          TableName: this.tableName,
          Key: claimKey(proof.workspaceId, proof.hostname),
          ConditionExpression: 'id = :claim AND #state = :verified',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':claim': proof.id, ':verified': 'verified' },
        },
      },
    ];
    if (previousDomain) {
      items.push(ssoDomainRelease(this.tableName, previousDomain, workspaceId));
    }
    if (!previous || previous.keyHash !== directory.keyHash) {
      items.push(
        this.put(
          {
            ...scimKeyKey(directory.keyHash),
            type: 'scim_key',
            workspace_id: workspaceId,
            created_at: directory.keyCreatedAt,
          } satisfies ScimKeyItem,
          'attribute_not_exists(pk)',
        ),
      );
      // The old key stops with this transaction.
      if (previous) items.push({ Delete: { TableName: this.tableName, Key: scimKeyKey(previous.keyHash) } });
    }
    const refused = await this.transact(items);
    if (refused === null) return 'saved';
    if (refused[0] === 'ConditionalCheckFailed') return 'domain_claimed';
    if (refused[1] === 'ConditionalCheckFailed') return 'refused';
    if (refused[4] === 'ConditionalCheckFailed') return 'unverified';
    // The directory, or its previous domain's claim, changed since it was read: read again.
    return 'stale';
  }

  async speakingFor(emailDomain: string): Promise<{ workspaceId: string; issuer: string } | null> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: ssoDomainKey(emailDomain), ConsistentRead: true }),
    );
    return Item && typeof Item.workspace_id === 'string' ? { workspaceId: Item.workspace_id, issuer: String(Item.issuer) } : null;
  }
}
