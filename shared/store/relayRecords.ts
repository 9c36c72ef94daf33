import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { isTerminal, type Secret, type SecretState, type StoredEvent, type TerminalState } from '../domain/secrets/model.ts';
import type { FileEnd } from '../domain/files/lifecycle.ts';
import { usageChangeOf, type SecretUsageImage, type UsageChange } from '../domain/usage/live.ts';
import { receiptOf, type DeviceFamilyOf, type Receipt } from '../domain/secrets/receipts.ts';
import type { Delivery } from '../domain/webhooks/model.ts';
import type { SecretChange } from '../domain/webhooks/relay.ts';
import { chatNoticesOf } from '../domain/chat/notices.ts';
import type { ChatNoticeMessage } from '../domain/webhooks/work.ts';

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

/** What one write to a secret emitted, as its stream record tells: its new events and the secret after it. */
export interface SecretWrite {
  secret: Pick<Secret, 'id' | 'viewsLeft' | 'workspaceId'> & { ownerId?: string };
  /** The events this write added: those it wrote that the item before it did not hold. */
  events: StoredEvent[];
}

/** The write a stream record tells of any secret (owned or not); null for other items and removals. */
export function secretWriteOf(record: { eventName?: string; dynamodb?: { NewImage?: unknown; OldImage?: unknown } }): SecretWrite | null {
  const newImage = record.dynamodb?.NewImage as Image | undefined;
  if (record.eventName === 'REMOVE' || !newImage) return null;
  const after = unmarshall(newImage);
  if (after.type !== 'secret') return null;
  const oldImage = record.dynamodb?.OldImage as Image | undefined;
  const before = new Set(((oldImage ? unmarshall(oldImage).emitted : undefined) as StoredEvent[] | undefined)?.map((event) => event.id) ?? []);
  const events = ((after.emitted ?? []) as StoredEvent[]).filter((event) => !before.has(event.id));
  return {
    secret: {
      id: String(after.id),
      viewsLeft: Number(after.views_left),
      ...(typeof after.owner_id === 'string' ? { ownerId: after.owner_id } : {}),
      ...(typeof after.workspace_id === 'string' ? { workspaceId: after.workspace_id } : {}),
    },
    events,
  };
}

/**
 * The change a stream record tells of an owned secret: the secret after the write, and the
 * events the write added. Null for anything else, and for writes that added no event
 * (adoption, for one: events from before it are not relayed).
 */
export function secretChangeOf(record: DynamoDBRecord): SecretChange | null {
  const write = secretWriteOf(record);
  if (!write?.secret.ownerId || write.events.length === 0) return null;
  return { secret: { ...write.secret, ownerId: write.secret.ownerId }, events: write.events };
}

/**
 * The chat notices a stream record's write calls for: the events it added to a secret with a
 * chat subscription (owned or not). Whether the secret was ever opened is its count of views
 * taken (views left would not say: revoking a link lowers them too).
 */
export function chatNoticesOfRecord(record: DynamoDBRecord): ChatNoticeMessage[] {
  const write = secretWriteOf(record);
  if (!write || write.events.length === 0) return [];
  const after = unmarshall(record.dynamodb!.NewImage as Image);
  if (typeof after.chat_team !== 'string' || typeof after.chat_user !== 'string') return [];
  return chatNoticesOf(
    { teamId: after.chat_team, chatUserId: after.chat_user },
    { secretId: write.secret.id, viewsLeft: write.secret.viewsLeft, opened: Number(after.views_taken ?? 0) > 0, events: write.events },
  );
}

/** The test delivery a stream record tells was just written, as far as its first attempt needs it. */
export function testDeliveryOf(record: DynamoDBRecord): Pick<Delivery, 'id' | 'endpointId' | 'userId'> | null {
  const newImage = record.dynamodb?.NewImage as Image | undefined;
  if (record.eventName !== 'INSERT' || !newImage) return null;
  const item = unmarshall(newImage);
  if (item.type !== 'webhook_delivery' || item.event_type !== 'webhook.test') return null;
  return { id: String(item.id), endpointId: String(item.endpoint_id), userId: String(item.user_id) };
}

/**
 * The receipts of the views a stream record's write took (owned secrets only: the stream's
 * filter passes no other), each to be kept as long as the secret's own item (its TTL).
 */
export function receiptsOfRecord(record: DynamoDBRecord, deviceFamilyOf: DeviceFamilyOf): Array<{ receipt: Receipt; expiresAt: number }> {
  const change = secretChangeOf(record);
  if (!change) return [];
  const ttl = Number(unmarshall(record.dynamodb!.NewImage as Image).ttl ?? 0) * 1000;
  return change.events.flatMap((event) => {
    const receipt = receiptOf(change.secret.id, event, deviceFamilyOf);
    return receipt ? [{ receipt, expiresAt: ttl }] : [];
  });
}

/** A file secret's end, when a stream record's write is one (its state went from pending or active to an end). */
export function fileEndOf(record: DynamoDBRecord): FileEnd | null {
  const newImage = record.dynamodb?.NewImage as Image | undefined;
  const oldImage = record.dynamodb?.OldImage as Image | undefined;
  if (record.eventName !== 'MODIFY' || !newImage || !oldImage) return null;
  const [before, after] = [unmarshall(oldImage), unmarshall(newImage)];
  if (after.type !== 'secret' || after.kind !== 'file' || isTerminal(before.state as SecretState) || !isTerminal(after.state as SecretState)) return null;
  return {
    secretId: String(after.id),
    state: after.state as TerminalState,
    ...(before.state === 'pending' && typeof before.upload_id === 'string' ? { pendingUploadId: before.upload_id } : {}),
  };
}

/** What a stream record's write changed in its owner's live counters (creation, adoption, end), if anything. */
export function usageChangeOfRecord(record: DynamoDBRecord): UsageChange | null {
  const newImage = record.dynamodb?.NewImage as Image | undefined;
  if (record.eventName === 'REMOVE' || !newImage) return null;
  const after = unmarshall(newImage);
  if (after.type !== 'secret') return null;
  const oldImage = record.dynamodb?.OldImage as Image | undefined;
  return usageChangeOf(oldImage ? usageImage(unmarshall(oldImage)) : null, usageImage(after));
}

const usageImage = (item: Record<string, unknown>): SecretUsageImage => ({
  id: String(item.id),
  ...(typeof item.owner_id === 'string' ? { ownerId: item.owner_id } : {}),
  state: item.state as SecretUsageImage['state'],
  sizeBytes: Number(item.size_bytes ?? 0),
});
