import { effectiveTier, type TierSource } from '../billing/tier.ts';
import { planIncludes } from '../plans.ts';
import { NotFound } from '../refusals.ts';
import type { StoredEvent, ViewChannel } from './model.ts';
import type { SecretStore } from './ports.ts';
import { secretIdPattern } from './rules.ts';

/**
 * Who opened a secret, when, through which link and channel, roughly where and on what: one
 * per view of an owned secret, written by the relay from the view's event. Never an address.
 */
export interface Receipt {
  secretId: string;
  /** The view's event id: a receipt is written once however often its event is relayed. */
  eventId: string;
  recipientId: string | null;
  openedAt: number;
  channel: ViewChannel;
  location: { country: string; region: string | null } | null;
  device: { browser: string | null; os: string | null } | null;
}

export interface ReceiptStore {
  /** Writes a receipt (idempotent by its event id), removed by TTL at `expiresAt` (ms). */
  put(receipt: Receipt, expiresAt: number): Promise<void>;
  /** A secret's receipts, newest first. */
  list(secretId: string, limit: number, cursor: string | null): Promise<{ items: Receipt[]; nextCursor: string | null }>;
}

/** Reduces a user agent to the family a receipt shows (an adapter: the relay's parser). */
export type DeviceFamilyOf = (userAgent: string | undefined) => Receipt['device'];

/**
 * The receipt of one view, from the event its claim wrote: the user agent reduced to its
 * family (the string itself is not kept), the rest as the claim recorded it. Null for any
 * other event.
 */
export function receiptOf(secretId: string, event: StoredEvent, deviceFamilyOf: DeviceFamilyOf): Receipt | null {
  if (event.type !== 'secret.viewed' || !event.view) return null;
  const { channel, country, region, userAgent } = event.view;
  return {
    secretId,
    eventId: event.id,
    recipientId: event.recipientId ?? null,
    openedAt: event.at,
    channel,
    location: country ? { country, region: region ?? null } : null,
    device: deviceFamilyOf(userAgent),
  };
}

export interface ReceiptPorts {
  secrets: Pick<SecretStore, 'get'>;
  receipts: ReceiptStore;
  tiers: TierSource;
}

/**
 * The receipts of one secret, for its owner only (anyone else: not found, as for an unknown
 * secret). What a receipt shows follows the owner's plan: time and channel on Free, location
 * and device too on Pro and Team (interface §2.2): the owner's effective tier, their own plan or a
 * workspace's.
 */
export async function listReceipts(secretId: string, userId: string, limit: number, cursor: string | null, ports: ReceiptPorts) {
  const [secret, plan] = await Promise.all([
    secretIdPattern.test(secretId) ? ports.secrets.get(secretId) : null,
    effectiveTier(userId, ports),
  ]);
  if (!secret || secret.ownerId !== userId) throw new NotFound('No secret of yours has this id.');
  const page = await ports.receipts.list(secretId, limit, cursor);
  return {
    items: page.items.map((receipt) => ({
      ...receipt,
      location: planIncludes(plan, 'receipts_location') ? receipt.location : null,
      device: planIncludes(plan, 'receipts_device') ? receipt.device : null,
    })),
    nextCursor: page.nextCursor,
  };
}
