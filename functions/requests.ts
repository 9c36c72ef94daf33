import { awsBucket, PresignedFileObjects } from '../shared/adapters/fileObjects.ts';
import { defaultProvider } from '../shared/adapters/lambdaCredentials.ts';
import { requestsRequests } from '../shared/api/requests.ts';
import { toIso } from '../shared/clock.ts';
import { closeRequestLink, createRequestLink, listRequestLinks, readRequestLink } from '../shared/domain/requests/links.ts';
import { isOpen } from '../shared/domain/requests/model.ts';
import type { RequestPorts } from '../shared/domain/requests/ports.ts';
import { readInbox, respondToRequest, type InboxItem } from '../shared/domain/requests/responses.ts';
import { apiDeps, type ApiDeps } from './shared/apiDeps.ts';
import { requireSession } from '../shared/http/auth.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { lambdaEntry, type Adapters, type Platform } from '../shared/platform.ts';
import { requestsRoutes } from '../shared/routes.ts';
import { DynamoRequestStore } from '../shared/store/requests.ts';
import { DynamoHostClaims } from '../shared/store/hostClaims.ts';
import { linkOrigin, type LinkHostPorts } from '../shared/domain/domains/linkHosts.ts';
import { DynamoWorkspaceMembership } from '../shared/store/workspaceMembership.ts';
import type { WorkspaceMembershipPorts } from '../shared/domain/workspaces/membership.ts';

/** A response as the inbox answers it: a text's envelope (standard base64) or a file's download. */
const inboxItem = (item: InboxItem) => {
  const sealed = {
    response_id: item.id,
    created_at: toIso(item.createdAt),
    salt: item.salt,
    size_bytes: item.sizeBytes,
    enc: item.enc,
    wrapped_key: item.wrappedKey,
  };
  return item.sealed.kind === 'text'
    ? { ...sealed, kind: 'text' as const, envelope: Buffer.from(item.sealed.envelope).toString('base64') }
    : { ...sealed, kind: 'file' as const, download: { url: item.download!.url, expires_at: toIso(item.download!.expiresAt) } };
};

/** The requests group (interface §4.3): the requester's links and inbox, and the responders' two routes. */
export const operations: Operations<'requests', RequestsDeps> = {
  async listRequests(request, deps) {
    const { limit, cursor } = request.query;
    const page = await listRequestLinks(requireSession(request.principal).userId, limit, cursor ?? null, deps);
    return {
      status: 200,
      body: {
        items: page.items.map(({ link, open }) => ({
          id: link.id,
          open,
          created_at: toIso(link.createdAt),
          expires_at: toIso(link.expiresAt),
          responses: link.maxResponses - link.responsesLeft,
          max_responses: link.maxResponses,
          ...(link.labelEnvelope ? { label_envelope: Buffer.from(link.labelEnvelope).toString('base64') } : {}),
        })),
        next_cursor: page.nextCursor,
      },
    };
  },

  async createRequest(request, deps) {
    const { body } = request;
    const input = {
      publicKey: body.public_key,
      kem: body.kem,
      promptEnvelope: body.prompt_envelope === undefined ? undefined : Buffer.from(body.prompt_envelope, 'base64'),
      labelEnvelope: body.label_envelope === undefined ? undefined : Buffer.from(body.label_envelope, 'base64'),
      expiresInSeconds: body.expires_in,
      maxResponses: body.max_responses,
      workspaceId: body.workspace_id,
      hostname: body.hostname,
    };
    const link = await createRequestLink(input, requireSession(request.principal).userId, deps);
    return {
      status: 201,
      body: { id: link.id, url_base: `${linkOrigin(link.linkHost, deps.config)}/q/${link.id}`, expires_at: toIso(link.expiresAt) },
    };
  },

  async readRequest(request, deps) {
    const link = await readRequestLink(request.params.id ?? '', request.hostClaim, deps);
    return {
      status: 200,
      body: {
        id: link.id,
        public_key: link.publicKey,
        kem: link.kem,
        prompt_envelope: link.promptEnvelope ? Buffer.from(link.promptEnvelope).toString('base64') : null,
        open: isOpen(link, deps.clock.now()),
        expires_at: toIso(link.expiresAt),
        responses_left: link.responsesLeft,
      },
    };
  },

  async closeRequest(request, deps) {
    await closeRequestLink(request.params.id ?? '', requireSession(request.principal).userId, deps);
    return { status: 200, body: { id: request.params.id!, open: false } };
  },

  async readInbox(request, deps) {
    const { limit, cursor } = request.query;
    const inbox = await readInbox(request.params.id ?? '', requireSession(request.principal).userId, limit, cursor ?? null, deps);
    return { status: 200, body: { items: inbox.items.map(inboxItem), next_cursor: inbox.nextCursor } };
  },

  async respondToRequest(request, deps) {
    const { envelope, salt, enc, wrapped_key: wrappedKey } = request.body;
    const response = await respondToRequest(
      request.params.id ?? '',
      { envelope: Buffer.from(envelope, 'base64'), salt, enc, wrappedKey },
      request.hostClaim,
      deps,
    );
    return { status: 201, body: { response_id: response.id } };
  },
};

/**
 * The requests group's wiring: links and responses, the presigner of file responses' downloads
 * (no S3 client), and the membership read of links published inside a workspace, with its
 * verified hostnames.
 */
export type RequestsDeps = ApiDeps & RequestPorts & WorkspaceMembershipPorts & LinkHostPorts;

export function compose(platform: Platform, adapters: Pick<Adapters, 'files'>): RequestsDeps {
  const { db, config } = platform;
  return {
    ...apiDeps(platform),
    requests: new DynamoRequestStore(db, config.TABLE_NAME),
    workspaceMembership: new DynamoWorkspaceMembership(db, config.TABLE_NAME),
    hostClaims: new DynamoHostClaims(db, config.TABLE_NAME),
    files: adapters.files,
  };
}

export const createHandler = (deps: RequestsDeps) => groupHandler(requestsRoutes, operations, requestsRequests, deps);
export const handler = lambdaEntry((platform) =>
  createHandler(compose(platform, { files: new PresignedFileObjects(awsBucket(platform.config, defaultProvider())) })),
);
