import { chatNoticesOf } from '../chat/notices.ts';
import type { FileEnd } from '../files/lifecycle.ts';
import { isTerminal, type Secret, type SecretState, type StoredEvent, type TerminalState } from '../secrets/model.ts';
import { receiptOf, type DeviceFamilyOf, type Receipt } from '../secrets/receipts.ts';
import { usageChangeOf, type UsageChange } from '../usage/live.ts';
import type { SecretChange } from '../webhooks/relay.ts';
import type { ChatNoticeMessage } from '../webhooks/work.ts';

/**
 * What the relay makes of one write to a secret (functions/relay.ts): the table's stream hands
 * over the item before and after each write, the store turns them into these records
 * (shared/store/relayRecords.ts), and the decisions are here: which events go to the owner's
 * endpoints, what the owner's live counters move by, which views leave a receipt, whether a
 * file's object is to go, and what a chat subscriber is told.
 */

/** A secret as one version of its item shows it. */
export interface SecretImage {
  id: string;
  ownerId?: string;
  workspaceId?: string;
  state: SecretState;
  kind: Secret['kind'];
  sizeBytes: number;
  viewsLeft: number;
  /** Views taken, this version's and earlier ones' (revoking a link lowers views left too). */
  viewsTaken: number;
  /** While a file is uploading, its upload. */
  uploadId?: string;
  /** The Slack user told of its views and expiry, if anyone subscribed. */
  chat?: { teamId: string; chatUserId: string };
  /** When the item goes (ms): a receipt of its views is kept as long. */
  keptUntil: number;
}

/** One write to a secret, owned or not: the secret after it and before it (null: the write made it), and the events it added. */
export interface SecretWrite {
  secret: SecretImage;
  before: SecretImage | null;
  events: StoredEvent[];
}

/**
 * The change the owner's webhook endpoints hear of: an owned secret's write that added events.
 * Null for anything else, and for writes that added none (adoption, for one: events from before
 * it are not relayed).
 */
export function secretChangeOf(write: SecretWrite | null): SecretChange | null {
  if (!write || write.secret.ownerId === undefined || write.events.length === 0) return null;
  const { id, viewsLeft, ownerId, workspaceId } = write.secret;
  return { secret: { id, ownerId, viewsLeft, ...(workspaceId === undefined ? {} : { workspaceId }) }, events: write.events };
}

/** The receipt of each view the write took (owned secrets only), kept as long as the secret's own item. */
export function receiptsOf(write: SecretWrite | null, deviceFamilyOf: DeviceFamilyOf): Array<{ receipt: Receipt; expiresAt: number }> {
  const change = secretChangeOf(write);
  if (!write || !change) return [];
  return change.events.flatMap((event) => {
    const receipt = receiptOf(change.secret.id, event, deviceFamilyOf);
    return receipt ? [{ receipt, expiresAt: write.secret.keptUntil }] : [];
  });
}

/** What the write changed in its owner's live counters (creation, adoption, end), if anything. */
export const usageOf = (write: SecretWrite | null): UsageChange | null => (write ? usageChangeOf(write.before, write.secret) : null);

/** A file's end, when the write is one (its state went from pending or active to an end): its object goes, and an unfinished upload with it. */
export function fileEndOf(write: SecretWrite | null): FileEnd | null {
  if (!write?.before) return null;
  const { before, secret: after } = write;
  if (after.kind !== 'file' || isTerminal(before.state) || !isTerminal(after.state)) return null;
  return {
    secretId: after.id,
    state: after.state as TerminalState,
    ...(before.state === 'pending' && before.uploadId !== undefined ? { pendingUploadId: before.uploadId } : {}),
  };
}

/**
 * The chat notices the write's events call for, when the secret (owned or not) has a chat
 * subscription. Whether the secret was ever opened is its count of views taken.
 */
export function chatNoticesOfWrite(write: SecretWrite | null): ChatNoticeMessage[] {
  const chat = write?.secret.chat;
  if (!write || !chat || write.events.length === 0) return [];
  const { secret } = write;
  return chatNoticesOf(chat, { secretId: secret.id, viewsLeft: secret.viewsLeft, opened: secret.viewsTaken > 0, events: write.events });
}

/** Everything the relay does for one write. */
export interface SecretWriteProjections {
  change: SecretChange | null;
  usage: UsageChange | null;
  receipts: Array<{ receipt: Receipt; expiresAt: number }>;
  fileEnd: FileEnd | null;
  notices: ChatNoticeMessage[];
}

export function projectSecretWrite(write: SecretWrite | null, deviceFamilyOf: DeviceFamilyOf): SecretWriteProjections {
  return {
    change: secretChangeOf(write),
    usage: usageOf(write),
    receipts: receiptsOf(write, deviceFamilyOf),
    fileEnd: fileEndOf(write),
    notices: chatNoticesOfWrite(write),
  };
}
