import { SESClient } from '@aws-sdk/client-ses';
import { SesMailer } from '../shared/adapters/ses.ts';
import { gateRequests } from '../shared/api/gate.ts';
import { toIso } from '../shared/clock.ts';
import { startGate, verifyGate, type GatePorts } from '../shared/domain/secrets/gate.ts';
import { apiDeps, type ApiDeps } from './shared/apiDeps.ts';
import { addressKey } from '../shared/domain/sources.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { requestLanguage } from '../shared/http/language.ts';
import { secretLimits } from '../shared/limits.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { gateRoutes } from '../shared/routes.ts';
import { DynamoGateStore } from '../shared/store/gate.ts';
import { DynamoRateCounter } from '../shared/store/rateLimits.ts';
import { DynamoSecretStore } from '../shared/store/secrets.ts';

export const operations: Operations<'gate', GateDeps> = {
  async startGate(request, deps) {
    await startGate(
      request.params.id!,
      request.body.recipient_id,
      request.body.email,
      addressKey(request.sourceIp),
      request.hostClaim,
      deps,
      requestLanguage(request),
    );
    return { status: 200, body: { sent: true } };
  },

  async verifyGate(request, deps) {
    const { recipient_id, email, code } = request.body;
    const session = await verifyGate(request.params.id!, recipient_id, email, code, addressKey(request.sourceIp), request.hostClaim, deps);
    return { status: 200, body: { gate_token: session.token, expires_at: toIso(session.expiresAt) } };
  },
};

/** The gate's wiring: secrets to read, codes and sessions, the per-source caps, and the mailer. */
export type GateDeps = ApiDeps & GatePorts;

export function compose(platform: Platform, adapters: Pick<Adapters, 'mailer'>): GateDeps {
  const { db, config } = platform;
  return {
    ...apiDeps(platform),
    secrets: new DynamoSecretStore(db, config.TABLE_NAME, secretLimits.tombstoneSeconds),
    gates: new DynamoGateStore(db, config.TABLE_NAME),
    rateCounter: new DynamoRateCounter(db, config.TABLE_NAME),
    mailer: adapters.mailer,
  };
}

export const createHandler = (deps: GateDeps) => groupHandler(gateRoutes, operations, gateRequests, deps);
export const handler = lambdaEntry((platform) =>
  createHandler(compose(platform, { mailer: new SesMailer(new SESClient({ region: platform.config.REGION }), platform.config.MAIL_FROM) })),
);
