import { FakePaymentProvider } from '../fakes/paymentProvider.ts';
import { StoppedClock } from '../support/clock.ts';
import { describePaymentProviderContract } from './paymentProvider.contract.ts';

describePaymentProviderContract('fake', () => {
  const clock = new StoppedClock();
  const provider = new FakePaymentProvider(clock);
  return {
    provider,
    completeCheckout: async (sessionId) => provider.account.completeCheckout(sessionId).subscription.id,
    endPeriod: async (subscriptionId) => void provider.account.endPeriod(subscriptionId),
    events: async () => provider.account.events.map((event) => provider.signed(event)),
    advance: (seconds) => clock.advance(seconds),
  };
});
