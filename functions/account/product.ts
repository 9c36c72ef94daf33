import { requireSession, requireUser } from '../../shared/http/auth.ts';
import type { Operations } from '../../shared/http/group.ts';
import type { AccountDeps } from '../account.ts';
import type { OperationOf } from '../../shared/routes.ts';
import { recordProductEvent } from '../../shared/domain/usage/events.ts';
import { countCliInstall } from '../../shared/domain/usage/installs.ts';
import { readFlags, readUsage, readUsageHistory } from '../../shared/domain/usage/read.ts';

type ProductOperation = Extract<
  OperationOf<'account'>,
  'readUsage' | 'readUsageHistory' | 'recordProductEvent' | 'readFlags' | 'listRegions' | 'countCliInstall'
>;

/** Usage, product events, flags, regions and CLI installs (interface §4.4). */
export const productOperations: Pick<Operations<'account', AccountDeps>, ProductOperation> = {
  async readUsage(request, deps) {
    const { userId } = requireUser(request.principal);
    // Counted alongside the work (shared/http/group.ts); the usage read includes itself.
    await request.callCounted;
    return { status: 200, body: await readUsage(userId, deps) };
  },

  async readUsageHistory(request, deps) {
    const { userId } = requireUser(request.principal);
    const items = await readUsageHistory(userId, { days: request.query.days }, deps);
    return { status: 200, body: { items, next_cursor: null } };
  },

  async recordProductEvent(request, deps) {
    const { userId } = requireSession(request.principal);
    const { name, properties } = request.body;
    await recordProductEvent(userId, { name, properties }, deps);
    return { status: 202, body: { accepted: true } };
  },

  async readFlags(request, deps) {
    return { status: 200, body: { flags: await readFlags(request.principal, deps) } };
  },

  async listRegions(_request, deps) {
    const current = deps.config.REGIONS.find((region) => region.id === deps.config.REGION)!;
    return {
      status: 200,
      body: {
        current: { id: current.id, api_url: current.api_url },
        regions: deps.config.REGIONS.map((region) => ({ id: region.id, api_url: region.api_url, current: region.id === current.id })),
      },
    };
  },

  async countCliInstall(request, deps) {
    const { source, os, version } = request.body;
    await countCliInstall({ source, os, version }, deps);
    return { status: 202, body: { accepted: true } };
  },
};
