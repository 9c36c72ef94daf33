import { MemoryReceiptStore } from '../fakes/receipts.ts';
import { describeReceiptStoreContract } from './receipts.contract.ts';

describeReceiptStoreContract('memory', () => new MemoryReceiptStore());
