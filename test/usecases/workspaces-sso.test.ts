import { describe, expect, it } from 'vitest';
import { sha256Base64Url } from '../../shared/ids.ts';
import { claimDomain, deleteDomain } from '../../shared/domain/domains/domains.ts';
import { Conflict, Forbidden, NotFound } from '../../shared/domain/refusals.ts';
import { directoryWorkspace } from '../../shared/domain/scim/directoryKey.ts';
import { discoverSso, setSso } from '../../shared/domain/sso/directory.ts';
import { pair } from '../fakes/workspaceData.ts';
import { LocalSealer } from '../../shared/adapters/sealer.ts';
import { world } from './workspaces-world.ts';

// A workspace's SSO directory (issue 17): the identity provider, the email domain it speaks for
// (one the workspace verified, or a name under it), and the directory key (shown once, kept as
// its hash, rotated at once); discovery for anyone.

async function withDomain(hostname = 'acme.example.com') {
  const w = world();
  const owner = w.person('owner');
  const id = await w.workspace(owner, { seats: 4, name: 'Acme' });
  const domain = await w.verifiedDomain(id, owner, hostname);
  return { w, owner, id, domain };
}

const bearer = (key: string) => `Bearer ${key}`;

describe('setSso', () => {
  it('names the directory for a verified domain; its key is shown once, kept as a hash, and works for SCIM', async () => {
    const { w, owner, id } = await withDomain();
    const saved = await setSso(id, owner.id, { issuer: 'https://acme.okta.com', emailDomain: 'ACME.example.com' }, w.ports);
    expect(saved.directory).toMatchObject({
      workspaceId: id,
      issuer: 'https://acme.okta.com',
      emailDomain: 'acme.example.com',
      keyCreatedAt: w.clock.now(),
    });
    const key = saved.directoryKey!;
    expect(key).toMatch(/^hlscim_[A-Za-z0-9_-]{43}$/);
    expect(saved.directory.keyHash).toBe(sha256Base64Url(key));
    expect(JSON.stringify([...w.data.ssoDirectories.values(), ...w.data.scimKeys.entries()])).not.toContain(key.slice(7));
    expect((await directoryWorkspace(bearer(key), w.ports)).id).toBe(id);
    expect(await w.rowOf(id, 'sso.updated')).toMatchObject({
      details: { issuer: 'https://acme.okta.com', email_domain: 'acme.example.com', directory_key: 'created' },
    });
  });

  it('keeps the key when changed without rotating (not shown again), and a rotation stops the old key at once', async () => {
    const { w, owner, id } = await withDomain();
    const key = (await setSso(id, owner.id, { issuer: 'https://acme.okta.com', emailDomain: 'acme.example.com' }, w.ports)).directoryKey!;
    w.clock.advance(1);
    const changed = await setSso(
      id,
      owner.id,
      { issuer: 'https://login.microsoftonline.com/tenant/v2.0', emailDomain: 'acme.example.com' },
      w.ports,
    );
    expect(changed.directoryKey).toBeNull();
    expect((await directoryWorkspace(bearer(key), w.ports)).id).toBe(id);
    w.clock.advance(1);
    const rotated = await setSso(
      id,
      owner.id,
      { issuer: 'https://acme.okta.com', emailDomain: 'acme.example.com', rotateDirectoryKey: true },
      w.ports,
    );
    expect(rotated.directoryKey).toMatch(/^hlscim_/);
    expect(rotated.directoryKey).not.toBe(key);
    await expect(directoryWorkspace(bearer(key), w.ports)).rejects.toMatchObject({ kind: 'unauthenticated', challenge: 'directory' });
    expect((await directoryWorkspace(bearer(rotated.directoryKey!), w.ports)).id).toBe(id);
    const rows = (await w.ports.workspaces.auditPage(id, 50, null)).items.filter((row) => row.action === 'sso.updated');
    expect(rows.map((row) => row.details.directory_key)).toEqual(['rotated', 'kept', 'created']);
    expect(JSON.stringify(rows)).not.toContain(rotated.directoryKey!.slice(7));
  });

  it('needs the domain verified: pending, or only a subdomain’s claim, is a conflict (domain_unverified); a name under a verified one is taken', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner);
    await claimDomain(id, 'pending.example.com', owner.id, w.ports);
    const early = setSso(id, owner.id, { issuer: 'https://acme.okta.com', emailDomain: 'pending.example.com' }, w.ports);
    await expect(early).rejects.toBeInstanceOf(Conflict);
    await expect(
      setSso(id, owner.id, { issuer: 'https://acme.okta.com', emailDomain: 'pending.example.com' }, w.ports),
    ).rejects.toMatchObject({ kind: 'conflict', facts: { reason: 'domain_unverified' } });
    expect(await discoverSso('ana@pending.example.com', w.ports)).toEqual({ sso: false });
    await w.verifiedDomain(id, owner, 'links.parent.example.com');
    await expect(
      setSso(id, owner.id, { issuer: 'https://acme.okta.com', emailDomain: 'parent.example.com' }, w.ports),
    ).rejects.toMatchObject({ facts: { reason: 'domain_unverified' } });
    await w.verifiedDomain(id, owner, 'parent.example.com');
    expect(
      (await setSso(id, owner.id, { issuer: 'https://acme.okta.com', emailDomain: 'eu.parent.example.com' }, w.ports)).directory
        .emailDomain,
    ).toBe('eu.parent.example.com');
  });

  it('refuses a domain another workspace’s directory speaks for (domain_claimed), and an email domain that is none (invalid)', async () => {
    const { w, owner, id } = await withDomain('parent.example.com');
    await setSso(id, owner.id, { issuer: 'https://first.okta.com', emailDomain: 'mail.parent.example.com' }, w.ports);
    const bo = w.person('bo');
    const second = await w.workspace(bo);
    await w.verifiedDomain(second, bo, 'mail.parent.example.com');
    await expect(
      setSso(second, bo.id, { issuer: 'https://second.okta.com', emailDomain: 'mail.parent.example.com' }, w.ports),
    ).rejects.toMatchObject({ kind: 'conflict', facts: { reason: 'domain_claimed' } });
    expect(await discoverSso('ana@mail.parent.example.com', w.ports)).toMatchObject({ sso: true, issuer: 'https://first.okta.com' });
    await expect(setSso(id, owner.id, { issuer: 'https://x.example', emailDomain: '*.parent.example.com' }, w.ports)).rejects.toMatchObject(
      { kind: 'invalid', fields: [{ field: 'email_domain', message: expect.stringContaining('without wildcards') }] },
    );
  });

  it('is Team’s (forbidden, plan) and the owners’ and admins’ (forbidden, role); not found outside', async () => {
    const { w, owner, id } = await withDomain();
    const member = await w.join(id, owner, 'member');
    const admin = await w.join(id, owner, 'admin');
    const settings = { issuer: 'https://acme.okta.com', emailDomain: 'acme.example.com' };
    await expect(setSso(id, member.id, settings, w.ports)).rejects.toMatchObject({ kind: 'forbidden', facts: { reason: 'role' } });
    await expect(setSso(id, w.person('outsider').id, settings, w.ports)).rejects.toBeInstanceOf(NotFound);
    expect((await setSso(id, admin.id, settings, w.ports)).directoryKey).toMatch(/^hlscim_/);
    w.setWorkspace(id, { plan: 'free' });
    const unpaid = setSso(id, owner.id, settings, w.ports);
    await expect(unpaid).rejects.toBeInstanceOf(Forbidden);
    await expect(setSso(id, owner.id, settings, w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'plan', plan: 'free', required: 'team' },
    });
  });

  it('reads the directory again when another save landed meanwhile, so no key made by one is left behind by the other', async () => {
    const { w, owner, id } = await withDomain();
    const first = await setSso(id, owner.id, { issuer: 'https://acme.okta.com', emailDomain: 'acme.example.com' }, w.ports);
    let raced = false;
    const sso = Object.create(w.ports.sso) as typeof w.ports.sso;
    sso.save = async (...args) => {
      if (!raced) {
        raced = true;
        // Another rotation lands between this one's read and its write.
        await setSso(id, owner.id, { issuer: 'https://acme.okta.com', emailDomain: 'acme.example.com', rotateDirectoryKey: true }, w.ports);
      }
      return w.ports.sso.save(...args);
    };
    const mine = await setSso(
      id,
      owner.id,
      { issuer: 'https://acme.okta.com', emailDomain: 'acme.example.com', rotateDirectoryKey: true },
      { ...w.ports, sso },
    );
    expect([...w.data.scimKeys.keys()]).toEqual([sha256Base64Url(mine.directoryKey!)]);
    await expect(directoryWorkspace(bearer(first.directoryKey!), w.ports)).rejects.toMatchObject({ kind: 'unauthenticated' });
    // Saves that keep losing give up: a conflict (changed).
    sso.save = async () => 'stale';
    await expect(
      setSso(id, owner.id, { issuer: 'https://x.example', emailDomain: 'acme.example.com' }, { ...w.ports, sso }),
    ).rejects.toMatchObject({ kind: 'conflict', facts: { reason: 'changed' } });
  });

  it('is refused when the editor’s role changed meanwhile, or the proving claim was deleted meanwhile', async () => {
    const { w, owner, id, domain } = await withDomain();
    const admin = await w.join(id, owner, 'admin');
    const racing = (change: () => Promise<void> | void) => {
      const sso = Object.create(w.ports.sso) as typeof w.ports.sso;
      sso.save = async (...args) => {
        await change();
        return w.ports.sso.save(...args);
      };
      return { ...w.ports, sso };
    };
    const settings = { issuer: 'https://acme.okta.com', emailDomain: 'acme.example.com' };
    await expect(
      setSso(
        id,
        admin.id,
        settings,
        racing(() => void (w.data.members.get(pair(id, admin.id))!.role = 'member')),
      ),
    ).rejects.toMatchObject({ kind: 'forbidden', facts: { reason: 'role' } });
    await expect(
      setSso(
        id,
        owner.id,
        settings,
        racing(() => deleteDomain(domain.id, owner.id, w.ports)),
      ),
    ).rejects.toMatchObject({ kind: 'conflict', facts: { reason: 'domain_unverified' } });
    expect(w.data.ssoDirectories.has(id)).toBe(false);
  });
});

describe('discoverSso', () => {
  it('tells an address of the directory’s domain its workspace and issuer, nothing about any other; stops when the domain is deleted', async () => {
    const { w, owner, id, domain } = await withDomain();
    await setSso(id, owner.id, { issuer: 'https://acme.okta.com', emailDomain: 'acme.example.com' }, w.ports);
    // No client yet: the directory is named, and nobody signs in through it (`sign_in: false`).
    const known = { sso: true, workspace: { id, name: 'Acme' }, issuer: 'https://acme.okta.com', sign_in: false, enforced: false };
    expect(await discoverSso('Someone.Else@ACME.example.com', w.ports)).toEqual(known);
    expect(await discoverSso('never-signed-up@acme.example.com', w.ports)).toEqual(known);
    for (const email of ['ana@unknown.example.com', 'ana@sub.acme.example.com', 'not-an-address'])
      expect(await discoverSso(email, w.ports)).toEqual({ sso: false });
    // The domain's claim deleted: the directory no longer speaks for it.
    await deleteDomain(domain.id, owner.id, w.ports);
    expect(await discoverSso('ana@acme.example.com', w.ports)).toEqual({ sso: false });
  });

  it('keeps speaking for the domain while another verified claim of the workspace still covers it; then moves to another domain', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner);
    const parent = await w.verifiedDomain(id, owner, 'parent.example.com');
    const child = await w.verifiedDomain(id, owner, 'mail.parent.example.com');
    const other = await w.verifiedDomain(id, owner, 'other.example.com');
    await setSso(id, owner.id, { issuer: 'https://acme.okta.com', emailDomain: 'mail.parent.example.com' }, w.ports);
    await deleteDomain(child.id, owner.id, w.ports);
    expect(await discoverSso('ana@mail.parent.example.com', w.ports)).toMatchObject({ sso: true });
    await deleteDomain(parent.id, owner.id, w.ports);
    expect(await discoverSso('ana@mail.parent.example.com', w.ports)).toEqual({ sso: false });
    await setSso(id, owner.id, { issuer: 'https://acme.okta.com', emailDomain: other.hostname }, w.ports);
    expect(await discoverSso(`ana@${other.hostname}`, w.ports)).toMatchObject({ sso: true, workspace: { id } });
  });
});

describe('setSso: the OIDC client and enforcement (issue 29)', () => {
  const acme = { issuer: 'https://acme.okta.com', emailDomain: 'acme.example.com' };
  const secret = 'client-secret-canary-5b1f7c2e9d';

  it('seals the client secret for the workspace, keeps only the sealed form, and never writes it to the trail', async () => {
    const { w, owner, id } = await withDomain();
    const saved = await setSso(id, owner.id, { ...acme, clientId: '0oa1acme', clientSecret: secret }, w.ports);
    expect(saved.directory.client).toEqual({ id: '0oa1acme', sealedSecret: expect.stringMatching(/^local:/) });
    const stored = w.data.ssoDirectories.get(id)!;
    expect(JSON.stringify(stored)).not.toContain(secret);
    // Bound to this workspace, under its own kind: it opens for it, not for another workspace nor as a chat team's token.
    expect(await w.ssoSealer.open(stored.client!.sealedSecret, id)).toBe(secret);
    await expect(w.ssoSealer.open(stored.client!.sealedSecret, 'wks_other')).rejects.toThrow();
    await expect(new LocalSealer(undefined, 'chat_team').open(stored.client!.sealedSecret, id)).rejects.toThrow();
    const row = await w.rowOf(id, 'sso.updated');
    expect(row?.details).toMatchObject({ client_id: '0oa1acme', client_secret: 'set', enforce: false });
    expect(JSON.stringify(await w.ports.workspaces.auditPage(id, 50, null))).not.toContain(secret);
  });

  it('keeps the stored secret when the same client id comes without one; a new client id needs its secret; no client id, no client', async () => {
    const { w, owner, id } = await withDomain();
    const first = await setSso(id, owner.id, { ...acme, clientId: '0oa1acme', clientSecret: secret }, w.ports);
    w.clock.advance(1);
    const kept = await setSso(id, owner.id, { ...acme, clientId: '0oa1acme' }, w.ports);
    expect(kept.directory.client).toEqual(first.directory.client);
    expect((await w.rowOf(id, 'sso.updated'))?.details).toMatchObject({ client_secret: 'kept' });
    await expect(setSso(id, owner.id, { ...acme, clientId: '0oa2other' }, w.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [{ field: 'client_secret', message: expect.stringContaining('another client_id') }],
    });
    expect(w.data.ssoDirectories.get(id)!.client).toEqual(first.directory.client);
    await expect(setSso(id, owner.id, { ...acme, clientSecret: secret }, w.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [{ field: 'client_secret', message: 'needs client_id' }],
    });
    w.clock.advance(1);
    const dropped = await setSso(id, owner.id, acme, w.ports);
    expect(dropped.directory.client).toBeNull();
    expect((await w.rowOf(id, 'sso.updated'))?.details).toMatchObject({ client_id: null, client_secret: 'none' });
    // With no secret stored, a client id alone is refused too.
    await expect(setSso(id, owner.id, { ...acme, clientId: '0oa1acme' }, w.ports)).rejects.toMatchObject({
      fields: [{ field: 'client_secret', message: expect.stringContaining('no secret is stored') }],
    });
  });

  it('enforces sign-in through the directory while saved with enforce; a save without it, or on another domain, stops it', async () => {
    const { w, owner, id } = await withDomain('acme.example.com');
    const client = { clientId: '0oa1acme', clientSecret: secret };
    await setSso(id, owner.id, { ...acme, ...client, enforce: true }, w.ports);
    expect((await w.ports.ssoPolicy.ruleFor('ana@acme.example.com')).enforced).toBe(true);
    expect((await w.rowOf(id, 'sso.updated'))?.details).toMatchObject({ enforce: true });
    await setSso(id, owner.id, { ...acme, clientId: '0oa1acme' }, w.ports);
    expect((await w.ports.ssoPolicy.ruleFor('ana@acme.example.com')).enforced).toBe(false);
    await setSso(id, owner.id, { ...acme, clientId: '0oa1acme', enforce: true }, w.ports);
    await setSso(id, owner.id, { ...acme, emailDomain: 'eu.acme.example.com', clientId: '0oa1acme', enforce: true }, w.ports);
    expect((await w.ports.ssoPolicy.ruleFor('ana@acme.example.com')).enforced).toBe(false);
    expect((await w.ports.ssoPolicy.ruleFor('ana@eu.acme.example.com')).enforced).toBe(true);
  });

  it('refuses to enforce without a client: nobody at the domain could sign in at all', async () => {
    const { w, owner, id } = await withDomain();
    await expect(setSso(id, owner.id, { ...acme, enforce: true }, w.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [{ field: 'enforce', message: expect.stringContaining('client_id') }],
    });
    expect(w.data.ssoDirectories.has(id)).toBe(false);
    expect((await w.ports.ssoPolicy.ruleFor('ana@acme.example.com')).enforced).toBe(false);
  });
});

describe('setSso: the issuer is checked at save (issue 29)', () => {
  const acme = { issuer: 'https://acme.okta.com', emailDomain: 'acme.example.com' };

  it('reads the issuer’s discovery document once every other rule passed, and saves only when it names the issuer', async () => {
    const { w, owner, id } = await withDomain();
    await expect(setSso(id, owner.id, { ...acme, emailDomain: 'unverified.example.com' }, w.ports)).rejects.toMatchObject({
      facts: { reason: 'domain_unverified' },
    });
    expect(w.issuerDiscovery.asked).toEqual([]);
    await setSso(id, owner.id, acme, w.ports);
    expect(w.issuerDiscovery.asked).toEqual(['https://acme.okta.com']);
  });

  it.each([
    ['timeout', 'did not answer in time'],
    ['http_500', 'answered HTTP 500'],
    ['not_json', 'not a JSON object'],
    ['redirect', 'redirects to another address'],
    ['tls: cert_has_expired', 'TLS connection failed (cert_has_expired)'],
  ])('answers an unreadable document (%s) with a conflict, issuer_unreachable, saying what happened', async (found, words) => {
    const { w, owner, id } = await withDomain();
    w.issuerDiscovery.answer(acme.issuer, { outcome: 'unreachable', found });
    const refused = setSso(id, owner.id, { ...acme, clientId: 'c', clientSecret: 's', enforce: true }, w.ports);
    await expect(refused).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'issuer_unreachable', found },
      detail: expect.stringContaining(words),
    });
    expect(w.data.ssoDirectories.has(id)).toBe(false);
    expect((await w.ports.ssoPolicy.ruleFor('ana@acme.example.com')).enforced).toBe(false);
  });

  it('answers a document naming another issuer (or none) with a conflict, issuer_mismatch, saying what it names; the saved directory stays', async () => {
    const { w, owner, id } = await withDomain();
    await setSso(id, owner.id, acme, w.ports);
    const slash = 'https://acme.okta.com/';
    w.issuerDiscovery.answer(slash, { outcome: 'mismatch', found: 'https://acme.okta.com' });
    await expect(setSso(id, owner.id, { ...acme, issuer: slash }, w.ports)).rejects.toMatchObject({
      kind: 'conflict',
      facts: { reason: 'issuer_mismatch', found: 'https://acme.okta.com' },
      detail: expect.stringContaining('names the issuer https://acme.okta.com, not https://acme.okta.com/'),
    });
    w.issuerDiscovery.answer(slash, { outcome: 'mismatch', found: null });
    await expect(setSso(id, owner.id, { ...acme, issuer: slash }, w.ports)).rejects.toMatchObject({
      facts: { reason: 'issuer_mismatch', found: null },
      detail: expect.stringContaining('names no issuer'),
    });
    expect(w.data.ssoDirectories.get(id)!.issuer).toBe('https://acme.okta.com');
  });

  it('takes https only; in a local run, http to this machine too (the local identity provider)', async () => {
    const { w, owner, id } = await withDomain();
    for (const issuer of ['http://acme.okta.com', 'http://127.0.0.1:9000']) {
      await expect(setSso(id, owner.id, { ...acme, issuer }, w.ports)).rejects.toMatchObject({
        kind: 'invalid',
        fields: [{ field: 'issuer', message: 'must use https' }],
      });
    }
    const local = { ...w.ports, config: { ...w.ports.config, HUSHLINK_MODE: 'local' as const } };
    for (const issuer of ['http://127.0.0.1:9000', 'http://localhost:9000/oidc', 'http://[::1]:9000'])
      expect((await setSso(id, owner.id, { ...acme, issuer }, local)).directory.issuer).toBe(issuer);
    await expect(setSso(id, owner.id, { ...acme, issuer: 'http://idp.acme.example' }, local)).rejects.toMatchObject({
      fields: [{ field: 'issuer', message: expect.stringContaining('http only to this machine') }],
    });
    expect(w.issuerDiscovery.asked).not.toContain('http://idp.acme.example');
  });
});
