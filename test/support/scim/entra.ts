/**
 * What Microsoft Entra ID sends to a SCIM server, and what it expects back (issue 18): the
 * provisioning service's documented requests, the PATCH shapes it sends with and without the
 * aadOptscim062020 flag, the examples of its sample-code walkthrough, and the checks of
 * Microsoft's SCIM Validator. Bodies are Microsoft's, field for field; only values are
 * placeholders. Every step names where it is published.
 */
import { enterpriseUserSchema, errorSchema, listResponseSchema, patchOpSchema, userSchema } from '../../../shared/domain/scim/model.ts';
import type { Json, ScimClientStep } from './clientSteps.ts';

/*
 * "tutorial" in the comments below: Tutorial: Develop and plan provisioning for a SCIM endpoint in
 * Microsoft Entra ID, https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups
 * (read from https://github.com/MicrosoftDocs/entra-docs/blob/main/docs/identity/app-provisioning/use-scim-to-provision-users-and-groups.md).
 * "how-provisioning-works": https://learn.microsoft.com/en-us/entra/identity/app-provisioning/how-provisioning-works
 */

/** The variables of the provisioning service's steps; `secretToken` is the admin's Secret Token (the directory key). */
export type EntraVariables = {
  secretToken: string;
  /** The matching attribute's value Test Connection looks for: a random GUID. */
  randomGuid: string;
  userName: string;
  /** The userName the single-valued update sets. */
  newUserName: string;
  externalId: string;
  workEmail: string;
  updatedWorkEmail: string;
};

export function entraVariables(secretToken: string, suffix: string): EntraVariables {
  return {
    secretToken,
    randomGuid: `00000000-0000-4000-8000-${suffix.padStart(12, '0').slice(-12)}`,
    userName: `Test_User_${suffix}@contoso.example`,
    newUserName: `${suffix}-renamed@testuser.example`,
    externalId: `0a21f0f2-8d2a-4f8e-bf98-${suffix.padStart(12, '0').slice(-12)}`,
    workEmail: `Test_User_${suffix}@testuser.example`,
    updatedWorkEmail: `updatedEmail.${suffix}@microsoft.example`,
  };
}

/* The tutorial's requests name Authorization: Bearer, and Content-type: application/scim+json on bodies. */
const entraHeaders = { Authorization: 'Bearer {secretToken}' };
const entraBodyHeaders = { ...entraHeaders, 'Content-Type': 'application/scim+json' };

/*
 * The tutorial prints its filters unencoded (`filter=userName eq "…"`); these fixtures encode
 * them with %20. The validator's captured requests use + for the spaces: both must work.
 */
const filter = (attribute: string, value: string) => `filter=${attribute}%20eq%20%22${value}%22`;

const emptyList = [
  { rule: 'includes', property: 'schemas', value: listResponseSchema },
  { rule: 'equalsNumber', property: 'totalResults', value: 0 },
  {
    rule: 'says',
    text: "Resources is an empty array (the tutorial's zero-results response); no id is needed in a ListResponse with no elements.",
  },
] as const;

const oneUser = (property: string, value: string) =>
  [
    { rule: 'includes', property: 'schemas', value: listResponseSchema },
    { rule: 'equalsNumber', property: 'totalResults', value: 1 },
    { rule: 'equalsText', property: `Resources[0].${property}`, value },
    { rule: 'notEmpty', property: 'Resources[0].id' },
  ] as const;

const patch = (...Operations: { op: string; path?: string; value?: Json }[]): Json => ({ schemas: [patchOpSchema], Operations });

/* ---------------------------------------------------------------------------------------------
 * The provisioning service, in the order of a user's life: saving the configuration, Test
 * Connection, the lookup before a create, the create, reads, updates, disable, delete.
 * ------------------------------------------------------------------------------------------- */

export const entraProvisioning: ScimClientStep[] = [
  // tutorial, "/Schemas (Schema discovery)": requested when the provisioning configuration is saved
  // and when its edit page opens.
  {
    name: 'Discover schema',
    method: 'GET',
    path: '/Schemas',
    headers: entraHeaders,
    expect: {
      status: 200,
      checks: [
        { rule: 'includes', property: 'schemas', value: listResponseSchema },
        { rule: 'says', text: 'Must return a list response; property values camel-cased (readWrite); absent values left out, never null.' },
      ],
    },
  },
  // tutorial, "Integrate your SCIM endpoint": "Test Connection queries the SCIM endpoint for a user
  // that doesn't exist, using a random GUID as the matching property".
  {
    name: 'Test Connection',
    method: 'GET',
    path: '/Users',
    query: filter('userName', '{randomGuid}'),
    headers: entraHeaders,
    expect: { status: 200, checks: [...emptyList, { rule: 'says', text: 'HTTP 200 OK with an empty SCIM ListResponse.' }] },
  },
  // tutorial, "Get User by query - Zero results" (the value has a space); also how-provisioning-works,
  // "Initial cycle" step 3: the service queries for a matching user before it creates one.
  {
    name: 'Get User by query - Zero results',
    method: 'GET',
    path: '/Users',
    query: filter('userName', 'non-existent%20user'),
    headers: entraHeaders,
    expect: { status: 200, checks: [...emptyList] },
  },
  // tutorial, "Create User"
  {
    name: 'Create User',
    method: 'POST',
    path: '/Users',
    headers: entraBodyHeaders,
    body: {
      schemas: [userSchema, enterpriseUserSchema],
      externalId: '{externalId}',
      userName: '{userName}',
      active: true,
      emails: [{ primary: true, type: 'work', value: '{workEmail}' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
    },
    expect: {
      status: 201,
      checks: [
        { rule: 'notEmpty', property: 'id' },
        { rule: 'equalsText', property: 'externalId', value: '{externalId}' },
        { rule: 'equalsText', property: 'userName', value: '{userName}' },
        { rule: 'equalsText', property: 'active', value: 'true' },
        { rule: 'equalsText', property: 'emails[0].value', value: '{workEmail}' },
        {
          rule: 'says',
          text: 'Values are stored and returned in the format they were sent; the service caches the id for every later operation.',
        },
      ],
    },
    captures: { id: 'id' },
    note: 'meta is read-only and comes in the body; roles is an empty array; the enterprise schema is listed with no extension object.',
  },
  // tutorial, "Get User"
  {
    name: 'Get User',
    method: 'GET',
    path: '/Users/{id}',
    headers: entraHeaders,
    expect: {
      status: 200,
      checks: [
        { rule: 'equalsText', property: 'id', value: '{id}' },
        { rule: 'equalsText', property: 'userName', value: '{userName}' },
        { rule: 'equalsText', property: 'externalId', value: '{externalId}' },
      ],
    },
  },
  // tutorial, "Get User" (not found): "The detail isn't required, only status."
  {
    name: 'Get User (not found)',
    method: 'GET',
    path: '/Users/5171a35d82074e068ce2',
    headers: entraHeaders,
    expect: {
      status: 404,
      checks: [
        { rule: 'includes', property: 'schemas', value: errorSchema },
        { rule: 'equalsText', property: 'status', value: '404' },
      ],
    },
  },
  // tutorial, "Get User by query"
  {
    name: 'Get User by query',
    method: 'GET',
    path: '/Users',
    query: filter('userName', '{userName}'),
    headers: entraHeaders,
    expect: { status: 200, checks: [...oneUser('userName', '{userName}')] },
  },
  // tutorial, "Understand the Microsoft Entra SCIM implementation": users "queried with their
  // username and externalId"; Entra's newer jobs match on externalId
  // (https://github.com/OctopusDeploy/Issues/issues/9841: `externalId eq "guid"`).
  {
    name: 'Get User by query on externalId',
    method: 'GET',
    path: '/Users',
    query: filter('externalId', '{externalId}'),
    headers: entraHeaders,
    expect: { status: 200, checks: [...oneUser('externalId', '{externalId}')] },
  },
  // tutorial, "/Users": an attribute used for uniqueness must be usable in a filter, e.g.
  // emails[type eq "work"].value eq "user@contoso.com".
  {
    name: 'Get User by query on the work email',
    method: 'GET',
    path: '/Users',
    query: 'filter=emails%5Btype%20eq%20%22work%22%5D.value%20eq%20%22{workEmail}%22',
    headers: entraHeaders,
    expect: { status: 200, checks: [...oneUser('emails[0].value', '{workEmail}')] },
  },
  // tutorial, "Update User [Multi-valued properties]"
  {
    name: 'Update User [Multi-valued properties]',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: entraBodyHeaders,
    body: patch(
      { op: 'Replace', path: 'emails[type eq "work"].value', value: '{updatedWorkEmail}' },
      { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
    ),
    expect: {
      status: 200,
      checks: [
        { rule: 'equalsText', property: 'emails[0].value', value: '{updatedWorkEmail}' },
        { rule: 'equalsText', property: 'name.familyName', value: 'updatedFamilyName' },
        {
          rule: 'says',
          text: 'op is "Replace", capitalised: structural values are matched case-insensitively. The whole resource need not be in a PATCH answer.',
        },
      ],
    },
  },
  // tutorial, "Update User [Single-valued properties]"
  {
    name: 'Update User [Single-valued properties]',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: entraBodyHeaders,
    body: patch({ op: 'Replace', path: 'userName', value: '{newUserName}' }),
    expect: { status: 200, checks: [{ rule: 'equalsText', property: 'userName', value: '{newUserName}' }] },
  },
  // tutorial, "Disable User"; also how-provisioning-works, "Deprovisioning": unassigning a user, or
  // taking it out of scope, disables it by setting active false.
  {
    name: 'Disable User',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: entraBodyHeaders,
    body: { Operations: [{ op: 'Replace', path: 'active', value: false }], schemas: [patchOpSchema] },
    expect: { status: 200, checks: [{ rule: 'equalsText', property: 'active', value: 'false' }] },
  },
  // tutorial, requirements table: "The user object should be returned in a request whether or not
  // the user is active. The only time the user shouldn't be returned is when it's hard deleted."
  {
    name: 'Get User (disabled)',
    method: 'GET',
    path: '/Users/{id}',
    headers: entraHeaders,
    expect: { status: 200, checks: [{ rule: 'equalsText', property: 'active', value: 'false' }] },
  },
  // tutorial, "Delete User"; how-provisioning-works: sent 30 days after a user is soft-deleted in
  // Entra, or when it is deleted permanently.
  {
    name: 'Delete User',
    method: 'DELETE',
    path: '/Users/{id}',
    headers: entraHeaders,
    expect: { status: 204, checks: [] },
  },
  {
    name: 'Get User (deleted)',
    method: 'GET',
    path: '/Users/{id}',
    headers: entraHeaders,
    expect: { status: 404, checks: [{ rule: 'includes', property: 'schemas', value: errorSchema }] },
  },
];

/* ---------------------------------------------------------------------------------------------
 * The PATCH bodies of a non-gallery app's job without and with the aadOptscim062020 flag (the
 * flag is a query parameter of the Tenant URL the admin enters; it does not reach the server as
 * anything but that). Each list runs against a User made by entraProvisioning's Create User
 * (`{id}`); the disable comes last.
 * https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility#flags-to-alter-the-scim-behavior
 * ------------------------------------------------------------------------------------------- */

const flagsSource =
  'https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility#flags-to-alter-the-scim-behavior';

export const entraPatchWithoutFlag: ScimClientStep[] = [
  {
    name: 'Add a single-value string attribute (without the flag)',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: entraBodyHeaders,
    body: patch({ op: 'Add', path: 'nickName', value: 'Babs' }),
    expect: { status: [200, 204], checks: [{ rule: 'says', text: 'nickName is Babs.' }] },
  },
  {
    name: 'Replace multiple attributes (without the flag)',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: entraBodyHeaders,
    body: patch(
      { op: 'Replace', path: 'displayName', value: 'Pvlo' },
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'TestBcwqnm@test.microsoft.com' },
      { op: 'Replace', path: 'name.givenName', value: 'Gtfd' },
      { op: 'Replace', path: 'name.familyName', value: 'Pkqf' },
      { op: 'Replace', path: 'externalId', value: 'Eqpj' },
      { op: 'Replace', path: `${enterpriseUserSchema}:employeeNumber`, value: 'Eqpj' },
    ),
    expect: {
      status: [200, 204],
      checks: [
        {
          rule: 'says',
          text: 'All six applied: displayName, the work email, both names, externalId, and employeeNumber inside the enterprise extension object.',
        },
      ],
    },
  },
  {
    name: 'Disable user (without the flag)',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: entraBodyHeaders,
    body: patch({ op: 'Replace', path: 'active', value: 'False' }),
    expect: {
      status: [200, 204],
      checks: [{ rule: 'says', text: 'active is the string "False": the User is deactivated and read back with active false, a boolean.' }],
    },
    note: `${flagsSource}. Still the default for non-gallery apps ("Fixed? No").`,
  },
  {
    name: 'Enable user (without the flag)',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: entraBodyHeaders,
    body: patch({ op: 'Replace', path: 'active', value: 'True' }),
    expect: { status: [200, 204], checks: [{ rule: 'says', text: 'The User is active again, read back with active true.' }] },
    note: 'Not printed in the article: the string "True" is the disable request\'s counterpart, sent when a user comes back into scope.',
  },
];

export const entraPatchWithFlag: ScimClientStep[] = [
  {
    name: 'Add a single-value string attribute (with the flag)',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: entraBodyHeaders,
    body: patch({ op: 'add', path: 'nickName', value: 'Babs' }),
    expect: { status: [200, 204], checks: [{ rule: 'says', text: 'nickName is Babs.' }] },
  },
  {
    name: 'Replace multiple attributes (with the flag)',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: entraBodyHeaders,
    body: patch(
      { op: 'replace', path: 'emails[type eq "work"].value', value: 'TestMhvaes@test.microsoft.com' },
      {
        op: 'replace',
        value: {
          displayName: 'Bjfe',
          'name.givenName': 'Kkom',
          'name.familyName': 'Unua',
          [`${enterpriseUserSchema}:employeeNumber`]: 'Aklq',
        },
      },
    ),
    expect: {
      status: [200, 204],
      checks: [
        {
          rule: 'says',
          text: "The path-less value's keys are attribute paths, not names: name.givenName and name.familyName land in name, the URN-qualified key in the enterprise extension object.",
        },
      ],
    },
    note: flagsSource,
  },
  {
    name: 'Disable user (with the flag)',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: entraBodyHeaders,
    body: patch({ op: 'replace', path: 'active', value: false }),
    expect: { status: [200, 204], checks: [{ rule: 'says', text: 'The User is deactivated and read back with active false.' }] },
  },
];

/* ---------------------------------------------------------------------------------------------
 * The tutorial's sample-code walkthrough ("Handling provisioning and deprovisioning of users"),
 * printed as requests the service sends: some are odder than its request/response section.
 * ------------------------------------------------------------------------------------------- */

export const entraSampleCodeExamples: ScimClientStep[] = [
  // tutorial, "Example 1. Query the service for a matching user"
  {
    name: 'Example 1. Query the service for a matching user',
    method: 'GET',
    path: '/Users',
    query: 'filter=externalId%20eq%20jyoung',
    headers: entraHeaders,
    expect: { status: 200, checks: [{ rule: 'says', text: 'The users whose externalId is jyoung; none means the service creates one.' }] },
    note: "The value is unquoted, which RFC 7644 §3.4.2.2 does not allow; the tutorial's own request/response section and observed Entra jobs quote it. Accepting it or answering 400 invalidFilter is the server's choice; an unfiltered list is never right.",
  },
  // tutorial, "Example 2. Provision a user"
  {
    name: 'Example 2. Provision a user',
    method: 'POST',
    path: '/Users',
    headers: entraBodyHeaders,
    body: {
      schemas: [userSchema, 'urn:ietf:params:scim:schemas:extension:enterprise:2.0User'],
      externalId: 'jyoung',
      userName: 'jyoung@testuser.com',
      active: true,
      addresses: null,
      displayName: 'Joy Young',
      emails: [{ type: 'work', value: 'jyoung@Contoso.com', primary: true }],
      meta: { resourceType: 'User' },
      name: { familyName: 'Young', givenName: 'Joy' },
      phoneNumbers: null,
      preferredLanguage: null,
      title: null,
      department: null,
      manager: null,
    },
    expect: { status: 201, checks: [{ rule: 'notEmpty', property: 'id' }] },
    captures: { jyoungId: 'id' },
    note: 'Unset attributes come as null, department and manager at the top level rather than in the extension, and the second schema URN lacks its colon before User.',
  },
  // tutorial, "Example 5. Request from Microsoft Entra ID to an SCIM endpoint to update a user"
  {
    name: 'Example 5. Update a user (manager)',
    method: 'PATCH',
    path: '/Users/{jyoungId}',
    headers: entraBodyHeaders,
    body: patch({
      op: 'Add',
      path: 'manager',
      value: [{ $ref: 'http://.../scim/Users/00aa00aa-bb11-cc22-dd33-44ee44ee44ee', value: '00aa00aa-bb11-cc22-dd33-44ee44ee44ee' }],
    }),
    expect: { status: [200, 204], checks: [] },
    note: 'manager unqualified, with a multi-valued value: the validator and current jobs send the URN-qualified path with one object instead. No core attribute is named manager, so this service reads it as the enterprise extension’s (issue 30); a 500 is never right.',
  },
  // tutorial, "Example 6. Deprovision a user"
  {
    name: 'Example 6. Deprovision a user',
    method: 'DELETE',
    path: '/Users/{jyoungId}',
    headers: entraHeaders,
    expect: { status: 204, checks: [] },
  },
];

/* ---------------------------------------------------------------------------------------------
 * Microsoft's SCIM Validator (https://scimvalidator.microsoft.com/; tutorial:
 * https://learn.microsoft.com/en-us/entra/identity/app-provisioning/scim-validator-tutorial).
 * Microsoft publishes the tool, not its requests: the bodies and test names here are from
 * validator runs published with their requests, in
 * https://github.com/pranems/SCIMServer/blob/main/docs/SCIM_VALIDATION_GAP_ANALYSIS.md and the same
 * project's run report (scim-results-9.json, February 2026), and
 * https://learn.microsoft.com/en-us/answers/questions/2238842/microsoft-entra-id-scim-validator-test-failing-pat.
 * The validator makes a fresh User for each test; here one User goes through them in turn.
 * With "Use default attributes" it sends every attribute below, with random values.
 * ------------------------------------------------------------------------------------------- */

/** The validator's variables; `secretToken` is the token entered in the validator. */
export type EntraValidatorVariables = {
  secretToken: string;
  userName: string;
  userNameUpper: string;
  unknownUserName: string;
  newUserName: string;
  workEmail: string;
  newWorkEmail: string;
  managerId: string;
  otherManagerId: string;
  unknownId: string;
};

export function entraValidatorVariables(secretToken: string, suffix: string): EntraValidatorVariables {
  const userName = `julien.vonrueden.${suffix}@ondricka.us`;
  return {
    secretToken,
    userName,
    userNameUpper: userName.toUpperCase(),
    unknownUserName: `nobody.${suffix}@romaguera.uk`,
    newUserName: `emilio.${suffix}@hermann.uk`,
    workEmail: `thaddeus.${suffix}@hammes.info`,
    newWorkEmail: `lilian.graham.${suffix}@millszboncak.ca`,
    managerId: 'XYMKVVRYDIOO',
    otherManagerId: 'CBEQXYNPNAZS',
    unknownId: 'd950a5ce-61da-4979-8423-4600c745a897',
  };
}

const validatorHeaders = { Authorization: 'Bearer {secretToken}' };
const validatorBodyHeaders = { ...validatorHeaders, 'Content-Type': 'application/scim+json; charset=utf-8' };

/* As captured: + for each space, the quotes as they are, the value's @ percent-encoded. */
const validatorFilter = (variable: string) => `filter=userName+eq+"{${variable}}"`;

const manager = `${enterpriseUserSchema}:manager`;

/** The create of the default-attributes run (the captured "Create a duplicate User" body). */
const validatorUser: Json = {
  userName: '{userName}',
  active: true,
  displayName: 'NDSQQTECVAAC',
  title: 'CJSGUNOAAMMQ',
  emails: [{ type: 'work', value: '{workEmail}', primary: true }],
  preferredLanguage: 'hi',
  name: {
    givenName: 'Elfrieda',
    familyName: 'Urban',
    formatted: 'Myah',
    middleName: 'Cindy',
    honorificPrefix: 'Minerva',
    honorificSuffix: 'Micaela',
  },
  addresses: [
    {
      type: 'work',
      formatted: 'ZQEHBLETAAQE',
      streetAddress: '25928 Katlyn Row',
      locality: 'YRAKBQCGOHZF',
      region: 'XCCVLAIDMQYR',
      postalCode: 'cx47 4mz',
      primary: true,
      country: 'Sierra Leone',
    },
  ],
  phoneNumbers: [
    { type: 'work', value: '10-040-1308', primary: true },
    { type: 'mobile', value: '10-040-1308' },
    { type: 'fax', value: '10-040-1308' },
  ],
  [enterpriseUserSchema]: {
    employeeNumber: 'OXYYEGWVLTGW',
    department: 'ZYWTBPDFHIIP',
    costCenter: 'ASHTVSKANCGL',
    organization: 'DPQRRHJMBXZE',
    division: 'WXNFEJQDRAVI',
    manager: { value: '{managerId}' },
  },
  roles: [{ primary: 'True', display: 'MRONYWGFFHXQ', value: 'WDEIISGWWQBE', type: 'XVTUOHMYUFRL' }],
  userType: 'GZILLRZCFPNC',
  nickName: 'FOGSIQTKHIPG',
  locale: 'RJWNTUNNOHNZ',
  timezone: 'America/Guayaquil',
  profileUrl: 'BAPNQLJSRQGD',
  schemas: [userSchema, enterpriseUserSchema],
};

const readBack: ScimClientStep = {
  name: 'Read back by filter',
  method: 'GET',
  path: '/Users',
  query: validatorFilter('userName'),
  headers: validatorHeaders,
  expect: { status: 200, checks: [...oneUser('userName', '{userName}')] },
};

export const entraValidator: ScimClientStep[] = [
  {
    name: 'POST /Users - Create a new User',
    method: 'POST',
    path: '/Users',
    headers: validatorBodyHeaders,
    body: validatorUser,
    expect: {
      status: 201,
      checks: [
        { rule: 'notEmpty', property: 'id' },
        {
          rule: 'says',
          text: 'Exactly 201 (a 200 fails, with no reason given). Every answer is Content-Type application/scim+json, or the run warns.',
        },
        {
          rule: 'says',
          text: 'The validator parses answers by its schema: roles[].primary sent as the string "True" must come back as the boolean true ("The value \'True\' cannot be parsed as the type \'Boolean\'").',
        },
      ],
    },
    captures: { id: 'id' },
  },
  {
    ...readBack,
    name: 'POST /Users - Create a new User: verify',
    expect: {
      status: 200,
      checks: [...oneUser('userName', '{userName}'), { rule: 'says', text: 'The attributes sent come back as sent.' }],
    },
  },
  {
    name: 'POST /Users - Create a duplicate User',
    method: 'POST',
    path: '/Users',
    headers: validatorBodyHeaders,
    body: validatorUser,
    expect: { status: 409, checks: [{ rule: 'includes', property: 'schemas', value: errorSchema }] },
  },
  { ...readBack, name: 'GET /Users?filter - Filter for an existing user' },
  {
    name: 'GET /Users?filter - Filter for a non-existing user',
    method: 'GET',
    path: '/Users',
    query: validatorFilter('unknownUserName'),
    headers: validatorHeaders,
    expect: { status: 200, checks: [...emptyList] },
  },
  {
    name: 'GET /Users?filter - Filter for an existing user with a different case',
    method: 'GET',
    path: '/Users',
    query: validatorFilter('userNameUpper'),
    headers: validatorHeaders,
    expect: { status: 200, checks: [...oneUser('userName', '{userName}')] },
  },
  {
    name: 'GET /Users/Id - Get a User by id',
    method: 'GET',
    path: '/Users/{id}',
    headers: validatorHeaders,
    expect: { status: 200, checks: [{ rule: 'equalsText', property: 'id', value: '{id}' }] },
  },
  {
    name: 'PATCH /Users/Id - Patch User - Replace Attributes',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: validatorBodyHeaders,
    body: patch(
      { op: 'replace', path: 'emails[type eq "work"].value', value: '{newWorkEmail}' },
      { op: 'replace', path: 'phoneNumbers[type eq "work"].value', value: '07-272-0828' },
      { op: 'replace', path: 'addresses[type eq "work"].streetAddress', value: '2809 Johns Walk' },
      { op: 'replace', path: 'addresses[type eq "work"].locality', value: 'KMYVNUJVVZWC' },
    ),
    expect: {
      status: 200,
      checks: [
        { rule: 'equalsText', property: 'emails[0].value', value: '{newWorkEmail}' },
        {
          rule: 'says',
          text: 'The "work" element of emails, phoneNumbers and addresses changed in place; no key named after the path appears.',
        },
      ],
    },
  },
  {
    name: 'PATCH /Users/Id - Update User userName',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: validatorBodyHeaders,
    body: patch({ op: 'replace', value: { userName: '{newUserName}' } }),
    expect: { status: 200, checks: [{ rule: 'equalsText', property: 'userName', value: '{newUserName}' }] },
  },
  {
    name: 'PATCH /Users/Id - Patch User - Add Manager',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: validatorBodyHeaders,
    body: patch({ op: 'add', path: manager, value: { value: '{otherManagerId}' } }),
    expect: {
      status: 200,
      checks: [
        {
          rule: 'says',
          text: `The ${enterpriseUserSchema} object's manager.value is {otherManagerId}, and no top-level key named after the path appears.`,
        },
      ],
    },
  },
  {
    name: 'PATCH /Users/Id - Patch User - Replace Manager',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: validatorBodyHeaders,
    body: patch({ op: 'replace', path: manager, value: { value: '{managerId}' } }),
    expect: { status: 200, checks: [{ rule: 'says', text: 'manager.value is {managerId}.' }] },
  },
  {
    name: 'PATCH /Users/Id - Patch User - Remove Manager (remove)',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: validatorBodyHeaders,
    body: patch({ op: 'remove', path: manager }),
    expect: { status: 200, checks: [{ rule: 'says', text: 'manager is gone from the extension object; its other attributes stay.' }] },
    note: 'The form captured in the February 6 run.',
  },
  {
    name: 'PATCH /Users/Id - Patch User - Remove Manager (replace with an empty value)',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: validatorBodyHeaders,
    body: patch({ op: 'replace', path: manager, value: { value: '' } }),
    expect: {
      status: 200,
      checks: [
        { rule: 'says', text: 'Passes whether manager is left as {"value": ""} or removed; removing it is what the request means.' },
      ],
    },
    note: 'The form captured in the February 10 run: Entra clears a manager by replacing it with an empty value.',
  },
  {
    name: 'PATCH /Users/Id - Patch User - Disable User',
    method: 'PATCH',
    path: '/Users/{id}',
    headers: validatorBodyHeaders,
    body: { Operations: [{ op: 'Replace', path: 'active', value: false }], schemas: [patchOpSchema] },
    expect: { status: 200, checks: [{ rule: 'equalsText', property: 'active', value: 'false' }] },
    note: "No run published this test's body; this is the tutorial's Disable User.",
  },
  {
    name: 'PATCH /Users/Id - Patch User - Disable User: verify',
    method: 'GET',
    path: '/Users',
    query: validatorFilter('newUserName'),
    headers: validatorHeaders,
    expect: {
      status: 200,
      checks: [
        { rule: 'equalsNumber', property: 'totalResults', value: 1 },
        { rule: 'equalsText', property: 'Resources[0].active', value: 'false' },
        {
          rule: 'says',
          text: '"Response from a GET and filter request on a disabled User should have attribute active": a disabled User is still found by filter.',
        },
      ],
    },
  },
  {
    name: 'DELETE /Users/Id - Delete a User',
    method: 'DELETE',
    path: '/Users/{id}',
    headers: validatorHeaders,
    expect: { status: 204, checks: [] },
  },
  {
    name: 'DELETE /Users/Id - Delete a User: verify',
    method: 'GET',
    path: '/Users/{id}',
    headers: validatorHeaders,
    expect: { status: 404, checks: [{ rule: 'includes', property: 'schemas', value: errorSchema }] },
  },
  {
    name: 'DELETE /Users/Id - Delete the same User twice (preview)',
    method: 'DELETE',
    path: '/Users/{id}',
    headers: validatorHeaders,
    expect: { status: 404, checks: [] },
  },
  {
    name: 'DELETE /Users/Id - Delete a non-existent User (preview)',
    method: 'DELETE',
    path: '/Users/{unknownId}',
    headers: validatorHeaders,
    expect: { status: 404, checks: [] },
  },
];
