import { secretsRoutes } from '../shared/routes.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { awsBucket, PresignedFileObjects } from '../shared/adapters/fileObjects.ts';
import { defaultProvider } from '../shared/adapters/lambdaCredentials.ts';
import { objectKeyOf } from '../shared/domain/files/ports.ts';
import { fileLimits, secretLimits } from '../shared/limits.ts';
import { createdLink, metadata } from './secrets/replies.ts';
import { curlOptions, newTextSecret } from './secrets/inputs.ts';
import { viewContext } from '../shared/http/viewContext.ts';
import { revokeRecipient } from '../shared/domain/secrets/recipients.ts';
import { createCurlSecret } from '../shared/domain/secrets/curl.ts';
import { listReceipts, type ReceiptPorts } from '../shared/domain/secrets/receipts.ts';
import type { ClaimPorts } from '../shared/domain/secrets/claim.ts';
import { DynamoGateStore } from '../shared/store/gate.ts';
import { DynamoReceiptStore } from '../shared/store/receipts.ts';
import { DynamoTierSource } from '../shared/store/tiers.ts';
import { toIso } from '../shared/clock.ts';
import { apiDeps, type ApiDeps } from './shared/apiDeps.ts';
import type { SecretPorts } from '../shared/domain/secrets/ports.ts';
import { DynamoCounters } from '../shared/store/counters.ts';
import { DynamoHostClaims } from '../shared/store/hostClaims.ts';
import { linkOrigin, type LinkHostPorts } from '../shared/domain/domains/linkHosts.ts';
import { DynamoSecretStore } from '../shared/store/secrets.ts';
import { DynamoWorkspaceMembership } from '../shared/store/workspaceMembership.ts';
import { revealBranding, type WorkspaceMembershipPorts } from '../shared/domain/workspaces/membership.ts';
import { claimSecret } from '../shared/domain/secrets/claim.ts';
import { createSecret } from '../shared/domain/secrets/create.ts';
import { readSecret, revokeSecret } from '../shared/domain/secrets/read.ts';
import { secretsRequests } from '../shared/api/secrets.ts';
import { requireUser } from '../shared/http/auth.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { listOwnedSecrets } from '../shared/domain/secrets/owner.ts';
import { recordRevealFeedback, reportSecret } from '../shared/domain/secrets/reports.ts';

export const operations: Operations<'secrets', SecretsDeps> = {
  async createSecret(request, deps) {
    const { secret, deleteToken } = await createSecret(newTextSecret(request.body), request.principal?.userId ?? null, deps);
    const origin = linkOrigin(secret.linkHost, deps.config);
    return {
      status: 201,
      body: {
        id: secret.id,
        url_base: `${origin}/s/${secret.id}`,
        delete_token: deleteToken,
        created_at: toIso(secret.createdAt),
        expires_at: toIso(secret.expiresAt),
        not_before: secret.notBefore === undefined ? null : toIso(secret.notBefore),
        max_views: secret.maxViews,
        views_left: secret.viewsLeft,
        ...(secret.recipients ? { recipients: secret.recipients.map(createdLink(origin, secret.id)) } : {}),
      },
    };
  },

  async readSecret(request, deps) {
    const recipientId = request.query.recipient_id;
    const secret = await readSecret(request.params.id!, recipientId ?? null, request.hostClaim, deps);
    const viewer = { userId: request.principal?.userId ?? null, read: true, ...(recipientId === undefined ? {} : { recipientId }) };
    const branding = await revealBranding(secret.workspaceId, deps);
    return {
      status: 200,
      body: {
        ...metadata(secret, viewer),
        ...(branding ? { branding: { display_name: branding.displayName, logo: branding.logo, accent: branding.accent } } : {}),
      },
    };
  },

  async revokeSecret(request, deps) {
    await revokeSecret(request.params.id!, request.headers['x-delete-token'] ?? null, request.principal?.userId ?? null, deps);
    return { status: 204, body: undefined };
  },

  async listSecrets(request, deps) {
    const { limit, cursor } = request.query;
    const { userId } = requireUser(request.principal);
    const page = await listOwnedSecrets(userId, limit, cursor ?? null, deps);
    return {
      status: 200,
      body: { items: page.items.map((secret) => metadata(secret, { userId, read: false })), next_cursor: page.nextCursor },
    };
  },

  async reportSecret(request, deps) {
    await reportSecret(request.body.secret_id, request.body.link_token ?? null, request.sourceIp, request.hostClaim, deps);
    return { status: 202, body: { accepted: true } };
  },

  async recordRevealFeedback(request, deps) {
    await recordRevealFeedback(request.body.rating, deps);
    return { status: 202, body: { accepted: true } };
  },

  async claimSecret(request, deps) {
    // The claim answers no 400: a proof that is not a string is simply not a proof (ClaimRequest).
    const { claim_token, link_token, recipient_id, gate_token } = request.body;
    const proof = {
      claimToken: claim_token ?? null,
      linkToken: link_token ?? null,
      recipientId: recipient_id ?? null,
      gateToken: gate_token ?? null,
    };
    const view = viewContext(request.headers, deps.config.ORIGIN_VERIFY);
    const { secret, envelope, recipient, deferredBurn } = await claimSecret(request.params.id!, proof, view, request.hostClaim, deps);
    if (deferredBurn) deps.logger.warn('burn deferred after the last view', { error: deferredBurn.name });
    const claimed = {
      id: secret.id,
      salt: secret.salt,
      size_bytes: secret.sizeBytes,
      views_left: recipient?.viewsLeft ?? secret.viewsLeft,
      expires_at: toIso(secret.expiresAt),
      ...(recipient ? { recipient_id: recipient.id } : {}),
    };
    if (secret.kind === 'text')
      return { status: 200, body: { kind: 'text', ...claimed, envelope: Buffer.from(envelope!).toString('base64') } };
    // A file's view is its download URL: presigning is local work, nothing to fail after the view.
    const now = deps.clock.now();
    const url = await deps.files.downloadUrl(objectKeyOf(secret.id), fileLimits.downloadUrlSeconds);
    return {
      status: 200,
      body: { kind: 'file', ...claimed, download: { url, expires_at: toIso(now + fileLimits.downloadUrlSeconds * 1000) } },
    };
  },

  async createCurlSecret(request, deps) {
    const { secret, deleteToken, key } = await createCurlSecret(request.rawBody, curlOptions(request.query), deps);
    const url = `${deps.config.WEB_ORIGIN}/s/${secret.id}#${key}`;
    const body = { url, id: secret.id, delete_token: deleteToken, expires_at: toIso(secret.expiresAt), max_views: secret.maxViews };
    // curl's default `accept: */*` gets the link alone, ready for a pipe; JSON clients get the rest.
    const wantsJson = /\bapplication\/json\b/i.test(request.headers.accept ?? '');
    return { status: 200, body, ...(wantsJson ? {} : { text: `${url}\n` }) };
  },

  async revokeRecipient(request, deps) {
    const recipientId = request.params.recipientId!;
    const revoker = { ownerId: request.principal?.userId ?? null, deleteToken: request.headers['x-delete-token'] ?? null };
    await revokeRecipient(request.params.id!, recipientId, revoker, deps);
    return { status: 200, body: { recipient_id: recipientId, state: 'revoked' } };
  },

  async listReceipts(request, deps) {
    const { limit, cursor } = request.query;
    const page = await listReceipts(request.params.id!, requireUser(request.principal).userId, limit, cursor ?? null, deps);
    return {
      status: 200,
      body: {
        items: page.items.map((receipt) => ({
          recipient_id: receipt.recipientId,
          opened_at: toIso(receipt.openedAt),
          channel: receipt.channel,
          location: receipt.location,
          device: receipt.device,
        })),
        next_cursor: page.nextCursor,
      },
    };
  },
};

/**
 * The secrets group's wiring: the secret store, gate sessions (claims through restricted
 * links read them), receipts and the owners' plans they follow, the feedback counters, and
 * the membership read of secrets sent inside a workspace, with its verified hostnames.
 */
export type SecretsDeps = ApiDeps &
  SecretPorts &
  ClaimPorts &
  ReceiptPorts &
  WorkspaceMembershipPorts &
  LinkHostPorts &
  Pick<Adapters, 'files'>;

export function compose(platform: Platform, adapters: Pick<Adapters, 'files'>): SecretsDeps {
  const { db, config } = platform;
  return {
    ...apiDeps(platform),
    files: adapters.files,
    secrets: new DynamoSecretStore(db, config.TABLE_NAME, secretLimits.tombstoneSeconds),
    counters: new DynamoCounters(db, config.TABLE_NAME),
    gates: new DynamoGateStore(db, config.TABLE_NAME),
    receipts: new DynamoReceiptStore(db, config.TABLE_NAME),
    tiers: new DynamoTierSource(db, config.TABLE_NAME),
    workspaceMembership: new DynamoWorkspaceMembership(db, config.TABLE_NAME),
    hostClaims: new DynamoHostClaims(db, config.TABLE_NAME),
  };
}

export const createHandler = (deps: SecretsDeps) => groupHandler(secretsRoutes, operations, secretsRequests, deps);
// Its events reach webhooks through the table's stream (functions/relay.ts): no queue here.
export const handler = lambdaEntry((platform) =>
  createHandler(compose(platform, { files: new PresignedFileObjects(awsBucket(platform.config, defaultProvider())) })),
);
