import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { toEpochSeconds, toIso } from '../clock.ts';
import { sha256 } from '../ids.ts';
import type { Secret, StoredEvent } from '../domain/secrets/model.ts';
import type { EndInput, SecretStore, TakeViewInput, TakeViewResult } from '../domain/secrets/ports.ts';
import { isConditionFailure } from './client.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { usageAdjustment } from './usage.ts';

/** Sharding of the two work indexes, so no single index partition takes every write. */
const shards = 4;
const shardOf = (id: string): number => sha256(id)[0]! % shards;

const key = (id: string) => ({ pk: `SECRET#${id}`, sk: 'SECRET' });

/** Attribute names, aliased in every expression (several are DynamoDB reserved words). */
const names = {
  '#state': 'state',
  '#env': 'envelope',
  '#vl': 'views_left',
  '#exp': 'expires_at',
  '#nb': 'not_before',
  '#cv': 'claim_verifier',
  '#events': 'events',
  '#ended': 'ended_at',
  '#ttl': 'ttl',
  '#rp': 'refused_proofs',
  '#de': 'denied_events',
  '#g2pk': 'gsi2pk',
  '#g2sk': 'gsi2sk',
  '#g3pk': 'gsi3pk',
  '#g3sk': 'gsi3sk',
} as const;
type Name = keyof typeof names;
const pick = (...wanted: Name[]) => Object.fromEntries(wanted.map((name) => [name, names[name]]));

/** Keys that list a secret under its owner, newest first. */
const ownerKeys = (ownerId: string, createdAt: number, id: string) => ({ gsi1pk: `OWNER#${ownerId}`, gsi1sk: `${toIso(createdAt)}#${id}` });

/** Keys that put an item with undelivered events on the outbox index. */
const outboxKeys = (id: string, event: StoredEvent) => ({
  ':g3pk': `OUTBOX#${shardOf(id)}`,
  ':g3sk': `${toIso(event.at)}#${id}`,
});

interface SecretItem {
  pk: string;
  sk: string;
  type: 'secret';
  id: string;
  owner_id?: string;
  state: Secret['state'];
  kind: Secret['kind'];
  envelope?: Uint8Array;
  salt: string;
  size_bytes: number;
  max_views: number;
  views_left: number;
  created_at: number;
  expires_at: number;
  not_before?: number;
  claim_verifier?: string;
  passphrase?: boolean;
  kdf_iterations?: number;
  delete_token_hash: string;
  refused_proofs: number;
  denied_events: number;
  ended_at?: number;
  events: StoredEvent[];
  events_relayed: number;
  ttl: number;
  gsi1pk?: string;
  gsi1sk?: string;
  gsi2pk?: string;
  gsi2sk?: string;
  gsi3pk?: string;
  gsi3sk?: string;
}

function toItem(secret: Secret, tombstoneSeconds: number): SecretItem {
  const lastEvent = secret.events.at(-1);
  return {
    ...key(secret.id),
    type: 'secret',
    id: secret.id,
    ...(secret.ownerId === undefined ? {} : { owner_id: secret.ownerId, ...ownerKeys(secret.ownerId, secret.createdAt, secret.id) }),
    state: secret.state,
    kind: secret.kind,
    ...(secret.envelope ? { envelope: secret.envelope } : {}),
    salt: secret.salt,
    size_bytes: secret.sizeBytes,
    max_views: secret.maxViews,
    views_left: secret.viewsLeft,
    created_at: secret.createdAt,
    expires_at: secret.expiresAt,
    ...(secret.notBefore === undefined ? {} : { not_before: secret.notBefore }),
    ...(secret.claimVerifier === undefined ? {} : { claim_verifier: secret.claimVerifier }),
    ...(secret.envelopeFormat
      ? { passphrase: secret.envelopeFormat.passphrase, kdf_iterations: secret.envelopeFormat.kdfIterations }
      : {}),
    delete_token_hash: secret.deleteTokenHash,
    refused_proofs: secret.refusedProofs,
    denied_events: secret.deniedEvents,
    events: secret.events,
    events_relayed: 0,
    // TTL is only the backstop: the sweep ends the secret at expiry, TTL drops the tombstone later.
    ttl: toEpochSeconds(secret.expiresAt) + tombstoneSeconds,
    gsi2pk: `DUE#${shardOf(secret.id)}`,
    gsi2sk: `${toIso(secret.expiresAt)}#${secret.id}`,
    ...(lastEvent
      ? { gsi3pk: `OUTBOX#${shardOf(secret.id)}`, gsi3sk: `${toIso(lastEvent.at)}#${secret.id}` }
      : {}),
  };
}

function fromItem(item: Record<string, unknown>): Secret {
  const row = item as unknown as SecretItem;
  return {
    id: row.id,
    ...(row.owner_id === undefined ? {} : { ownerId: row.owner_id }),
    state: row.state,
    kind: row.kind,
    ...(row.envelope ? { envelope: row.envelope } : {}),
    salt: row.salt,
    sizeBytes: row.size_bytes,
    maxViews: row.max_views,
    viewsLeft: row.views_left,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    ...(row.not_before === undefined ? {} : { notBefore: row.not_before }),
    ...(row.claim_verifier === undefined ? {} : { claimVerifier: row.claim_verifier }),
    ...(row.passphrase === undefined ? {} : { envelopeFormat: { passphrase: row.passphrase, kdfIterations: row.kdf_iterations ?? 0 } }),
    deleteTokenHash: row.delete_token_hash,
    refusedProofs: row.refused_proofs,
    deniedEvents: row.denied_events,
    ...(row.ended_at === undefined ? {} : { endedAt: row.ended_at }),
    events: row.events,
  };
}

/** A transaction refused because one of its conditions did not hold. */
function isCancelledByCondition(error: unknown): boolean {
  const reasons = (error as { name?: string; CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
  return (error as { name?: string }).name === 'TransactionCanceledException' && (reasons ?? []).some((reason) => reason.Code === 'ConditionalCheckFailed');
}

/** The item a refused condition returned (ReturnValuesOnConditionCheckFailure), if any. */
function refusedItem(error: { Item?: Record<string, unknown> }): Secret | null {
  if (!error.Item) return null;
  return fromItem(unmarshall(error.Item as Record<string, AttributeValue>));
}

const endConditions: Record<EndInput['state'], string> = {
  burned: '#state = :active AND #vl = :zero',
  expired: '#state IN (:active, :pending) AND #exp <= :now',
  // Once the last view is taken the secret is as good as burned: only the burn may end it.
  revoked: '#state IN (:active, :pending) AND #vl > :zero',
  locked: '#state = :active AND #vl > :zero',
};

export class DynamoSecretStore implements SecretStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly tombstoneSeconds: number,
  ) {}

  async insert(secret: Secret): Promise<void> {
    const put = { TableName: this.tableName, Item: toItem(secret, this.tombstoneSeconds), ConditionExpression: 'attribute_not_exists(pk)' };
    if (secret.ownerId === undefined) {
      await this.db.send(new PutCommand(put));
      return;
    }
    // The owner's live-secret and byte counters move with the secret, never apart from it.
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: [{ Put: put }, { Update: usageAdjustment(this.tableName, secret.ownerId, 1, secret.sizeBytes) }],
      }),
    );
  }

  async get(id: string): Promise<Secret | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key(id), ConsistentRead: true }));
    return Item ? fromItem(Item) : null;
  }

  async takeView(id: string, input: TakeViewInput): Promise<TakeViewResult> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(id),
          UpdateExpression: 'SET #vl = #vl - :one, #events = list_append(#events, :event), #g3pk = :g3pk, #g3sk = :g3sk',
          ConditionExpression:
            '#state = :active AND #exp > :now AND #vl > :zero' +
            ' AND (attribute_not_exists(#nb) OR #nb <= :now)' +
            ' AND (attribute_not_exists(#cv) OR #cv = :proof)',
          ExpressionAttributeNames: pick('#state', '#exp', '#vl', '#nb', '#cv', '#events', '#g3pk', '#g3sk'),
          ExpressionAttributeValues: {
            ':active': 'active',
            ':now': input.now,
            ':zero': 0,
            ':one': 1,
            // A digest is never '-', so a claim without a proof fails a secret that needs one.
            ':proof': input.proofHash ?? '-',
            ':event': [input.event],
            ...outboxKeys(id, input.event),
          },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { taken: true, secret: fromItem(Attributes!) };
    } catch (error) {
      if (isConditionFailure(error)) return { taken: false, current: refusedItem(error) };
      throw error;
    }
  }

  async end(id: string, input: EndInput): Promise<boolean> {
    const condition = endConditions[input.state];
    const values: Record<string, unknown> = {
      ':state': input.state,
      ':now': input.now,
      ':event': [input.event],
      ':tomb': toEpochSeconds(input.tombstoneUntil),
      ':active': 'active',
      ...outboxKeys(id, input.event),
    };
    if (condition.includes(':pending')) values[':pending'] = 'pending';
    if (condition.includes(':zero')) values[':zero'] = 0;
    const conditionNames = [...(condition.includes('#vl') ? ['#vl' as const] : []), ...(condition.includes('#exp') ? ['#exp' as const] : [])];
    const update = {
      TableName: this.tableName,
      Key: key(id),
      UpdateExpression:
        'SET #state = :state, #ended = :now, #events = list_append(#events, :event), #ttl = :tomb, #g3pk = :g3pk, #g3sk = :g3sk' +
        ' REMOVE #env, #g2pk, #g2sk',
      ConditionExpression: condition,
      ExpressionAttributeNames: pick('#state', '#ended', '#events', '#ttl', '#g3pk', '#g3sk', '#env', '#g2pk', '#g2sk', ...conditionNames),
      ExpressionAttributeValues: values,
    };
    try {
      if (input.owner) {
        await this.db.send(
          new TransactWriteCommand({
            TransactItems: [{ Update: update }, { Update: usageAdjustment(this.tableName, input.owner.userId, -1, -input.owner.sizeBytes) }],
          }),
        );
      } else {
        await this.db.send(new UpdateCommand(update));
      }
      return true;
    } catch (error) {
      if (isConditionFailure(error) || isCancelledByCondition(error)) return false;
      throw error;
    }
  }

  async refuseProof(id: string, event: StoredEvent): Promise<number> {
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: key(id),
        UpdateExpression: 'SET #events = list_append(#events, :event), #g3pk = :g3pk, #g3sk = :g3sk ADD #rp :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: pick('#events', '#g3pk', '#g3sk', '#rp'),
        ExpressionAttributeValues: { ':event': [event], ':one': 1, ...outboxKeys(id, event) },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return (Attributes?.refused_proofs as number | undefined) ?? 0;
  }

  async recordDenial(id: string, event: StoredEvent, cap: number): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(id),
          UpdateExpression: 'SET #events = list_append(#events, :event), #g3pk = :g3pk, #g3sk = :g3sk ADD #de :one',
          ConditionExpression: 'attribute_exists(pk) AND #de < :cap',
          ExpressionAttributeNames: pick('#events', '#g3pk', '#g3sk', '#de'),
          ExpressionAttributeValues: { ':event': [event], ':one': 1, ':cap': cap, ...outboxKeys(id, event) },
        }),
      );
    } catch (error) {
      // At the cap the refusal stands; it is just not recorded again.
      if (!isConditionFailure(error)) throw error;
    }
  }

  async dueForExpiry(now: number, limit: number): Promise<Array<{ id: string; owner?: EndInput['owner'] }>> {
    const upTo = `${toIso(now)}#~`;
    const pages = await Promise.all(
      Array.from({ length: shards }, (_, shard) =>
        this.db.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: 'gsi2',
            KeyConditionExpression: '#g2pk = :due AND #g2sk <= :upTo',
            ExpressionAttributeNames: pick('#g2pk', '#g2sk'),
            ExpressionAttributeValues: { ':due': `DUE#${shard}`, ':upTo': upTo },
            Limit: limit,
          }),
        ),
      ),
    );
    return pages
      .flatMap((page) => page.Items ?? [])
      .sort((a, b) => String(a.gsi2sk).localeCompare(String(b.gsi2sk)))
      .slice(0, limit)
      .map((item) => ({
        id: String(item.pk).slice('SECRET#'.length),
        ...(typeof item.owner_id === 'string' ? { owner: { userId: item.owner_id, sizeBytes: Number(item.size_bytes ?? 0) } } : {}),
      }));
  }

  async listForOwner(ownerId: string, limit: number, cursor: string | null): Promise<{ items: Secret[]; nextCursor: string | null }> {
    const page = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :owner',
        ExpressionAttributeValues: { ':owner': `OWNER#${ownerId}` },
        ScanIndexForward: false,
        Limit: limit,
        ...(cursor === null ? {} : { ExclusiveStartKey: decodeCursor(cursor, `OWNER#${ownerId}`) }),
      }),
    );
    // The listing index carries no envelope, token hashes or events; the views need none.
    const items = (page.Items ?? []).map((item) => fromItem({ delete_token_hash: '', refused_proofs: 0, denied_events: 0, events: [], ...item }));
    return { items, nextCursor: page.LastEvaluatedKey ? encodeCursor(page.LastEvaluatedKey) : null };
  }

  async recordReport(id: string, reporterHash: string, event: StoredEvent): Promise<number> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(id),
          UpdateExpression: 'ADD reporters :reporter SET #events = list_append(#events, :event), #g3pk = :g3pk, #g3sk = :g3sk',
          ConditionExpression: 'attribute_exists(pk) AND NOT contains(reporters, :reporterHash)',
          ExpressionAttributeNames: pick('#events', '#g3pk', '#g3sk'),
          ExpressionAttributeValues: {
            ':reporter': new Set([reporterHash]),
            ':reporterHash': reporterHash,
            ':event': [event],
            ...outboxKeys(id, event),
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return (Attributes?.reporters as Set<string> | undefined)?.size ?? 0;
    } catch (error) {
      // The same reporter again: counted once already.
      if (isConditionFailure(error)) return 0;
      throw error;
    }
  }

  async adopt(id: string, ownerId: string, sizeBytes: number): Promise<boolean> {
    const current = await this.get(id);
    if (!current) return false;
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: key(id),
                UpdateExpression: 'SET owner_id = :owner, gsi1pk = :g1pk, gsi1sk = :g1sk',
                ConditionExpression: 'attribute_not_exists(owner_id) AND #state IN (:active, :pending)',
                ExpressionAttributeNames: { '#state': 'state' },
                ExpressionAttributeValues: {
                  ':owner': ownerId,
                  ':g1pk': ownerKeys(ownerId, current.createdAt, id).gsi1pk,
                  ':g1sk': ownerKeys(ownerId, current.createdAt, id).gsi1sk,
                  ':active': 'active',
                  ':pending': 'pending',
                },
              },
            },
            { Update: usageAdjustment(this.tableName, ownerId, 1, sizeBytes) },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isCancelledByCondition(error)) return false;
      throw error;
    }
  }
}
