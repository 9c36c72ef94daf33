import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { startStripeEmulator, type LocalStripe } from '../../local/stripe/emulator.ts';
import { stripeClient, StripeProvider } from '../../shared/adapters/stripe.ts';
import { StoppedClock } from '../support/clock.ts';
import { describePaymentProviderContract, type SignedEvent } from './paymentProvider.contract.ts';

/**
 * The PaymentProvider contract against what the integration suites use: StripeProvider (the
 * official SDK) on the local emulator, its events received by a small HTTP endpoint. No Java.
 */
const clock = new StoppedClock(Date.parse('2031-01-31T12:00:00Z'));
const received: SignedEvent[] = [];
let receiver: Server;
let emulator: LocalStripe;

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ rawBody: Buffer.concat(chunks), signature: String(request.headers['stripe-signature']) });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  emulator = await startStripeEmulator({ clock, webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/stripe-events` });
});
afterAll(async () => {
  await emulator?.stop();
  receiver?.close();
});

describePaymentProviderContract('emulator', async () => {
  await emulator.settled();
  const from = received.length;
  return {
    provider: new StripeProvider(stripeClient({ secretKey: emulator.apiKey, apiUrl: emulator.url }), emulator.signingSecret, clock),
    completeCheckout: async (sessionId) => String((await emulator.completeCheckout(sessionId)).subscription),
    endPeriod: async (subscriptionId) => void (await emulator.endPeriod(subscriptionId)),
    events: async () => {
      await emulator.settled();
      return received.slice(from);
    },
    advance: (seconds) => clock.advance(seconds),
  };
});
