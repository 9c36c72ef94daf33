import { PutCommand, UpdateCommand, type DynamoDBDocumentClient, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import { ownerListingPartition, secretIdOf, secretKey as key, workEntry, workQueues } from './items/index.ts';
import { fileActivation, fromItem, pick, toItem } from './secretItem.ts';
import type { Secret, StoredEvent } from '../domain/secrets/model.ts';
import type { EndInput, SecretStore, TakeViewInput, TakeViewResult } from '../domain/secrets/ports.ts';
import { isConditionFailure } from './client.ts';
import { deleteEnvelopeParts, inlineEnvelopeBytes, readEnvelopeParts, writeEnvelopeParts } from './envelopeParts.ts';
import { decodeCursor } from './cursor.ts';
import { queryPage } from './listing.ts';
import { dueEntries } from './workIndex.ts';
import { getSecret } from './secretRead.ts';
import { completingMark, completionTry } from './uploadCompletion.ts';

/** The item a refused condition returned (ReturnValuesOnConditionCheckFailure), if any. */
function refusedItem(error: { Item?: Record<string, unknown> }): Secret | null {
  if (!error.Item) return null;
  return fromItem(unmarshall(error.Item as Record<string, AttributeValue>));
}

const endConditions: Record<EndInput['state'], string> = {
  burned: '#state = :active AND #vl = :zero',
  // A secret whose last view is taken is burned, not expired, even if its burn is late.
  expired: '#state IN (:active, :pending) AND #exp <= :now AND #vl > :zero',
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
    let stored = secret;
    if (secret.envelope && secret.envelope.length > inlineEnvelopeBytes) {
      // Parts first: a secret never exists without them (parts of a secret never made expire by TTL).
      const { envelope, ...rest } = secret;
      const ttl = toItem(secret, this.tombstoneSeconds).ttl;
      stored = { ...rest, envelopeParts: await writeEnvelopeParts(this.db, this.tableName, secret.id, envelope, ttl) };
    }
    // One item, whoever owns it: the owner's usage follows from the table's stream (functions/relay.ts).
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: toItem(stored, this.tombstoneSeconds),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  envelopeOf(id: string, parts: number): Promise<Uint8Array> {
    return readEnvelopeParts(this.db, this.tableName, id, parts);
  }

  get(id: string): Promise<Secret | null> {
    return getSecret(this.db, this.tableName, id);
  }

  async takeView(id: string, input: TakeViewInput): Promise<TakeViewResult> {
    // Through a link: its own budget goes down with the secret's, and only while it is active
    // (and, restricted, only for the address a gate session proved). Without one: only a
    // secret that has no links.
    const link = input.recipientId === undefined ? null : '#rcp.#rid';
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(id),
          // Views taken are counted apart from views left, which revoking a link lowers too.
          UpdateExpression: `SET #vl = #vl - :one, #emitted = :event${link ? `, ${link}.#rvl = ${link}.#rvl - :one` : ''} ADD #vt :one`,
          ConditionExpression:
            '#state = :active AND #exp > :now AND #vl > :zero' +
            // A secret kept in parts is taken only once its parts were read: nothing can fail after.
            (input.partsRead ? '' : ' AND attribute_not_exists(#parts)') +
            ' AND (attribute_not_exists(#nb) OR #nb <= :now)' +
            ' AND (attribute_not_exists(#cv) OR #cv = :proof)' +
            // A request link's file response opens from its requester's inbox only: no view.
            ' AND attribute_not_exists(#req)' +
            // On a workspace's hostname, only what was made under its claim (rule 5).
            (input.domainId === undefined ? '' : ' AND #domain = :domain') +
            (link
              ? ` AND ${link}.#rstate = :active AND ${link}.#rvl > :zero AND (${link}.#restricted = :false OR ${link}.#remail = :gate)`
              : ' AND attribute_not_exists(#rcp)'),
          ExpressionAttributeNames: {
            ...pick('#state', '#exp', '#vl', '#nb', '#cv', '#emitted', '#rcp', '#req', '#vt'),
            ...(input.partsRead ? {} : pick('#parts')),
            ...(input.domainId === undefined ? {} : pick('#domain')),
            ...(link ? { ...pick('#rstate', '#rvl', '#restricted', '#remail'), '#rid': input.recipientId! } : {}),
          },
          ExpressionAttributeValues: {
            ':active': 'active',
            ':now': input.now,
            ':zero': 0,
            ':one': 1,
            // A digest is never '-', so a claim without a proof fails a secret that needs one.
            ':proof': input.proofHash ?? '-',
            ':event': [input.event],
            ...(link ? { ':false': false, ':gate': input.gateEmailHash ?? '-' } : {}),
            ...(input.domainId === undefined ? {} : { ':domain': input.domainId }),
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
    };
    if (condition.includes(':pending')) values[':pending'] = 'pending';
    if (condition.includes(':zero')) values[':zero'] = 0;
    const conditionNames = [
      ...(condition.includes('#vl') ? ['#vl' as const] : []),
      ...(condition.includes('#exp') ? ['#exp' as const] : []),
    ];
    const update = {
      TableName: this.tableName,
      Key: key(id),
      UpdateExpression: 'SET #state = :state, #ended = :now, #emitted = :event, #ttl = :tomb' + ' REMOVE #env, #parts, #g2pk, #g2sk',
      ConditionExpression: condition,
      ExpressionAttributeNames: pick('#state', '#ended', '#emitted', '#ttl', '#env', '#parts', '#g2pk', '#g2sk', ...conditionNames),
      ExpressionAttributeValues: values,
      // Tells whether the envelope was kept in parts, which go too.
      ReturnValues: 'UPDATED_OLD' as const,
    };
    let parts: number | undefined;
    try {
      const { Attributes } = await this.db.send(new UpdateCommand(update));
      parts = Attributes?.envelope_parts as number | undefined;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
    // The secret has ended either way; parts a failed delete leaves behind expire by TTL.
    if (parts) await deleteEnvelopeParts(this.db, this.tableName, id, parts).catch(() => undefined);
    return true;
  }

  async revokeRecipient(
    id: string,
    recipientId: string,
    viewsLeft: number,
  ): Promise<{ revoked: true; secretViewsLeft: number } | { revoked: false }> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(id),
          UpdateExpression: 'SET #rcp.#rid.#rstate = :revoked, #rcp.#rid.#rvl = :zero, #vl = #vl - :left',
          ConditionExpression: '#state = :active AND #rcp.#rid.#rstate = :active AND #rcp.#rid.#rvl = :left',
          ExpressionAttributeNames: { ...pick('#state', '#vl', '#rcp', '#rstate', '#rvl'), '#rid': recipientId },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':active': 'active', ':zero': 0, ':left': viewsLeft },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { revoked: true, secretViewsLeft: Number(Attributes?.views_left ?? 0) };
    } catch (error) {
      if (isConditionFailure(error)) return { revoked: false };
      throw error;
    }
  }

  async activateFile(id: string, uploadId: string, envelopeFormat: Secret['envelopeFormat']): Promise<boolean> {
    const current = await this.get(id);
    if (!current) return false;
    try {
      await this.db.send(new UpdateCommand({ TableName: this.tableName, ...fileActivation(current, uploadId, envelopeFormat) }));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async staleUploads(now: number, limit: number): Promise<string[]> {
    return (await dueEntries(this.db, this.tableName, workQueues.upload, now, limit)).map((item) => secretIdOf(item.pk));
  }

  async markCompleting(id: string, uploadId: string, now: number): Promise<boolean> {
    return this.conditionalUpdate(completingMark(id, uploadId, now));
  }

  async dueCompletions(now: number, limit: number): Promise<string[]> {
    return (await dueEntries(this.db, this.tableName, workQueues.completion, now, limit)).map((item) => secretIdOf(item.pk));
  }

  async leaseCompletion(id: string, attempts: number, until: number): Promise<boolean> {
    return this.conditionalUpdate(completionTry(id, attempts, attempts + 1, until));
  }

  async retryCompletion(id: string, attempts: number, at: number): Promise<void> {
    await this.conditionalUpdate(completionTry(id, attempts, attempts, at));
  }

  /** An update that may lose to another write: false when its condition failed. */
  private async conditionalUpdate(input: Omit<UpdateCommandInput, 'TableName'>): Promise<boolean> {
    try {
      await this.db.send(new UpdateCommand({ TableName: this.tableName, ...input }));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async schedulePurge(id: string, at: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: key(id),
        UpdateExpression: 'SET #g2pk = :purge, #g2sk = :at',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: pick('#g2pk', '#g2sk'),
        ExpressionAttributeValues: {
          ':purge': workEntry(workQueues.purge, id, at).gsi2pk,
          ':at': workEntry(workQueues.purge, id, at).gsi2sk,
        },
      }),
    );
  }

  async duePurges(now: number, limit: number): Promise<string[]> {
    return (await dueEntries(this.db, this.tableName, workQueues.purge, now, limit)).map((item) => secretIdOf(item.pk));
  }

  async purged(id: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(id),
          UpdateExpression: 'REMOVE #g2pk, #g2sk',
          // An item gone (its TTL) has nothing to take off the index: an update would make one holding only its keys.
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: pick('#g2pk', '#g2sk'),
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async refuseProof(id: string, event: StoredEvent): Promise<number> {
    const { Attributes } = await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: key(id),
        UpdateExpression: 'SET #emitted = :event ADD #rp :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: pick('#emitted', '#rp'),
        ExpressionAttributeValues: { ':event': [event], ':one': 1 },
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
          UpdateExpression: 'SET #emitted = :event ADD #de :one',
          ConditionExpression: 'attribute_exists(pk) AND #de < :cap',
          ExpressionAttributeNames: pick('#emitted', '#de'),
          ExpressionAttributeValues: { ':event': [event], ':one': 1, ':cap': cap },
        }),
      );
    } catch (error) {
      // At the cap the refusal stands; it is just not recorded again.
      if (!isConditionFailure(error)) throw error;
    }
  }

  async dueForExpiry(now: number, limit: number): Promise<string[]> {
    return (await dueEntries(this.db, this.tableName, workQueues.due, now, limit)).map((item) => secretIdOf(item.pk));
  }

  async listForOwner(ownerId: string, limit: number, cursor: string | null): Promise<{ items: Secret[]; nextCursor: string | null }> {
    const page = await queryPage(
      this.db,
      {
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :owner',
        ExpressionAttributeValues: { ':owner': ownerListingPartition(ownerId) },
        ScanIndexForward: false,
        ...(cursor === null ? {} : { ExclusiveStartKey: decodeCursor(cursor, ownerListingPartition(ownerId)) }),
      },
      limit,
      ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
    );
    // The listing index carries no envelope, token hashes or events; the views need none.
    const items = page.items.map((item) => fromItem({ delete_token_hash: '', refused_proofs: 0, denied_events: 0, emitted: [], ...item }));
    return { items, nextCursor: page.nextCursor };
  }

  async recordReport(id: string, reporterHash: string, proven: boolean, event: StoredEvent): Promise<number> {
    // Proven reports go in a set of their own: an address that reported without the link and
    // then with it counts towards the lock once it proves it.
    const set = proven ? 'proven_reporters' : 'reporters';
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key(id),
          UpdateExpression: `ADD reporters :reporter${proven ? ', proven_reporters :reporter' : ''} SET #emitted = :event`,
          ConditionExpression: `attribute_exists(pk) AND NOT contains(${set}, :reporterHash)`,
          ExpressionAttributeNames: pick('#emitted'),
          ExpressionAttributeValues: {
            ':reporter': new Set([reporterHash]),
            ':reporterHash': reporterHash,
            ':event': [event],
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return (Attributes?.proven_reporters as Set<string> | undefined)?.size ?? 0;
    } catch (error) {
      // The same reporter again: counted once already.
      if (isConditionFailure(error)) return 0;
      throw error;
    }
  }
}
