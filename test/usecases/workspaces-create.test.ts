import { describe, expect, it } from 'vitest';
import { newAuditId, newUserId, newWorkspaceId } from '../../shared/ids.ts';
import { workspaceLimits } from '../../shared/limits.ts';
import { Conflict, Misdirected, NotFound, Unauthenticated } from '../../shared/domain/refusals.ts';
import { exportAudit, exportPartBytes, readAudit } from '../../shared/domain/workspaces/audit.ts';
import { changeRole } from '../../shared/domain/workspaces/members.ts';
import { setBranding, setPolicy } from '../../shared/domain/workspaces/settings.ts';
import { createWorkspace, listWorkspaces } from '../../shared/domain/workspaces/workspaces.ts';
import { world } from './workspaces-world.ts';

// Making workspaces, listing them, and their audit trail (read and exported), on the fakes.

describe('createWorkspace', () => {
  it('makes the caller its one owner on one seat, on the free plan, with a slug from the name, and records it', async () => {
    const w = world();
    const ana = w.person('ana');
    const { workspace, roster } = await createWorkspace({ name: 'Ünïcode Platform Team' }, ana.id, w.ports);
    expect(workspace).toMatchObject({
      id: expect.stringMatching(/^wks_/),
      name: 'Ünïcode Platform Team',
      slug: 'unicode-platform-team',
      region: 'eu-west-1',
      plan: 'free',
      policy: {},
      createdAt: w.clock.now(),
    });
    expect(roster).toEqual({ seats: workspaceLimits.defaultSeats, used: 1, owners: 1, members: 1 });
    expect(w.roster(workspace.id)).toEqual(roster);
    expect(w.roleOf(workspace.id, ana.id)).toBe('owner');
    const [row] = (await w.ports.workspaces.auditPage(workspace.id, 10, null)).items;
    expect(row).toMatchObject({
      action: 'workspace.created',
      target: workspace.id,
      actor: { userId: ana.id, email: ana.email, via: 'session' },
      details: { name: 'Ünïcode Platform Team', slug: 'unicode-platform-team', region: 'eu-west-1' },
    });
  });

  it('gives the same name again a slug of its own (a random suffix), and pads a name too short for a slug', async () => {
    const w = world();
    const ana = w.person('ana');
    await createWorkspace({ name: 'Acme Ops' }, ana.id, w.ports);
    const again = await createWorkspace({ name: 'Acme Ops' }, ana.id, w.ports);
    expect(again.workspace.slug).toMatch(/^acme-ops-[0-9a-f]{6}$/);
    expect((await createWorkspace({ name: '¿?' }, ana.id, w.ports)).workspace.slug).toBe('workspace');
    expect((await createWorkspace({ name: 'A' }, ana.id, w.ports)).workspace.slug).toBe('workspace-a');
  });

  it('refuses a slug asked for that is taken: a conflict at slug, and nothing made', async () => {
    const w = world();
    const ana = w.person('ana');
    await createWorkspace({ name: 'Acme', slug: 'acme' }, ana.id, w.ports);
    const before = w.data.workspaces.size;
    const taken = createWorkspace({ name: 'Other', slug: 'acme' }, ana.id, w.ports);
    await expect(taken).rejects.toBeInstanceOf(Conflict);
    await expect(createWorkspace({ name: 'Other', slug: 'acme' }, ana.id, w.ports)).rejects.toMatchObject({
      kind: 'conflict',
      code: 'conflict',
      fields: [{ field: 'slug', message: 'is taken' }],
    });
    expect(w.data.workspaces.size).toBe(before);
  });

  it('gives up on a name whose slugs keep being taken, asking for a slug', async () => {
    const w = world();
    const ana = w.person('ana');
    // Every slug taken: the store answers slug_taken to each of the three tries.
    const workspaces = Object.create(w.ports.workspaces) as typeof w.ports.workspaces;
    workspaces.create = async () => 'slug_taken';
    const ports = { ...w.ports, workspaces };
    await expect(createWorkspace({ name: 'Acme' }, ana.id, ports)).rejects.toMatchObject({
      kind: 'conflict',
      fields: [{ field: 'slug', message: 'give a slug' }],
    });
  });

  it('sends another deployment’s region to that region’s service (misdirected, with its api_url); an unknown region is invalid', async () => {
    const w = world();
    const ana = w.person('ana');
    const elsewhere = createWorkspace({ name: 'EU', region: 'us-east-1' }, ana.id, w.ports);
    await expect(elsewhere).rejects.toBeInstanceOf(Misdirected);
    await expect(createWorkspace({ name: 'EU', region: 'us-east-1' }, ana.id, w.ports)).rejects.toMatchObject({
      kind: 'misdirected',
      code: 'misdirected',
      facts: { region: 'us-east-1', api_url: 'https://us.hushlink.example' },
    });
    await expect(createWorkspace({ name: 'Mars', region: 'mars-1' }, ana.id, w.ports)).rejects.toMatchObject({
      kind: 'invalid',
      fields: [{ field: 'region', message: 'must be one of eu-west-1, us-east-1' }],
    });
    // This deployment's own region, named, is made here.
    expect((await createWorkspace({ name: 'Here', region: 'eu-west-1' }, ana.id, w.ports)).workspace.region).toBe('eu-west-1');
    expect(w.data.workspaces.size).toBe(1);
  });

  it('refuses an account that is gone: unauthenticated', async () => {
    const w = world();
    await expect(createWorkspace({ name: 'Acme' }, newUserId(), w.ports)).rejects.toBeInstanceOf(Unauthenticated);
  });
});

describe('listWorkspaces', () => {
  it('lists the caller’s workspaces by name, with their role, roster and branding; none of anyone else’s', async () => {
    const w = world();
    const [ana, bo] = [w.person('ana'), w.person('bo')];
    const zeta = await w.workspace(ana, { name: 'Zeta', seats: 3 });
    const alpha = await w.workspace(bo, { name: 'alpha', seats: 3 });
    await w.join(alpha, bo, 'admin', ana);
    await w.workspace(bo, { name: 'Bo alone' });
    await setBranding(alpha, bo.id, { displayName: 'Alpha Security' }, w.ports);
    const listed = await listWorkspaces(ana.id, w.ports);
    expect(listed.map((entry) => [entry.workspace.id, entry.role, entry.roster.members, entry.branding?.displayName ?? null])).toEqual([
      [alpha, 'admin', 2, 'Alpha Security'],
      [zeta, 'owner', 1, null],
    ]);
    expect(await listWorkspaces(w.person('cy').id, w.ports)).toEqual([]);
  });
});

describe('readAudit', () => {
  it('has a row for every change, newest first, each the session that made it, paged by cursor', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { seats: 4 });
    const admin = await w.join(id, owner, 'admin');
    const member = await w.join(id, admin, 'member');
    const step = () => w.clock.advance(1);
    step();
    await changeRole(id, owner.id, member.id, 'admin', w.ports);
    step();
    await setPolicy(id, admin.id, { maxViews: 2 }, w.ports);
    step();
    await setBranding(id, admin.id, { displayName: 'Acme' }, w.ports);
    const page = await readAudit(id, admin.id, 50, null, w.ports);
    expect(page.items.map((row) => row.action)).toEqual([
      'branding.updated',
      'policy.updated',
      'member.role_changed',
      'member.joined',
      'member.invited',
      'member.joined',
      'member.invited',
      'workspace.created',
    ]);
    for (const row of page.items) expect(row.actor.via).toBe('session');
    expect(page.items[0]!.actor).toEqual({ userId: admin.id, email: admin.email, via: 'session' });
    const first = await readAudit(id, admin.id, 3, null, w.ports);
    const rest = await readAudit(id, admin.id, 50, first.nextCursor, w.ports);
    expect([...first.items, ...rest.items]).toEqual(page.items);
    expect(rest.nextCursor).toBeNull();
  });

  it('is hidden from members and outsiders as a workspace that does not exist (not found: the route lists no 403)', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner);
    const member = await w.join(id, owner, 'member');
    for (const who of [member, w.person('outsider')]) {
      await expect(readAudit(id, who.id, 10, null, w.ports)).rejects.toBeInstanceOf(NotFound);
      await expect(exportAudit(id, who.id, 'csv', null, w.ports)).rejects.toMatchObject({ kind: 'not_found', code: 'not_found' });
    }
    await expect(readAudit(newWorkspaceId(), owner.id, 10, null, w.ports)).rejects.toBeInstanceOf(NotFound);
  });
});

/** Rows written to the trail as changes over months would have left them. */
function seed(w: ReturnType<typeof world>, workspaceId: string, count: number): void {
  const start = w.clock.now() - count * 60_000;
  for (let i = 0; i < count; i++) {
    w.data.writeAudit({
      id: newAuditId(),
      workspaceId,
      at: start + i * 60_000,
      actor: { userId: 'usr_seed', email: 'admin@example.com', via: 'session' },
      action: 'member.role_changed',
      target: `usr_target${i}`,
      details: { email: `person${i}@example.com`, from: 'member', to: 'admin' },
    });
  }
}

describe('exportAudit', () => {
  it('answers the trail as a CSV or JSON file named after the workspace and the time', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner, { name: '=HYPERLINK("https://evil.example")' });
    const csv = await exportAudit(id, owner.id, 'csv', null, w.ports);
    expect(csv).toMatchObject({
      contentType: 'text/csv; charset=utf-8; header=present',
      fileName: expect.stringMatching(/^hushlink-audit-hyperlink-https-evil-example-\d{8}T\d{6}Z\.csv$/),
      nextCursor: null,
    });
    expect(csv.body.split('\r\n')).toHaveLength(3);
    const json = await exportAudit(id, owner.id, 'json', null, w.ports);
    expect(JSON.parse(json.body).items.map((row: { action: string }) => row.action)).toEqual(['workspace.created']);
    expect(json.fileName).toMatch(/\.json$/);
  });

  it('exports 10,000 rows in one part, far below the 6 MB a Lambda may answer', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner);
    seed(w, id, 10_000);
    const part = await exportAudit(id, owner.id, 'csv', null, w.ports);
    expect(part.nextCursor).toBeNull();
    // The header, the seeded rows, the workspace's own row, and the empty string after the last CRLF.
    expect(part.body.split('\r\n')).toHaveLength(1 + 10_000 + 1 + 1);
    expect(Buffer.byteLength(part.body)).toBeLessThan(5 * 2 ** 20);
    expect(JSON.parse((await exportAudit(id, owner.id, 'json', null, w.ports)).body).items).toHaveLength(10_001);
  });

  it('exports a trail larger than a part in parts, each a whole file under the part size, every row once', async () => {
    const w = world();
    const owner = w.person('owner');
    const id = await w.workspace(owner);
    seed(w, id, 24_000);
    const ids: string[] = [];
    let cursor: string | null = null;
    let parts = 0;
    do {
      const part: Awaited<ReturnType<typeof exportAudit>> = await exportAudit(id, owner.id, 'csv', cursor, w.ports);
      const lines = part.body.split('\r\n');
      expect(lines[0]).toBe('\uFEFFid,at,actor_user_id,actor_email,via,action,target,details');
      expect(lines.at(-1)).toBe('');
      ids.push(...lines.slice(1, -1).map((line) => line.split(',')[0]!));
      expect(Buffer.byteLength(part.body)).toBeLessThanOrEqual(exportPartBytes);
      cursor = part.nextCursor;
      parts++;
    } while (cursor !== null);
    expect(parts).toBeGreaterThan(1);
    expect(ids).toHaveLength(24_001);
    expect(new Set(ids).size).toBe(24_001);
  });

  it('refuses a cursor this trail did not give (the store’s InvalidCursor, which the HTTP table answers 400)', async () => {
    const w = world();
    const owner = w.person('owner');
    const [id, other] = [await w.workspace(owner), await w.workspace(owner)];
    const elsewhere = (await readAudit(other, owner.id, 1, null, w.ports)).items[0]!;
    const foreign = Buffer.from(JSON.stringify({ pk: `AUDIT#${other}`, sk: `x#${elsewhere.id}` })).toString('base64url');
    for (const cursor of ['not a cursor', foreign]) {
      await expect(exportAudit(id, owner.id, 'csv', cursor, w.ports)).rejects.toMatchObject({ name: 'InvalidCursor' });
      await expect(readAudit(id, owner.id, 10, cursor, w.ports)).rejects.toMatchObject({ name: 'InvalidCursor' });
    }
  });
});
