import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scimUserLimits } from '../../shared/limits.ts';
import { Invalid } from '../../shared/domain/refusals.ts';
import { enterpriseUserSchema, userSchema, type ScimUser, type ScimUserAttributes } from '../../shared/domain/scim/model.ts';
import { parseUserBody, toScimResource } from '../../shared/domain/scim/userBody.ts';
import { toHttpError } from '../../shared/http/refusals.ts';
import { bindStep, type ScimClientStep } from '../support/scim/clientSteps.ts';
import {
  entraPatchWithFlag,
  entraPatchWithoutFlag,
  entraProvisioning,
  entraSampleCodeExamples,
  entraValidator,
} from '../support/scim/entra.ts';
import { oktaConnectionAndImport, oktaCreateWithExtension, oktaCrudTest, oktaSpecTest } from '../support/scim/okta.ts';

/** What a refused body threw: always a refusal (Invalid), a 400 here. */
function refusal(body: unknown): { status: number; scimType: string | undefined } {
  try {
    parseUserBody(body);
  } catch (error) {
    expect(error).toBeInstanceOf(Invalid);
    return { status: toHttpError(error).status, scimType: (error as Invalid).facts.scimType as string | undefined };
  }
  throw new Error(`parseUserBody accepted ${JSON.stringify(body)}`);
}
const refusedAs = (body: unknown) => {
  const { status, scimType } = refusal(body);
  expect(status).toBe(400);
  return scimType;
};

const stored = (attributes: ScimUserAttributes, fields: Partial<ScimUser> = {}): ScimUser => ({
  ...attributes,
  id: 'usr_5Xq2',
  workspaceId: 'wsp_1',
  userId: 'u_1',
  createdAt: Date.parse('2026-03-02T10:00:00.000Z'),
  lastModified: Date.parse('2026-03-02T11:30:00.000Z'),
  version: 3,
  ...fields,
});

/** As the wire carries it: what a client reads back and sends again (Okta's PUT). */
const overTheWire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

// https://developer.okta.com/docs/reference/scim/scim-20/#create-the-user (the first request)
const oktaCreate = {
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  userName: 'test.user@okta.local',
  name: { givenName: 'Test', familyName: 'User' },
  emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
  displayName: 'Test User',
  locale: 'en-US',
  externalId: '00ujl29u0le5T6Aj10h7',
  groups: [],
  password: '1mz050nq',
  active: true,
};

describe('parseUserBody: the bodies Okta and Microsoft Entra publish', () => {
  it('reads Okta’s create: the password dropped, groups ignored, locale kept as an extra attribute', () => {
    const user = parseUserBody(oktaCreate);
    expect(user).toEqual({
      userName: 'test.user@okta.local',
      active: true,
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ value: 'test.user@okta.local', type: 'work', primary: true }],
      displayName: 'Test User',
      externalId: '00ujl29u0le5T6Aj10h7',
      extra: { locale: 'en-US' },
    });
    expect(JSON.stringify(user)).not.toContain('1mz050nq');
    expect(JSON.stringify(user)).not.toContain('groups');
  });

  it('reads Okta’s create of an app with custom attributes (no externalId)', () => {
    // https://developer.okta.com/docs/reference/scim/scim-20/#create-the-user (the second request)
    const body = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      groups: [],
      password: '1mz050nq',
      active: true,
    };
    const user = parseUserBody(body);
    expect(user.externalId).toBeUndefined();
    expect(user).toMatchObject({ userName: 'test.user@okta.local', active: true, extra: { locale: 'en-US' } });
  });

  it('reads Okta’s PUT: id, meta and groups ignored, an email’s read-only display not kept, the middle name kept', () => {
    // https://developer.okta.com/docs/reference/scim/scim-20/#update-the-user
    const body = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      id: '23a35c27-23d3-4c03-b4c5-6443c09e7173',
      userName: 'test.user@okta.local',
      name: { givenName: 'Another', middleName: 'Excited', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work', display: 'test.user@okta.local' }],
      active: true,
      groups: [],
      meta: { resourceType: 'User' },
    };
    expect(parseUserBody(body)).toEqual({
      userName: 'test.user@okta.local',
      active: true,
      name: { givenName: 'Another', middleName: 'Excited', familyName: 'User' },
      emails: [{ value: 'test.user@okta.local', type: 'work', primary: true }],
    });
  });

  it('keeps the empty middle name Okta reads back and sends again', () => {
    // https://developer.okta.com/docs/reference/scim/scim-20/#retrieve-the-user ("middleName": "")
    expect(parseUserBody({ ...oktaCreate, name: { givenName: 'Another', middleName: '', familyName: 'User' } }).name).toEqual({
      givenName: 'Another',
      middleName: '',
      familyName: 'User',
    });
  });

  it('reads Entra’s create: meta ignored, the empty roles kept as sent', () => {
    // https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups#create-user
    const body = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Test_User_00aa00aa-bb11-cc22-dd33-44ee44ee44ee',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_11bb11bb-cc22-dd33-ee44-55ff55ff55ff@testuser.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
    };
    expect(parseUserBody(body)).toEqual({
      userName: 'Test_User_00aa00aa-bb11-cc22-dd33-44ee44ee44ee',
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      active: true,
      emails: [{ value: 'Test_User_11bb11bb-cc22-dd33-ee44-55ff55ff55ff@testuser.com', type: 'work', primary: true }],
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      extra: { roles: [] },
    });
  });

  it('reads Entra’s example User: the enterprise extension kept as sent (a manager sent as a string kept as its object), another extension not kept', () => {
    // https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups#design-your-user-and-group-schema
    // (the published JSON has a trailing comma after "tag", dropped here to make it JSON)
    const body = {
      schemas: [
        'urn:ietf:params:scim:schemas:core:2.0:User',
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
        'urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User',
      ],
      userName: 'bjensen@testuser.com',
      id: '48af03ac28ad4fb88478',
      externalId: 'bjensen',
      name: { familyName: 'Jensen', givenName: 'Barbara' },
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { manager: '123456' },
      'urn:ietf:params:scim:schemas:extension:CustomExtensionName:2.0:User': { tag: '701984' },
      meta: {
        resourceType: 'User',
        created: '2010-01-23T04:56:22Z',
        lastModified: '2011-05-13T04:42:34Z',
        version: 'W/"3694e05e9dff591"',
        location: 'https://example.com/v2/Users/00aa00aa-bb11-cc22-dd33-44ee44ee44ee',
      },
    };
    expect(parseUserBody(body)).toEqual({
      userName: 'bjensen@testuser.com',
      externalId: 'bjensen',
      active: true,
      name: { familyName: 'Jensen', givenName: 'Barbara' },
      enterprise: { manager: { value: '123456' } },
    });
  });

  it('reads the Entra SCIM validator’s create', () => {
    // https://learn.microsoft.com/en-us/answers/questions/2238842/microsoft-entra-id-scim-validator-test-failing-pat
    // ("Initial Resource Creation Request", the address masked by the forum as published)
    const body = {
      active: true,
      displayName: 'XKWLCONOGMVT',
      emails: [{ type: 'work', value: '******@prohaska.biz' }],
      externalId: '9950b140-90a0-4201-9d65-b5f209fb4cd0',
      name: { formatted: 'Aric', familyName: 'Nia', givenName: 'Sandy' },
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
      userName: '******@romaguera.uk',
    };
    expect(parseUserBody(body)).toEqual({
      userName: '******@romaguera.uk',
      active: true,
      displayName: 'XKWLCONOGMVT',
      emails: [{ value: '******@prohaska.biz', type: 'work' }],
      externalId: '9950b140-90a0-4201-9d65-b5f209fb4cd0',
      name: { formatted: 'Aric', familyName: 'Nia', givenName: 'Sandy' },
    });
  });

  it('reads Microsoft’s SCIM create with a password and Entra’s own extension: neither kept', () => {
    // https://learn.microsoft.com/en-us/entra/identity/app-provisioning/entra-id-scim-api-reference#create-a-user
    const body = {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:Microsoft:Entra:2.0:User'],
      active: true,
      displayName: 'Example User',
      userName: 'abc123@contoso.com',
      password: 'password',
      name: { familyName: 'Example familyName', givenName: 'Example givenName' },
      'urn:ietf:params:scim:schemas:extension:Microsoft:Entra:2.0:User': { mailNickname: 'abc123' },
    };
    const user = parseUserBody(body);
    expect(user).toEqual({
      userName: 'abc123@contoso.com',
      active: true,
      displayName: 'Example User',
      name: { familyName: 'Example familyName', givenName: 'Example givenName' },
    });
    expect(JSON.stringify(user)).not.toContain('password');
  });
});

describe('parseUserBody: every create and PUT of the clients’ published sequences (test/support/scim)', () => {
  /** Any placeholder, as a run would fill it: an address works for userName, email and id alike. */
  const anyValue = new Proxy({}, { get: (_, name) => `${String(name)}@example.com` }) as Record<string, string>;
  const steps: ScimClientStep[] = [
    ...oktaSpecTest,
    ...oktaCrudTest('oin'),
    ...oktaCrudTest('aiw'),
    ...oktaConnectionAndImport,
    oktaCreateWithExtension,
    ...entraProvisioning,
    ...entraPatchWithoutFlag,
    ...entraPatchWithFlag,
    ...entraSampleCodeExamples,
    ...entraValidator,
  ].filter((step) => step.method === 'POST' || step.method === 'PUT');
  it.each(steps.map((step) => [step.name, step] as const))('reads %s', (_, step) => {
    const user = parseUserBody(bindStep(step, anyValue).body);
    expect(user.userName).toContain('@');
    expect(JSON.stringify(user)).not.toMatch(/password/i);
  });
});

describe('parseUserBody: read leniently where the clients differ', () => {
  it('takes active as a boolean or as "True"/"False" in any case, and true when absent', () => {
    const active = (value: unknown) => parseUserBody({ userName: 'ana@example.com', active: value }).active;
    expect([active(true), active(false), active('True'), active('False'), active('TRUE'), active('false')]).toEqual([
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
    expect(parseUserBody({ userName: 'ana@example.com' }).active).toBe(true);
  });

  it('reads attribute names in any case (RFC 7643 §2.1) and keeps the schema’s spelling', () => {
    const user = parseUserBody({
      UserName: 'ana@example.com',
      ACTIVE: 'False',
      Emails: [{ Value: 'ana@example.com', Type: 'work', Primary: 'True' }],
      NAME: { GivenName: 'Ana', FAMILYNAME: 'Lima' },
      displayname: 'Ana Lima',
      ExternalID: 'x-1',
      Title: 'Engineer',
      PhoneNumbers: [{ value: '+1 555 0100', type: 'work' }],
      'URN:IETF:PARAMS:SCIM:SCHEMAS:EXTENSION:ENTERPRISE:2.0:USER': { department: 'R&D' },
    });
    expect(user).toEqual({
      userName: 'ana@example.com',
      active: false,
      emails: [{ value: 'ana@example.com', type: 'work', primary: true }],
      name: { givenName: 'Ana', familyName: 'Lima' },
      displayName: 'Ana Lima',
      externalId: 'x-1',
      extra: { title: 'Engineer', phoneNumbers: [{ value: '+1 555 0100', type: 'work' }] },
      enterprise: { department: 'R&D' },
    });
  });

  it('reads null as unassigned (RFC 7644 §3.5.1), and keeps no empty name or emails', () => {
    expect(
      parseUserBody({
        userName: 'ana@example.com',
        displayName: null,
        externalId: null,
        emails: [],
        name: { middleName: null },
        title: null,
      }),
    ).toEqual({ userName: 'ana@example.com', active: true });
    expect(parseUserBody({ userName: 'ana@example.com', name: { givenName: 'Ana', middleName: null } }).name).toEqual({ givenName: 'Ana' });
  });

  it('accepts a body without schemas (required by the RFC, sent by both clients, ambiguous for nothing)', () => {
    expect(parseUserBody({ userName: 'ana@example.com' })).toEqual({ userName: 'ana@example.com', active: true });
    expect(
      parseUserBody({ schemas: ['URN:IETF:PARAMS:SCIM:SCHEMAS:CORE:2.0:USER', 'urn:example:ours'], userName: 'ana@example.com' }).userName,
    ).toBe('ana@example.com');
  });

  it('keeps the enterprise extension exactly as sent, whatever it holds, and email types in the directory’s own words', () => {
    const enterprise = {
      employeeNumber: '701984',
      costCenter: '4130',
      organization: 'Universal Studios',
      division: 'Theme Park',
      department: 'Tour Operations',
      manager: {
        value: '26118915-6090-4610-87e4-49d8ca9f808d',
        $ref: '../Users/26118915-6090-4610-87e4-49d8ca9f808d',
        displayName: 'John Smith',
      },
      badge: [1, 2],
    };
    const user = parseUserBody({
      userName: 'ana@example.com',
      [enterpriseUserSchema]: enterprise,
      emails: [{ value: 'ana@example.com', type: 'Büro' }],
    });
    // A $ref that is the manager's User URL (here relative) is not kept: answers build it absolute.
    expect(user.enterprise).toEqual({ ...enterprise, manager: { value: enterprise.manager.value, displayName: 'John Smith' } });
    expect(user.emails).toEqual([{ value: 'ana@example.com', type: 'Büro' }]);
  });

  it('answers a multi-valued attribute’s primary as a boolean, sent as "True" by the Entra SCIM Validator', () => {
    // https://github.com/pranems/SCIMServer/blob/main/docs/SCIM_VALIDATION_GAP_ANALYSIS.md (a published validator run:
    // "The value 'True' cannot be parsed as the type 'Boolean'" for roles[].primary)
    const roles = [{ primary: 'True', display: 'MRONYWGFFHXQ', value: 'WDEIISGWWQBE', type: 'XVTUOHMYUFRL' }];
    const user = parseUserBody({
      userName: 'ana@example.com',
      roles,
      phoneNumbers: [
        { type: 'work', value: '10-040-1308', primary: true },
        { type: 'fax', value: '10-040-1308' },
      ],
    });
    expect(user.extra).toEqual({
      roles: [{ primary: true, display: 'MRONYWGFFHXQ', value: 'WDEIISGWWQBE', type: 'XVTUOHMYUFRL' }],
      phoneNumbers: [
        { type: 'work', value: '10-040-1308', primary: true },
        { type: 'fax', value: '10-040-1308' },
      ],
    });
    expect(refusedAs({ userName: 'ana@example.com', roles: [{ value: 'x', primary: 'sometimes' }] })).toBe('invalidValue');
  });

  it('keeps no attribute it does not know, and no other extension', () => {
    const user = parseUserBody({
      userName: 'ana@example.com',
      favouriteColour: 'teal',
      'urn:example:scim:schemas:ours:2.0:User': { tag: 'x' },
      name: { givenName: 'Ana', nickname: 'Aninha' },
    });
    expect(user).toEqual({ userName: 'ana@example.com', active: true, name: { givenName: 'Ana' } });
  });

  it('takes the limits at their bounds', () => {
    const emails = Array.from({ length: scimUserLimits.emails }, (_, index) => ({ value: `ana+${index}@example.com` }));
    const user = parseUserBody({
      userName: 'a'.repeat(scimUserLimits.userNameChars),
      emails,
      [enterpriseUserSchema]: { department: 'x'.repeat(scimUserLimits.enterpriseJsonBytes - '{"department":""}'.length) },
    });
    expect(user.userName).toHaveLength(256);
    expect(user.emails).toHaveLength(20);
    expect(JSON.stringify(user.enterprise)).toHaveLength(8 * 1024);
  });
});

describe('parseUserBody: refusals, each a 400 with its scimType', () => {
  const ok = { userName: 'ana@example.com' };
  const refused: [string, unknown, string][] = [
    ['an array', [ok], 'invalidSyntax'],
    ['null', null, 'invalidSyntax'],
    ['a string', 'ana@example.com', 'invalidSyntax'],
    ['a Group’s schemas', { ...ok, schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'] }, 'invalidSyntax'],
    ['schemas as a string', { ...ok, schemas: userSchema }, 'invalidSyntax'],
    ['one name in two spellings', { userName: 'a@example.com', username: 'b@example.com' }, 'invalidSyntax'],
    ['no userName', { displayName: 'Ana' }, 'invalidValue'],
    ['a null userName', { userName: null }, 'invalidValue'],
    ['an empty userName', { userName: '' }, 'invalidValue'],
    ['a blank userName', { userName: '   ' }, 'invalidValue'],
    ['a userName over 256 characters', { userName: 'a'.repeat(257) }, 'invalidValue'],
    ['a number for userName', { userName: 42 }, 'invalidValue'],
    ['active as "yes"', { ...ok, active: 'yes' }, 'invalidValue'],
    ['active as 1', { ...ok, active: 1 }, 'invalidValue'],
    ['an email that is no address', { ...ok, emails: [{ value: 'ana' }] }, 'invalidValue'],
    ['an email with a space', { ...ok, emails: [{ value: 'ana lima@example.com' }] }, 'invalidValue'],
    ['an email as a string', { ...ok, emails: ['ana@example.com'] }, 'invalidValue'],
    ['an email without its value', { ...ok, emails: [{ type: 'work' }] }, 'invalidValue'],
    ['an email over 254 characters', { ...ok, emails: [{ value: `${'a'.repeat(243)}@example.com` }] }, 'invalidValue'],
    ['an email type over 64 characters', { ...ok, emails: [{ value: 'ana@example.com', type: 't'.repeat(65) }] }, 'invalidValue'],
    ['primary as "maybe"', { ...ok, emails: [{ value: 'ana@example.com', primary: 'maybe' }] }, 'invalidValue'],
    ['21 emails', { ...ok, emails: Array.from({ length: 21 }, (_, index) => ({ value: `ana+${index}@example.com` })) }, 'invalidValue'],
    [
      'two primary emails',
      {
        ...ok,
        emails: [
          { value: 'a@example.com', primary: true },
          { value: 'b@example.com', primary: 'True' },
        ],
      },
      'invalidValue',
    ],
    ['a name as a string', { ...ok, name: 'Ana Lima' }, 'invalidValue'],
    ['a number for a given name', { ...ok, name: { givenName: 5 } }, 'invalidValue'],
    ['a displayName over 1024 characters', { ...ok, displayName: 'd'.repeat(1025) }, 'invalidValue'],
    ['an object for externalId', { ...ok, externalId: { id: 1 } }, 'invalidValue'],
    ['a number for title', { ...ok, title: 3 }, 'invalidValue'],
    ['phoneNumbers as a string', { ...ok, phoneNumbers: '+1 555 0100' }, 'invalidValue'],
    ['phoneNumbers of strings', { ...ok, phoneNumbers: ['+1 555 0100'] }, 'invalidValue'],
    ['the enterprise extension as an array', { ...ok, [enterpriseUserSchema]: [] }, 'invalidValue'],
    [
      'the enterprise extension a byte over 8 KiB',
      { ...ok, [enterpriseUserSchema]: { department: 'x'.repeat(8 * 1024 - 16) } },
      'invalidValue',
    ],
    ['the enterprise extension over 8 KiB in UTF-8', { ...ok, [enterpriseUserSchema]: { department: 'é'.repeat(4100) } }, 'invalidValue'],
    ['other attributes over 16 KiB', { ...ok, addresses: [{ formatted: 'x'.repeat(16 * 1024) }] }, 'invalidValue'],
  ];
  it.each(refused)('refuses %s', (_, body, scimType) => {
    expect(refusedAs(body)).toBe(scimType);
  });
});

describe('toScimResource', () => {
  it('answers the full User: schemas, id, the attributes as kept, and meta with an absolute location and a weak version', () => {
    const resource = toScimResource(stored(parseUserBody(oktaCreate)), 'https://hushlink.example/scim/v2');
    expect(resource).toEqual({
      schemas: [userSchema],
      id: 'usr_5Xq2',
      externalId: '00ujl29u0le5T6Aj10h7',
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      displayName: 'Test User',
      emails: [{ value: 'test.user@okta.local', type: 'work', primary: true }],
      active: true,
      locale: 'en-US',
      meta: {
        resourceType: 'User',
        created: '2026-03-02T10:00:00.000Z',
        lastModified: '2026-03-02T11:30:00.000Z',
        location: 'https://hushlink.example/scim/v2/Users/usr_5Xq2',
        version: 'W/"3"',
      },
    });
    expect(JSON.stringify(resource)).not.toMatch(/password|1mz050nq/);
  });

  it('names the enterprise extension in schemas and answers its object under its URN, as stored, a manager as its object with its URL', () => {
    const enterprise = { employeeNumber: 'Aklq', manager: { value: '123456' } };
    const resource = toScimResource(
      stored({ userName: 'ana@example.com', active: false, enterprise }),
      'https://hushlink.example/scim/v2/',
    );
    expect(resource.schemas).toEqual([userSchema, enterpriseUserSchema]);
    expect(resource[enterpriseUserSchema]).toEqual({
      employeeNumber: 'Aklq',
      manager: { value: '123456', $ref: 'https://hushlink.example/scim/v2/Users/123456' },
    });
    // A manager stored as a bare id (before it was kept as its object) answers as the object too.
    const legacy = toScimResource(
      stored({ userName: 'ana@example.com', active: true, enterprise: { manager: '123456' } }),
      'https://h.example/scim/v2',
    );
    expect(legacy[enterpriseUserSchema]).toEqual({ manager: { value: '123456', $ref: 'https://h.example/scim/v2/Users/123456' } });
    expect(resource.active).toBe(false);
    expect(resource.meta.location).toBe('https://hushlink.example/scim/v2/Users/usr_5Xq2');
  });

  it('never lets an extra attribute stand for the service’s own, nor show a password', () => {
    const user = stored({
      userName: 'ana@example.com',
      active: true,
      extra: { title: 'Engineer', id: 'forged', password: 'hunter2', meta: {}, userName: 'eve@example.com' },
    });
    const resource = toScimResource(user, 'https://hushlink.example/scim/v2');
    expect(resource).toMatchObject({ id: 'usr_5Xq2', userName: 'ana@example.com', title: 'Engineer' });
    expect(JSON.stringify(resource)).not.toContain('hunter2');
    expect(resource.meta.resourceType).toBe('User');
  });

  it('reads back as the same User when a client sends it again (Okta updates by GET then PUT)', () => {
    const attributes = parseUserBody({
      ...oktaCreate,
      title: 'Engineer',
      addresses: [{ type: 'work', formatted: '2 Main St' }],
      [enterpriseUserSchema]: { manager: { value: 'm-1' } },
    });
    expect(parseUserBody(overTheWire(toScimResource(stored(attributes), 'https://hushlink.example/scim/v2')))).toEqual(attributes);
  });
});

describe('properties (fast-check)', () => {
  const refusedOnly = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      expect(toHttpError(error).status).toBe(400);
      expect(['invalidSyntax', 'invalidValue']).toContain(error.facts.scimType);
    }
  };

  it('never throws anything but a 400 refusal, whatever JSON arrives', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => refusedOnly(() => parseUserBody(body))),
      { numRuns: 500 },
    );
  });

  const names = [
    'userName',
    'USERNAME',
    'active',
    'emails',
    'name',
    'displayName',
    'externalId',
    'title',
    'phoneNumbers',
    'roles',
    'password',
    'id',
    'meta',
    'groups',
    'schemas',
    enterpriseUserSchema,
    'urn:example:other:2.0:User',
    '__proto__',
    'constructor',
  ];
  const plausible = fc.oneof(
    fc.jsonValue(),
    fc.constantFrom('True', 'False', true, false, 'ana@example.com', '', null),
    fc.array(
      fc.record({
        value: fc.constantFrom('ana@example.com', 'bo@example.com', 'nope'),
        type: fc.constantFrom('work', 'home'),
        primary: fc.boolean(),
      }),
      { maxLength: 3 },
    ),
    fc.record({ givenName: fc.string(), familyName: fc.oneof(fc.string(), fc.constant(null)) }),
    fc.constant([userSchema]),
  );
  const body = fc
    .dictionary(fc.constantFrom(...names), plausible, { maxKeys: 8 })
    .map((members) => ({ userName: 'ana@example.com', ...members }));

  it('of bodies near the real ones: a User that reads back as itself, or a 400 refusal', () => {
    fc.assert(
      fc.property(body, (sent) => {
        let user: ScimUserAttributes;
        try {
          user = parseUserBody(sent);
        } catch (error) {
          return refusedOnly(() => {
            throw error;
          });
        }
        expect(typeof user.active).toBe('boolean');
        expect(user.userName.trim()).not.toBe('');
        expect(JSON.stringify(user)).not.toContain('"password"');
        expect(parseUserBody(overTheWire(toScimResource(stored(user), 'https://hushlink.example/scim/v2')))).toEqual(user);
      }),
      { numRuns: 500 },
    );
  });
});
