import { describe, expect, it } from 'vitest';
import type { Plan } from '../../shared/domain/accounts/model.ts';
import { HostDirectory } from '../../shared/domain/domains/hosts.ts';
import { Conflict, Forbidden, Invalid, NotFound, type Refusal, Unauthenticated } from '../../shared/domain/refusals.ts';
import { directoryWorkspace, type DirectoryKeyPorts } from '../../shared/domain/scim/directoryKey.ts';
import { listScimUsers } from '../../shared/domain/scim/listing.ts';
import { patchOpSchema, userSchema, type ScimUser } from '../../shared/domain/scim/model.ts';
import type { ScimUserStore } from '../../shared/domain/scim/ports.ts';
import {
  createScimUser,
  deleteScimUser,
  patchScimUser,
  readScimUser,
  replaceScimUser,
  type ScimPorts,
} from '../../shared/domain/scim/users.ts';
import type { Workspace, WorkspacePolicy } from '../../shared/domain/workspaces/model.ts';
import { directoryGuard } from '../../shared/http/directoryGuard.ts';
import type { RawRequest } from '../../shared/http/request.ts';
import { scimErrorBody, toHttpError } from '../../shared/http/refusals.ts';
import { newDirectoryKey, newScimUserId, sha256Base64Url } from '../../shared/ids.ts';
import { scimRoutes } from '../../shared/routes.ts';

// What the scim group refuses, as a directory reads it: the domain says what happened (a typed
// refusal, SCIM's scimType among its facts), the refusal table says how HTTP shows it. The
// answers are pinned to the bytes Okta's and Entra's clients were given before the domain
// stopped throwing HttpErrors (issue 27): status, headers and the SCIM error message.

/** What the scim group sends for a refusal: its status, headers and the body's bytes. */
function answered(error: unknown) {
  const http = toHttpError(error);
  return { status: http.status, headers: http.extras.headers ?? {}, body: JSON.stringify(scimErrorBody(http)) };
}

/** The SCIM error message, as sent, for a status, an optional scimType and a detail. */
const message = (status: number, detail: string, scimType?: string) =>
  JSON.stringify({
    schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
    status: String(status),
    ...(scimType ? { scimType } : {}),
    detail,
  });

async function refusalOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('accepted');
}

const key = newDirectoryKey();
const workspace = (plan: Plan): Workspace => ({
  id: 'wsp_1',
  name: 'Acme',
  slug: 'acme',
  region: 'eu-west-1',
  plan,
  createdAt: 0,
  policy: {} as WorkspacePolicy,
});
const keyPorts = (plan: Plan): DirectoryKeyPorts => ({
  directoryKeys: { workspaceOf: async (hash) => (hash === sha256Base64Url(key) ? 'wsp_1' : null) },
  workspaces: { get: async (id) => (id === 'wsp_1' ? workspace(plan) : null) },
});

const id = newScimUserId();
const someone: ScimUser = {
  id,
  workspaceId: 'wsp_1',
  userId: 'usr_1',
  userName: 'ana@acme.example',
  active: true,
  createdAt: 0,
  lastModified: 0,
  version: 1,
};

/** Users answering as the store would; each outcome set where a test needs it. */
function ports(store: Partial<ScimUserStore> = {}): ScimPorts {
  const scimUsers: ScimUserStore = {
    create: async () => 'created',
    get: async (_, wanted) => (wanted === id ? someone : null),
    byUserName: async () => null,
    byExternalId: async () => null,
    list: async () => [someone],
    listAfter: async () => ({ users: [someone], more: false }),
    count: async () => 1,
    pageStart: async () => null,
    rememberPageStart: async () => undefined,
    replace: async () => 'replaced',
    delete: async () => 'deleted',
    ...store,
  };
  return {
    scimUsers,
    users: { createOrGet: async (user) => user },
    sessions: { revokeSsoSessions: async () => 0 },
    clock: { now: () => 1_700_000_000_000 },
  };
}

const oktaUser = {
  schemas: [userSchema],
  userName: 'bo@acme.example',
  emails: [{ value: 'bo@acme.example', primary: true, type: 'work' }],
  active: true,
};
const deactivation = { schemas: [patchOpSchema], Operations: [{ op: 'replace', value: { active: false } }] };

describe('the directory key: Unauthenticated with the directory challenge, Forbidden off the Team plan', () => {
  const realm = { 'www-authenticate': 'Bearer realm="scim"' };

  it('refuses a missing, malformed or unknown key with a 401 asking for the directory key', async () => {
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'Send the workspace’s directory key as `Authorization: Bearer <key>`.'],
      ['non-token', 'The authorization header does not carry a directory key: send `Authorization: Bearer hlscim_…`.'],
      [`Basic ${key}`, 'The authorization header does not carry a directory key: send `Authorization: Bearer hlscim_…`.'],
      [`Bearer ${newDirectoryKey()}`, 'The directory key is not valid: it may have been rotated.'],
    ];
    for (const [authorization, detail] of cases) {
      const refusal = await refusalOf(() => directoryWorkspace(authorization, keyPorts('team')));
      expect(refusal, authorization).toBeInstanceOf(Unauthenticated);
      expect(refusal).toMatchObject({ challenge: 'directory' });
      expect(answered(refusal)).toEqual({ status: 401, headers: realm, body: message(401, detail) });
    }
    expect(await directoryWorkspace(`bearer ${key}`, keyPorts('team'))).toMatchObject({ id: 'wsp_1' });
  });

  it('refuses a workspace without the Team tier, whatever its key', async () => {
    const refusal = await refusalOf(() => directoryWorkspace(`Bearer ${key}`, keyPorts('pro')));
    expect(refusal).toBeInstanceOf(Forbidden);
    expect(answered(refusal)).toEqual({
      status: 403,
      headers: {},
      body: message(403, 'Directory provisioning comes with the Team plan; this workspace is on pro.'),
    });
  });

  it('refuses another workspace’s key on a workspace’s hostname with a 404', async () => {
    const claims = { verifiedClaim: async (hostname: string) => ({ hostname, domainId: 'dom_1', workspaceId: 'wsp_other' }) };
    const guard = directoryGuard({
      ...keyPorts('team'),
      config: { HUSHLINK_MODE: 'local', WEB_ORIGIN: 'http://localhost:3000', ORIGIN_VERIFY: undefined },
      hosts: new HostDirectory(claims, { now: () => 0 }),
    });
    const route = scimRoutes.find((row) => row.operation === 'listScimUsers')!;
    const request = {
      headers: { host: 'vault.other.example', authorization: `Bearer ${key}` },
      hostClaim: null,
      directory: null,
    } as unknown as RawRequest;
    const refusal = await refusalOf(() => guard(route, request, []));
    expect(refusal).toBeInstanceOf(NotFound);
    expect(answered(refusal)).toEqual({
      status: 404,
      headers: {},
      body: message(404, 'This hostname serves another workspace: send your directory to your own workspace’s address.'),
    });
  });
});

describe('Users: NotFound, Conflict (uniqueness) and Forbidden, with the scimType a directory branches on', () => {
  it('refuses an unknown or deleted User with a 404 and no scimType', async () => {
    for (const refusal of [
      await refusalOf(() => readScimUser('wsp_1', 'nope', ports())),
      await refusalOf(() => deleteScimUser('wsp_1', id, ports({ delete: async () => 'gone' }))),
    ]) {
      expect(refusal).toBeInstanceOf(NotFound);
    }
    expect(answered(await refusalOf(() => readScimUser('wsp_1', 'nope', ports())))).toEqual({
      status: 404,
      headers: {},
      body: message(404, 'No User nope in this workspace.'),
    });
  });

  it('refuses a taken userName, externalId or address with a 409 uniqueness, found first or by the store', async () => {
    const taken = 'A User with this userName or externalId, or for this email address, exists in this workspace.';
    for (const refusal of [
      await refusalOf(() => createScimUser('wsp_1', oktaUser, ports({ byUserName: async () => someone }))),
      await refusalOf(() => createScimUser('wsp_1', oktaUser, ports({ create: async () => 'duplicate' }))),
      await refusalOf(() => replaceScimUser('wsp_1', id, oktaUser, ports({ replace: async () => 'duplicate' }))),
    ]) {
      expect(refusal).toBeInstanceOf(Conflict);
      expect(refusal).toMatchObject({ facts: { scimType: 'uniqueness' } });
      expect(answered(refusal)).toEqual({ status: 409, headers: {}, body: message(409, taken, 'uniqueness') });
    }
  });

  it('refuses a User that kept changing with a 409 without a scimType (read it again)', async () => {
    const refusal = await refusalOf(() => patchScimUser('wsp_1', id, deactivation, ports({ replace: async () => 'conflict' })));
    expect(refusal).toBeInstanceOf(Conflict);
    expect(answered(refusal)).toEqual({
      status: 409,
      headers: {},
      body: message(409, `User ${id} kept changing while this change was applied: read it again.`),
    });
  });

  it('refuses a seat none is free for, and a privileged membership, with a 403', async () => {
    const cases: Array<[() => unknown, string]> = [
      [
        () => createScimUser('wsp_1', oktaUser, ports({ create: async () => 'no_seat' })),
        'Every seat of the workspace is taken: add seats, or deactivate a User, before activating another.',
      ],
      [
        () => patchScimUser('wsp_1', id, deactivation, ports({ replace: async () => 'privileged' })),
        'This User’s membership is an owner’s or an admin’s: the workspace changes those roles itself, the directory never removes them.',
      ],
      [
        () => deleteScimUser('wsp_1', id, ports({ delete: async () => 'privileged' })),
        'This User’s membership is an owner’s or an admin’s: the workspace changes those roles itself, the directory never removes them.',
      ],
    ];
    for (const [run, detail] of cases) {
      const refusal = await refusalOf(run);
      expect(refusal).toBeInstanceOf(Forbidden);
      expect(answered(refusal)).toEqual({ status: 403, headers: {}, body: message(403, detail) });
    }
  });
});

describe('requests SCIM reads refused as Invalid, each with its scimType', () => {
  it('answers each with a 400 carrying the scimType and the detail, no field list', async () => {
    const cases: Array<[() => unknown, string, string]> = [
      [
        () => createScimUser('wsp_1', { schemas: [userSchema], userName: 'jdoe' }, ports()),
        'invalidValue',
        'A User needs an email address (in emails, or as its userName): its account is made for it.',
      ],
      [() => createScimUser('wsp_1', [], ports()), 'invalidSyntax', 'The body must be a SCIM User: a JSON object.'],
      [() => patchScimUser('wsp_1', id, 'x', ports()), 'invalidSyntax', 'The body must be a PatchOp: a JSON object with Operations.'],
      [
        () => patchScimUser('wsp_1', id, { schemas: [patchOpSchema], Operations: [{ op: 'replace', path: 'id', value: 'x' }] }, ports()),
        'mutability',
        'id is read-only.',
      ],
      [() => listScimUsers('wsp_1', 'filter=userName+co+%22x%22', ports()), 'invalidFilter', 'Only the eq operator is supported, not co.'],
      [
        () => listScimUsers('wsp_1', 'filter=a&FILTER=b', ports()),
        'invalidFilter',
        'The filter query parameter is given 2 times; give it once.',
      ],
      [() => listScimUsers('wsp_1', 'startIndex=first', ports()), 'invalidValue', 'startIndex must be an integer.'],
    ];
    for (const [run, scimType, detail] of cases) {
      const refusal = await refusalOf(run);
      expect(refusal, detail).toBeInstanceOf(Invalid);
      expect((refusal as Refusal).facts).toEqual({ scimType });
      expect(answered(refusal)).toEqual({ status: 400, headers: {}, body: message(400, detail, scimType) });
    }
  });
});
