import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../local/runtime.ts';
import { stripeClient } from '../../shared/adapters/stripe.ts';
import type { MailMessage } from '../../shared/domain/mail.ts';
import { mailsTo, newEmail, signIn, type SignedIn } from '../support/accounts.ts';
import { apiClient, startTestRuntime } from '../support/runtime.ts';

// A buyer's notices (a payment failed, the subscription ended) go through the work queue: the
// payment webhook queues them and answers, the delivery worker mails them once. Mailed inside the
// webhook, a mail service that failed once lost the notice for good: the webhook answered 500,
// the provider's retry found the event applied (a duplicate, answered 200), and nothing was sent.

let runtime: Runtime;
let api: ReturnType<typeof apiClient>;
let stripe: Stripe;
beforeAll(async () => {
  runtime = await startTestRuntime();
  api = apiClient(runtime);
  stripe = stripeClient({ secretKey: runtime.stripe.apiKey, apiUrl: runtime.stripe.url });
});
afterAll(() => runtime?.stop());

/** The local queue's visibility timeout (local/queue.ts's default, which the runtime keeps). */
const queueVisibilitySeconds = 30;

const planOf = async (who: SignedIn) => (await api.get('/v1/usage', who.auth)).body.plan as string;
const ended = (who: SignedIn) => mailsTo(runtime, who.user.email).filter((mail) => mail.subject === 'Hushlink: your subscription ended');

/** A Pro subscription bought and paid through the emulator's checkout, its events delivered. */
async function subscribePro(who: SignedIn): Promise<string> {
  const customer = await stripe.customers.create({ email: who.user.email, metadata: { user_id: who.user.id } });
  const metadata = { target: 'user', user_id: who.user.id };
  const session = await stripe.checkout.sessions.create({
    mode: 'subscription',
    customer: customer.id,
    client_reference_id: who.user.id,
    line_items: [{ price: runtime.config.PRICE_PRO, quantity: 1 }],
    success_url: `${runtime.url}/billing?checkout=done`,
    cancel_url: `${runtime.url}/billing`,
    metadata,
    subscription_data: { metadata },
  });
  const completed = await runtime.stripe.completeCheckout(session.id);
  await runtime.stripe.settled();
  return String(completed.subscription);
}

/** The mail service refuses the next `times` messages, as SES does when throttled. */
function failMail(times: number): () => void {
  const outbox = runtime.outbox;
  const send = outbox.send.bind(outbox);
  let left = times;
  outbox.send = async (message: MailMessage) => {
    if (left > 0) {
      left -= 1;
      throw Object.assign(new Error('Maximum sending rate exceeded.'), { name: 'Throttling' });
    }
    return send(message);
  };
  return () => void (outbox.send = send);
}

describe("a buyer's notice", () => {
  it('is mailed once although the mail service failed on the first try: the queue retries it, not the provider', async () => {
    const buyer = await signIn(runtime, newEmail('notice'));
    const subscription = await subscribePro(buyer);
    await stripe.subscriptions.update(subscription, { cancel_at_period_end: true });
    await runtime.stripe.settled();
    const restore = failMail(1);
    try {
      await runtime.stripe.endPeriod(subscription);
      await runtime.stripe.settled();
      expect(await planOf(buyer)).toBe('free');
      // The provider heard 200 for every delivery: nothing of the mail service reaches it.
      const deleted = runtime.stripe.events().filter((record) => record.event.type === 'customer.subscription.deleted');
      expect(deleted.flatMap((record) => record.deliveries.map((delivery) => delivery.status))).toEqual([200]);
      await runtime.drainWork();
      expect(ended(buyer)).toHaveLength(0);
      // The queue hands the message back once its visibility timeout ends; the worker mails it then.
      runtime.clock.advance(queueVisibilitySeconds + 1);
      await runtime.drainWork();
      expect(ended(buyer)).toHaveLength(1);
      expect(ended(buyer)[0]!.text).toContain('Your Pro plan has ended, and falls back to Free.');
      // The provider's own redelivery of the event (a duplicate) queues it again; it is mailed once all the same.
      const [record] = deleted;
      const redelivered = await runtime.stripe.resendEvent(record!.event.id);
      expect(redelivered.deliveries.at(-1)).toMatchObject({ status: 200 });
      await runtime.drainWork();
      runtime.clock.advance(queueVisibilitySeconds + 1);
      await runtime.drainWork();
      expect(ended(buyer)).toHaveLength(1);
    } finally {
      restore();
    }
  });
});
