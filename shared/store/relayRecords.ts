import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { SecretImage, SecretWrite } from '../domain/relay/projections.ts';
import type { SecretState, StoredEvent } from '../domain/secrets/model.ts';
import type { Delivery } from '../domain/webhooks/model.ts';

/**
 * Which of the table's stream records reach the relay (any one pattern matching): changes of
 * secrets that have an owner (anonymous secrets have no endpoints to feed and count in nobody's
 * usage) or a chat subscription (whose user is told of views and expiry), and test
 * deliveries as they are written. The relay's event source mapping filters with these in AWS,
 * and the local stream poller with the same patterns, so neither invokes the relay for rate
 * counters, sessions, anonymous secrets or the deliveries the relay writes itself.
 */
export const relayFilters = [
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { type: { S: ['secret'] }, owner_id: { S: [{ exists: true }] } } } },
  { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['webhook_delivery'] }, event_type: { S: ['webhook.test'] } } } },
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { type: { S: ['secret'] }, chat_team: { S: [{ exists: true }] } } } },
  // Files, owned or not: their ends delete their objects (an anonymous file's too).
  { eventName: ['MODIFY'], dynamodb: { NewImage: { type: { S: ['secret'] }, kind: { S: ['file'] } } } },
] as const;

type Image = Record<string, AttributeValue>;
type StreamRecord = { eventName?: string; dynamodb?: { NewImage?: unknown; OldImage?: unknown } };

/** A version of a secret's item (items/secrets.ts) as the domain reads it. */
function secretImage(item: Record<string, unknown>): SecretImage {
  return {
    id: String(item.id),
    ...(typeof item.owner_id === 'string' ? { ownerId: item.owner_id } : {}),
    ...(typeof item.workspace_id === 'string' ? { workspaceId: item.workspace_id } : {}),
    state: item.state as SecretState,
    kind: item.kind as SecretImage['kind'],
    sizeBytes: Number(item.size_bytes ?? 0),
    viewsLeft: Number(item.views_left),
    viewsTaken: Number(item.views_taken ?? 0),
    ...(typeof item.upload_id === 'string' ? { uploadId: item.upload_id } : {}),
    ...(typeof item.chat_team === 'string' && typeof item.chat_user === 'string'
      ? { chat: { teamId: item.chat_team, chatUserId: item.chat_user } }
      : {}),
    keptUntil: Number(item.ttl ?? 0) * 1000,
  };
}

/**
 * The write a stream record tells of any secret (owned or not): the secret after it and before
 * it, and the events it added. An item keeps only the events of the write that made it
 * (`emitted`), and a write that adds none leaves the last one's there: those the item before it
 * held are not this write's. Null for other items and for removals.
 */
export function secretWriteOf(record: StreamRecord): SecretWrite | null {
  const newImage = record.dynamodb?.NewImage as Image | undefined;
  if (record.eventName === 'REMOVE' || !newImage) return null;
  const after = unmarshall(newImage);
  if (after.type !== 'secret') return null;
  const oldImage = record.dynamodb?.OldImage as Image | undefined;
  const old = oldImage ? unmarshall(oldImage) : null;
  const held = new Set(((old?.emitted ?? []) as StoredEvent[]).map((event) => event.id));
  return {
    secret: secretImage(after),
    before: old ? secretImage(old) : null,
    events: ((after.emitted ?? []) as StoredEvent[]).filter((event) => !held.has(event.id)),
  };
}

/** The test delivery a stream record tells was just written, as far as its first attempt needs it. */
export function testDeliveryOf(record: DynamoDBRecord): Pick<Delivery, 'id' | 'endpointId' | 'userId'> | null {
  const newImage = record.dynamodb?.NewImage as Image | undefined;
  if (record.eventName !== 'INSERT' || !newImage) return null;
  const item = unmarshall(newImage);
  if (item.type !== 'webhook_delivery' || item.event_type !== 'webhook.test') return null;
  return { id: String(item.id), endpointId: String(item.endpoint_id), userId: String(item.user_id) };
}
