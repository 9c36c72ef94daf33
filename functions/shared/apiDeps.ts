import type { Platform } from '../../shared/platform.ts';
import type { ApiKeyStore, SessionStore } from '../../shared/domain/accounts/ports.ts';
import { checkHost, HostDirectory } from '../../shared/domain/domains/hosts.ts';
import { DynamoHostClaims } from '../../shared/store/hostClaims.ts';
import { viewerHost } from '../../shared/http/viewerHost.ts';
import { SigningKeyList, TokenVerifier } from '../../shared/domain/accounts/tokenVerifier.ts';
import type { CallCounter } from '../../shared/domain/usage/ports.ts';
import { DynamoApiKeyStore } from '../../shared/store/apiKeys.ts';
import { DynamoRateCounter } from '../../shared/store/rateLimits.ts';
import { DynamoSessionStore } from '../../shared/store/sessions.ts';
import { DynamoSigningKeyStore } from '../../shared/store/signingKeys.ts';
import { DynamoCallCounter } from '../../shared/store/usage.ts';
import { authenticate } from '../../shared/http/auth.ts';
import type { GroupDeps, RequestGuard } from '../../shared/http/group.ts';
import { RateLimiter } from '../../shared/http/rateLimit.ts';

/**
 * What every API function with credentials or rate limits carries, whichever group it serves:
 * the platform, and what the shared steps of a request use (rate limits, the caller's
 * credential, the call counter), run by its `guard`.
 */
export interface ApiDeps extends GroupDeps {
  rateLimiter: RateLimiter;
  sessions: SessionStore;
  apiKeys: ApiKeyStore;
  signingKeys: SigningKeyList;
  accessTokens: TokenVerifier;
  calls: CallCounter;
  /** The workspaces' verified hostnames, as this instance last read them. */
  hosts: HostDirectory;
}

export function apiDeps(platform: Platform): ApiDeps {
  const { db, config, clock, logger } = platform;
  const signingKeys = new SigningKeyList(new DynamoSigningKeyStore(db, config.TABLE_NAME), clock);
  const deps: Omit<ApiDeps, 'guard'> = {
    ...platform,
    rateLimiter: new RateLimiter(new DynamoRateCounter(db, config.TABLE_NAME), config.rateLimits, clock, logger),
    sessions: new DynamoSessionStore(db, config.TABLE_NAME),
    apiKeys: new DynamoApiKeyStore(db, config.TABLE_NAME),
    signingKeys,
    accessTokens: new TokenVerifier(signingKeys, clock, config.WEB_ORIGIN),
    calls: new DynamoCallCounter(db, config.TABLE_NAME),
    hosts: new HostDirectory(new DynamoHostClaims(db, config.TABLE_NAME), clock),
  };
  return { ...deps, guard: credentialGuard(deps) };
}

/**
 * The steps before an operation, as the route's row says: the host (rule 5: a workspace's
 * hostname serves only while its claim is verified), the per-address rate limit, the
 * credential, the per-user rate limit and the call count. Counting goes alongside the work,
 * never before it: the limiter decides from what this instance knows (shared/http/rateLimit.ts)
 * and the counts are awaited with the operation.
 */
function credentialGuard(deps: Omit<ApiDeps, 'guard'>): RequestGuard {
  return async (route, request, counting) => {
    const { config } = deps;
    request.hostClaim = await checkHost(
      viewerHost(request.headers, config.ORIGIN_VERIFY, config.HUSHLINK_MODE === 'local'),
      config.WEB_ORIGIN,
      config.HUSHLINK_MODE === 'local',
      deps.hosts,
    );
    // Per address first: it bounds how fast anyone can try credentials.
    if (route.rate) counting.push((await deps.rateLimiter.admitAddress(route.rate, request.sourceIp)).counted);
    request.principal = await authenticate(route, request, deps);
    if (!request.principal) return;
    const { userId } = request.principal;
    if (route.rate) counting.push((await deps.rateLimiter.admitUser(route.rate, userId)).counted);
    // A count the table refuses is logged, never the caller's problem.
    request.callCounted = deps.calls.countCall(userId, deps.clock.now()).catch((error: unknown) => {
      deps.logger.warn('call not counted', { error: (error as Error).name });
    });
    counting.push(request.callCounted);
  };
}
