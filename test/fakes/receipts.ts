import type { Receipt, ReceiptStore } from '../../shared/domain/secrets/receipts.ts';
import { copy, pageOf, timeKey } from './memoryListing.ts';

/** What the receipt's item keeps: an empty or null region, browser or OS is not written, nor a device with neither. */
function stored(receipt: Receipt): Receipt {
  const browser = receipt.device?.browser || null;
  const os = receipt.device?.os || null;
  return copy({
    ...receipt,
    location: receipt.location ? { country: receipt.location.country, region: receipt.location.region || null } : null,
    device: browser === null && os === null ? null : { browser, os },
  });
}

/**
 * ReceiptStore in memory: one receipt per secret, time and event (a repeat replaces it), listed
 * newest first. Receipts past `expiresAt` stay, as TTL leaves them until it gets round to them.
 */
export class MemoryReceiptStore implements ReceiptStore {
  private readonly receipts = new Map<string, Map<string, Receipt>>();

  async put(receipt: Receipt, _expiresAt: number): Promise<void> {
    const ofSecret = this.receipts.get(receipt.secretId) ?? this.receipts.set(receipt.secretId, new Map()).get(receipt.secretId)!;
    ofSecret.set(timeKey(receipt.openedAt, receipt.eventId), stored(receipt));
  }

  async list(secretId: string, limit: number, cursor: string | null): Promise<{ items: Receipt[]; nextCursor: string | null }> {
    const rows = [...(this.receipts.get(secretId) ?? new Map<string, Receipt>()).entries()].map(([key, value]) => ({ key, value }));
    return pageOf(rows, `SECRET#${secretId}`, limit, cursor);
  }
}
