import { BatchGetCommand, GetCommand, UpdateCommand, type DeleteCommandInput, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { Domain, DomainCheckError, DomainStore, HostClaim } from '../domain/domains/model.ts';
import type { ClaimToServe, HostedClaim, HostingRecord, StopOrder } from '../domain/domains/ports.ts';
import type { AuditRow } from '../domain/workspaces/model.ts';
import type { Actor } from '../domain/workspaces/ports.ts';
import { isConditionFailure } from './client.ts';
import { DynamoHostClaims } from './hostClaims.ts';
import {
  claimKey,
  claimPrefix,
  domainPointerKey as pointerKey,
  hostnameKey,
  stopOrderKey,
  workEntry,
  workQueues,
  workspacePartition,
  type DomainClaimItem,
  type DomainPointerItem,
  type HostingStopItem,
  type HostnameItem,
} from './items/index.ts';
import { ssoDomainRelease } from './workspaceSso.ts';
import { dueEntries } from './workIndex.ts';
import { WorkspaceTable, type TransactWriteItem } from './workspaceItems.ts';
import { listPrefix } from './listing.ts';

/**
 * Custom domains' items, all this store's (the layout is in items/domains.ts): the claim in its
 * workspace's partition, its id's pointer, the hostname's verified claim, and, once a verified
 * claim is deleted, its stop order. While pending, a claim's next check is on the work index;
 * once verified, its next hosting step instead, with where its hosting stands on the claim.
 * Hosting (domainHosting.ts) reads them and sends the hosting parts below.
 */
/** When the schedule checks a pending claim again after a check. */
const recheckEveryMs = 10 * 60 * 1000;
const nextCheck = (id: string, at: number) => workEntry(workQueues.domainCheck, id, at);
const hostingDue = (id: string, at: number) => workEntry(workQueues.domainHosting, id, at);
const stopDue = (id: string, at: number) => workEntry(workQueues.hostingStop, id, at);

/** A deleted verified claim's first stop order, due at once. */
const stopOrderItem = (domain: Domain, at: number): HostingStopItem => ({
  ...stopOrderKey(domain.id),
  type: 'hosting_stop',
  domain_id: domain.id,
  workspace_id: domain.workspaceId,
  hostname: domain.hostname,
  ordered_at: at,
  version: 1,
  reported: false,
  ...stopDue(domain.id, at),
});

/** Hosting's record of where a verified claim's hosting stands, and its next step (none: off the index); only while it is still this claim, verified. */
export function hostingRecorded(tableName: string, claim: ClaimToServe, hosting: HostingRecord, nextAt: number | null): UpdateCommandInput {
  const next = nextAt === null ? null : hostingDue(claim.domainId, nextAt);
  return {
    TableName: tableName,
    Key: claimKey(claim.workspaceId, claim.hostname),
    UpdateExpression:
      'SET hosting_step = :step, hosting_since = :since, hosting_checked_at = :checked, tenant_id = :tenant, certificate = :certificate, hosting_gave_up = :gaveUp, hosting_reported = :reported' +
      (next ? ', gsi2pk = :partition, gsi2sk = :next' : ' REMOVE gsi2pk, gsi2sk'),
    // Still this claim, and still verified: a claim deleted meanwhile is the caller's to stop.
    ConditionExpression: 'id = :id AND #state = :verified',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: {
      ':step': hosting.step,
      ':since': hosting.since,
      ':checked': hosting.checkedAt,
      ':tenant': hosting.tenantId,
      ':certificate': hosting.certificate,
      ':gaveUp': hosting.gaveUp,
      ':reported': hosting.reported,
      ':id': claim.domainId,
      ':verified': 'verified',
      ...(next ? { ':partition': next.gsi2pk, ':next': next.gsi2sk } : {}),
    },
  };
}

/** A stop order (again): the first order's time stays (how long it has been stopping); the version moves on. */
export function stopOrdered(tableName: string, claim: HostedClaim & { workspaceId: string }, at: number): UpdateCommandInput {
  const due = stopDue(claim.domainId, at);
  return {
    TableName: tableName,
    Key: stopOrderKey(claim.domainId),
    UpdateExpression:
      'SET #type = :type, domain_id = :id, workspace_id = :workspace, hostname = :hostname, ordered_at = if_not_exists(ordered_at, :at), reported = if_not_exists(reported, :no), gsi2pk = :partition, gsi2sk = :due ADD version :one',
    ExpressionAttributeNames: { '#type': 'type' },
    ExpressionAttributeValues: {
      ':type': 'hosting_stop',
      ':id': claim.domainId,
      ':workspace': claim.workspaceId,
      ':hostname': claim.hostname,
      ':at': at,
      ':no': false,
      ':partition': due.gsi2pk,
      ':due': due.gsi2sk,
      ':one': 1,
    },
  };
}

/** A stop order's next try, if no newer order came meanwhile. */
export const stopRetried = (tableName: string, order: StopOrder, nextAt: number, reported: boolean): UpdateCommandInput => ({
  TableName: tableName,
  Key: stopOrderKey(order.domainId),
  UpdateExpression: 'SET gsi2sk = :next, reported = :reported',
  ConditionExpression: 'version = :version',
  ExpressionAttributeValues: { ':next': stopDue(order.domainId, nextAt).gsi2sk, ':reported': reported, ':version': order.version },
});

/** A stop order done (its tenant gone), if no newer order came meanwhile. */
export const stopDone = (tableName: string, order: StopOrder): DeleteCommandInput => ({
  TableName: tableName,
  Key: stopOrderKey(order.domainId),
  ConditionExpression: 'version = :version',
  ExpressionAttributeValues: { ':version': order.version },
});

function toDomain(item: Record<string, unknown>): Domain {
  return {
    id: String(item.id),
    workspaceId: String(item.workspace_id),
    hostname: String(item.hostname),
    state: item.state as Domain['state'],
    token: String(item.token),
    createdAt: Number(item.created_at),
    verifiedAt: typeof item.verified_at === 'number' ? item.verified_at : null,
    lastCheckedAt: typeof item.last_checked_at === 'number' ? item.last_checked_at : null,
    lastError: (item.last_error as DomainCheckError | null | undefined) ?? null,
    checkUntil: Number(item.check_until),
  };
}

export class DynamoDomainStore extends WorkspaceTable implements DomainStore {
  async claim(domain: Domain, actor: Actor, audit: AuditRow): Promise<'claimed' | 'duplicate' | 'refused'> {
    const refused = await this.transact([
      this.put(
        {
          ...claimKey(domain.workspaceId, domain.hostname),
          type: 'domain',
          id: domain.id,
          workspace_id: domain.workspaceId,
          hostname: domain.hostname,
          state: domain.state,
          token: domain.token,
          created_at: domain.createdAt,
          verified_at: null,
          last_checked_at: null,
          last_error: null,
          check_until: domain.checkUntil,
          // Due at the schedule's next run: a record published before the claim is found then.
          ...nextCheck(domain.id, domain.createdAt),
        } satisfies DomainClaimItem,
        'attribute_not_exists(pk)',
      ),
      this.put(
        {
          ...pointerKey(domain.id),
          type: 'domain_pointer',
          id: domain.id,
          workspace_id: domain.workspaceId,
          hostname: domain.hostname,
        } satisfies DomainPointerItem,
        'attribute_not_exists(pk)',
      ),
      this.actorCheck(domain.workspaceId, actor),
      this.audit(audit),
    ]);
    if (refused === null) return 'claimed';
    return refused[0] === 'ConditionalCheckFailed' ? 'duplicate' : 'refused';
  }

  async get(id: string): Promise<Domain | null> {
    const pointer = await this.db.send(new GetCommand({ TableName: this.tableName, Key: pointerKey(id), ConsistentRead: true }));
    if (!pointer.Item) return null;
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: claimKey(String(pointer.Item.workspace_id), String(pointer.Item.hostname)),
        ConsistentRead: true,
      }),
    );
    // The pointer of a claim deleted a moment ago, or of an older claim of the hostname.
    return Item && Item.id === id ? toDomain(Item) : null;
  }

  async list(workspaceId: string): Promise<Domain[]> {
    const items = await listPrefix(this.db, this.tableName, workspacePartition(workspaceId), claimPrefix);
    return items.map(toDomain).sort((a, b) => a.createdAt - b.createdAt || a.hostname.localeCompare(b.hostname));
  }

  verifiedClaim(hostname: string): Promise<HostClaim | null> {
    return new DynamoHostClaims(this.db, this.tableName).verifiedClaim(hostname);
  }

  async verify(domain: Domain, now: number, audit: AuditRow): Promise<'verified' | 'already' | 'taken' | 'gone'> {
    const refused = await this.transact([
      // One verified claim per hostname: the first whose record is found holds it.
      this.put(
        {
          ...hostnameKey(domain.hostname),
          type: 'hostname',
          hostname: domain.hostname,
          domain_id: domain.id,
          workspace_id: domain.workspaceId,
          verified_at: now,
        } satisfies HostnameItem,
        'attribute_not_exists(pk) OR domain_id = :id',
        { ':id': domain.id },
      ),
      {
        Update: {
          TableName: this.tableName,
          Key: claimKey(domain.workspaceId, domain.hostname),
          // Off the checks' list and onto hosting's, due at the schedule's next run.
          UpdateExpression:
            'SET #state = :verified, verified_at = :now, last_checked_at = :now, last_error = :none, hosting_step = :due, hosting_since = :now, gsi2pk = :hosting, gsi2sk = :dueAt',
          // Still this claim, and still pending: a verification racing another (a person's and the
          // schedule's) writes once, with one audit row and one start of its hosting window.
          ConditionExpression: 'id = :id AND #state = :pending',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':verified': 'verified',
            ':pending': 'pending',
            ':now': now,
            ':none': null,
            ':id': domain.id,
            ':due': 'due',
            ':hosting': hostingDue(domain.id, now).gsi2pk,
            ':dueAt': hostingDue(domain.id, now).gsi2sk,
          },
        },
      },
      this.audit(audit),
    ]);
    if (refused === null) return 'verified';
    if (refused[1] !== 'ConditionalCheckFailed') return 'taken';
    const current = await this.get(domain.id);
    return current?.state === 'verified' ? 'already' : 'gone';
  }

  async recordCheck(domain: Domain, now: number, error: DomainCheckError): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: claimKey(domain.workspaceId, domain.hostname),
          UpdateExpression: 'SET last_checked_at = :now, last_error = :error, gsi2sk = :next',
          // Still this claim, still pending and still on the schedule's list (gsi2pk is its shard).
          ConditionExpression: 'id = :id AND #state = :pending AND attribute_exists(gsi2pk)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: {
            ':now': now,
            ':error': error,
            ':id': domain.id,
            ':pending': 'pending',
            ':next': nextCheck(domain.id, now + recheckEveryMs).gsi2sk,
          },
        }),
      );
    } catch (failure) {
      if (!isConditionFailure(failure)) throw failure;
      // Off the list: record the check without putting it back.
      await this.db
        .send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: claimKey(domain.workspaceId, domain.hostname),
            UpdateExpression: 'SET last_checked_at = :now, last_error = :error',
            ConditionExpression: 'id = :id AND #state = :pending',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':now': now, ':error': error, ':id': domain.id, ':pending': 'pending' },
          }),
        )
        .catch((again: unknown) => {
          if (!isConditionFailure(again)) throw again;
        });
    }
  }

  async remove(domain: Domain, actor: Actor, audit: AuditRow, releaseSsoDomain?: string): Promise<boolean> {
    const hostname = (held: boolean): TransactWriteItem =>
      held
        ? // Only this claim's hold on the hostname, never another's.
          {
            Delete: {
              TableName: this.tableName,
              Key: hostnameKey(domain.hostname),
              ConditionExpression: 'domain_id = :id',
              ExpressionAttributeValues: { ':id': domain.id },
            },
          }
        : // Not held by it: checked as the claim goes, so a verification landing meanwhile is never left behind.
          {
            ConditionCheck: {
              TableName: this.tableName,
              Key: hostnameKey(domain.hostname),
              ConditionExpression: 'attribute_not_exists(pk) OR domain_id <> :id',
              ExpressionAttributeValues: { ':id': domain.id },
            },
          };
    // A claim that held its hostname may have a tenant serving it: the order to stop it is written
    // with the claim's removal, so no tenant outlives its claim unseen (and keeps the hostname).
    const stopOrder = (): TransactWriteItem => this.put(stopOrderItem(domain, audit.at));
    let held = domain.state === 'verified';
    let release = releaseSsoDomain;
    for (let attempt = 0; attempt < 4; attempt++) {
      const items: TransactWriteItem[] = [
        {
          Delete: {
            TableName: this.tableName,
            Key: claimKey(domain.workspaceId, domain.hostname),
            ConditionExpression: 'id = :id',
            ExpressionAttributeValues: { ':id': domain.id },
          },
        },
        { Delete: { TableName: this.tableName, Key: pointerKey(domain.id) } },
        this.actorCheck(domain.workspaceId, actor),
        this.audit(audit),
        hostname(held),
        ...(held ? [stopOrder()] : []),
      ];
      // The SSO directory stops speaking for the domain this claim proved, in the same change.
      const releaseAt = release ? items.push(ssoDomainRelease(this.tableName, release, domain.workspaceId)) - 1 : -1;
      const refused = await this.transact(items);
      if (refused === null) return true;
      // Deleted meanwhile by someone else, who wrote its audit row.
      if (refused[0] === 'ConditionalCheckFailed') return true;
      if (refused[2] === 'ConditionalCheckFailed') return false;
      if (refused[4] === 'ConditionalCheckFailed') held = !held;
      // Released already, or never this workspace's: nothing to release.
      if (releaseAt >= 0 && refused[releaseAt] === 'ConditionalCheckFailed') release = undefined;
    }
    throw new Error(`domain ${domain.id}: its hostname's claim kept changing while it was deleted`);
  }

  async pendingDue(now: number, limit: number): Promise<Domain[]> {
    const entries = await dueEntries(this.db, this.tableName, workQueues.domainCheck, now, limit);
    if (entries.length === 0) return [];
    const { Responses } = await this.db.send(
      new BatchGetCommand({
        RequestItems: { [this.tableName]: { Keys: entries.map((entry) => ({ pk: entry.pk, sk: entry.sk })), ConsistentRead: true } },
      }),
    );
    const byKey = new Map((Responses?.[this.tableName] ?? []).map((item) => [`${String(item.pk)}|${String(item.sk)}`, item]));
    return entries
      .map((entry) => byKey.get(`${String(entry.pk)}|${String(entry.sk)}`))
      .filter((item): item is Record<string, unknown> => item !== undefined && item.state === 'pending')
      .map(toDomain);
  }

  async stopChecking(domain: Domain): Promise<void> {
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: claimKey(domain.workspaceId, domain.hostname),
          UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
          // Verified meanwhile, its entry is hosting's now: left alone.
          ConditionExpression: 'id = :id AND #state = :pending',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':id': domain.id, ':pending': 'pending' },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }
}
