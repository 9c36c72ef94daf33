import type { Clock } from '../shared/clock.ts';
import type { CertificateState, HostedClaim, Hosting, HostnameHosting } from '../shared/domain/domains/ports.ts';

/** A claim the stand-in serves or served: what CloudFront's distribution tenant would be. */
export interface LocalTenant {
  domainId: string;
  hostname: string;
  tenantId: string;
  servedAt: number;
  /** When `stop` took it away; null while it serves. */
  stoppedAt: number | null;
}

/**
 * What `serve` answers for a hostname instead of serving it at once, as CloudFront would:
 * no CNAME yet, the hostname held elsewhere, or a certificate pending or failed.
 */
export type LocalHostingAnswer = 'awaiting_cname' | 'hostname_taken' | 'certificate_pending' | 'certificate_failed';

export interface LocalHostingCall {
  operation: 'serve' | 'status' | 'stop';
  domainId: string;
  hostname: string;
  at: number;
}

/**
 * The local stand-in for CloudFront's distribution tenants (shared/adapters/cloudfrontTenants.ts):
 * there is no CloudFront here, and the local gateway answers on any hostname already. A claim is
 * served and live at once, through the local origin's host as its routing endpoint; `stop` takes it
 * away at once. Like CloudFront, it refuses a hostname another claim's tenant still serves. What
 * it serves is listed at `GET /_dev/hostnames`; tests script its answers (`answer`, `whileServing`).
 */
export class LocalHostnames implements HostnameHosting {
  private readonly tenants = new Map<string, LocalTenant>();
  private readonly answers = new Map<string, LocalHostingAnswer>();
  private readonly during = new Map<string, () => Promise<void>>();
  private readonly received: LocalHostingCall[] = [];

  constructor(
    private readonly clock: Clock,
    /** The local origin's host (`localhost:3000`): what a customer's CNAME would point at. */
    readonly routingEndpoint: string,
  ) {}

  async serve(claim: HostedClaim): Promise<Hosting> {
    this.note('serve', claim);
    const { routingEndpoint } = this;
    const answer = this.answers.get(claim.hostname);
    if (answer === 'awaiting_cname' || answer === 'hostname_taken') return { state: answer, routingEndpoint };
    if (this.servingElse(claim)) return { state: 'hostname_taken', routingEndpoint };
    let tenant = this.tenants.get(claim.domainId);
    if (!tenant || tenant.stoppedAt !== null) {
      tenant = {
        domainId: claim.domainId,
        hostname: claim.hostname,
        tenantId: `dt_local_${claim.domainId}`,
        servedAt: this.clock.now(),
        stoppedAt: null,
      };
      this.tenants.set(claim.domainId, tenant);
    }
    const action = this.during.get(claim.hostname);
    if (action) {
      this.during.delete(claim.hostname);
      await action();
    }
    const certificate: CertificateState =
      answer === 'certificate_pending' ? 'pending' : answer === 'certificate_failed' ? 'failed' : 'issued';
    return { state: 'served', tenantId: tenant.tenantId, routingEndpoint, certificate, live: certificate === 'issued' };
  }

  async status(claim: HostedClaim): Promise<Hosting | { state: 'none'; routingEndpoint: string }> {
    this.note('status', claim);
    const tenant = this.tenants.get(claim.domainId);
    if (!tenant || tenant.stoppedAt !== null) return { state: 'none', routingEndpoint: this.routingEndpoint };
    return { state: 'served', tenantId: tenant.tenantId, routingEndpoint: this.routingEndpoint, certificate: 'issued', live: true };
  }

  async stop(claim: HostedClaim): Promise<'stopping' | 'stopped'> {
    this.note('stop', claim);
    const tenant = this.tenants.get(claim.domainId);
    if (tenant && tenant.stoppedAt === null) tenant.stoppedAt = this.clock.now();
    return 'stopped';
  }

  /** Every tenant made, newest first, those stopped included. */
  list(): LocalTenant[] {
    return [...this.tenants.values()].map((tenant) => ({ ...tenant })).reverse();
  }

  /** The hostnames served now. */
  serving(): string[] {
    return [...this.tenants.values()].filter((tenant) => tenant.stoppedAt === null).map((tenant) => tenant.hostname);
  }

  /** Every call received, oldest first. */
  calls(): LocalHostingCall[] {
    return [...this.received];
  }

  /** Test control: how `serve` answers for the hostname from now on; null serves it at once again. */
  answer(hostname: string, answer: LocalHostingAnswer | null): void {
    if (answer === null) this.answers.delete(hostname);
    else this.answers.set(hostname, answer);
  }

  /** Test control: runs `action` once, inside the next `serve` of the hostname, after its tenant is made. */
  whileServing(hostname: string, action: () => Promise<void>): void {
    this.during.set(hostname, action);
  }

  private servingElse(claim: HostedClaim): boolean {
    return [...this.tenants.values()].some(
      (tenant) => tenant.hostname === claim.hostname && tenant.domainId !== claim.domainId && tenant.stoppedAt === null,
    );
  }

  private note(operation: LocalHostingCall['operation'], claim: HostedClaim): void {
    this.received.push({ operation, domainId: claim.domainId, hostname: claim.hostname, at: this.clock.now() });
  }
}
