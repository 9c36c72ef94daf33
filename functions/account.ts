import { SESClient } from '@aws-sdk/client-ses';
import { SesMailer } from '../shared/adapters/ses.ts';
import type { AccountPorts } from '../shared/domain/accounts/ports.ts';
import type { SignInPorts } from '../shared/domain/accounts/signIn.ts';
import { AccessTokens } from '../shared/domain/accounts/tokens.ts';
import type { SecretAdoptions } from '../shared/domain/secrets/ports.ts';
import type { Counters } from '../shared/domain/counters.ts';
import type { ProductEventStore, UsageReportStore } from '../shared/domain/usage/ports.ts';
import { accountRequests } from '../shared/api/account.ts';
import { apiDeps, type ApiDeps } from './shared/apiDeps.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { accountRoutes } from '../shared/routes.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { DynamoCounters } from '../shared/store/counters.ts';
import { DynamoProductEventStore } from '../shared/store/productEvents.ts';
import { DynamoRateCounter } from '../shared/store/rateLimits.ts';
import { DynamoSecretAdoptions } from '../shared/store/secretAdoptions.ts';
import { DynamoSignInCodeStore } from '../shared/store/signIn.ts';
import { DynamoSsoPolicy } from '../shared/store/ssoPolicy.ts';
import { DynamoUsageReports } from '../shared/store/usageReports.ts';
import { DynamoTierSource } from '../shared/store/tiers.ts';
import type { TierPorts } from '../shared/domain/billing/tier.ts';
import { DynamoUserStore } from '../shared/store/users.ts';
import { productOperations } from './account/product.ts';
import { profileOperations } from './account/profile.ts';
import { sessionOperations } from './account/session.ts';
import { ssoOperations } from './account/sso.ts';
import { oidcRelyingParty } from '../shared/adapters/oidcRelyingParty.ts';
import { ssoClients } from '../shared/domain/sso/clients.ts';
import type { SsoSignInPorts } from '../shared/domain/sso/signIn.ts';
import { DynamoSsoSignIns } from '../shared/store/ssoSignIns.ts';
import { DynamoMembershipChanges } from '../shared/store/workspaceMembershipChanges.ts';
import { DynamoSsoStore } from '../shared/store/workspaceSso.ts';
import { DynamoWorkspaceStore } from '../shared/store/workspaces.ts';
import { kmsSealer } from '../shared/adapters/kms.ts';

/**
 * The account group's wiring: sign-in (codes, users, the SSO policy, the mailer, the one
 * access-token issuer), adoption of anonymous secrets, usage reads, product events, counters.
 */
export interface AccountDeps extends ApiDeps, AccountPorts, Omit<SignInPorts, 'config'>, Omit<SsoSignInPorts, 'config'>, TierPorts {
  secrets: SecretAdoptions;
  counters: Counters;
  accessTokens: AccessTokens;
  usageReports: UsageReportStore;
  productEvents: ProductEventStore;
}

export function compose(platform: Platform, adapters: Pick<Adapters, 'mailer' | 'ssoSealer'>): AccountDeps {
  const { db, config, clock } = platform;
  const base = apiDeps(platform);
  return {
    ...base,
    accessTokens: new AccessTokens(base.signingKeys, clock, config.WEB_ORIGIN),
    users: new DynamoUserStore(db, config.TABLE_NAME),
    tiers: new DynamoTierSource(db, config.TABLE_NAME),
    signInCodes: new DynamoSignInCodeStore(db, config.TABLE_NAME),
    ssoPolicy: new DynamoSsoPolicy(db, config.TABLE_NAME),
    rateCounter: new DynamoRateCounter(db, config.TABLE_NAME),
    mailer: adapters.mailer,
    secrets: new DynamoSecretAdoptions(db, config.TABLE_NAME),
    counters: new DynamoCounters(db, config.TABLE_NAME),
    usageReports: new DynamoUsageReports(db, config.TABLE_NAME),
    productEvents: new DynamoProductEventStore(db, config.TABLE_NAME),
    // Single sign-on: the workspaces' OIDC clients (their secrets opened in context sso_workspace), the provider's calls, the sign-ins under way.
    ssoClients: ssoClients({
      sso: new DynamoSsoStore(db, config.TABLE_NAME),
      workspaces: new DynamoWorkspaceStore(db, config.TABLE_NAME),
      sealer: adapters.ssoSealer,
    }),
    relyingParty: oidcRelyingParty({ allowHttp: config.HUSHLINK_MODE === 'local' }),
    ssoSignIns: new DynamoSsoSignIns(db, config.TABLE_NAME),
    ssoMemberships: new DynamoMembershipChanges(db, config.TABLE_NAME),
  };
}

/** The account group (interface §4.4): sign-in and sessions, API keys, usage, flags, regions; the account's mail language (issue 32). */
export const operations: Operations<'account', AccountDeps> = {
  ...sessionOperations,
  ...productOperations,
  ...ssoOperations,
  ...profileOperations,
};

export const createHandler = (deps: AccountDeps) => groupHandler(accountRoutes, operations, accountRequests, deps);
// Sign-in codes go out through SES; workspaces' SSO client secrets are opened with KMS, in their own context.
export const handler = lambdaEntry((platform) =>
  createHandler(
    compose(platform, {
      mailer: new SesMailer(new SESClient({ region: platform.config.REGION }), platform.config.MAIL_FROM),
      ssoSealer: kmsSealer(platform.config, 'sso_workspace'),
    }),
  ),
);
