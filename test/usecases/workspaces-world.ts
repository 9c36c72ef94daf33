import { MemorySessionStore } from '../fakes/sessions.ts';
import type { Plan } from '../../shared/domain/accounts/model.ts';
import { MemoryTierSource } from '../fakes/tiers.ts';
import type { TxtLookup, TxtResolver } from '../../shared/domain/domains/ports.ts';
import { newUserId } from '../../shared/ids.ts';
import type { AppLogger } from '../../shared/logger.ts';
import type { Role } from '../../shared/domain/workspaces/model.ts';
import { challengeName, challengeValue } from '../../shared/domain/domains/hostname.ts';
import { claimDomain, verifyDomain } from '../../shared/domain/domains/domains.ts';
import type { Domain } from '../../shared/domain/domains/model.ts';
import { acceptInvitation, invite } from '../../shared/domain/workspaces/members.ts';
import { createWorkspace } from '../../shared/domain/workspaces/workspaces.ts';
import { pair } from '../fakes/workspaceData.ts';
import { MemoryMailer } from '../fakes/mailer.ts';
import { FakePaymentProvider } from '../fakes/paymentProvider.ts';
import { memoryWorkspacePorts } from '../fakes/workspaceGroup.ts';
import { StoppedClock } from '../support/clock.ts';
import { FakeIssuerDiscovery } from '../fakes/issuerDiscovery.ts';
import { LocalSealer } from '../../shared/adapters/sealer.ts';

// The world the workspaces, billing and SCIM use-case tests (test/usecases/) run in: every port
// on the in-memory fakes (one WorkspaceData, as the stores share one table), a stopped clock, the
// Mailer fake, a DNS whose TXT records a test publishes, the fake payment provider, identity
// providers' discovery documents as a test sets them, and SSO client secrets sealed in memory. People
// are accounts signed up; a workspace is made by the use case, its plan and seats then set as
// billing (or sales) would leave them.

export const config = {
  REGION: 'eu-west-1',
  REGIONS: [
    { id: 'eu-west-1', api_url: 'https://eu.hushlink.example' },
    { id: 'us-east-1', api_url: 'https://us.hushlink.example' },
  ],
  WEB_ORIGIN: 'https://eu.hushlink.example',
  HUSHLINK_MODE: 'aws' as const,
  PRICE_PRO: 'price_pro_monthly',
  PRICE_TEAM_SEAT: 'price_team_seat_monthly',
  SALES_EMAIL: 'sales@hushlink.example',
};

/** TXT records by name, as a test publishes them; a name may be made to fail as a DNS server does. */
export class FakeDns implements TxtResolver {
  private readonly records = new Map<string, string[]>();
  private readonly failing = new Map<string, TxtLookup>();
  readonly asked: string[] = [];

  publish(name: string, ...values: string[]): void {
    this.records.set(name, values);
  }

  fail(name: string, reason: 'servfail' | 'timeout' | null): void {
    if (reason === null) this.failing.delete(name);
    else this.failing.set(name, { kind: 'failed', reason, code: reason === 'timeout' ? 'ETIMEOUT' : 'ESERVFAIL' });
  }

  async lookupTxt(name: string): Promise<TxtLookup> {
    this.asked.push(name);
    const failed = this.failing.get(name);
    if (failed) return failed;
    const values = this.records.get(name);
    return values ? { kind: 'found', records: [...values] } : { kind: 'none', reason: 'nxdomain' };
  }
}

/** A logger that keeps what it was told (the use cases log ids, never secrets). */
export function memoryLogger() {
  const lines: Array<{ level: string; message: string; attributes: Record<string, unknown> }> = [];
  const at =
    (level: string) =>
    (message: string, attributes: Record<string, unknown> = {}) =>
      void lines.push({ level, message, attributes });
  const logger: AppLogger & { lines: typeof lines } = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), lines };
  return logger;
}

export interface Person {
  id: string;
  email: string;
}

let people = 0;

export function world() {
  const clock = new StoppedClock();
  const stores = memoryWorkspacePorts();
  const { data, accounts } = stores;
  const mailer = new MemoryMailer();
  const dns = new FakeDns();
  const hostsChanged: string[] = [];
  const provider = new FakePaymentProvider(clock);
  const logger = memoryLogger();
  // A person's tier as DynamoTierSource reads it: their own plan and their workspaces' plans now.
  const tiers = new MemoryTierSource({
    userPlan: (userId) => accounts.planOf(userId),
    workspacePlans: (userId) =>
      [...data.members.values()].filter((member) => member.userId === userId).map((member) => data.workspaceOf(member.workspaceId)!.plan),
  });
  const issuerDiscovery = new FakeIssuerDiscovery();
  const ssoSealer = new LocalSealer(undefined, 'sso_workspace');
  const usageReports = {
    totals: async () => ({ liveSecrets: 2, bytesStored: 128, calls: 7 }),
    days: async () => [],
  };
  const sessions = new MemorySessionStore();
  const ports = {
    ...stores,
    clock,
    config,
    mailer,
    dns,
    provider,
    logger,
    tiers,
    usageReports,
    issuerDiscovery,
    ssoSealer,
    // The sessions SCIM ends on a deactivation: the people's own (test/fakes/sessions.ts).
    sessions,
    hostsChanged: (hostname: string) => void hostsChanged.push(hostname),
  };

  /** An account signed up. */
  const person = (label = 'person', domain = 'example.com'): Person => {
    const id = newUserId();
    const email = `${label}-${++people}@${domain}`;
    accounts.add({ id, email, plan: 'free', createdAt: clock.now() });
    return { id, email };
  };

  /** The plan and seats billing (or sales) leaves a workspace with. */
  const setWorkspace = (workspaceId: string, changes: { plan?: Plan; seats?: number }) => {
    if (changes.plan !== undefined) data.workspaces.get(workspaceId)!.workspace.plan = changes.plan;
    if (changes.seats !== undefined) data.rosters.get(workspaceId)!.seats = changes.seats;
  };

  /** A workspace made by `owner` through the use case, then on `plan` with `seats`. */
  const workspace = async (owner: Person, options: { plan?: Plan; seats?: number; name?: string } = {}) => {
    const { workspace: made } = await createWorkspace({ name: options.name ?? 'Acme' }, owner.id, ports);
    setWorkspace(made.id, { plan: options.plan ?? 'team', seats: options.seats ?? 5 });
    return made.id;
  };

  /** The one-time token of the last invitation mailed to `email`. */
  const tokenMailedTo = (email: string): string => {
    // By its link: an invitation may be in any language (issue 32).
    const mail = mailer.to(email).findLast((message) => /\/join#\S/.test(message.text));
    const token = /\/join#(\S+)/.exec(mail?.text ?? '')?.[1];
    if (!token) throw new Error(`no invitation was mailed to ${email}`);
    return token;
  };

  /** A new person invited by `inviter` and joined with `role`. */
  const join = async (
    workspaceId: string,
    inviter: Person,
    role: Exclude<Role, 'owner'> = 'member',
    who: Person = person(role),
  ): Promise<Person> => {
    // A second apart: the trail (ordered by time) reads as it happened.
    clock.advance(1);
    await invite(workspaceId, inviter.id, { email: who.email, role }, ports);
    clock.advance(1);
    await acceptInvitation(tokenMailedTo(who.email), who.id, ports);
    return who;
  };

  const roster = (workspaceId: string) => {
    const { seats, used, owners, members } = data.rosters.get(workspaceId)!;
    return { seats, used, owners, members };
  };
  const roleOf = (workspaceId: string, userId: string) => data.members.get(pair(workspaceId, userId))?.role ?? null;
  /** The audit trail's actions, newest first. */
  const actions = async (workspaceId: string) =>
    (await stores.workspaces.auditPage(workspaceId, 1000, null)).items.map((row) => row.action);

  /** Publishes a claim's TXT record, as its claimant would at their DNS provider (beside `others`). */
  const publish = (domain: Domain, ...others: string[]) =>
    dns.publish(challengeName(domain.hostname), challengeValue(domain.token), ...others);

  /** A hostname claimed by `owner` for the workspace and verified by its record. */
  const verifiedDomain = async (workspaceId: string, owner: Person, hostname: string): Promise<Domain> => {
    const domain = await claimDomain(workspaceId, hostname, owner.id, ports);
    publish(domain);
    return verifyDomain(domain.id, owner.id, ports);
  };

  /** The newest row of the trail recording `action`. */
  const rowOf = async (workspaceId: string, action: string) =>
    (await stores.workspaces.auditPage(workspaceId, 1000, null)).items.find((row) => row.action === action);

  return {
    ports,
    clock,
    data,
    accounts,
    mailer,
    dns,
    provider,
    logger,
    issuerDiscovery,
    ssoSealer,
    hostsChanged,
    person,
    workspace,
    setWorkspace,
    join,
    tokenMailedTo,
    publish,
    verifiedDomain,
    roster,
    roleOf,
    actions,
    rowOf,
  };
}

export type World = ReturnType<typeof world>;
