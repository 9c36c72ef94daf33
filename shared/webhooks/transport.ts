import type { WebhookTransport } from '../domain/webhooks/ports.ts';
import { systemResolver } from './destination.ts';
import { postWebhook } from './send.ts';

/** The real way out: the system's DNS servers, and a POST to the address they gave and we checked. */
export const systemTransport = (): WebhookTransport => ({ resolver: systemResolver(), post: postWebhook });
