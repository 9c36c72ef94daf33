import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { StoredEvent } from '../domain/secrets/model.ts';
import type { Delivery } from '../domain/webhooks/model.ts';
import type { SecretChange } from '../domain/webhooks/relay.ts';

/**
 * Which of the table's stream records reach the webhook relay (any one pattern matching):
 * changes of secrets that have an owner (anonymous secrets have no endpoints to feed), and test
 * deliveries as they are written. The relay's event source mapping filters with these in AWS,
 * and the local stream poller with the same patterns, so neither invokes the relay for rate
 * counters, sessions, anonymous secrets or the deliveries the relay writes itself.
 */
export const relayFilters = [
  { eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { type: { S: ['secret'] }, owner_id: { S: [{ exists: true }] } } } },
  { eventName: ['INSERT'], dynamodb: { NewImage: { type: { S: ['webhook_delivery'] }, event_type: { S: ['webhook.test'] } } } },
] as const;

type Image = Record<string, AttributeValue>;

/**
 * The change a stream record tells of an owned secret: the secret as written, and how many
 * events the write added (its events minus those before it). Null for anything else, and for
 * writes that added no event (adoption, for one: events from before it are not relayed).
 */
export function secretChangeOf(record: DynamoDBRecord): SecretChange | null {
  if (record.eventName === 'REMOVE') return null;
  const newImage = record.dynamodb?.NewImage as Image | undefined;
  if (!newImage) return null;
  const after = unmarshall(newImage);
  if (after.type !== 'secret' || typeof after.owner_id !== 'string') return null;
  const oldImage = record.dynamodb?.OldImage as Image | undefined;
  const before = oldImage ? unmarshall(oldImage) : undefined;
  const events = (after.events ?? []) as StoredEvent[];
  const added = events.length - ((before?.events as StoredEvent[] | undefined)?.length ?? 0);
  if (added <= 0) return null;
  return {
    secret: { id: String(after.id), ownerId: after.owner_id, maxViews: Number(after.max_views), events },
    added,
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
