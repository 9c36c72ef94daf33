/**
 * Microsoft's gallery validation, SCIM_Update_Manager_Test, step for step (issue 30): the Logic
 * App in AzureAD/SCIMReferenceCode
 * (Microsoft.SCIM.LogicAppValidationTemplate/StandardLogicApp/SCIMTests_Workflow.json, its
 * `SCIM_Update_Manager_Test` scope; its parameters in Orchestrator_Parameters.json). Read to
 * learn from, never copied. The workflow calls the SCIM endpoint itself, with no Entra job in
 * between: it makes a User and two managers, sets the manager by a URN-qualified `Add` whose
 * value is the manager's id as a bare string, changes it by `replace`, clears it by `replace`
 * with "", and reads the User back after each; then deletes the three.
 *
 * Its verdict (`Compose_SCIM_Manager_Test_Summary`): each PATCH 200 or 204; after the set and
 * the change, `urn:…:enterprise:2.0:User`.manager.value (or, when that is null or absent, a
 * top-level manager.value) is the manager's id, as text; after the removal, the first of those two
 * values that is not null is "", or neither manager object is there (null or absent). A manager
 * kept as the bare string reads back with no `value`, and fails; one kept as `{}` or with a null
 * value fails the removal.
 */
import { enterpriseUserSchema, patchOpSchema, userSchema } from '../../../shared/domain/scim/model.ts';
import type { Json, ScimClientStep } from './clientSteps.ts';

export type GalleryManagerVariables = {
  secretToken: string;
  testUserName: string;
  managerUserName: string;
  secondManagerUserName: string;
};

/** `scmgr-user-<8 hex>@<testUserDomain>` and the two managers' alike, as Generate_Manager_*_Name make them. */
export function galleryManagerVariables(secretToken: string, suffix: string, domain: string): GalleryManagerVariables {
  return {
    secretToken,
    testUserName: `scmgr-user-${suffix}@${domain}`,
    managerUserName: `scmgr-mgr-${suffix}@${domain}`,
    secondManagerUserName: `scmgr-mgr2-${suffix}@${domain}`,
  };
}

/** Every request of the workflow: its bearer token, and its scimContentType parameter (application/scim+json) as Content-Type and Accept. */
const headers = { Authorization: 'Bearer {secretToken}', 'Content-Type': 'application/scim+json', Accept: 'application/scim+json' };
const readHeaders = { Authorization: 'Bearer {secretToken}', Accept: 'application/scim+json' };

/**
 * The User the workflow posts: the Initialization workflow's `scimUserBody`, built from the
 * parameter scimTargetUserValues' first entry (the attributes the app maps), with its userName
 * set and, where externalId is mapped, a fresh guid as externalId.
 */
const userBody = (userName: string, externalId: string): Json => ({
  schemas: [userSchema, enterpriseUserSchema],
  userName,
  externalId,
  active: true,
  title: 'Test Engineer',
  nickName: 'testuser',
  name: { givenName: 'TestFirst', familyName: 'TestLast', formatted: 'TestFirst TestLast' },
  displayName: 'SCIM Test User',
  locale: 'en-US',
  preferredLanguage: 'en-US',
  timezone: 'America/Los_Angeles',
  userType: 'Employee',
  addresses: [{ type: 'work', streetAddress: '1 Microsoft Way', locality: 'Redmond', region: 'WA', postalCode: '98052', country: 'US' }],
});

const managerPath = `${enterpriseUserSchema}:manager`;
const managerObject = `${enterpriseUserSchema}.manager`;
const managerValue = `${managerObject}.value`;
const patch = (op: string, value: string): Json => ({ schemas: [patchOpSchema], Operations: [{ op, path: managerPath, value }] });

const create = (name: string, userName: string, externalId: string, capture: string): ScimClientStep => ({
  name,
  method: 'POST',
  path: '/Users',
  headers,
  body: userBody(`{${userName}}`, externalId),
  // A Logic App HTTP action succeeds on any 2xx; the next action runs after "Succeeded" only.
  expect: { status: [200, 201], checks: [{ rule: 'notEmpty', property: 'id' }] },
  captures: { [capture]: 'id' },
});

const patchManager = (name: string, op: string, value: string): ScimClientStep => ({
  name,
  method: 'PATCH',
  path: '/Users/{testUserId}',
  headers,
  body: patch(op, value),
  expect: { status: [200, 204], checks: [] },
});

const readBack = (name: string, checks: ScimClientStep['expect']['checks']): ScimClientStep => ({
  name,
  method: 'GET',
  path: '/Users/{testUserId}',
  headers: readHeaders,
  expect: { status: 200, checks },
});

const cleanup = (name: string, id: string): ScimClientStep => ({
  name,
  method: 'DELETE',
  path: `/Users/{${id}}`,
  headers: readHeaders,
  expect: { status: 204, checks: [] },
  // SCIM_Manager_Test_Cleanup runs after the verdict is set, whatever it answers.
  optional: true,
});

export const galleryManagerTest: ScimClientStep[] = [
  create('SCIM_Manager_Create_TestUser', 'testUserName', '7f1c3f7e-4b0a-4a55-9d1e-2f0d1b6c0a11', 'testUserId'),
  create('SCIM_Manager_Create_ManagerUser', 'managerUserName', '0c5e9a42-8d7b-4f6e-a1b3-5e2c7d9f4a22', 'managerId'),
  patchManager('SCIM_Manager_Patch_Set_Manager', 'Add', '{managerId}'),
  readBack('SCIM_Manager_Get_After_Set', [{ rule: 'equalsText', property: managerValue, value: '{managerId}' }]),
  create('SCIM_Manager_Create_SecondManager', 'secondManagerUserName', 'b2d84c6a-1e3f-4a9b-8c7d-6f5e4d3c2b33', 'secondManagerId'),
  patchManager('SCIM_Manager_Patch_Change_Manager', 'replace', '{secondManagerId}'),
  readBack('SCIM_Manager_Get_After_Change', [{ rule: 'equalsText', property: managerValue, value: '{secondManagerId}' }]),
  patchManager('SCIM_Manager_Patch_Remove_Manager', 'replace', ''),
  // Of the verdict's two ways to pass (a value "", or no manager at all), the second, which the
  // checks can state: each manager object null or absent. (A manager `{}` has no value and fails.)
  readBack('SCIM_Manager_Get_After_Remove', [
    { rule: 'noValue', property: managerObject },
    { rule: 'noValue', property: 'manager' },
  ]),
  cleanup('SCIM_Manager_Delete_TestUser', 'testUserId'),
  cleanup('SCIM_Manager_Delete_ManagerUser', 'managerId'),
  cleanup('SCIM_Manager_Delete_SecondManager', 'secondManagerId'),
];
