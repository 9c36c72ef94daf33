import { DynamoSessionStore } from '../shared/store/sessions.ts';
import { scimRequests } from '../shared/api/scim.ts';
import { resourceTypes, scimSchemas, serviceProviderConfig } from '../shared/domain/scim/discovery.ts';
import { listResponseSchema, type ScimUser } from '../shared/domain/scim/model.ts';
import { listScimUsers } from '../shared/domain/scim/listing.ts';
import { toScimResource } from '../shared/domain/scim/userBody.ts';
import {
  createScimUser,
  deleteScimUser,
  patchScimUser,
  readScimUser,
  replaceScimUser,
  type ScimPorts,
} from '../shared/domain/scim/users.ts';
import type { DirectoryKeyPorts } from '../shared/domain/scim/directoryKey.ts';
import { toGroupResource } from '../shared/domain/scim/groupBody.ts';
import type { ScimGroup } from '../shared/domain/scim/groupModel.ts';
import { listScimGroups, membersShown } from '../shared/domain/scim/groupListing.ts';
import {
  createScimGroup,
  deleteScimGroup,
  patchScimGroup,
  readScimGroup,
  replaceScimGroup,
  type ScimGroupPorts,
} from '../shared/domain/scim/groups.ts';
import { HostDirectory } from '../shared/domain/domains/hosts.ts';
import { linkOrigin } from '../shared/domain/domains/linkHosts.ts';
import { directoryGuard } from '../shared/http/directoryGuard.ts';
import { groupHandler, type GroupDeps, type Operations } from '../shared/http/group.ts';
import type { ApiRequest } from '../shared/http/request.ts';
import { lambdaEntry, type Platform } from '../shared/platform.ts';
import { scimRoutes } from '../shared/routes.ts';
import { DynamoDirectoryKeys } from '../shared/store/directoryKeys.ts';
import { DynamoHostClaims } from '../shared/store/hostClaims.ts';
import { DynamoScimGroupStore } from '../shared/store/scimGroups.ts';
import { DynamoUserStore } from '../shared/store/users.ts';
import { DynamoScimUserStore } from '../shared/store/workspaceScim.ts';
import { DynamoWorkspaceStore } from '../shared/store/workspaces.ts';

/**
 * Where this deployment's SCIM endpoint is, as the request reached it: the workspace's verified
 * hostname or this deployment's own origin (as links are made). Locations in answers are absolute
 * (RFC 7644 §3.1).
 */
const scimBase = (request: Pick<ApiRequest, 'hostClaim'>, deps: ScimDeps) =>
  `${linkOrigin(request.hostClaim ?? undefined, deps.config).replace(/\/+$/, '')}/scim/v2`;

/** The workspace the directory key belongs to (the guard has checked it). */
const workspaceOf = (request: Pick<ApiRequest, 'directory'>) => request.directory!.workspaceId;

/** A User answered with its `Location` (the same as its `meta.location`). */
function userReply<S extends 200 | 201>(status: S, user: ScimUser, request: ApiRequest, deps: ScimDeps) {
  const resource = toScimResource(user, scimBase(request, deps));
  return { status, body: resource, headers: { location: resource.meta.location } };
}

/** A Group answered with its `Location`; members left out when a read's query excludes them (Entra's do). */
function groupReply<S extends 200 | 201>(status: S, group: ScimGroup, request: ApiRequest, deps: ScimDeps, withMembers = true) {
  const resource = toGroupResource(group, scimBase(request, deps), withMembers);
  return { status, body: resource, headers: { location: resource.meta.location } };
}

/** Directory provisioning (interface §4.8) in SCIM's own shapes, on the directory key's workspace. */
export const operations: Operations<'scim', ScimDeps> = {
  async readServiceProviderConfig(request, deps) {
    return { status: 200, body: serviceProviderConfig(scimBase(request, deps)) };
  },

  async readScimSchemas(request, deps) {
    return { status: 200, body: scimSchemas(scimBase(request, deps)) };
  },

  async readScimResourceTypes(request, deps) {
    return { status: 200, body: resourceTypes(scimBase(request, deps)) };
  },

  async listScimUsers(request, deps) {
    const page = await listScimUsers(workspaceOf(request), request.rawQueryString, deps);
    const base = scimBase(request, deps);
    return {
      status: 200,
      body: {
        schemas: [listResponseSchema],
        totalResults: page.totalResults,
        startIndex: page.startIndex,
        itemsPerPage: page.itemsPerPage,
        Resources: page.users.map((user) => toScimResource(user, base)),
      },
    };
  },

  async createScimUser(request, deps) {
    return userReply(201, await createScimUser(workspaceOf(request), request.body, deps), request, deps);
  },

  async readScimUser(request, deps) {
    return userReply(200, await readScimUser(workspaceOf(request), request.params.id!, deps), request, deps);
  },

  async replaceScimUser(request, deps) {
    return userReply(200, await replaceScimUser(workspaceOf(request), request.params.id!, request.body, deps), request, deps);
  },

  async patchScimUser(request, deps) {
    return userReply(200, await patchScimUser(workspaceOf(request), request.params.id!, request.body, deps), request, deps);
  },

  async deleteScimUser(request, deps) {
    await deleteScimUser(workspaceOf(request), request.params.id!, deps);
    return { status: 204, body: undefined };
  },

  async listScimGroups(request, deps) {
    const page = await listScimGroups(workspaceOf(request), request.rawQueryString, deps);
    const base = scimBase(request, deps);
    return {
      status: 200,
      body: {
        schemas: [listResponseSchema],
        totalResults: page.totalResults,
        startIndex: page.startIndex,
        itemsPerPage: page.itemsPerPage,
        Resources: page.groups.map((group) => toGroupResource(group, base, page.withMembers)),
      },
    };
  },

  async createScimGroup(request, deps) {
    return groupReply(201, await createScimGroup(workspaceOf(request), request.body, deps), request, deps);
  },

  async readScimGroup(request, deps) {
    // The query is read first: a malformed one is refused before anything is.
    const withMembers = membersShown(request.rawQueryString);
    return groupReply(200, await readScimGroup(workspaceOf(request), request.params.id!, deps), request, deps, withMembers);
  },

  async replaceScimGroup(request, deps) {
    return groupReply(200, await replaceScimGroup(workspaceOf(request), request.params.id!, request.body, deps), request, deps);
  },

  async patchScimGroup(request, deps) {
    return groupReply(200, await patchScimGroup(workspaceOf(request), request.params.id!, request.body, deps), request, deps);
  },

  async deleteScimGroup(request, deps) {
    await deleteScimGroup(workspaceOf(request), request.params.id!, deps);
    return { status: 204, body: undefined };
  },
};

/** The scim function's wiring: the directory keys, the workspaces (their tier), Users, accounts, and the verified hostnames. */
export type ScimDeps = GroupDeps & ScimPorts & ScimGroupPorts & DirectoryKeyPorts;

export function compose(platform: Platform): ScimDeps {
  const { db, config, clock } = platform;
  const ports = {
    directoryKeys: new DynamoDirectoryKeys(db, config.TABLE_NAME),
    workspaces: new DynamoWorkspaceStore(db, config.TABLE_NAME),
    hosts: new HostDirectory(new DynamoHostClaims(db, config.TABLE_NAME), clock),
    config,
  };
  return {
    ...platform,
    ...ports,
    guard: directoryGuard(ports),
    scimUsers: new DynamoScimUserStore(db, config.TABLE_NAME),
    scimGroups: new DynamoScimGroupStore(db, config.TABLE_NAME, clock),
    users: new DynamoUserStore(db, config.TABLE_NAME),
    sessions: new DynamoSessionStore(db, config.TABLE_NAME),
  };
}

export const createHandler = (deps: ScimDeps) => groupHandler(scimRoutes, operations, scimRequests, deps);
export const handler = lambdaEntry((platform) => createHandler(compose(platform)));
