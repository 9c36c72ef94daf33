import { describe, expect, it } from 'vitest';
import { StoppedClock } from '../support/clock.ts';
import { hostVerifiedDomains, type HostingPorts } from '../../shared/domain/domains/hosting.ts';
import type {
  ClaimToServe,
  HostedClaim,
  Hosting,
  HostingRecord,
  HostingStore,
  HostingWork,
  HostnameHosting,
  StopOrder,
} from '../../shared/domain/domains/ports.ts';
import { domainLimits } from '../../shared/limits.ts';
import type { AppLogger, LogAttributes } from '../../shared/logger.ts';
import { CountingMetrics } from '../../shared/metrics.ts';

// The schedule's hosting loop (shared/domain/domains/hosting.ts) against a scripted CloudFront
// (the adapter's own requests are tested in cloudfront-tenants.test.ts) and hosting's items in
// memory, as the table keeps them (workspace-domain-hosting.test.ts runs it on DynamoDB Local).

const ENDPOINT = 'd111111abcdef8.cloudfront.net';
const MINUTE = 60;

/** Hosting's items in memory: each verified claim with its record and next step, each stop order. */
class MemoryHosting implements HostingStore {
  readonly claims = new Map<string, { claim: ClaimToServe; nextAt: number | null }>();
  readonly orders = new Map<string, { order: StopOrder; nextAt: number }>();

  /** A claim verified at `at`, due at once (workspaceDomains.ts `verify`). */
  verify(claim: HostedClaim, at: number): void {
    const hosting: HostingRecord = {
      step: 'due',
      since: at,
      checkedAt: null,
      tenantId: null,
      certificate: null,
      gaveUp: null,
      reported: false,
    };
    this.claims.set(claim.domainId, { claim: { ...claim, workspaceId: 'wks_1', verifiedAt: at, hosting }, nextAt: at });
  }

  /** The claim deleted at `at`, its stop order due at once (workspaceDomains.ts `remove`). */
  remove(domainId: string, at: number): void {
    const { claim } = this.claims.get(domainId)!;
    this.claims.delete(domainId);
    this.orders.set(domainId, {
      order: { domainId, hostname: claim.hostname, workspaceId: claim.workspaceId, orderedAt: at, version: 1, reported: false },
      nextAt: at,
    });
  }

  hostingOf(domainId: string) {
    const entry = this.claims.get(domainId);
    return entry && { ...entry.claim.hosting, nextAt: entry.nextAt };
  }

  async due(now: number, limit: number): Promise<HostingWork[]> {
    const work: Array<{ at: number; work: HostingWork }> = [
      ...[...this.claims.values()]
        .filter((entry) => entry.nextAt !== null && entry.nextAt <= now)
        .map((entry) => ({ at: entry.nextAt!, work: { serve: structuredClone(entry.claim) } })),
      ...[...this.orders.values()]
        .filter((entry) => entry.nextAt <= now)
        .map((entry) => ({ at: entry.nextAt, work: { stop: { ...entry.order } } })),
    ];
    return work
      .sort((a, b) => a.at - b.at)
      .slice(0, limit)
      .map((entry) => entry.work);
  }

  async record(claim: ClaimToServe, hosting: HostingRecord, nextAt: number | null): Promise<boolean> {
    const entry = this.claims.get(claim.domainId);
    if (!entry) return false;
    entry.claim = { ...entry.claim, hosting: { ...hosting } };
    entry.nextAt = nextAt;
    return true;
  }

  async orderStop(claim: HostedClaim & { workspaceId: string }, at: number): Promise<void> {
    const entry = this.orders.get(claim.domainId);
    if (entry) {
      entry.order.version++;
      entry.nextAt = at;
      return;
    }
    this.orders.set(claim.domainId, { order: { ...claim, orderedAt: at, version: 1, reported: false }, nextAt: at });
  }

  async retryStop(order: StopOrder, nextAt: number, reported: boolean): Promise<void> {
    const entry = this.orders.get(order.domainId);
    if (entry?.order.version !== order.version) return;
    entry.nextAt = nextAt;
    entry.order.reported = reported;
  }

  async stopDone(order: StopOrder): Promise<void> {
    if (this.orders.get(order.domainId)?.order.version === order.version) this.orders.delete(order.domainId);
  }
}

type ServeAnswer = Hosting | Error;
type StopAnswer = 'stopping' | 'stopped' | Error;

/** CloudFront as each test scripts it: a hostname's answer holds until it is changed; stops answer from a queue, then `stopped`. */
class ScriptedHosting implements HostnameHosting {
  readonly calls: Array<{ operation: 'serve' | 'stop'; hostname: string }> = [];
  private readonly serveAnswers = new Map<string, ServeAnswer>();
  private readonly stopAnswers = new Map<string, StopAnswer[]>();
  /** Runs inside the next serve of a hostname (a claim deleted meanwhile). */
  readonly during = new Map<string, () => void>();

  serveAs(hostname: string, answer: ServeAnswer): void {
    this.serveAnswers.set(hostname, answer);
  }

  stopAs(hostname: string, ...answers: StopAnswer[]): void {
    this.stopAnswers.set(hostname, answers);
  }

  of(operation: 'serve' | 'stop') {
    return this.calls.filter((call) => call.operation === operation).map((call) => call.hostname);
  }

  async serve(claim: HostedClaim): Promise<Hosting> {
    this.calls.push({ operation: 'serve', hostname: claim.hostname });
    this.during.get(claim.hostname)?.();
    this.during.delete(claim.hostname);
    const answer = this.serveAnswers.get(claim.hostname) ?? served({ live: true });
    if (answer instanceof Error) throw answer;
    return answer;
  }

  async status(): Promise<{ state: 'none'; routingEndpoint: string }> {
    throw new Error('the schedule never asks for a status');
  }

  async stop(claim: HostedClaim): Promise<'stopping' | 'stopped'> {
    this.calls.push({ operation: 'stop', hostname: claim.hostname });
    const answer = this.stopAnswers.get(claim.hostname)?.shift() ?? 'stopped';
    if (answer instanceof Error) throw answer;
    return answer;
  }
}

const served = ({
  live,
  certificate = live ? 'issued' : 'pending',
}: {
  live: boolean;
  certificate?: 'pending' | 'issued' | 'failed';
}): Hosting => ({
  state: 'served',
  tenantId: 'dt_2x9GhoK0TZRsohWzv1b9It8J1AB',
  routingEndpoint: ENDPOINT,
  certificate,
  live,
});

class CapturingLogger implements AppLogger {
  readonly lines: Array<{ level: string; message: string; attributes: LogAttributes }> = [];
  debug = (message: string, attributes: LogAttributes = {}) => void this.lines.push({ level: 'DEBUG', message, attributes });
  info = (message: string, attributes: LogAttributes = {}) => void this.lines.push({ level: 'INFO', message, attributes });
  warn = (message: string, attributes: LogAttributes = {}) => void this.lines.push({ level: 'WARN', message, attributes });
  error = (message: string, attributes: LogAttributes = {}) => void this.lines.push({ level: 'ERROR', message, attributes });
  at(level: string) {
    return this.lines.filter((line) => line.level === level);
  }
}

function setUp() {
  const clock = new StoppedClock();
  const store = new MemoryHosting();
  const hosting = new ScriptedHosting();
  const logger = new CapturingLogger();
  const metrics = new CountingMetrics();
  const ports: HostingPorts = { hosting, domainHosting: store, clock, logger, metrics };
  const run = async () => {
    const totals = await hostVerifiedDomains(ports);
    metrics.flush();
    return totals;
  };
  let claims = 0;
  /** A claim verified now. */
  const verified = (hostname = `links-${++claims}.acme.example`) => {
    const claim = { domainId: `dom_${String(++claims).padStart(22, '0')}`, hostname };
    store.verify(claim, clock.now());
    return claim;
  };
  return { clock, store, hosting, logger, metrics, run, verified };
}

describe('hosting verified claims', () => {
  it('serves a verified claim and, once live, asks no more', async () => {
    const { store, hosting, run, verified, clock } = setUp();
    const claim = verified();
    hosting.serveAs(claim.hostname, served({ live: false }));
    expect(await run()).toEqual({ steps: 1, live: 0, stopped: 0, gaveUp: 0, failed: 0 });
    expect(store.hostingOf(claim.domainId)).toMatchObject({
      step: 'deploying',
      certificate: 'pending',
      tenantId: 'dt_2x9GhoK0TZRsohWzv1b9It8J1AB',
      nextAt: clock.now() + domainLimits.hostingRetrySeconds.deploying * 1000,
    });
    // Not due again before its minute.
    expect((await run()).steps).toBe(0);
    clock.advance(MINUTE);
    hosting.serveAs(claim.hostname, served({ live: true }));
    expect(await run()).toMatchObject({ steps: 1, live: 1 });
    expect(store.hostingOf(claim.domainId)).toMatchObject({ step: 'live', certificate: 'issued', nextAt: null });
    clock.advance(24 * 3600);
    expect((await run()).steps).toBe(0);
    expect(hosting.of('serve')).toEqual([claim.hostname, claim.hostname]);
  });

  it('waits for the CNAME every 5 minutes on the first day, hourly after, and gives up at the end of the window', async () => {
    const { store, hosting, run, verified, clock, metrics, logger } = setUp();
    const claim = verified();
    hosting.serveAs(claim.hostname, { state: 'awaiting_cname', routingEndpoint: ENDPOINT });
    await run();
    const first = store.hostingOf(claim.domainId)!;
    expect(first).toMatchObject({
      step: 'awaiting_cname',
      since: clock.now(),
      nextAt: clock.now() + domainLimits.cnameWait.firstDayEverySeconds * 1000,
    });
    clock.advance(25 * 3600);
    await run();
    expect(store.hostingOf(claim.domainId)).toMatchObject({
      step: 'awaiting_cname',
      since: first.since,
      nextAt: clock.now() + domainLimits.cnameWait.thenEverySeconds * 1000,
    });
    // The window ends: no more serves; whatever CloudFront holds of it is stopped (nothing, here).
    clock.advance(domainLimits.hostingWindowSeconds);
    expect(await run()).toMatchObject({ steps: 1, gaveUp: 1 });
    expect(store.hostingOf(claim.domainId)).toMatchObject({ step: 'given_up', gaveUp: 'cname_missing', nextAt: null });
    expect(hosting.calls.at(-1)).toEqual({ operation: 'stop', hostname: claim.hostname });
    expect(metrics.total('CustomHostnamesGivenUp')).toBe(1);
    expect(logger.at('WARN')).toEqual([
      {
        level: 'WARN',
        message: 'custom hostname given up',
        attributes: { domain_id: claim.domainId, hostname: claim.hostname, reason: 'cname_missing' },
      },
    ]);
    clock.advance(24 * 3600);
    expect((await run()).steps).toBe(0);
  });

  it('tries a hostname held elsewhere again, and tells the operator once when it has been an hour', async () => {
    const { store, hosting, run, verified, clock, metrics, logger } = setUp();
    const claim = verified();
    hosting.serveAs(claim.hostname, { state: 'hostname_taken', routingEndpoint: ENDPOINT });
    const started = clock.now();
    for (let minutes = 0; minutes <= 120; minutes += 5) {
      await run();
      clock.advance(5 * MINUTE);
    }
    expect(hosting.of('serve')).toHaveLength(25);
    expect(store.hostingOf(claim.domainId)).toMatchObject({ step: 'hostname_taken', since: started, reported: true });
    expect(metrics.total('CustomHostnamesStuck')).toBe(1);
    expect(logger.at('WARN').map((line) => line.message)).toEqual([
      'custom hostname stuck: its hostname is held by another tenant or account',
    ]);
    // Released (the earlier claim's tenant went): served, and the report starts over if it happens again.
    hosting.serveAs(claim.hostname, served({ live: true }));
    await run();
    expect(store.hostingOf(claim.domainId)).toMatchObject({ step: 'live', reported: false });
  });

  it('stops a claim whose certificate failed, over as many runs as it takes, then gives it up', async () => {
    const { store, hosting, run, verified, clock, metrics } = setUp();
    const claim = verified();
    hosting.serveAs(claim.hostname, served({ live: false, certificate: 'failed' }));
    hosting.stopAs(claim.hostname, 'stopping', 'stopping', 'stopped');
    await run();
    expect(store.hostingOf(claim.domainId)).toMatchObject({
      step: 'stopping',
      gaveUp: 'certificate_failed',
      nextAt: clock.now() + domainLimits.hostingRetrySeconds.stopping * 1000,
    });
    clock.advance(MINUTE);
    await run();
    expect(store.hostingOf(claim.domainId)).toMatchObject({ step: 'stopping', gaveUp: 'certificate_failed' });
    expect(metrics.total('CustomHostnamesGivenUp')).toBe(0);
    clock.advance(MINUTE);
    expect(await run()).toMatchObject({ gaveUp: 1 });
    expect(store.hostingOf(claim.domainId)).toMatchObject({ step: 'given_up', gaveUp: 'certificate_failed', tenantId: null, nextAt: null });
    // Served once; stopped from then on, never served again.
    expect(hosting.calls.map((call) => call.operation)).toEqual(['serve', 'stop', 'stop', 'stop']);
    expect(metrics.total('CustomHostnamesGivenUp')).toBe(1);
  });

  it('takes a tenant someone else disabled away rather than fight over it', async () => {
    const { store, hosting, run, verified } = setUp();
    const claim = verified();
    hosting.serveAs(claim.hostname, { state: 'stopping', tenantId: 'dt_x', routingEndpoint: ENDPOINT });
    await run();
    expect(store.hostingOf(claim.domainId)).toMatchObject({ step: 'given_up', gaveUp: 'tenant_disabled' });
  });

  it('asks again later when CloudFront fails a step, and goes on with the others', async () => {
    const { store, hosting, run, verified, clock, logger } = setUp();
    const failing = verified();
    const fine = verified();
    hosting.serveAs(failing.hostname, Object.assign(new Error('Rate exceeded'), { name: 'Throttling' }));
    expect(await run()).toEqual({ steps: 2, live: 1, stopped: 0, gaveUp: 0, failed: 1 });
    expect(store.hostingOf(failing.domainId)).toMatchObject({
      step: 'due',
      checkedAt: clock.now(),
      nextAt: clock.now() + domainLimits.hostingRetrySeconds.failed * 1000,
    });
    expect(store.hostingOf(fine.domainId)).toMatchObject({ step: 'live' });
    expect(logger.at('ERROR')).toEqual([
      {
        level: 'ERROR',
        message: 'custom hostname not served this time',
        attributes: { domain_id: failing.domainId, hostname: failing.hostname, error: 'Throttling', error_message: 'Rate exceeded' },
      },
    ]);
  });

  it(`takes at most ${domainLimits.hostingStepsPerRun} steps a run, the longest due first`, async () => {
    const { hosting, run, verified, clock } = setUp();
    const claims = Array.from({ length: 25 }, () => {
      clock.advance(1);
      return verified();
    });
    expect((await run()).steps).toBe(domainLimits.hostingStepsPerRun);
    expect(hosting.of('serve').sort()).toEqual(
      claims
        .slice(0, domainLimits.hostingStepsPerRun)
        .map((claim) => claim.hostname)
        .sort(),
    );
    await run();
    await run();
    expect(hosting.of('serve').sort()).toEqual(claims.map((claim) => claim.hostname).sort());
  });
});

describe('stopping deleted claims', () => {
  it('stops a deleted claim’s tenant until it is gone, then forgets the order', async () => {
    const { store, hosting, run, verified, clock, metrics } = setUp();
    const claim = verified();
    await run();
    store.remove(claim.domainId, clock.now());
    hosting.stopAs(claim.hostname, 'stopping', 'stopping', 'stopped');
    expect(await run()).toMatchObject({ steps: 1, stopped: 0 });
    expect(store.orders.get(claim.domainId)).toMatchObject({ nextAt: clock.now() + domainLimits.hostingRetrySeconds.stopping * 1000 });
    clock.advance(MINUTE);
    await run();
    clock.advance(MINUTE);
    expect(await run()).toMatchObject({ steps: 1, stopped: 1 });
    expect(store.orders.size).toBe(0);
    expect(hosting.calls.map((call) => call.operation)).toEqual(['serve', 'stop', 'stop', 'stop']);
    expect(metrics.total('CustomHostnamesStuck')).toBe(0);
  });

  it('tells the operator once about a tenant that has not stopped in an hour, and keeps at it', async () => {
    const { store, hosting, run, verified, clock, metrics, logger } = setUp();
    const claim = verified();
    store.remove(claim.domainId, clock.now());
    hosting.stopAs(claim.hostname, ...Array<StopAnswer>(70).fill('stopping'));
    for (let minute = 0; minute < 65; minute++) {
      await run();
      clock.advance(MINUTE);
    }
    expect(metrics.total('CustomHostnamesStuck')).toBe(1);
    expect(logger.at('WARN').map((line) => line.message)).toEqual(['custom hostname stuck: its deleted claim’s tenant is not stopping']);
    expect(store.orders.get(claim.domainId)?.order.reported).toBe(true);
  });

  it('orders a stop again when the claim was deleted while it was being served', async () => {
    const { store, hosting, run, verified, clock } = setUp();
    const claim = verified();
    // Deleted, and its order carried out (nothing to stop yet), while CloudFront makes the tenant.
    hosting.during.set(claim.hostname, () => {
      store.remove(claim.domainId, clock.now());
      store.orders.delete(claim.domainId);
    });
    await run();
    expect(store.orders.get(claim.domainId)).toMatchObject({
      order: { domainId: claim.domainId, hostname: claim.hostname },
      nextAt: clock.now(),
    });
    expect(await run()).toMatchObject({ stopped: 1 });
    expect(hosting.calls.map((call) => call.operation)).toEqual(['serve', 'stop']);
  });

  it('never removes an order given again while an earlier one was being carried out', async () => {
    const { store, hosting, run, verified, clock } = setUp();
    const claim = verified();
    store.remove(claim.domainId, clock.now());
    const stop = hosting.stop.bind(hosting);
    hosting.stop = async (target) => {
      const answer = await stop(target);
      // Ordered again as the first stop answers (a serve that made a tenant meanwhile).
      await store.orderStop({ ...target, workspaceId: 'wks_1' }, clock.now());
      return answer;
    };
    await run();
    expect(store.orders.get(claim.domainId)?.order.version).toBe(2);
    hosting.stop = stop;
    await run();
    expect(store.orders.size).toBe(0);
  });
});
