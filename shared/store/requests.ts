import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { toEpochSeconds } from '../clock.ts';
import type { AddedResponse, RequestStore } from '../domain/requests/ports.ts';
import type { RequestKem, RequestLink, RequestSummary, SealedResponse } from '../domain/requests/model.ts';
import { isCancelledByCondition, isConditionFailure, isTransactionConflict } from './client.ts';
import { decodeCursor } from './cursor.ts';
import {
  requestKey as linkKey,
  requestListing,
  requestListingPartition as ownerPartition,
  responseKey,
  responsePrefix,
  type RequestItem,
  type ResponseItem,
} from './items/index.ts';
import { queryPage } from './listing.ts';
import { fileActivation } from './secretItem.ts';

/**
 * Request links and their responses share a partition (items/requests.ts), so the inbox is one
 * Query, newest first, and a response is counted and stored in one transaction. The link's
 * counters use the listing index's projected names (`max_views`, `views_left`, `state`,
 * `ended_at`: the responses it takes, those left, open or closed, when it closed), so the
 * owner's listing (gsi1) needs no index of its own. Everything goes by TTL a retention after
 * the link expires (the domain says when). A file response activates its secret through the
 * secret store's part (secretItem.ts's `fileActivation`), in the response's transaction.
 */

function toLinkItem(link: RequestLink, until: number): RequestItem {
  return {
    ...linkKey(link.id),
    type: 'request',
    id: link.id,
    owner_id: link.ownerId,
    ...(link.workspaceId === undefined ? {} : { workspace_id: link.workspaceId }),
    ...(link.linkHost ? { domain_id: link.linkHost.domainId, hostname: link.linkHost.hostname } : {}),
    public_key: link.publicKey,
    kem: link.kem,
    ...(link.promptEnvelope ? { prompt_envelope: link.promptEnvelope } : {}),
    ...(link.labelEnvelope ? { name: link.labelEnvelope } : {}),
    state: link.closedAt === null ? 'open' : 'closed',
    ...(link.closedAt === null ? {} : { ended_at: link.closedAt }),
    max_views: link.maxResponses,
    views_left: link.responsesLeft,
    created_at: link.createdAt,
    expires_at: link.expiresAt,
    ...requestListing(link.ownerId, link.createdAt, link.id),
    ttl: toEpochSeconds(until),
  };
}

function toSummary(item: Record<string, unknown>): RequestSummary {
  return {
    id: String(item.id),
    ownerId: String(item.owner_id),
    createdAt: Number(item.created_at),
    expiresAt: Number(item.expires_at),
    maxResponses: Number(item.max_views),
    responsesLeft: Number(item.views_left),
    closedAt: item.state === 'closed' ? Number(item.ended_at ?? 0) : null,
    ...(item.name instanceof Uint8Array ? { labelEnvelope: item.name } : {}),
  };
}

function toLink(item: Record<string, unknown>): RequestLink {
  return {
    ...toSummary(item),
    publicKey: String(item.public_key),
    kem: item.kem as RequestKem,
    promptEnvelope: item.prompt_envelope instanceof Uint8Array ? item.prompt_envelope : null,
    ...(typeof item.workspace_id === 'string' ? { workspaceId: item.workspace_id } : {}),
    ...(typeof item.domain_id === 'string' ? { linkHost: { domainId: item.domain_id, hostname: String(item.hostname) } } : {}),
  };
}

function toResponseItem(response: SealedResponse, until: number): ResponseItem {
  return {
    ...responseKey(response.requestId, response.createdAt, response.id),
    type: 'response',
    id: response.id,
    request_id: response.requestId,
    kind: response.sealed.kind,
    ...(response.sealed.kind === 'text' ? { envelope: response.sealed.envelope } : { secret_id: response.sealed.secretId }),
    salt: response.salt,
    size_bytes: response.sizeBytes,
    enc: response.enc,
    wrapped_key: response.wrappedKey,
    created_at: response.createdAt,
    ttl: toEpochSeconds(until),
  };
}

function toResponse(item: Record<string, unknown>): SealedResponse {
  return {
    id: String(item.id),
    requestId: String(item.request_id),
    createdAt: Number(item.created_at),
    salt: String(item.salt),
    sizeBytes: Number(item.size_bytes),
    enc: String(item.enc),
    wrappedKey: String(item.wrapped_key),
    sealed:
      item.kind === 'file' ? { kind: 'file', secretId: String(item.secret_id) } : { kind: 'text', envelope: item.envelope as Uint8Array },
  };
}

export class DynamoRequestStore implements RequestStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async insert(link: RequestLink, until: number): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.tableName, Item: toLinkItem(link, until), ConditionExpression: 'attribute_not_exists(pk)' }),
    );
  }

  async get(id: string): Promise<RequestLink | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: linkKey(id), ConsistentRead: true }));
    return Item ? toLink(Item) : null;
  }

  async listByOwner(ownerId: string, limit: number, cursor: string | null) {
    const partition = ownerPartition(ownerId);
    const page = await queryPage(
      this.db,
      {
        TableName: this.tableName,
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :pk',
        ExpressionAttributeValues: { ':pk': partition },
        ScanIndexForward: false,
        ...(cursor === null ? {} : { ExclusiveStartKey: decodeCursor(cursor, partition) }),
      },
      limit,
      ['pk', 'sk', 'gsi1pk', 'gsi1sk'],
    );
    return { items: page.items.map(toSummary), nextCursor: page.nextCursor };
  }

  async close(id: string, ownerId: string, now: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: linkKey(id),
          // A closed link keeps the time it first closed.
          UpdateExpression: 'SET #state = :closed, ended_at = if_not_exists(ended_at, :now)',
          ConditionExpression: 'owner_id = :owner',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':closed': 'closed', ':now': now, ':owner': ownerId },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async addResponse(response: SealedResponse, until: number, now: number): Promise<AddedResponse> {
    const outcome = await this.transact(response, until, now, []);
    return outcome === 'not_pending' ? 'refused' : outcome;
  }

  async addFileResponse(
    response: SealedResponse,
    upload: {
      secret: { id: string; expiresAt: number };
      uploadId: string;
      envelopeFormat: { passphrase: boolean; kdfIterations: number } | undefined;
    },
    until: number,
    now: number,
  ) {
    return this.transact(response, until, now, [
      { Update: { TableName: this.tableName, ...fileActivation(upload.secret, upload.uploadId, upload.envelopeFormat) } },
    ]);
  }

  /**
   * One transaction: the link's count (while open, unexpired and not full), the response, and
   * whatever else must happen with it. Which condition failed tells the outcome; conflicts that
   * outlasted the client's retries are `busy`.
   */
  private async transact(response: SealedResponse, until: number, now: number, more: object[]): Promise<AddedResponse | 'not_pending'> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: linkKey(response.requestId),
                UpdateExpression: 'SET #left = #left - :one',
                ConditionExpression: '#state = :open AND #exp > :now AND #left > :zero',
                ExpressionAttributeNames: { '#state': 'state', '#exp': 'expires_at', '#left': 'views_left' },
                ExpressionAttributeValues: { ':open': 'open', ':now': now, ':one': 1, ':zero': 0 },
              },
            },
            { Put: { TableName: this.tableName, Item: toResponseItem(response, until), ConditionExpression: 'attribute_not_exists(pk)' } },
            ...(more as []),
          ],
        }),
      );
      return 'added';
    } catch (error) {
      if (isTransactionConflict(error)) return 'busy';
      if (!isCancelledByCondition(error)) throw error;
      const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
      return reasons[0]?.Code === 'ConditionalCheckFailed' ? 'refused' : 'not_pending';
    }
  }

  async inbox(id: string, limit: number, cursor: string | null) {
    const partition = linkKey(id).pk;
    const page = await queryPage(
      this.db,
      {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :response)',
        ExpressionAttributeValues: { ':pk': partition, ':response': responsePrefix },
        ScanIndexForward: false,
        ...(cursor === null ? {} : { ExclusiveStartKey: decodeCursor(cursor, partition, 'pk') }),
      },
      limit,
      ['pk', 'sk'],
    );
    return { items: page.items.map(toResponse), nextCursor: page.nextCursor };
  }
}
