import { randomBytes } from 'node:crypto';
import { newWorkspaceId } from '../../ids.ts';
import { workspaceLimits } from '../../limits.ts';
import { normalizeEmail } from '../accounts/model.ts';
import { Conflict, Invalid, Misdirected, Unauthenticated } from '../refusals.ts';
import { auditRow } from './access.ts';
import { workspaceInUse, type Member, type Roster, type Workspace } from './model.ts';
import type { Membership, WorkspacePorts } from './ports.ts';

/** A workspace asked for: its name, and the slug and region when the caller chose them. */
export interface NewWorkspace {
  name: string;
  /** Made from the name when absent. */
  slug?: string | undefined;
  /** This deployment's region when absent. */
  region?: string | undefined;
}

/** Tries of a slug made from the name, each with a fresh random suffix after the first. */
const derivedSlugTries = 3;

/** A slug from the name: lower-case ASCII letters and digits, single dashes; padded when too short. */
export function slugFrom(name: string, suffix: string | null): string {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, workspaceLimits.slug.max - 9)
    .replace(/-+$/, '');
  const padded = base.length >= workspaceLimits.slug.min ? base : `workspace${base ? `-${base}` : ''}`;
  return suffix ? `${padded}-${suffix}` : padded;
}

/**
 * Makes a workspace with the caller as its one owner and one seat (a Team subscription adds
 * seats). Misdirected when `region` is another deployment's, naming its `api_url`; a conflict
 * when the slug asked for is taken (a slug made from the name gets a random suffix instead).
 */
export async function createWorkspace(
  request: NewWorkspace,
  userId: string,
  ports: WorkspacePorts,
): Promise<{ workspace: Workspace; roster: Roster }> {
  const region = request.region ?? ports.config.REGION;
  if (region !== ports.config.REGION) {
    const elsewhere = ports.config.REGIONS.find((known) => known.id === region);
    if (!elsewhere) {
      throw new Invalid('Unknown region.', [
        { field: 'region', message: `must be one of ${ports.config.REGIONS.map((known) => known.id).join(', ')}` },
      ]);
    }
    throw new Misdirected(`Workspaces in ${region} are made by that region's service.`, { facts: { region, api_url: elsewhere.api_url } });
  }
  const user = await ports.users.get(userId);
  if (!user) throw new Unauthenticated('Sign in first.');
  const now = ports.clock.now();
  for (let attempt = 0; ; attempt++) {
    const slug = request.slug ?? slugFrom(request.name, attempt === 0 ? null : randomBytes(3).toString('hex'));
    const workspace: Workspace = { id: newWorkspaceId(), name: request.name, slug, region, plan: 'free', createdAt: now, policy: {} };
    const roster: Roster = { seats: workspaceLimits.defaultSeats, used: 1, owners: 1, members: 1 };
    const owner: Member = {
      workspaceId: workspace.id,
      userId,
      email: normalizeEmail(user.email),
      role: 'owner',
      joinedAt: now,
      source: 'owner',
    };
    const audit = auditRow(owner, workspace.id, 'workspace.created', workspace.id, { name: workspace.name, slug, region }, now);
    if ((await ports.workspaces.create(workspace, roster, owner, audit)) === 'created') return { workspace, roster };
    if (request.slug !== undefined) {
      throw new Conflict('This slug is taken.', { fields: [{ field: 'slug', message: 'is taken' }] });
    }
    if (attempt + 1 >= derivedSlugTries)
      throw new Conflict('No free slug could be made from this name: give one.', { fields: [{ field: 'slug', message: 'give a slug' }] });
  }
}

/** The caller's workspaces, by name. */
export async function listWorkspaces(userId: string, ports: Pick<WorkspacePorts, 'workspaces'>): Promise<Membership[]> {
  const memberships = (await ports.workspaces.membershipsOf(userId)).map((membership) => ({
    ...membership,
    workspace: workspaceInUse(membership.workspace),
  }));
  return memberships.sort((a, b) => a.workspace.name.localeCompare(b.workspace.name) || a.workspace.id.localeCompare(b.workspace.id));
}
