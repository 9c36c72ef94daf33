/**
 * Groups as three clients push them (issue 30), step for step, in the format of okta.ts and
 * entra.ts (clientSteps.ts), each step judged by the client's own checks; roles, seats and the
 * audit trail, which no client sees, are asserted by the test after each step
 * (test/integration/scim-groups.test.ts). Bodies are the publishers', field for field; only
 * values (names, ids) are placeholders. Read to learn from, never copied:
 * - Microsoft's gallery validation, the Logic Apps in AzureAD/SCIMReferenceCode
 *   (Microsoft.SCIM.LogicAppValidationTemplate/StandardLogicApp): GroupTests_Workflow.json, where
 *   each test changes a group in Entra through Graph, Entra's provisioning sends its requests (the
 *   tutorial's shapes, below), and the workflow queries the SCIM endpoint with
 *   `/Groups?filter=displayName%20eq%20%22…%22` and judges what comes back; and
 *   SCIMTests_Workflow.json, whose Group tests call the SCIM endpoint themselves. Their names and
 *   bodies come from Initialization_Workflow.json.
 * - Okta's "SCIM 2.0 group push" sequence (developer.okta.com, "Build a SCIM provisioning
 *   integration", Group operations): look up, create, rename by a path-less replace carrying the
 *   Group's id, members added and removed by PATCH, delete.
 * - Entra's group requests from "Tutorial: Develop and plan provisioning for a SCIM endpoint"
 *   (learn.microsoft.com, Group Operations).
 */
import type { Json, ScimClientStep } from './clientSteps.ts';

const patchOp = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const groupSchema = 'urn:ietf:params:scim:schemas:core:2.0:Group';

// ---- Microsoft's gallery Group tests (GroupTests_Workflow) ----
//
// Each test changes a group in Entra through Graph; Entra's provisioning then sends its requests
// (the tutorial's shapes, `Entra: …` below) and the workflow polls the SCIM endpoint with
// `/Groups?filter=displayName%20eq%20%22<name>%22` until a condition holds. A poll is one GET
// here, judged by its loop's exit condition and the test's verdict; the GETs the workflow makes
// without judging them are replayed with no check. The workflow's seven tests run in parallel; here
// one after another, in the file's order. Its cleanups delete the Graph groups, and Entra deletes
// them on the SCIM endpoint (`optional`: after the verdict). Read at commit 6f232d4.

/**
 * The workflow's variables: the SCIM token, the Initialization workflow's names
 * (Generate_Test_GroupNames: `LACreateGroup-(<8 hex>)`, `LAUpdateGroup-<8 hex>`, …;
 * Generate_Test_UserNames: `lamem1<8 hex>@<domain>`), the groups POD_Group_Test and
 * Restore_Group_Test name themselves (`PODTestGroup_<8 hex>`, `RestoreGrp-<8 hex>`), and the SCIM
 * ids Entra holds for the two member Users it provisioned (Entra's PATCH names them).
 */
export interface GalleryGroupVariables {
  [name: string]: string;
  secretToken: string;
  createGroup: string;
  updateGroup: string;
  deleteGroup: string;
  memberGroup: string;
  memberUser1: string;
  memberUser2: string;
  memberUser2Id: string;
  podGroup: string;
  restoreGroup: string;
}

/** The workflow's own SCIM requests: Authorization and Accept (its scimContentType parameter). */
const workflowHeaders = { Authorization: 'Bearer {secretToken}', Accept: 'application/scim+json' };
/** Entra's provisioning service, as the tutorial's requests carry it. */
const entraHeaders = { Authorization: 'Bearer {secretToken}' };
const entraBodyHeaders = { ...entraHeaders, 'Content-Type': 'application/scim+json' };

type Checks = ScimClientStep['expect']['checks'];
/** `greater(length(coalesce(body()?['Resources'], json('[]'))), 0)`: a Group found. */
const found: Checks = [{ rule: 'notEmpty', property: 'Resources' }];
/** `equals(length(coalesce(body()?['Resources'], json('[]'))), 0)`: none (Resources empty or absent). */
const none: Checks = [{ rule: 'noValue', property: 'Resources[0]' }];

/** Entra's create of a Group (tutorial, Create Group): looked up by displayName, then posted with its object id as externalId. */
const entraCreateGroup = (label: string, name: string, idCapture: string, externalId: string): ScimClientStep[] => [
  {
    name: `Entra: Get Group by displayName (${label})`,
    method: 'GET',
    path: '/Groups',
    query: `excludedAttributes=members&filter=displayName+eq+%22${name}%22`,
    headers: entraHeaders,
    expect: { status: 200, checks: [{ rule: 'equalsNumber', property: 'totalResults', value: 0 }] },
  },
  {
    name: `Entra: Create Group (${label})`,
    method: 'POST',
    path: '/Groups',
    headers: entraBodyHeaders,
    body: {
      schemas: [groupSchema, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      externalId,
      displayName: name,
      meta: { resourceType: 'Group' },
    },
    expect: {
      status: 201,
      checks: [
        { rule: 'notEmpty', property: 'id' },
        { rule: 'equalsText', property: 'displayName', value: name },
      ],
    },
    captures: { [idCapture]: 'id' },
  },
];

const entraMembers = (label: string, op: 'Add' | 'Remove', groupId: string, memberId: string): ScimClientStep => ({
  name: `Entra: Update Group [${op} Members] (${label})`,
  method: 'PATCH',
  path: `/Groups/{${groupId}}`,
  headers: entraBodyHeaders,
  body: { schemas: [patchOp], Operations: [{ op, path: 'members', value: [{ $ref: null, value: `{${memberId}}` }] }] },
  expect: { status: [200, 204], checks: [] },
  note: 'The tutorial shows 204; Entra takes any 2xx, and this service answers 200 with the Group.',
});

const entraDelete = (label: string, groupId: string, cleanup?: string): ScimClientStep => ({
  name: `Entra: Delete Group (${label})`,
  method: 'DELETE',
  path: `/Groups/{${groupId}}`,
  headers: entraHeaders,
  expect: { status: 204, checks: [] },
  ...(cleanup === undefined
    ? {}
    : {
        note: `The workflow's ${cleanup} deletes the group in Graph after its verdict; Entra then deletes it here.`,
        optional: true as const,
      }),
});

/** The workflow's GET of `/Groups?filter=displayName eq "<name>"`, the name concatenated into the URI as it is. */
const workflowQuery = (name: string, displayName: string, checks: Checks, extra: Partial<ScimClientStep> = {}): ScimClientStep => ({
  name,
  method: 'GET',
  path: '/Groups',
  query: `filter=displayName%20eq%20%22${displayName}%22`,
  headers: workflowHeaders,
  expect: { status: 200, checks },
  ...extra,
});

const workflowUserQuery = (name: string, userName: string, capture: string): ScimClientStep => ({
  name,
  method: 'GET',
  path: '/Users',
  query: `filter=userName%20eq%20%22${userName}%22`,
  headers: workflowHeaders,
  expect: { status: 200, checks: found },
  captures: { [capture]: 'Resources[0].id' },
});

export const galleryGroupTests: ScimClientStep[] = [
  // Create_Group_Test: an empty check, the group made and assigned in Graph, polled until found.
  workflowQuery('Create_Group_Initial_Verify_Group_Exists', '{createGroup}', []),
  ...entraCreateGroup('createGroup', '{createGroup}', 'createGroupId', '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159'),
  workflowQuery('Create_Group_Query_Create_Group', '{createGroup}', found),
  entraDelete('createGroup', 'createGroupId', 'Delete_Created_Group'),

  // Update_Group_Test: made and found (create phase), then renamed `<name>-Modified` in Graph.
  workflowQuery('Update_Group_Initial_Verify_Group_Exists', '{updateGroup}', []),
  ...entraCreateGroup('updateGroup', '{updateGroup}', 'updateGroupId', '1879db59-3bdf-4490-ad68-ab880a269474'),
  workflowQuery('Update_Group_Check_Group_Create', '{updateGroup}', found),
  workflowQuery('Update_Group_Query_Group_By_Id', '{updateGroup}', []),
  {
    name: 'Entra: Update Group [Non-member attributes] (updateGroup)',
    method: 'PATCH',
    path: '/Groups/{updateGroupId}',
    headers: entraBodyHeaders,
    body: { schemas: [patchOp], Operations: [{ op: 'Replace', path: 'displayName', value: '{updateGroup}-Modified' }] },
    expect: { status: [200, 204], checks: [] },
    note: 'Graph also sets a description, which the default Group mappings do not carry. Entra takes any 2xx.',
  },
  workflowQuery('Update_Group_Query_Group_By_Id_After_Attributes_Update', '{updateGroup}-Modified', [
    ...found,
    { rule: 'says', text: 'the answer’s text contains "-Modified" (the poll’s exit condition; asserted by the test)' },
  ]),
  entraDelete('updateGroup', 'updateGroupId', 'Update_Group_Cleanup_Delete'),

  // Delete_Group_Test: made and found, deleted in Graph, polled until no Group answers.
  workflowQuery('Delete_Step1_Check_Group_Exists', '{deleteGroup}', []),
  ...entraCreateGroup('deleteGroup', '{deleteGroup}', 'deleteGroupId', '0b6a7c55-2f1e-4d2b-8c3a-91e4f7a6d2b8'),
  workflowQuery('Delete_Step3_Fetch_Group_By_Filter', '{deleteGroup}', found),
  workflowQuery('Delete_Step4_Query_Group_By_Id', '{deleteGroup}', []),
  entraDelete('deleteGroup', 'deleteGroupId'),
  workflowQuery('Delete_Step6_Check_Group_Exists_Final', '{deleteGroup}', none),

  // Group_Update_Add_Member_Test: memberGroup and memberUser1 made and assigned (Entra provisions the
  // User before the test runs here), both polled until found, then the User added in Graph.
  workflowQuery('Add_Step1_Check_Group_Exists', '{memberGroup}', []),
  ...entraCreateGroup('memberGroup', '{memberGroup}', 'memberGroupId', 'c4e2d8a1-6f0b-4a8e-9d1c-5b3a7e2f9c10'),
  workflowQuery('Add_Step4_Check_Group_And_User', '{memberGroup}', found),
  workflowUserQuery('Add_Step4_Check_User', '{memberUser1}', 'memberUser1Id'),
  entraMembers('memberGroup', 'Add', 'memberGroupId', 'memberUser1Id'),
  workflowQuery('Add_Step6_Query_Group_With_Members', '{memberGroup}', [
    ...found,
    { rule: 'notEmpty', property: 'Resources[0].members' },
    {
      rule: 'says',
      text: 'the text of Resources[0].members contains the id Add_Step4_Check_User read (the poll’s exit condition; asserted by the test)',
    },
  ]),
  workflowQuery('Add_Step7_Query_Group_By_Id', '{memberGroup}', []),
  entraDelete('memberGroup', 'memberGroupId', 'Add_Cleanup_Delete_Group'),

  // Group_Update_Remove_Member_Test: its own group, `<memberGroup>-Remove`, and memberUser2. The User
  // is its member in Graph before the group is assigned, so Entra creates the group and then adds
  // the member; the workflow polls until the group's text holds the User's id, removes the member
  // in Graph, and polls until the group is found and its text no longer holds that id.
  workflowQuery('Remove_Step1_Check_Group_Exists', '{memberGroup}-Remove', []),
  ...entraCreateGroup('memberGroup-Remove', '{memberGroup}-Remove', 'removeGroupId', '5d9e3b7a-2c41-4f8e-b6a0-7e1d9c3f5a24'),
  entraMembers('memberGroup-Remove', 'Add', 'removeGroupId', 'memberUser2Id'),
  workflowQuery('Remove_Step4a_Check_Group_With_Member', '{memberGroup}-Remove', [
    ...found,
    {
      rule: 'says',
      text: 'the answer’s text contains the id Remove_Step4b_Check_User reads (the poll’s exit condition; asserted by the test)',
    },
  ]),
  workflowUserQuery('Remove_Step4b_Check_User', '{memberUser2}', 'removeUserId'),
  entraMembers('memberGroup-Remove', 'Remove', 'removeGroupId', 'memberUser2Id'),
  workflowQuery('Remove_Step6_Query_Group_After_Remove', '{memberGroup}-Remove', [
    ...found,
    {
      rule: 'says',
      text: 'the answer’s text no longer contains the id Remove_Step4b_Check_User read (the poll’s exit condition; asserted by the test)',
    },
  ]),
  workflowQuery('Remove_Step7_Query_Group_By_Id', '{memberGroup}-Remove', []),
  entraDelete('memberGroup-Remove', 'removeGroupId', 'Remove_Cleanup_Delete_Group'),

  // POD_Group_Test: made, assigned and provisioned on demand; found by name; then the workflow
  // itself deletes it on the SCIM endpoint.
  ...entraCreateGroup('podGroup', '{podGroup}', 'podEntraGroupId', '9f3c6b21-8e4d-4a7f-a2c5-1b0e8d7f6c35'),
  workflowQuery('POD_SCIM_Get_Group', '{podGroup}', found, { captures: { podGroupId: 'Resources[0].id' } }),
  {
    name: 'POD_Group_Cleanup_SCIM_Delete',
    method: 'DELETE',
    path: '/Groups/{podGroupId}',
    headers: workflowHeaders,
    expect: { status: 204, checks: [] },
    note: 'Runs after the verdict is set, whatever it answers.',
    optional: true,
  },

  // Restore_Group_Test: assigned and found; unassigned, and polled until Resources is present and
  // empty (`coalesce(Resources, ["placeholder"])`: an answer without Resources never ends the
  // poll); assigned again, and found again.
  ...entraCreateGroup('restoreGroup', '{restoreGroup}', 'restoreGroupId', 'e6a1f4c8-3b5d-4e2a-9c7f-0d8b2a6e4f46'),
  workflowQuery('RestoreGroupTest_SCIM_Check_Created', '{restoreGroup}', found),
  entraDelete('restoreGroup', 'restoreGroupId'),
  workflowQuery('RestoreGroupTest_SCIM_Check_Gone', '{restoreGroup}', [{ rule: 'equalsText', property: 'Resources', value: '[]' }]),
  ...entraCreateGroup('restoreGroup, reassigned', '{restoreGroup}', 'restoredGroupId', 'e6a1f4c8-3b5d-4e2a-9c7f-0d8b2a6e4f46'),
  workflowQuery('RestoreGroupTest_SCIM_Check_Restored', '{restoreGroup}', found),
  entraDelete('restoreGroup, reassigned', 'restoredGroupId', 'RestoreGroupTest_Cleanup'),
];

// ---- Microsoft's gallery SCIM Group tests (SCIMTests_Workflow) ----
//
// The workflow calls the SCIM endpoint itself here, with no Entra job in between (read at commit
// 28e331a). Its bodies are the Initialization workflow's `scimGroupBody` (schemas, a displayName
// and an externalId), with the displayName set and, since the app's Group schema holds externalId
// (the default mapping objectId → externalId), a fresh guid as externalId. The three tests run in
// parallel there; here one after another, in a workspace with no Group, so that
// SCIM_Group_Pagination_Test creates max(0, 11 - totalResults) = 11 Groups.

/** The names the workflow makes, the values its update sends, and the guids it sends as externalId. */
export interface GalleryScimGroupVariables {
  [name: string]: string;
  secretToken: string;
  /** testGroupNames.scimDirectGroup: `LASCDirectGroup-<8 hex>`. */
  scimDirectGroup: string;
  /** `LASUpdGroup-<8 hex>`. */
  updateGroupName: string;
  /** `upd-<8 hex>`, one for each attribute the update test replaces. */
  updatedDisplayName: string;
  updatedExternalId: string;
}

const scimHeaders = { Authorization: 'Bearer {secretToken}', 'Content-Type': 'application/scim+json', Accept: 'application/scim+json' };
const paginationGroups = 11;

const scimGroupBody = (displayName: string, externalId: string): Json => ({ schemas: [groupSchema], displayName, externalId });

const scimDelete = (name: string, idVariable: string): ScimClientStep => ({
  name,
  method: 'DELETE',
  path: `/Groups/{${idVariable}}`,
  headers: workflowHeaders,
  expect: { status: 204, checks: [] },
  note: 'The cleanup runs after the verdict is set, whatever it answers.',
  optional: true,
});

const paginationPage = (page: number): ScimClientStep => ({
  name: `SCIM_Group_Pagination_Get_Page (page ${page + 1})`,
  method: 'GET',
  path: '/Groups',
  query: `startIndex=${page * 5 + 1}&count=5`,
  headers: workflowHeaders,
  // Filter_Group_Pagination_Failed_Pages: a page fails unless 200 with startIndex = page × 5 + 1.
  expect: { status: 200, checks: [{ rule: 'equalsNumber', property: 'startIndex', value: page * 5 + 1 }] },
  note: 'The next URL is startIndex + Resources.length while that is at most totalResults: 1, 6, 11 when 11 Groups answer 5, 5 and 1 (asserted by the test); the verdict wants at least 2 pages.',
});

export const galleryScimGroupTests: ScimClientStep[] = [
  // SCIM_Group_Create_Test: PASSED when 200 or 201, an id, and the displayName sent.
  {
    name: 'SCIM_Direct_Create_Group',
    method: 'POST',
    path: '/Groups',
    headers: scimHeaders,
    body: scimGroupBody('{scimDirectGroup}', '3c8f1e62-7a4b-4d95-8e0c-2b6f9a1d7e58'),
    expect: {
      status: [200, 201],
      checks: [
        { rule: 'notEmpty', property: 'id' },
        { rule: 'equalsText', property: 'displayName', value: '{scimDirectGroup}' },
      ],
    },
    captures: { scimDirectGroupId: 'id' },
  },
  scimDelete('SCIM_Delete_Direct_Test_Group', 'scimDirectGroupId'),

  // SCIM_Group_Update_Test: each single-valued, writable, non-reference attribute of the app's Group
  // schema but id, members, schemas and meta (displayName and externalId) replaced by `upd-<8 hex>`,
  // one operation each; PASSED when the PATCH and the GET answer 200 or 204 and the GET gives back
  // every value sent.
  {
    name: 'SCIM_GroupUpdate_Create_Group',
    method: 'POST',
    path: '/Groups',
    headers: scimHeaders,
    body: scimGroupBody('{updateGroupName}', '7b2d5f90-1c6e-4a38-9f4d-8e3a0c6b2d71'),
    expect: { status: [200, 201], checks: [{ rule: 'notEmpty', property: 'id' }] },
    captures: { scimUpdateGroupId: 'id' },
    note: 'Check_GroupUpdate_Has_GroupId: without an id no PATCH is sent, and the test fails.',
  },
  {
    name: 'SCIM_GroupUpdate_Patch_Group',
    method: 'PATCH',
    path: '/Groups/{scimUpdateGroupId}',
    headers: scimHeaders,
    body: {
      schemas: [patchOp],
      Operations: [
        { op: 'replace', path: 'displayName', value: '{updatedDisplayName}' },
        { op: 'replace', path: 'externalId', value: '{updatedExternalId}' },
      ],
    },
    expect: { status: [200, 204], checks: [] },
    note: 'The operations follow the attributes of the app’s Group schema in Entra, in its order.',
  },
  {
    name: 'SCIM_GroupUpdate_Get_Group',
    method: 'GET',
    path: '/Groups/{scimUpdateGroupId}',
    headers: workflowHeaders,
    expect: {
      status: [200, 204],
      checks: [
        { rule: 'equalsText', property: 'displayName', value: '{updatedDisplayName}' },
        { rule: 'equalsText', property: 'externalId', value: '{updatedExternalId}' },
      ],
    },
  },
  scimDelete('SCIM_Delete_Update_Test_Group', 'scimUpdateGroupId'),

  // SCIM_Group_Pagination_Test: counted, topped up to 11 Groups `PagGroup <8 hex>`, read 5 at a time.
  {
    name: 'SCIM_Group_Pagination_Check_Count',
    method: 'GET',
    path: '/Groups',
    query: 'startIndex=1&count=5',
    headers: workflowHeaders,
    expect: { status: 200, checks: [] },
    note: 'Unjudged: its totalResults says how many Groups to create (0 here: 11 created).',
  },
  ...Array.from(
    { length: paginationGroups },
    (_, i): ScimClientStep => ({
      name: `SCIM_Group_Pagination_Create_Group (${i + 1})`,
      method: 'POST',
      path: '/Groups',
      headers: scimHeaders,
      body: scimGroupBody(`PagGroup {pagGroup${i + 1}}`, `{pagGroupExternalId${i + 1}}`),
      // Append_Group_Pagination_GroupId runs after Succeeded: any 2xx.
      expect: { status: [200, 201], checks: [] },
      captures: { [`pagGroupId${i + 1}`]: 'id' },
    }),
  ),
  ...[0, 1, 2].map(paginationPage),
  ...Array.from({ length: paginationGroups }, (_, i) => scimDelete(`SCIM_Group_Pagination_Delete_Group (${i + 1})`, `pagGroupId${i + 1}`)),
];

// ---- Okta's Group Push ----

export interface OktaGroupPushVariables {
  [name: string]: string;
  secretToken: string;
  groupName: string;
  renamed: string;
  /** Two Users Okta provisioned before pushing the group, and their userNames (Okta's `display`). */
  userA: string;
  userAName: string;
  userB: string;
  userBName: string;
}

const oktaHeaders = { Authorization: 'Bearer {secretToken}', Accept: 'application/scim+json' };
const oktaBodyHeaders = { ...oktaHeaders, 'Content-Type': 'application/scim+json; charset=utf-8' };

export const oktaGroupPush: ScimClientStep[] = [
  {
    name: 'Okta: look the group up by displayName before pushing it',
    method: 'GET',
    path: '/Groups',
    query: 'filter=displayName%20eq%20%22{groupName}%22&startIndex=1&count=100',
    headers: oktaHeaders,
    expect: { status: 200, checks: [{ rule: 'equalsNumber', property: 'totalResults', value: 0 }] },
  },
  {
    name: 'Okta: create the group (POST /Groups)',
    method: 'POST',
    path: '/Groups',
    headers: oktaBodyHeaders,
    body: { schemas: [groupSchema], displayName: '{groupName}', members: [] },
    expect: {
      status: 201,
      checks: [
        { rule: 'notEmpty', property: 'id' },
        { rule: 'equalsText', property: 'displayName', value: '{groupName}' },
      ],
    },
    captures: { groupId: 'id' },
  },
  {
    name: 'Okta: read the group back (GET /Groups/{id})',
    method: 'GET',
    path: '/Groups/{groupId}',
    headers: oktaHeaders,
    expect: { status: 200, checks: [{ rule: 'equalsText', property: 'id', value: '{groupId}' }] },
  },
  {
    name: 'Okta: rename the group (replace without a path, its id beside the displayName)',
    method: 'PATCH',
    path: '/Groups/{groupId}',
    headers: oktaBodyHeaders,
    body: { schemas: [patchOp], Operations: [{ op: 'replace', value: { id: '{groupId}', displayName: '{renamed}' } }] },
    expect: { status: [200, 204], checks: [] },
    note: 'Okta accepts 200 with the Group or 204.',
  },
  {
    name: 'Okta: add members',
    method: 'PATCH',
    path: '/Groups/{groupId}',
    headers: oktaBodyHeaders,
    body: {
      schemas: [patchOp],
      Operations: [
        {
          op: 'add',
          path: 'members',
          value: [
            { value: '{userA}', display: '{userAName}' },
            { value: '{userB}', display: '{userBName}' },
          ],
        },
      ],
    },
    expect: { status: [200, 204], checks: [] },
  },
  {
    name: 'Okta: remove a member and add none (members[value eq "…"])',
    method: 'PATCH',
    path: '/Groups/{groupId}',
    headers: oktaBodyHeaders,
    body: { schemas: [patchOp], Operations: [{ op: 'remove', path: 'members[value eq "{userA}"]' }] },
    expect: { status: [200, 204], checks: [] },
  },
  {
    name: 'Okta: read the group after the member changes',
    method: 'GET',
    path: '/Groups/{groupId}',
    headers: oktaHeaders,
    expect: {
      status: 200,
      checks: [
        { rule: 'equalsText', property: 'displayName', value: '{renamed}' },
        { rule: 'equalsText', property: 'members[0].value', value: '{userB}' },
      ],
    },
  },
  {
    name: 'Okta: delete the group',
    method: 'DELETE',
    path: '/Groups/{groupId}',
    headers: oktaHeaders,
    expect: { status: 204, checks: [] },
  },
  {
    name: 'Okta: the deleted group is not found',
    method: 'GET',
    path: '/Groups/{groupId}',
    headers: oktaHeaders,
    expect: { status: 404, checks: [] },
  },
];

// ---- Entra's group requests (the tutorial's Group Operations) ----

export interface EntraGroupVariables {
  [name: string]: string;
  secretToken: string;
  groupName: string;
  member: string;
}

export const entraTutorialGroups: ScimClientStep[] = [
  ...entraCreateGroup('groupName', '{groupName}', 'groupId', '60f1bb27-2e1e-402d-bcc4-ec999564a194'),
  {
    name: 'Entra: Get Group',
    method: 'GET',
    path: '/Groups/{groupId}',
    query: 'excludedAttributes=members',
    headers: entraHeaders,
    expect: { status: 200, checks: [{ rule: 'equalsText', property: 'id', value: '{groupId}' }] },
  },
  {
    name: 'Entra: Get Group by displayName (after create)',
    method: 'GET',
    path: '/Groups',
    query: 'excludedAttributes=members&filter=displayName+eq+%22{groupName}%22',
    headers: entraHeaders,
    expect: {
      status: 200,
      checks: [
        { rule: 'equalsNumber', property: 'totalResults', value: 1 },
        { rule: 'equalsText', property: 'Resources[0].id', value: '{groupId}' },
      ],
    },
  },
  {
    name: 'Entra: Update Group [Add Members]',
    method: 'PATCH',
    path: '/Groups/{groupId}',
    headers: entraBodyHeaders,
    body: { schemas: [patchOp], Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: '{member}' }] }] },
    expect: { status: [200, 204], checks: [] },
    note: 'The tutorial shows 204; any 2xx is success to Entra.',
  },
  {
    name: 'Entra: Update Group [Remove Members]',
    method: 'PATCH',
    path: '/Groups/{groupId}',
    headers: entraBodyHeaders,
    body: { schemas: [patchOp], Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: '{member}' }] }] },
    expect: { status: [200, 204], checks: [] },
  },
  {
    name: 'Entra: Update Group [Non-member attributes]',
    method: 'PATCH',
    path: '/Groups/{groupId}',
    headers: entraBodyHeaders,
    body: { schemas: [patchOp], Operations: [{ op: 'Replace', path: 'displayName', value: '{groupName}updatedDisplayName' }] },
    expect: { status: [200, 204], checks: [] },
  },
  {
    name: 'Entra: Delete Group',
    method: 'DELETE',
    path: '/Groups/{groupId}',
    headers: entraHeaders,
    expect: { status: 204, checks: [] },
  },
];
