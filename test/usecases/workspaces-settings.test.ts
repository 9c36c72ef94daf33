import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { newWorkspaceId } from '../../shared/ids.ts';
import { Conflict, Forbidden, Invalid, NotFound } from '../../shared/domain/refusals.ts';
import { assertSendInWorkspace, revealBranding, workspacePolicyFor } from '../../shared/domain/workspaces/membership.ts';
import { removeMember } from '../../shared/domain/workspaces/members.ts';
import { setBranding, setPolicy } from '../../shared/domain/workspaces/settings.ts';
import { pair } from '../fakes/workspaceData.ts';
import { world } from './workspaces-world.ts';

// A workspace's policy and branding (Team's), set by owners and admins, and what sending inside
// a workspace reads of them (membership.ts): the policy that holds a member, the branding a
// reveal page shows. The rules themselves are pure and unit-tested (workspace-policy, -branding).

/** A 1×1 PNG, built byte for byte (signature, IHDR, IDAT, IEND with their CRCs). */
function tinyPng(): string {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0);
  header.writeUInt32BE(1, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const idat = deflateSync(Buffer.from([0, 0x1d, 0x4e, 0xd8, 0xff]));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]).toString('base64');
}

async function team(plan: 'team' | 'free' = 'team') {
  const w = world();
  const owner = w.person('owner');
  const id = await w.workspace(owner, { plan: 'team', seats: 4 });
  const admin = await w.join(id, owner, 'admin');
  const member = await w.join(id, owner, 'member');
  w.setWorkspace(id, { plan });
  return { w, id, owner, admin, member };
}

const text = (overrides: Record<string, unknown> = {}) => ({
  kind: 'text' as const,
  expiresIn: 3600,
  maxViews: 1,
  passphrase: false,
  recipients: [],
  ...overrides,
});

describe('setPolicy', () => {
  it('replaces the policy for owners and admins, normalised, and records it; members are then held to it', async () => {
    const { w, id, admin, member } = await team();
    const policy = await setPolicy(
      id,
      admin.id,
      { maxViews: 3, requirePassphrase: true, allowedRecipientDomains: ['Example.COM.'], allowFiles: null },
      w.ports,
    );
    expect(policy).toEqual({ maxViews: 3, requirePassphrase: true, allowedRecipientDomains: ['example.com'] });
    expect(w.data.workspaceOf(id)!.policy).toEqual(policy);
    expect(await w.rowOf(id, 'policy.updated')).toMatchObject({
      target: id,
      actor: { userId: admin.id },
      details: { max_views: 3, require_passphrase: true, allowed_recipient_domains: ['example.com'], allow_files: null },
    });
    expect(await workspacePolicyFor(id, member.id, w.ports)).toEqual(policy);
    // Set again, it replaces: what is not given no longer applies.
    expect(await setPolicy(id, admin.id, {}, w.ports)).toEqual({});
    expect(w.data.workspaceOf(id)!.policy).toEqual({});
  });

  it('refuses bad rules, every one at once (invalid, one field each), storing nothing', async () => {
    const { w, id, owner } = await team();
    await expect(setPolicy(id, owner.id, { maxViews: 0, allowedRecipientDomains: ['*.example.com'] }, w.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [
        { field: 'max_views', message: 'must be a whole number from 1 to 100' },
        { field: 'allowed_recipient_domains.0', message: expect.stringContaining('without wildcards') },
      ],
    });
    expect(w.data.workspaceOf(id)!.policy).toEqual({});
  });

  it('is Team’s (forbidden, plan), for owners and admins only (forbidden, role); an outsider gets not found', async () => {
    const { w, id, member } = await team();
    await expect(setPolicy(id, member.id, { maxViews: 3 }, w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'role', role: 'member' },
    });
    await expect(setPolicy(id, w.person('outsider').id, {}, w.ports)).rejects.toBeInstanceOf(NotFound);
    await expect(setPolicy(newWorkspaceId(), member.id, {}, w.ports)).rejects.toBeInstanceOf(NotFound);
    const free = await team('free');
    const refused = setPolicy(free.id, free.admin.id, { maxViews: 3 }, free.w.ports);
    await expect(refused).rejects.toBeInstanceOf(Forbidden);
    await expect(setPolicy(free.id, free.admin.id, { maxViews: 3 }, free.w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'plan', plan: 'free', required: 'team' },
    });
  });

  it('is refused when the editor’s role was taken away meanwhile', async () => {
    const { w, id, admin } = await team();
    const workspaces = Object.create(w.ports.workspaces) as typeof w.ports.workspaces;
    workspaces.setPolicy = async (...args) => {
      w.data.members.get(pair(id, admin.id))!.role = 'member';
      return w.ports.workspaces.setPolicy(...args);
    };
    await expect(setPolicy(id, admin.id, { maxViews: 3 }, { ...w.ports, workspaces })).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'role' },
    });
    expect(w.data.workspaceOf(id)!.policy).toEqual({});
  });

  it('decides again while the save loses to another change, and answers a conflict when it never wins', async () => {
    const { w, id, admin } = await team();
    const workspaces = Object.create(w.ports.workspaces) as typeof w.ports.workspaces;
    let lost = 0;
    workspaces.setPolicy = async (...args) => (++lost <= 2 ? false : w.ports.workspaces.setPolicy(...args));
    expect(await setPolicy(id, admin.id, { maxViews: 3 }, { ...w.ports, workspaces })).toEqual({ maxViews: 3 });
    expect(lost).toBe(3);
    workspaces.setPolicy = async () => false;
    await expect(setPolicy(id, admin.id, { maxViews: 4 }, { ...w.ports, workspaces })).rejects.toBeInstanceOf(Conflict);
    expect(w.data.workspaceOf(id)!.policy).toEqual({ maxViews: 3 });
  });
});

describe('setBranding', () => {
  it('stores a checked logo and accent (lower-cased), records what changed but never the image, and shows on reveal pages while Team', async () => {
    const { w, id, owner } = await team();
    const png = tinyPng();
    const branding = await setBranding(
      id,
      owner.id,
      { displayName: '  Acme Security ', logo: `data:image/png;base64,${png}`, accent: '#1D4ED8' },
      w.ports,
    );
    expect(branding).toEqual({ displayName: 'Acme Security', logo: `data:image/png;base64,${png}`, accent: '#1d4ed8' });
    const row = await w.rowOf(id, 'branding.updated');
    expect(row).toMatchObject({ details: { display_name: 'Acme Security', logo: 'set', accent: '#1d4ed8' } });
    expect(JSON.stringify(row)).not.toContain(png);
    expect(await revealBranding(id, w.ports)).toEqual(branding);
    // Not once the plan no longer includes it, and never for a secret sent outside a workspace.
    w.setWorkspace(id, { plan: 'free' });
    expect(await revealBranding(id, w.ports)).toBeNull();
    expect(await revealBranding(undefined, w.ports)).toBeNull();
    expect(await revealBranding(newWorkspaceId(), w.ports)).toBeNull();
  });

  it('refuses SVG and a low-contrast accent at their fields, storing nothing', async () => {
    const { w, id, owner } = await team();
    const svg = `data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}`;
    const refused = setBranding(id, owner.id, { displayName: 'A', logo: svg, accent: '#ffff00' }, w.ports);
    await expect(refused).rejects.toBeInstanceOf(Invalid);
    await expect(setBranding(id, owner.id, { displayName: 'A', logo: svg, accent: '#ffff00' }, w.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [
        { field: 'logo', message: expect.stringContaining('SVG and other types are refused') },
        { field: 'accent', message: expect.stringContaining('contrast') },
      ],
    });
    expect(w.data.branding.has(id)).toBe(false);
  });

  it('is Team’s and the owners’ and admins’: forbidden otherwise; not found outside', async () => {
    const { w, id, admin, member } = await team();
    await expect(setBranding(id, member.id, { displayName: 'A' }, w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'role' },
    });
    await expect(setBranding(id, w.person('outsider').id, { displayName: 'A' }, w.ports)).rejects.toBeInstanceOf(NotFound);
    expect(await setBranding(id, admin.id, { displayName: 'By the admin' }, w.ports)).toEqual({
      displayName: 'By the admin',
      logo: null,
      accent: null,
    });
    const free = await team('free');
    await expect(setBranding(free.id, free.owner.id, { displayName: 'A' }, free.w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      facts: { reason: 'plan', plan: 'free' },
    });
  });
});

describe('sending inside a workspace', () => {
  it('holds any member to the policy: forbidden (policy_violation) naming every rule broken', async () => {
    const { w, id, owner, member } = await team();
    await setPolicy(id, owner.id, { maxViews: 2, requirePassphrase: true }, w.ports);
    await assertSendInWorkspace(id, member.id, text({ maxViews: 2, passphrase: true }), w.ports);
    await expect(assertSendInWorkspace(id, member.id, text({ maxViews: 3 }), w.ports)).rejects.toMatchObject({
      kind: 'forbidden',
      code: 'policy_violation',
      facts: { rules: ['max_views', 'require_passphrase'] },
      fields: [
        { field: 'max_views', message: 'at most 2 views in this workspace' },
        { field: 'envelope', message: 'must be sealed with a passphrase in this workspace' },
      ],
    });
  });

  it('refuses alike (forbidden, not_a_member) an anonymous caller, a non-member, a removed member, and an unknown or malformed workspace', async () => {
    const { w, id, admin, member } = await team();
    await removeMember(id, admin.id, member.id, w.ports);
    for (const [workspaceId, userId] of [
      [id, null],
      [id, w.person('outsider').id],
      [id, member.id],
      [newWorkspaceId(), admin.id],
      ['wks_malformed', admin.id],
    ] as const) {
      await expect(workspacePolicyFor(workspaceId, userId, w.ports)).rejects.toMatchObject({
        kind: 'forbidden',
        facts: { reason: 'not_a_member' },
      });
    }
  });

  it('keeps a policy set under Team after the plan drops; a workspace that never had Team has none', async () => {
    const { w, id, owner, member } = await team();
    await setPolicy(id, owner.id, { allowFiles: false }, w.ports);
    w.setWorkspace(id, { plan: 'free' });
    expect(await workspacePolicyFor(id, member.id, w.ports)).toEqual({ allowFiles: false });
    const never = await w.workspace(owner, { plan: 'free' });
    expect(await workspacePolicyFor(never, owner.id, w.ports)).toEqual({});
  });
});
