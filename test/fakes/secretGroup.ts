import type { Clock } from '../../shared/clock.ts';
import { StoppedClock } from '../support/clock.ts';
import { MemoryCounters } from './counters.ts';
import { MemoryGateStore } from './gate.ts';
import { MemoryHostClaims } from './hostClaims.ts';
import { MemoryMailer } from './mailer.ts';
import { MemoryRateCounter } from './rateCounter.ts';
import { MemoryReceiptStore } from './receipts.ts';
import { MemoryRequestStore } from './requests.ts';
import { MemorySecretAdoptions, MemorySecretStore } from './secrets.ts';
import { MemoryTierSource } from './tiers.ts';

/**
 * The secrets group's ports in memory, named as the domain's port bundles name them (SecretPorts,
 * ClaimPorts, GatePorts, ReceiptPorts, RequestPorts, LinkHostPorts' `hostClaims`): one secret
 * store behind the store, adoptions and the request store, as one table is behind theirs. The
 * clock stands still until the test moves it (`clock.advance(seconds)`).
 */
export function memorySecretPorts<C extends Clock = StoppedClock>(clock: C = new StoppedClock() as unknown as C) {
  const secrets = new MemorySecretStore();
  return {
    clock,
    secrets,
    adoptions: new MemorySecretAdoptions(secrets),
    gates: new MemoryGateStore(),
    receipts: new MemoryReceiptStore(),
    rateCounter: new MemoryRateCounter(),
    counters: new MemoryCounters(),
    requests: new MemoryRequestStore(secrets),
    tiers: new MemoryTierSource(),
    hostClaims: new MemoryHostClaims(),
    mailer: new MemoryMailer(),
  };
}

export type MemorySecretPorts = ReturnType<typeof memorySecretPorts<StoppedClock>>;
