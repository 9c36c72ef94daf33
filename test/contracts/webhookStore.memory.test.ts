import { MemoryWebhookStore } from '../fakes/webhookStore.ts';
import { describeWebhookStoreContract } from './webhookStore.contract.ts';

describeWebhookStoreContract('memory', () => new MemoryWebhookStore());
