import { secretsRoutes } from '../shared/routes.ts';
import { lambdaEntry, type Platform } from '../shared/platform.ts';
import { toIso } from '../shared/clock.ts';
import { apiDeps, type ApiDeps } from '../shared/http/apiDeps.ts';
import type { SecretPorts } from '../shared/domain/secrets/ports.ts';
import { secretLimits } from '../shared/limits.ts';
import { DynamoCounters } from '../shared/store/counters.ts';
import { DynamoSecretStore } from '../shared/store/secrets.ts';
import { claimSecret } from '../shared/domain/secrets/claim.ts';
import { createSecret } from '../shared/domain/secrets/create.ts';
import type { Secret } from '../shared/domain/secrets/model.ts';
import { readSecret, revokeSecret } from '../shared/domain/secrets/read.ts';
import { secretsRequests } from '../shared/api/secrets.ts';
import { requireUser } from '../shared/http/auth.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { listOwnedSecrets } from '../shared/domain/secrets/owner.ts';
import { recordRevealFeedback, reportSecret } from '../shared/domain/secrets/reports.ts';

const iso = (ms: number | undefined) => (ms === undefined ? null : toIso(ms));

/** Metadata only: never the envelope. The owner (`viewerId`) is told it is theirs; nobody else whether anyone owns it. */
const metadata = (secret: Secret, viewerId: string | null) => ({
  id: secret.id,
  ...(viewerId !== null && secret.ownerId === viewerId ? { owned: true as const } : {}),
  state: secret.state,
  kind: secret.kind,
  size_bytes: secret.sizeBytes,
  salt: secret.salt,
  max_views: secret.maxViews,
  views_left: secret.viewsLeft,
  created_at: toIso(secret.createdAt),
  expires_at: toIso(secret.expiresAt),
  not_before: iso(secret.notBefore),
  ended_at: iso(secret.endedAt),
  requires_proof: secret.claimVerifier !== undefined,
  // From the envelope v1 header; null when the envelope is of another format.
  passphrase: secret.envelopeFormat?.passphrase ?? null,
  kdf_iterations: secret.envelopeFormat?.kdfIterations ?? null,
});

export const operations: Operations<'secrets', SecretsDeps> = {
  async createSecret(request, deps) {
    const { secret, deleteToken } = await createSecret(request.body, request.principal?.userId ?? null, deps);
    return {
      status: 201,
      body: {
        id: secret.id,
        url_base: `${deps.config.WEB_ORIGIN}/s/${secret.id}`,
        delete_token: deleteToken,
        created_at: toIso(secret.createdAt),
        expires_at: toIso(secret.expiresAt),
        not_before: iso(secret.notBefore),
        max_views: secret.maxViews,
        views_left: secret.viewsLeft,
      },
    };
  },

  async readSecret(request, deps) {
    const secret = await readSecret(request.params.id!, deps);
    return { status: 200, body: metadata(secret, request.principal?.userId ?? null) };
  },

  async revokeSecret(request, deps) {
    await revokeSecret(request.params.id!, request.headers['x-delete-token'] ?? null, request.principal?.userId ?? null, deps);
    return { status: 204, body: undefined };
  },

  async listSecrets(request, deps) {
    const { limit, cursor } = request.query;
    const { userId } = requireUser(request.principal);
    const page = await listOwnedSecrets(userId, limit, cursor ?? null, deps);
    return { status: 200, body: { items: page.items.map((secret) => metadata(secret, userId)), next_cursor: page.nextCursor } };
  },

  async reportSecret(request, deps) {
    await reportSecret(request.body.secret_id, request.body.link_token ?? null, request.sourceIp, deps);
    return { status: 202, body: { accepted: true } };
  },

  async recordRevealFeedback(request, deps) {
    await recordRevealFeedback(request.body.rating, deps);
    return { status: 202, body: { accepted: true } };
  },

  async claimSecret(request, deps) {
    // The claim answers no 400: a proof that is not a string is simply not a proof (ClaimRequest).
    const proof = { claimToken: request.body.claim_token ?? null, linkToken: request.body.link_token ?? null };
    const { secret, envelope, deferredBurn } = await claimSecret(request.params.id!, proof, deps);
    if (deferredBurn) deps.logger.warn('burn deferred after the last view', { error: deferredBurn.name });
    return {
      status: 200,
      body: {
        id: secret.id,
        kind: secret.kind,
        envelope: Buffer.from(envelope).toString('base64'),
        salt: secret.salt,
        size_bytes: secret.sizeBytes,
        views_left: secret.viewsLeft,
        expires_at: toIso(secret.expiresAt),
      },
    };
  },
};

/** The secrets group's wiring: the secret store and the feedback counters, nothing else. */
export interface SecretsDeps extends ApiDeps, SecretPorts {}

export function compose(platform: Platform): SecretsDeps {
  const { db, config } = platform;
  return {
    ...apiDeps(platform),
    secrets: new DynamoSecretStore(db, config.TABLE_NAME, secretLimits.tombstoneSeconds),
    counters: new DynamoCounters(db, config.TABLE_NAME),
  };
}

export const createHandler = (deps: SecretsDeps) => groupHandler(secretsRoutes, operations, secretsRequests, deps);
// Its events reach webhooks through the table's stream (functions/relay.ts): no queue here.
export const handler = lambdaEntry((platform) => createHandler(compose(platform)));
