import { describe, expect, it } from 'vitest';
import { newUserId } from '../../shared/ids.ts';
import { claimDomain, deleteDomain, verifyDomain } from '../../shared/domain/domains/domains.ts';
import type { DomainPorts } from '../../shared/domain/domains/model.ts';
import { NotFound, Refusal } from '../../shared/domain/refusals.ts';
import { setSso, type SsoPorts } from '../../shared/domain/sso/directory.ts';
import { transferWorkspace } from '../../shared/domain/workspaces/members.ts';
import type { WorkspacePorts } from '../../shared/domain/workspaces/ports.ts';
import { createWorkspace } from '../../shared/domain/workspaces/workspaces.ts';
import { problemBody } from '../../shared/http/errors.ts';
import { toHttpError } from '../../shared/http/refusals.ts';
import { MemoryMailer } from '../fakes/mailer.ts';
import { memoryWorkspacePorts } from '../fakes/workspaceGroup.ts';
import { StoppedClock } from '../support/clock.ts';

// The workspaces group's use cases refuse in the domain's words (shared/domain/refusals.ts), on
// the in-memory fakes; the HTTP table shows each as the routes answered before (status, code,
// detail, `errors` at the body's field names, members).

const config = {
  REGION: 'eu-west-1',
  REGIONS: [
    { id: 'eu-west-1', api_url: 'https://eu.hushlink.test' },
    { id: 'us-east-1', api_url: 'https://us.hushlink.test' },
  ],
  WEB_ORIGIN: 'https://eu.hushlink.test',
  HUSHLINK_MODE: 'aws' as const,
};

function world() {
  const stores = memoryWorkspacePorts();
  const clock = new StoppedClock();
  const ports = {
    ...stores,
    clock,
    config,
    mailer: new MemoryMailer(),
    dns: { lookupTxt: async () => ({ kind: 'none' as const, reason: 'nxdomain' as const }) },
    hostsChanged: () => {},
    issuerDiscovery: { check: async () => ({ outcome: 'matches' as const }) },
    ssoSealer: { seal: async () => 'sealed', open: async () => 'opened' },
  } satisfies WorkspacePorts & DomainPorts & SsoPorts;
  const person = (name: string) => {
    const id = newUserId();
    stores.accounts.add({ id, email: `${name}@example.com`, plan: 'free', createdAt: clock.now() });
    return id;
  };
  /** A Team workspace of `owner`'s (Team for its domains and SSO). */
  const teamWorkspace = async (owner: string, name: string) => {
    const { workspace } = await createWorkspace({ name }, owner, ports);
    stores.data.workspaces.get(workspace.id)!.workspace.plan = 'team';
    return workspace.id;
  };
  return { ports, person, teamWorkspace };
}

/** What the use case threw, as a refusal and as the problem the routes answer. */
async function refused(call: Promise<unknown>) {
  const error = await call.then(
    () => expect.fail('the use case did not refuse'),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(Refusal);
  const http = toHttpError(error);
  return { refusal: error as Refusal, status: http.status, headers: http.extras.headers ?? {}, problem: problemBody(http) };
}

describe('creating a workspace', () => {
  it('another deployment’s region is misdirected, naming its api_url; an unknown one is invalid at body.region', async () => {
    const { ports, person } = world();
    const ana = person('ana');
    const elsewhere = await refused(createWorkspace({ name: 'Acme', region: 'us-east-1' }, ana, ports));
    expect(elsewhere.status).toBe(421);
    expect(elsewhere.problem).toMatchObject({
      code: 'misdirected',
      detail: "Workspaces in us-east-1 are made by that region's service.",
      region: 'us-east-1',
      api_url: 'https://us.hushlink.test',
    });
    const unknown = await refused(createWorkspace({ name: 'Acme', region: 'mars-1' }, ana, ports));
    expect([unknown.status, unknown.problem.code, unknown.problem.detail]).toEqual([400, 'invalid_request', 'Unknown region.']);
    expect(unknown.problem.errors).toEqual([{ path: 'body.region', message: 'must be one of eu-west-1, us-east-1' }]);
  });

  it('a slug taken is a conflict at body.slug; an account that is gone is unauthenticated, with no challenge', async () => {
    const { ports, person } = world();
    const ana = person('ana');
    await createWorkspace({ name: 'Acme', slug: 'acme' }, ana, ports);
    const taken = await refused(createWorkspace({ name: 'Acme again', slug: 'acme' }, ana, ports));
    expect([taken.status, taken.problem.code, taken.problem.detail, taken.problem.errors]).toEqual([
      409,
      'conflict',
      'This slug is taken.',
      [{ path: 'body.slug', message: 'is taken' }],
    ]);
    const gone = await refused(createWorkspace({ name: 'Acme' }, newUserId(), ports));
    expect([gone.status, gone.problem.code, gone.problem.detail, gone.headers]).toEqual([401, 'unauthorized', 'Sign in first.', {}]);
  });
});

describe('fields named as the body names them', () => {
  it('handing a workspace to oneself is invalid at body.user_id', async () => {
    const { ports, person, teamWorkspace } = world();
    const ana = person('ana');
    const id = await teamWorkspace(ana, 'Acme');
    const self = await refused(transferWorkspace(id, ana, ana, ports));
    expect([self.status, self.problem.errors]).toEqual([400, [{ path: 'body.user_id', message: 'is you' }]]);
  });

  it('an SSO email domain that is no domain is invalid at body.email_domain; one not verified is a conflict with its reason', async () => {
    const { ports, person, teamWorkspace } = world();
    const ana = person('ana');
    const id = await teamWorkspace(ana, 'Acme');
    const notADomain = await refused(setSso(id, ana, { issuer: 'https://idp.example.com', emailDomain: '*.example.com' }, ports));
    expect(notADomain.status).toBe(400);
    expect(notADomain.problem.errors).toEqual([
      { path: 'body.email_domain', message: 'must be a domain without wildcards: subdomains are not included, list each one' },
    ]);
    const unverified = await refused(setSso(id, ana, { issuer: 'https://idp.example.com', emailDomain: 'example.com' }, ports));
    expect([unverified.status, unverified.problem.code, unverified.problem.reason]).toEqual([409, 'conflict', 'domain_unverified']);
  });
});

describe('another workspace’s domain', () => {
  it('does not exist for someone outside it: not found as a domain, never telling its workspace is there', async () => {
    const { ports, person, teamWorkspace } = world();
    const ana = person('ana');
    const bo = person('bo');
    const id = await teamWorkspace(ana, 'Acme');
    await teamWorkspace(bo, 'Bo’s');
    const domain = await claimDomain(id, 'links.acme.example.com', ana, ports);
    for (const call of [verifyDomain(domain.id, bo, ports), deleteDomain(domain.id, bo, ports)]) {
      const outside = await refused(call);
      expect(outside.refusal).toBeInstanceOf(NotFound);
      expect([outside.status, outside.problem.code, outside.problem.detail]).toEqual([404, 'not_found', 'No such domain.']);
    }
    // Inside it, the claim is there: claiming it again says so.
    const claimedAgain = await refused(claimDomain(id, 'links.acme.example.com', ana, ports));
    expect([claimedAgain.status, claimedAgain.problem.reason]).toEqual([409, 'already_claimed']);
  });
});
