import type { ProviderEvent } from '../../shared/domain/billing/model.ts';
import { startCheckout, type NewCheckout } from '../../shared/domain/billing/checkout.ts';
import { sendBillingNotice } from '../../shared/domain/billing/notices.ts';
import { receiveProviderEvent } from '../../shared/domain/billing/webhook.ts';
import { parseWorkMessage } from '../../shared/domain/webhooks/work.ts';
import { MemoryNoticeMarks, MemoryQueue, MemoryRateCounter } from '../fakes/index.ts';
import { world, type Person } from './workspaces-world.ts';

// Billing's use cases over the workspace world and the fake payment provider: a checkout started
// by the use case, paid at the fake provider as a test's browser would, the provider's events
// delivered to the webhook's use case, signed as Stripe signs them, and the buyer's notices it
// queues mailed as the delivery worker mails them.

export function billingWorld() {
  const w = world();
  const { provider } = w;
  const queue = new MemoryQueue();
  // The rate counter: the enquiry acknowledgements' per-address window.
  const ports = Object.assign(w.ports, { queue, billingNoticeMarks: new MemoryNoticeMarks(), rateCounter: new MemoryRateCounter() });

  /** The delivery worker's turn: every billing notice queued so far, mailed (once each). */
  const work = async () => {
    for (const { body } of queue.sent.splice(0)) {
      const message = parseWorkMessage(body);
      if (message?.kind === 'billing_notice') await sendBillingNotice(message, ports);
    }
  };

  /** Delivers events to the webhook use case, in the order given, then lets the worker mail; what each came to. */
  const deliver = async (events: readonly ProviderEvent[]) => {
    const outcomes = [];
    for (const event of events) {
      // Each a second after the last: a read of the provider made later is newer (`syncedAt`).
      w.clock.advance(1);
      const { rawBody, signature } = provider.signed(event);
      outcomes.push(await receiveProviderEvent(rawBody, signature, ports));
    }
    await work();
    return outcomes;
  };

  /** A checkout started by `who`, paid, its three events delivered: the subscription made. */
  const buy = async (who: Person, checkout: NewCheckout) => {
    const session = await startCheckout(checkout, who.id, w.ports);
    const paid = provider.account.completeCheckout(session.id);
    await deliver(paid.events);
    w.clock.advance(1);
    return paid.subscription;
  };

  /** A free workspace of `owner` with `members` members (its owner among them), bought Team for `seats`. */
  const boughtTeam = async (members: number, seats: number) => {
    const owner = w.person('owner');
    const id = await w.workspace(owner, { plan: 'free', seats: Math.max(members, 1) });
    const joined: Person[] = [];
    for (let i = 1; i < members; i++) joined.push(await w.join(id, owner, 'member'));
    const subscription = await buy(owner, { plan: 'team', workspaceId: id, seats });
    return { id, owner, joined, subscription };
  };

  /** What the fake provider was asked, by method, oldest first (since `from`). */
  const asked = (from = 0) => provider.calls.slice(from).map((call) => call.method);

  return { ...w, ports, queue, deliver, buy, boughtTeam, asked };
}
