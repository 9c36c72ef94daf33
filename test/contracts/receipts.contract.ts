import { beforeEach, describe, expect, it } from 'vitest';
import type { Receipt, ReceiptStore } from '../../shared/domain/secrets/receipts.ts';
import { newEventId, newSecretId } from '../../shared/ids.ts';
import { hour, t0 } from './secretFixtures.ts';

const aReceipt = (secretId: string, openedAt: number, overrides: Partial<Receipt> = {}): Receipt => ({
  secretId,
  eventId: newEventId(),
  recipientId: null,
  openedAt,
  channel: 'web',
  location: { country: 'DE', region: 'BE' },
  device: { browser: 'Firefox', os: 'Linux' },
  ...overrides,
});

/** The ReceiptStore port's contract: one receipt per view's event, listed newest first in pages. */
export function describeReceiptStoreContract(name: string, make: () => ReceiptStore | Promise<ReceiptStore>): void {
  describe(`ReceiptStore contract: ${name}`, () => {
    let receipts: ReceiptStore;
    let secretId: string;
    beforeEach(async () => {
      receipts = await make();
      secretId = newSecretId();
    });

    it('keeps a receipt as written; a partial location or device as far as it goes; none as null', async () => {
      const full = aReceipt(secretId, t0, { recipientId: 'rcp_1', channel: 'cli' });
      const partial = aReceipt(secretId, t0 + 1, { location: { country: 'FR', region: null }, device: { browser: null, os: 'iOS' } });
      const bare = aReceipt(secretId, t0 + 2, { location: null, device: null, channel: 'api' });
      for (const receipt of [full, partial, bare]) await receipts.put(receipt, t0 + hour);
      expect((await receipts.list(secretId, 10, null)).items).toEqual([bare, partial, full]);
    });

    it('writes a receipt once however often its event is relayed', async () => {
      const receipt = aReceipt(secretId, t0);
      await receipts.put(receipt, t0 + hour);
      await receipts.put(receipt, t0 + hour);
      expect((await receipts.list(secretId, 10, null)).items).toEqual([receipt]);
    });

    it('does not record a device that names no family', async () => {
      const receipt = aReceipt(secretId, t0, { device: { browser: null, os: null } });
      await receipts.put(receipt, t0 + hour);
      expect((await receipts.list(secretId, 10, null)).items).toEqual([{ ...receipt, device: null }]);
    });

    it('lists one secret’s receipts, newest first, in pages; none for another secret', async () => {
      const made = Array.from({ length: 5 }, (_, i) => aReceipt(secretId, t0 + i * 1000));
      for (const receipt of made) await receipts.put(receipt, t0 + hour);
      const first = await receipts.list(secretId, 3, null);
      const second = await receipts.list(secretId, 3, first.nextCursor);
      expect([...first.items, ...second.items]).toEqual([...made].reverse());
      expect(second.nextCursor).toBeNull();
      expect((await receipts.list(secretId, 5, null)).nextCursor).toBeNull();
      expect(await receipts.list(newSecretId(), 3, null)).toEqual({ items: [], nextCursor: null });
    });

    it('refuses a cursor of another secret’s receipts, or none at all, as InvalidCursor', async () => {
      for (let i = 0; i < 2; i++) await receipts.put(aReceipt(secretId, t0 + i), t0 + hour);
      const { nextCursor } = await receipts.list(secretId, 1, null);
      await expect(receipts.list(newSecretId(), 1, nextCursor)).rejects.toMatchObject({ name: 'InvalidCursor' });
      await expect(receipts.list(secretId, 1, 'e30')).rejects.toMatchObject({ name: 'InvalidCursor' });
    });
  });
}
