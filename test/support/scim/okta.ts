/**
 * What Okta sends to a SCIM server, and what it checks in the answers (issue 18): its SCIM 2.0
 * spec test, its CRUD test with the requests Okta's provisioning makes between the test's checks,
 * and the requests of Okta's connection test and imports. Bodies are Okta's, field for field;
 * only the values are placeholders. Every step names where it is published.
 */
import { enterpriseUserSchema, errorSchema, listResponseSchema, patchOpSchema, userSchema } from '../../../shared/domain/scim/model.ts';
import type { ScimClientStep } from './clientSteps.ts';

/* ---------------------------------------------------------------------------------------------
 * Okta SCIM 2.0 Spec Test, the Runscope (BlazeMeter) suite an OIN submission must pass.
 * The file: https://developer.okta.com/standards/SCIM/SCIMFiles/Okta-SCIM-20-SPEC-Test.json
 * (read from the copy at https://github.com/BerriAI/litellm/blob/main/tests/scim_tests/scim_e2e_test.json,
 * "Okta SCIM 2.0 SPEC Test", exported 2024-05-13); its pauses of 5 and 10 s are left out.
 * Its variables: https://developer.okta.com/docs/guides/scim-provisioning-integration-prepare/main/#test-your-scim-api
 * ------------------------------------------------------------------------------------------- */

/** The spec test's initial variables; `auth` is the Authorization header's whole value. */
export type OktaSpecVariables = {
  auth: string;
  InvalidUserEmail: string;
  UserIdThatDoesNotExist: string;
  randomGivenName: string;
  randomFamilyName: string;
  randomUsername: string;
  randomUsernameCaps: string;
  randomEmail: string;
};

/**
 * The variables as Okta's initial script makes them (the guide's example values by default:
 * Runscope300, Hfluaklab151). Its "caps" user name upper-cases the local part only, as the
 * guide's example shows; userName is the address.
 */
export function oktaSpecVariables(auth: string, givenName = 'Runscope300', familyName = 'Hfluaklab151'): OktaSpecVariables {
  const local = `${givenName}${familyName}`;
  return {
    auth,
    InvalidUserEmail: 'abcdefgh@example.com',
    UserIdThatDoesNotExist: '010101001010101011001010101011',
    randomGivenName: givenName,
    randomFamilyName: familyName,
    randomUsername: `${local}@example.com`,
    randomUsernameCaps: `${local.toUpperCase()}@example.com`,
    randomEmail: `${local}@example.com`,
  };
}

/** What the spec test's GETs send (its POSTs send fewer headers, and others). */
const specGetHeaders = {
  'Accept-Charset': 'utf-8',
  'Content-Type': 'application/scim+json; charset=utf-8',
  Accept: 'application/scim+json',
  Authorization: '{auth}',
  'User-Agent': 'OKTA SCIM Integration',
};

const specPostHeaders = {
  'Content-Type': 'application/json',
  Authorization: '{auth}',
  Accept: 'application/scim+json; charset=utf-8',
};

/*
 * The file types its filters as `filter=userName eq "{{…}}"`, a space and quotes in the URL,
 * which go on the wire percent-encoded.
 */
const userNameFilter = (variable: string) => `filter=userName%20eq%20%22{${variable}}%22`;

const listChecks = [
  { rule: 'includes', property: 'schemas', value: listResponseSchema },
  { rule: 'isNumber', property: 'itemsPerPage' },
  { rule: 'isNumber', property: 'startIndex' },
  { rule: 'isNumber', property: 'totalResults' },
] as const;

const errorChecks = (status: string) =>
  [
    { rule: 'notEmpty', property: 'detail' },
    { rule: 'equalsText', property: 'status', value: status },
    { rule: 'includes', property: 'schemas', value: errorSchema },
  ] as const;

export const oktaSpecTest: ScimClientStep[] = [
  // Okta-SCIM-20-SPEC-Test.json, step 1
  {
    name: 'Required Test: Test Users endpoint',
    method: 'GET',
    path: '/Users',
    query: 'count=1&startIndex=1',
    headers: specGetHeaders,
    expect: {
      status: 200,
      checks: [
        { rule: 'notEmpty', property: 'Resources' },
        ...listChecks,
        { rule: 'notEmpty', property: 'Resources[0].id' },
        { rule: 'notEmpty', property: 'Resources[0].name.familyName' },
        { rule: 'notEmpty', property: 'Resources[0].name.givenName' },
        { rule: 'notEmpty', property: 'Resources[0].userName' },
        { rule: 'notEmpty', property: 'Resources[0].active' },
        { rule: 'notEmpty', property: 'Resources[0].emails[0].value' },
      ],
    },
    captures: { ISVUserid: 'Resources[0].id' },
    note: 'The guide asks for at least one User on the server before the run: this step fails on an empty directory. That User needs name.givenName, name.familyName and an email.',
  },
  // Okta-SCIM-20-SPEC-Test.json, step 2
  {
    name: 'Required Test: Get Users/{{id}} ',
    method: 'GET',
    path: '/Users/{ISVUserid}',
    headers: specGetHeaders,
    expect: {
      status: 200,
      checks: [
        { rule: 'notEmpty', property: 'id' },
        { rule: 'notEmpty', property: 'name.familyName' },
        { rule: 'notEmpty', property: 'name.givenName' },
        { rule: 'notEmpty', property: 'userName' },
        { rule: 'notEmpty', property: 'active' },
        { rule: 'notEmpty', property: 'emails[0].value' },
        { rule: 'equalsText', property: 'id', value: '{ISVUserid}' },
      ],
    },
  },
  // Okta-SCIM-20-SPEC-Test.json, step 3
  {
    name: 'Required Test: Test invalid User by username',
    method: 'GET',
    path: '/Users',
    query: userNameFilter('InvalidUserEmail'),
    headers: specGetHeaders,
    expect: {
      status: 200,
      checks: [
        { rule: 'includes', property: 'schemas', value: listResponseSchema },
        { rule: 'equalsText', property: 'totalResults', value: '0' },
      ],
    },
  },
  // Okta-SCIM-20-SPEC-Test.json, step 4
  {
    name: 'Required Test: Test invalid User by ID',
    method: 'GET',
    path: '/Users/{UserIdThatDoesNotExist}',
    headers: specGetHeaders,
    expect: {
      status: 404,
      checks: [
        { rule: 'notEmpty', property: 'detail' },
        { rule: 'includes', property: 'schemas', value: errorSchema },
      ],
    },
  },
  // Okta-SCIM-20-SPEC-Test.json, step 5
  {
    name: "Required Test: Make sure random user doesn't exist",
    method: 'GET',
    path: '/Users',
    query: userNameFilter('randomEmail'),
    headers: specGetHeaders,
    expect: {
      status: 200,
      checks: [
        { rule: 'equalsNumber', property: 'totalResults', value: 0 },
        { rule: 'includes', property: 'schemas', value: listResponseSchema },
      ],
    },
  },
  // Okta-SCIM-20-SPEC-Test.json, step 6
  {
    name: 'Required Test: Create Okta user with realistic values',
    method: 'POST',
    path: '/Users',
    headers: specPostHeaders,
    body: {
      schemas: [userSchema],
      userName: '{randomUsername}',
      name: { givenName: '{randomGivenName}', familyName: '{randomFamilyName}' },
      emails: [{ primary: true, value: '{randomEmail}', type: 'work' }],
      displayName: '{randomGivenName} {randomFamilyName}',
      active: true,
    },
    expect: {
      status: 201,
      checks: [
        { rule: 'equalsText', property: 'active', value: 'true' },
        { rule: 'notEmpty', property: 'id' },
        { rule: 'equalsText', property: 'name.familyName', value: '{randomFamilyName}' },
        { rule: 'equalsText', property: 'name.givenName', value: '{randomGivenName}' },
        { rule: 'includes', property: 'schemas', value: userSchema },
        { rule: 'equalsText', property: 'userName', value: '{randomUsername}' },
      ],
    },
    captures: { idUserOne: 'id', randomUserEmail: 'emails[0].value' },
    note: 'Sent as application/json, not application/scim+json, and with no User-Agent.',
  },
  // Okta-SCIM-20-SPEC-Test.json, step 7
  {
    name: 'Required Test: Verify that user was created',
    method: 'GET',
    path: '/Users/{idUserOne}',
    headers: specGetHeaders,
    expect: {
      status: 200,
      checks: [
        { rule: 'equalsText', property: 'userName', value: '{randomUsername}' },
        { rule: 'equalsText', property: 'name.familyName', value: '{randomFamilyName}' },
        { rule: 'equalsText', property: 'name.givenName', value: '{randomGivenName}' },
      ],
    },
  },
  // Okta-SCIM-20-SPEC-Test.json, step 8
  {
    name: 'Required Test: Expect failure when recreating user with same values',
    method: 'POST',
    path: '/Users',
    headers: specPostHeaders,
    body: {
      schemas: [userSchema],
      userName: '{randomUsername}',
      name: { givenName: '{randomGivenName}', familyName: '{randomFamilyName}' },
      emails: [{ primary: true, value: '{randomUsername}', type: 'work' }],
      displayName: '{randomGivenName} {randomFamilyName}',
      active: true,
    },
    expect: { status: 409, checks: [] },
    note: "The email is {randomUsername} here, {randomEmail} in step 6: the same text in the guide's variables.",
  },
  // Okta-SCIM-20-SPEC-Test.json, step 9
  {
    name: 'Required Test: Username Case Sensitivity Check',
    method: 'GET',
    path: '/Users',
    query: userNameFilter('randomUsernameCaps'),
    headers: specGetHeaders,
    expect: { status: 200, checks: [] },
    note: 'Okta checks the status only; userName is caseExact false (RFC 7643 §4.1.1), so the User of step 6 is the one match.',
  },
  // Okta-SCIM-20-SPEC-Test.json, step 10
  {
    name: 'Optional Test: Verify Groups endpoint',
    method: 'GET',
    path: '/Groups',
    headers: specGetHeaders,
    expect: {
      status: 200,
      checks: [
        { rule: 'respondsWithin', ms: 600 },
        {
          rule: 'says',
          text: 'Its script reads totalResults and Resources: totalResults 0 is reported as "No Groups found", more than 0 needs Resources to be an array.',
        },
      ],
    },
    optional: true,
    note: 'Optional: Okta reports a failure and the run passes. Groups are served since issue 30; a directory with none answers an empty ListResponse.',
  },
  // Okta-SCIM-20-SPEC-Test.json, step 11
  {
    name: 'Required Test: Check status 401',
    method: 'GET',
    path: '/Users',
    query: userNameFilter('randomUsernameCaps'),
    headers: {
      Accept: 'application/scim+json',
      'Accept-Charset': 'utf-8',
      Authorization: 'non-token',
      'Content-Type': 'application/scim+json; charset=utf-8',
      'User-Agent': 'OKTA SCIM Integration',
    },
    expect: { status: 401, checks: [...errorChecks('401')] },
    note: 'The Authorization header is present and names no scheme at all.',
  },
  // Okta-SCIM-20-SPEC-Test.json, step 12
  {
    name: 'Required Test: Check status 404',
    method: 'GET',
    path: '/Users/00919288221112222',
    headers: specGetHeaders,
    expect: { status: 404, checks: [...errorChecks('404')] },
  },
];

/* ---------------------------------------------------------------------------------------------
 * What Okta's provisioning sends, from its SCIM 2.0 reference:
 * https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20
 * (read from https://github.com/okta/okta-developer-docs/blob/master/packages/@okta/vuepress-site/docs/reference/scim/scim-20/index.md).
 * The reference shows User-Agent and Authorization only. It shows no Content-Type on the bodies
 * Okta sends; these fixtures send application/json; charset=utf-8, the JSON type its own test
 * posts with, so a server taking only application/scim+json is caught.
 * ------------------------------------------------------------------------------------------- */

/** The variables of Okta's provisioning and of its CRUD test; `auth` is the Authorization header's value. */
export type OktaProvisioningVariables = {
  auth: string;
  /** The Okta user's login and email: Okta's userName. */
  okta_user_email: string;
  okta_user_firstname: string;
  okta_user_lastname: string;
  okta_user_firstname_update: string;
  /** Okta's own id of the user (00u…), sent as externalId. */
  oktaUserId: string;
  /** The random 8 characters Okta sends as password even when password sync is off. */
  oktaPassword: string;
};

export function oktaProvisioningVariables(auth: string, suffix: string): OktaProvisioningVariables {
  return {
    auth,
    okta_user_email: `crud.${suffix}@example.com`,
    okta_user_firstname: 'Test',
    okta_user_lastname: `User${suffix}`,
    okta_user_firstname_update: 'Another',
    oktaUserId: `00u${suffix}`.padEnd(20, '0').slice(0, 20),
    oktaPassword: '1mz050nq',
  };
}

const oktaClientHeaders = {
  'User-Agent': 'Okta SCIM Client 1.0.0',
  Authorization: '{auth}',
};

const oktaClientBodyHeaders = { ...oktaClientHeaders, 'Content-Type': 'application/json; charset=utf-8' };

/** What the CRUD test's own checks send (it reads the server directly between Okta's actions). */
const crudCheckHeaders = { Authorization: '{auth}', Accept: 'application/scim+json' };

/** Okta's User after its GET, with its change: what an update by PUT sends back (the reference's PUT body). */
const oktaPutBody = (givenName: string, active: boolean) => ({
  schemas: [userSchema],
  id: '{scim_id}',
  userName: '{okta_user_email}',
  name: { givenName, middleName: '', familyName: '{okta_user_lastname}' },
  emails: [{ primary: true, value: '{okta_user_email}', type: 'work', display: '{okta_user_email}' }],
  active,
  groups: [],
  meta: { resourceType: 'User' },
});

const oktaPutNote =
  'Okta copies its GET of the User, changes it and PUTs it back: id, meta and groups (read-only) come back too, and any attribute the GET answered with (password included, were a server to return it).';

/** Okta's PATCH of `active`, path-less with a value object (OIN integrations). */
const oktaActivePatch = (active: boolean) => ({
  schemas: [patchOpSchema],
  Operations: [{ op: 'replace', value: { active } }],
});

const userReplyChecks = (text: string) => [{ rule: 'says', text } as const];

/** Okta reads the User, then PUTs it: how integrations from the App Integration Wizard change anything. */
function readThenPut(name: string, givenName: string, active: boolean, anchor: string): ScimClientStep[] {
  return [
    // https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20#retrieve-the-user
    {
      name: `${name}: Okta reads the User`,
      method: 'GET',
      path: '/Users/{scim_id}',
      headers: oktaClientHeaders,
      expect: {
        status: 200,
        checks: userReplyChecks(
          'The User with id, userName, name, emails and active. Okta stops at a 404 here: no search by filter, no new POST, no retry.',
        ),
      },
    },
    // https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20#update-the-user, and #delete-users for active false
    {
      name: `${name}: Okta PUTs the User back (${anchor})`,
      method: 'PUT',
      path: '/Users/{scim_id}',
      headers: oktaClientBodyHeaders,
      body: oktaPutBody(givenName, active),
      expect: { status: 200, checks: userReplyChecks('The updated User.') },
      note: oktaPutNote,
    },
  ];
}

/**
 * How Okta changes `active`: OIN integrations PATCH it, integrations made with the App
 * Integration Wizard (AIW) read the User and PUT it back.
 */
function setActive(name: string, app: OktaApp, givenName: string, active: boolean): ScimClientStep[] {
  if (app === 'aiw') return readThenPut(name, givenName, active, `active ${active}`);
  return [
    // https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20#update-a-specific-user-patch
    {
      name: `${name}: Okta PATCHes active ${active}`,
      method: 'PATCH',
      path: '/Users/{scim_id}',
      headers: oktaClientBodyHeaders,
      body: oktaActivePatch(active),
      expect: { status: [200, 204], checks: userReplyChecks('200 with the updated User, or 204 with no body.') },
    },
  ];
}

/** OIN integrations PATCH activation and deactivation; AIW integrations send every update as PUT. */
export type OktaApp = 'oin' | 'aiw';

// https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20#determine-if-the-user-already-exists
const oktaLookup = (expectation: string): ScimClientStep => ({
  name: 'Okta looks the user up by userName',
  method: 'GET',
  path: '/Users',
  query: 'filter=userName%20eq%20%22{okta_user_email}%22&startIndex=1&count=100',
  headers: oktaClientHeaders,
  expect: {
    status: 200,
    checks: [
      { rule: 'includes', property: 'schemas', value: listResponseSchema },
      { rule: 'isNumber', property: 'totalResults' },
      { rule: 'says', text: expectation },
    ],
  },
  note: 'The reference also accepts a 404 with the Error schema for no match; 200 with totalResults 0 is what issue 18 answers.',
});

const crudCheck = (name: string, checks: ScimClientStep['expect']['checks']): ScimClientStep => ({
  name,
  method: 'GET',
  path: '/Users/{scim_id}',
  headers: crudCheckHeaders,
  expect: { status: 200, checks },
});

/**
 * Okta's CRUD test (create, update, deactivate, reactivate, unassign): each of its checks on the
 * SCIM server, preceded by the requests Okta's provisioning makes for the action the test just
 * took in Okta. The test: https://developer.okta.com/standards/SCIM/SCIMFiles/Okta-SCIM-20-CRUD-Test.json
 * (read from https://github.com/okta/okta-developer-docs/blob/master/packages/@okta/vuepress-site/standards/SCIM/SCIMFiles/Okta-SCIM-CRUD-Test.json),
 * its sequence: https://developer.okta.com/docs/guides/scim-provisioning-integration-test/main/
 */
export function oktaCrudTest(app: OktaApp): ScimClientStep[] {
  return [
    // The test adds a user in Okta and assigns the app: Okta looks the user up, then creates it.
    oktaLookup('totalResults 0: no such user yet, so Okta creates it.'),
    // https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20#create-the-user
    {
      name: 'Okta creates the User',
      method: 'POST',
      path: '/Users',
      headers: oktaClientBodyHeaders,
      body: {
        schemas: [userSchema],
        userName: '{okta_user_email}',
        name: { givenName: '{okta_user_firstname}', familyName: '{okta_user_lastname}' },
        emails: [{ primary: true, value: '{okta_user_email}', type: 'work' }],
        displayName: '{okta_user_firstname} {okta_user_lastname}',
        locale: 'en-US',
        externalId: '{oktaUserId}',
        groups: [],
        password: '{oktaPassword}',
        active: true,
      },
      expect: {
        status: 201,
        checks: [
          { rule: 'notEmpty', property: 'id' },
          {
            rule: 'says',
            text: 'Okta keeps the id for every later request. An empty body fails the assignment ("Create new user returned empty user"); a 409 with the Error schema stops it.',
          },
        ],
      },
      captures: { scim_id: 'id' },
      note: 'password comes even with password sync off (a placeholder, says the reference): accepted, never kept, returned or logged. groups is read-only.',
    },
    // Okta-SCIM-20-CRUD-Test.json, "Verify if user is created in SCIM App"
    {
      name: 'Verify if user is created in SCIM App',
      method: 'GET',
      path: '/Users',
      query: 'filter=userName%20eq%20%22{okta_user_email}%22',
      headers: crudCheckHeaders,
      expect: {
        status: 200,
        checks: [
          { rule: 'equalsText', property: 'Resources[0].userName', value: '{okta_user_email}' },
          { rule: 'equalsText', property: 'Resources[0].emails[0].value', value: '{okta_user_email}' },
          { rule: 'equalsText', property: 'Resources[0].name.familyName', value: '{okta_user_lastname}' },
          { rule: 'equalsText', property: 'Resources[0].name.givenName', value: '{okta_user_firstname}' },
        ],
      },
    },
    // The test changes the first name in Okta: OIN and AIW integrations alike send it as a PUT.
    ...readThenPut('Update user firstname', '{okta_user_firstname_update}', true, 'profile'),
    // Okta-SCIM-20-CRUD-Test.json, "Verify firstname update in SCIM App"
    crudCheck('Verify firstname update in SCIM App', [
      { rule: 'equalsText', property: 'name.givenName', value: '{okta_user_firstname_update}' },
    ]),
    // The test deactivates the user in Okta.
    ...setActive('Deactivate user in Okta', app, '{okta_user_firstname_update}', false),
    // Okta-SCIM-20-CRUD-Test.json, "Verify if user is deactivated in SCIM App"
    crudCheck('Verify if user is deactivated in SCIM App', [{ rule: 'equalsText', property: 'active', value: 'false' }]),
    // The test reactivates the user and assigns the app again: Okta finds the User it made, and
    // activates it rather than creating another (observed for AIW apps in a practitioner's wire log).
    oktaLookup('totalResults 1, the User with active false: Okta reactivates it, no POST.'),
    ...setActive('Reactivate user in Okta', app, '{okta_user_firstname_update}', true),
    // Okta-SCIM-20-CRUD-Test.json, "Verify if user is reactivated in SCIM App"
    crudCheck('Verify if user is reactivated in SCIM App', [{ rule: 'equalsText', property: 'active', value: 'true' }]),
    // The test removes the app from the user in Okta: Okta never DELETEs a User, it deactivates it
    // (https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20#delete-users).
    ...setActive('Removes an assignment for a user in Okta', app, '{okta_user_firstname_update}', false),
    // Okta-SCIM-20-CRUD-Test.json, the last "Verify if user is deactivated in SCIM App"
    crudCheck('Verify if user is deactivated in SCIM App (after unassignment)', [
      { rule: 'equalsText', property: 'active', value: 'false' },
    ]),
  ];
}

/* ---------------------------------------------------------------------------------------------
 * Okta's connection test, and its reads of the whole directory (imports, and saving the app's
 * provisioning settings).
 * ------------------------------------------------------------------------------------------- */

export const oktaConnectionAndImport: ScimClientStep[] = [
  // "Test Connector Configuration", and again on Save: https://docs.delinea.com/online-help/delinea-platform/scim/okta-scim-provisioning/okta-scim-endpoint-reference.htm
  // (count=2 is a constant there; a practitioner's wire log of an AIW app shows the same, and that
  // ServiceProviderConfig is never read).
  {
    name: 'Test Connector Configuration',
    method: 'GET',
    path: '/Users',
    query: 'startIndex=1&count=2',
    headers: oktaClientHeaders,
    expect: { status: 200, checks: [...listChecks, { rule: 'says', text: 'A ListResponse; an empty directory is fine.' }] },
  },
  // https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20#retrieve-users
  {
    name: 'Import users, first page',
    method: 'GET',
    path: '/Users',
    query: 'startIndex=1&count=100',
    headers: oktaClientHeaders,
    expect: {
      status: 200,
      checks: [
        ...listChecks,
        {
          rule: 'says',
          text: 'itemsPerPage, startIndex and totalResults are integers, not strings. While totalResults is above what it has read, Okta asks again with startIndex+100; the order must not change between pages.',
        },
      ],
    },
  },
  {
    name: 'Import users, second page',
    method: 'GET',
    path: '/Users',
    query: 'startIndex=101&count=100',
    headers: oktaClientHeaders,
    expect: { status: 200, checks: [...listChecks] },
    note: 'Sent only when totalResults is above 100.',
  },
  // https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20#retrieve-groups (the
  // request's form); the practitioner's wire log shows it sent on saving the To App settings and
  // on every import, groups pushed or not.
  {
    name: 'Import groups',
    method: 'GET',
    path: '/Groups',
    query: 'startIndex=1&count=100',
    headers: oktaClientHeaders,
    expect: { status: 200, checks: [...listChecks] },
    optional: true,
    note: 'Optional for an app without Group Push. Groups are served since issue 30: an empty ListResponse until some are pushed.',
  },
];

/**
 * The create of an AIW app whose mappings include a core attribute beyond the basic four and an
 * enterprise one, as a practitioner's wire log shows it (title in the core schema, department in
 * the extension, which joins schemas).
 */
export const oktaCreateWithExtension: ScimClientStep = {
  name: 'Okta creates a User with mapped title and department',
  method: 'POST',
  path: '/Users',
  headers: oktaClientBodyHeaders,
  body: {
    schemas: [userSchema, enterpriseUserSchema],
    userName: '{okta_user_email}',
    name: { givenName: '{okta_user_firstname}', familyName: '{okta_user_lastname}' },
    emails: [{ primary: true, value: '{okta_user_email}', type: 'work' }],
    title: 'Manager',
    [enterpriseUserSchema]: { department: 'Engineering' },
    externalId: '{oktaUserId}',
    groups: [],
    password: '{oktaPassword}',
    active: true,
  },
  expect: { status: 201, checks: [{ rule: 'notEmpty', property: 'id' }] },
  captures: { scim_id: 'id' },
  note: 'Attributes mapped but empty in Okta are left out, not sent as null.',
};
