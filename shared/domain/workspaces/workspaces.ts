import { randomBytes } from 'node:crypto';
import type { z } from 'zod/mini';
import type { workspacesRequests } from '../../api/workspaces.ts';
import { HttpError } from '../../http/errors.ts';
import { newWorkspaceId } from '../../ids.ts';
import { workspaceLimits } from '../../limits.ts';
import { normalizeEmail } from '../accounts/model.ts';
import { auditRow } from './access.ts';
import type { Member, Roster, Workspace } from './model.ts';
import type { Membership, WorkspacePorts } from './ports.ts';

type CreateWorkspaceRequest = z.output<(typeof workspacesRequests)['CreateWorkspaceRequest']>;

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
 * seats). 421 when `region` is another deployment's, naming its `api_url`; 409 when the slug
 * asked for is taken (a slug made from the name gets a random suffix instead).
 */
export async function createWorkspace(request: CreateWorkspaceRequest, userId: string, ports: WorkspacePorts): Promise<{ workspace: Workspace; roster: Roster }> {
  const region = request.region ?? ports.config.REGION;
  if (region !== ports.config.REGION) {
    const elsewhere = ports.config.REGIONS.find((known) => known.id === region);
    if (!elsewhere) {
      throw new HttpError(400, 'invalid_request', 'Unknown region.', {
        errors: [{ path: 'body.region', message: `must be one of ${ports.config.REGIONS.map((known) => known.id).join(', ')}` }],
      });
    }
    throw new HttpError(421, 'misdirected', `Workspaces in ${region} are made by that region's service.`, { members: { region, api_url: elsewhere.api_url } });
  }
  const user = await ports.users.get(userId);
  if (!user) throw new HttpError(401, 'unauthorized', 'Sign in first.');
  const now = ports.clock.now();
  for (let attempt = 0; ; attempt++) {
    const slug = request.slug ?? slugFrom(request.name, attempt === 0 ? null : randomBytes(3).toString('hex'));
    const workspace: Workspace = { id: newWorkspaceId(), name: request.name, slug, region, plan: 'free', createdAt: now, policy: {} };
    const roster: Roster = { seats: workspaceLimits.defaultSeats, used: 1, owners: 1, members: 1 };
    const owner: Member = { workspaceId: workspace.id, userId, email: normalizeEmail(user.email), role: 'owner', joinedAt: now, source: 'owner' };
    const audit = auditRow(owner, workspace.id, 'workspace.created', workspace.id, { name: workspace.name, slug, region }, now);
    if ((await ports.workspaces.create(workspace, roster, owner, audit)) === 'created') return { workspace, roster };
    if (request.slug !== undefined) {
      throw new HttpError(409, 'conflict', 'This slug is taken.', { errors: [{ path: 'body.slug', message: 'is taken' }] });
    }
    if (attempt + 1 >= derivedSlugTries) throw new HttpError(409, 'conflict', 'No free slug could be made from this name: give one.', { errors: [{ path: 'body.slug', message: 'give a slug' }] });
  }
}

/** The caller's workspaces, by name. */
export async function listWorkspaces(userId: string, ports: Pick<WorkspacePorts, 'workspaces'>): Promise<Membership[]> {
  const memberships = await ports.workspaces.membershipsOf(userId);
  return memberships.sort((a, b) => a.workspace.name.localeCompare(b.workspace.name) || a.workspace.id.localeCompare(b.workspace.id));
}
