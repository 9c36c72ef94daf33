import type { Clock } from '../../clock.ts';
import { domainLimits } from '../../limits.ts';
import type { AppLogger } from '../../logger.ts';
import type { AppMetrics } from '../../metrics.ts';
import type {
  ClaimToServe,
  Hosting,
  HostingGiveUp,
  HostingRecord,
  HostingStep,
  HostingStore,
  HostnameHosting,
  StopOrder,
} from './ports.ts';

/**
 * Serving verified hostnames (issue 17): the schedule's `host-domains` run. A verified claim is
 * served until it is live, and given up when it cannot be (its CNAME never came, its certificate
 * failed); a deleted claim's stop order is carried out until no tenant is left. Each run takes a
 * bounded number of steps, the longest due first, and nothing waits for CloudFront: a step asks
 * where a claim stands, takes what that allows, records it and says when to ask again.
 */
export interface HostingPorts {
  hosting: HostnameHosting;
  domainHosting: HostingStore;
  clock: Clock;
  logger: AppLogger;
  metrics: AppMetrics;
}

export interface HostingTotals {
  /** Claims served or stop orders carried out, whatever came of it. */
  steps: number;
  live: number;
  /** Deleted claims' tenants found gone. */
  stopped: number;
  gaveUp: number;
  /** Steps CloudFront or the table failed: asked again later. */
  failed: number;
}

const { hostingRetrySeconds: retry } = domainLimits;
const seconds = (count: number) => count * 1000;

export async function hostVerifiedDomains(ports: HostingPorts): Promise<HostingTotals> {
  const due = await ports.domainHosting.due(ports.clock.now(), domainLimits.hostingStepsPerRun);
  const totals: HostingTotals = { steps: 0, live: 0, stopped: 0, gaveUp: 0, failed: 0 };
  const queue = [...due];
  const worker = async () => {
    for (let work = queue.shift(); work; work = queue.shift()) {
      totals.steps++;
      if ('serve' in work) await serveStep(work.serve, totals, ports);
      else await stopStep(work.stop, totals, ports);
    }
  };
  await Promise.all(Array.from({ length: domainLimits.hostingConcurrency }, worker));
  return totals;
}

/** The record after a step that found the claim at `step`: `since` and the stuck report carry on while the step stays the same. */
function progress(current: HostingRecord, step: HostingStep, now: number, changes: Partial<HostingRecord> = {}): HostingRecord {
  const same = current.step === step;
  return { ...current, step, since: same ? current.since : now, checkedAt: now, reported: same && current.reported, ...changes };
}

/** Why a claim not live by the end of its window is given up, from where it last stood. */
function lapsed(step: HostingStep): HostingGiveUp {
  if (step === 'awaiting_cname') return 'cname_missing';
  if (step === 'hostname_taken') return 'hostname_taken';
  return 'not_live';
}

async function serveStep(claim: ClaimToServe, totals: HostingTotals, ports: HostingPorts): Promise<void> {
  const now = ports.clock.now();
  const current = claim.hosting;
  try {
    if (current.step === 'stopping' && current.gaveUp) return await giveUp(claim, current.gaveUp, totals, ports);
    if (now >= claim.verifiedAt + seconds(domainLimits.hostingWindowSeconds))
      return await giveUp(claim, lapsed(current.step), totals, ports);
    const hosting = await ports.hosting.serve(claim);
    const outcome = afterServe(claim, hosting, now, ports);
    if ('giveUp' in outcome) return await giveUp(claim, outcome.giveUp, totals, ports);
    if (outcome.record.step === 'live') {
      totals.live++;
      ports.logger.info('custom hostname live', {
        domain_id: claim.domainId,
        hostname: claim.hostname,
        tenant_id: outcome.record.tenantId,
      });
    }
    await record(claim, outcome.record, outcome.nextAt, ports);
  } catch (error) {
    totals.failed++;
    ports.logger.error('custom hostname not served this time', {
      domain_id: claim.domainId,
      hostname: claim.hostname,
      error: (error as Error).name,
      error_message: (error as Error).message,
    });
    // The table may have failed too: the claim then stays due and the next run tries again.
    await record(claim, { ...current, checkedAt: now }, now + seconds(retry.failed), ports).catch(() => {});
  }
}

/** What a claim's serve found: the record and when to ask again, or that it is to be given up. */
function afterServe(
  claim: ClaimToServe,
  hosting: Hosting,
  now: number,
  ports: HostingPorts,
): { record: HostingRecord; nextAt: number | null } | { giveUp: HostingGiveUp } {
  const current = claim.hosting;
  switch (hosting.state) {
    case 'awaiting_cname': {
      const { cnameWait } = domainLimits;
      const firstDay = now < claim.verifiedAt + seconds(cnameWait.firstDaySeconds);
      return {
        record: progress(current, 'awaiting_cname', now),
        nextAt: now + seconds(firstDay ? cnameWait.firstDayEverySeconds : cnameWait.thenEverySeconds),
      };
    }
    case 'hostname_taken': {
      const taken = progress(current, 'hostname_taken', now);
      return {
        record: { ...taken, reported: reportStuck(claim, taken, now, 'its hostname is held by another tenant or account', ports) },
        nextAt: now + seconds(retry.hostnameTaken),
      };
    }
    case 'stopping':
      return { giveUp: 'tenant_disabled' };
    case 'served': {
      if (hosting.certificate === 'failed') return { giveUp: 'certificate_failed' };
      const step = hosting.live ? 'live' : 'deploying';
      return {
        record: progress(current, step, now, { tenantId: hosting.tenantId, certificate: hosting.certificate }),
        nextAt: hosting.live ? null : now + seconds(retry.deploying),
      };
    }
  }
}

/**
 * Stops serving a claim that cannot be served: its tenant (if it has one) is disabled, then
 * deleted, over as many runs as that takes; then it is `given_up`, told once in the log and the
 * metrics. The claim stays verified: the API still answers on its hostname, CloudFront does not.
 */
async function giveUp(claim: ClaimToServe, reason: HostingGiveUp, totals: HostingTotals, ports: HostingPorts): Promise<void> {
  const now = ports.clock.now();
  const current = claim.hosting;
  const outcome = await ports.hosting.stop(claim);
  if (outcome === 'stopped') {
    totals.gaveUp++;
    ports.metrics.count('CustomHostnamesGivenUp');
    ports.logger.warn('custom hostname given up', { domain_id: claim.domainId, hostname: claim.hostname, reason });
    await record(claim, progress(current, 'given_up', now, { gaveUp: reason, tenantId: null }), null, ports);
    return;
  }
  const stopping = progress(current, 'stopping', now, { gaveUp: reason });
  await record(
    claim,
    { ...stopping, reported: reportStuck(claim, stopping, now, 'its tenant is not stopping', ports) },
    now + seconds(retry.stopping),
    ports,
  );
}

/**
 * Records the claim's step. A claim deleted meanwhile has a stop order already, but it may have
 * been carried out before this step made a tenant: ordering again makes sure it goes.
 */
async function record(claim: ClaimToServe, hosting: HostingRecord, nextAt: number | null, ports: HostingPorts): Promise<void> {
  if (await ports.domainHosting.record(claim, hosting, nextAt)) return;
  await ports.domainHosting.orderStop(claim, ports.clock.now());
}

async function stopStep(order: StopOrder, totals: HostingTotals, ports: HostingPorts): Promise<void> {
  const now = ports.clock.now();
  try {
    if ((await ports.hosting.stop(order)) === 'stopped') {
      totals.stopped++;
      ports.logger.info('custom hostname stopped', { domain_id: order.domainId, hostname: order.hostname });
      await ports.domainHosting.stopDone(order);
      return;
    }
    const stuck = { since: order.orderedAt, reported: order.reported };
    await ports.domainHosting.retryStop(
      order,
      now + seconds(retry.stopping),
      reportStuck(order, stuck, now, 'its deleted claim’s tenant is not stopping', ports),
    );
  } catch (error) {
    totals.failed++;
    ports.logger.error('custom hostname not stopped this time', {
      domain_id: order.domainId,
      hostname: order.hostname,
      error: (error as Error).name,
      error_message: (error as Error).message,
    });
    await ports.domainHosting.retryStop(order, now + seconds(retry.failed), order.reported).catch(() => {});
  }
}

/**
 * A step that has lasted `domainLimits.hostingStuckSeconds` is an operator's problem (another
 * account's CloudFront holding the hostname, a tenant CloudFront will not delete): told once,
 * in the log and the metrics. Whether it has been told, after this.
 */
function reportStuck(
  claim: { domainId: string; hostname: string },
  state: { since: number; reported: boolean },
  now: number,
  why: string,
  ports: HostingPorts,
): boolean {
  if (state.reported || now - state.since < seconds(domainLimits.hostingStuckSeconds)) return state.reported;
  ports.metrics.count('CustomHostnamesStuck');
  ports.logger.warn(`custom hostname stuck: ${why}`, {
    domain_id: claim.domainId,
    hostname: claim.hostname,
    since: new Date(state.since).toISOString(),
  });
  return true;
}
