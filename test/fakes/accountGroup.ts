import type { Clock } from '../../shared/clock.ts';
import type { SsoPolicy } from '../../shared/domain/accounts/ports.ts';
import { AccessTokens } from '../../shared/domain/accounts/tokens.ts';
import { SigningKeyList } from '../../shared/domain/accounts/tokenVerifier.ts';
import { StoppedClock } from '../support/clock.ts';
import { MemoryApiKeyStore } from './apiKeys.ts';
import { MemoryMailer } from './mailer.ts';
import { MemoryRateCounter } from './rateCounter.ts';
import { MemorySessionStore } from './sessions.ts';
import { MemorySignInCodeStore } from './signInCodes.ts';
import { MemorySigningKeyStore } from './signingKeys.ts';
import { MemoryUserStore } from './users.ts';

/** No address must sign in through a directory: what a test without SSO wants (the workspace group's fakes have a real one). */
const noSso: SsoPolicy = ssoPolicyOf(false);

/** A policy that enforces SSO for every address (in `wks_sso`) or none; `breakGlass` makes every address an owner's. */
export function ssoPolicyOf(enforced: boolean, breakGlass = false): SsoPolicy & { breakGlasses: string[] } {
  const breakGlasses: string[] = [];
  return {
    breakGlasses,
    ruleFor: async () => (enforced ? { enforced: true, workspaceId: 'wks_sso', breakGlass } : { enforced: false }),
    recordBreakGlass: async (workspaceId, user) => void breakGlasses.push(`${workspaceId}:${user.email}`),
  };
}

/**
 * The accounts group's ports in memory, named as AccountPorts and SignInPorts name them, with the
 * signing keys the access tokens sign with. `users` also takes the plans billing and contracts
 * write: hand it to the workspace group's fakes as their accounts so both see one account.
 */
export function memoryAccountPorts<C extends Clock = StoppedClock>(
  clock: C = new StoppedClock() as unknown as C,
  ssoPolicy: SsoPolicy = noSso,
  issuer = 'http://localhost:3000',
) {
  const signingKeys = new MemorySigningKeyStore();
  return {
    clock,
    users: new MemoryUserStore(),
    sessions: new MemorySessionStore(),
    apiKeys: new MemoryApiKeyStore(),
    signInCodes: new MemorySignInCodeStore(),
    signingKeys,
    accessTokens: new AccessTokens(new SigningKeyList(signingKeys, clock), clock, issuer),
    rateCounter: new MemoryRateCounter(),
    ssoPolicy,
    mailer: new MemoryMailer(),
    /** Where sign-in links point (the web client's origin; the issuer's here, as in a deployment). */
    config: { WEB_ORIGIN: issuer },
  };
}

export type MemoryAccountPorts = ReturnType<typeof memoryAccountPorts<StoppedClock>>;
