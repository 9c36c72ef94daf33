import fc from 'fast-check';
import type { RawQueryValue } from './scim.ts';

// What the scim group's HTTP property suite sends to the Groups routes (issue 30): Group bodies
// and PATCHes in Okta's and Entra's shapes and broken ones, and the list's filters.

const groupSchema = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const patchOp = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

const displayName = fc.oneof(
  fc.string({ minLength: 1, maxLength: 40 }),
  fc.constantFrom('', ' ', 'x'.repeat(300), '😀'.repeat(200), null, 7),
);
const memberIds = fc.array(
  fc.oneof(fc.constantFrom('scu_AAAAAAAAAAAAAAAAAAAAAA', '', 'nobody'), fc.string({ maxLength: 30 })).map((value) => ({ value })),
  { maxLength: 4 },
);

export const scimGroupBodies: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    schemas: fc.constantFrom(
      [groupSchema],
      [groupSchema, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      ['x'],
      'x',
    ),
    displayName,
    externalId: fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('é'.repeat(600), null)),
    members: fc.oneof(memberIds, fc.constantFrom(null, 'x', [1])),
  },
  { requiredKeys: [] },
);

const groupPath = fc.constantFrom(
  'members',
  'displayName',
  'externalId',
  'members[value eq "scu_AAAAAAAAAAAAAAAAAAAAAA"]',
  'members[value eq "x"',
  'members[display eq "x"]',
  'urn:ietf:params:scim:schemas:core:2.0:Group:displayName',
  'id',
  'emails',
);

export const scimGroupPatchBodies: fc.Arbitrary<Record<string, unknown>> = fc.record({
  schemas: fc.constantFrom([patchOp], ['x']),
  Operations: fc.array(
    fc.record(
      {
        op: fc.constantFrom('add', 'Add', 'remove', 'Remove', 'replace', 'Replace', 'copy'),
        path: groupPath,
        value: fc.oneof(displayName, memberIds, fc.record({ displayName, id: fc.string() }, { requiredKeys: [] })),
      },
      { requiredKeys: ['op'] },
    ),
    { maxLength: 4 },
  ),
});

const filterText = fc.oneof(
  fc
    .tuple(fc.constantFrom('displayName', 'DISPLAYNAME', 'externalId'), fc.string({ maxLength: 20 }))
    .map(([attribute, value]) => `${attribute} eq ${JSON.stringify(value)}`),
  fc.constantFrom('displayName co "x"', 'members[value eq "x"]', 'displayName eq x', '', 'displayName eq "a" or displayName eq "b"'),
);

export const scimGroupFilters = {
  good: filterText.map((text): RawQueryValue => ({ value: encodeURIComponent(text), raw: true })),
  bad: fc.constantFrom('%', 'displayName%20eq%20"%"', 'displayName+eq+%22a%2Bb%22').map((value): RawQueryValue => ({ value, raw: true })),
};
