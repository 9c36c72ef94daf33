import { requireSession, requireUser } from '../../shared/http/auth.ts';
import type { Operation } from '../../shared/http/group.ts';
import type { AccountDeps } from '../account.ts';
import { parseJsonBody, parseQuery } from '../../shared/http/request.ts';
import type { OperationOf } from '../../shared/routes.ts';
import { recordProductEvent, productEventRequest } from '../../shared/domain/usage/events.ts';
import { cliInstallRequest, countCliInstall } from '../../shared/domain/usage/installs.ts';
import { readFlags, readUsage, readUsageHistory, usageHistoryQuery } from '../../shared/domain/usage/read.ts';

type ProductOperation = Extract<
  OperationOf<'account'>,
  'readUsage' | 'readUsageHistory' | 'recordProductEvent' | 'readFlags' | 'listRegions' | 'countCliInstall'
>;

/** Usage, product events, flags, regions and CLI installs (interface §4.4). */
export const productOperations: Record<ProductOperation, Operation<AccountDeps>> = {
  async readUsage(request, deps) {
    const { userId } = requireUser(request.principal);
    // Counted alongside the work (shared/http/group.ts); the usage read includes itself.
    await request.callCounted;
    return { status: 200, body: await readUsage(userId, deps) };
  },

  async readUsageHistory(request, deps) {
    const { userId } = requireUser(request.principal);
    const items = await readUsageHistory(userId, parseQuery(request, usageHistoryQuery), deps);
    return { status: 200, body: { items, next_cursor: null } };
  },

  async recordProductEvent(request, deps) {
    const { userId } = requireSession(request.principal);
    await recordProductEvent(userId, parseJsonBody(request, productEventRequest), deps);
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
    await countCliInstall(parseJsonBody(request, cliInstallRequest), deps);
    return { status: 202, body: { accepted: true } };
  },
};
