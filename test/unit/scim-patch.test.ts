import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scimUserLimits } from '../../shared/limits.ts';
import { Invalid } from '../../shared/domain/refusals.ts';
import { enterpriseUserSchema, patchOpSchema, userSchema, type ScimUserAttributes } from '../../shared/domain/scim/model.ts';
import { applyPatch } from '../../shared/domain/scim/patch.ts';
import { parseUserBody } from '../../shared/domain/scim/userBody.ts';
import { toHttpError } from '../../shared/http/refusals.ts';
import { bindStep, type ScimClientStep } from '../support/scim/clientSteps.ts';
import {
  entraPatchWithFlag,
  entraPatchWithoutFlag,
  entraProvisioning,
  entraSampleCodeExamples,
  entraValidator,
} from '../support/scim/entra.ts';
import { oktaCrudTest } from '../support/scim/okta.ts';

const patchOf = (...Operations: unknown[]) => ({ schemas: [patchOpSchema], Operations });

/** What a refused PATCH threw: always a 400 refusal (Invalid); its scimType. */
function refusedAs(current: ScimUserAttributes, body: unknown): string | undefined {
  try {
    applyPatch(current, body);
  } catch (error) {
    expect(error).toBeInstanceOf(Invalid);
    expect(toHttpError(error).status).toBe(400);
    return (error as Invalid).facts.scimType as string | undefined;
  }
  throw new Error(`applyPatch accepted ${JSON.stringify(body)}`);
}

// Okta's create, https://developer.okta.com/docs/reference/scim/scim-20/#create-the-user
const okta = parseUserBody({
  schemas: [userSchema],
  userName: 'test.user@okta.local',
  name: { givenName: 'Test', familyName: 'User' },
  emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
  displayName: 'Test User',
  locale: 'en-US',
  externalId: '00ujl29u0le5T6Aj10h7',
  groups: [],
  password: '1mz050nq',
  active: true,
});

// Entra's create, https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups#create-user
const entra = parseUserBody({
  schemas: [userSchema, enterpriseUserSchema],
  externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
  userName: 'Test_User_00aa00aa-bb11-cc22-dd33-44ee44ee44ee',
  active: true,
  emails: [{ primary: true, type: 'work', value: 'Test_User_11bb11bb-cc22-dd33-ee44-55ff55ff55ff@testuser.com' }],
  meta: { resourceType: 'User' },
  name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
  roles: [],
});

/** A User with something of everything a PATCH may reach. */
const full: ScimUserAttributes = {
  ...entra,
  displayName: 'Barbara Jensen',
  emails: [
    { value: 'bjensen@example.com', type: 'work', primary: true },
    { value: 'babs@jensen.org', type: 'home' },
  ],
  extra: {
    title: 'Tour Guide',
    phoneNumbers: [
      { value: '555-555-8377', type: 'work', primary: true },
      { value: '555-555-4444', type: 'mobile' },
    ],
    addresses: [{ type: 'work', streetAddress: '100 Universal City Plaza', locality: 'Hollywood', postalCode: '91608' }],
  },
  enterprise: {
    employeeNumber: '701984',
    department: 'Tour Operations',
    manager: { value: '26118915-6090-4610-87e4-49d8ca9f808d', displayName: 'John Smith' },
  },
};

describe('applyPatch: the PATCH bodies Okta and Microsoft Entra publish', () => {
  it('deactivates as Okta does: a replace without a path whose value holds active', () => {
    // https://developer.okta.com/docs/reference/scim/scim-20/#update-a-specific-user-patch
    const body = { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', value: { active: false } }] };
    expect(applyPatch(okta, body)).toEqual({ ...okta, active: false });
  });

  it('updates Entra’s multi-valued properties: the work email and the family name', () => {
    // https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups#update-user-multi-valued-properties
    const body = {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
      ],
    };
    expect(applyPatch(entra, body)).toEqual({
      ...entra,
      emails: [{ value: 'updatedEmail@microsoft.com', type: 'work', primary: true }],
      name: { formatted: 'givenName familyName', familyName: 'updatedFamilyName', givenName: 'givenName' },
    });
  });

  it('updates Entra’s single-valued property: userName', () => {
    // https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups#update-user-single-valued-properties
    const body = {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' }],
    };
    expect(applyPatch(entra, body)).toEqual({ ...entra, userName: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' });
  });

  it('disables as Entra’s tutorial does (Operations before schemas)', () => {
    // https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups#disable-user
    const body = {
      Operations: [{ op: 'Replace', path: 'active', value: false }],
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
    };
    expect(applyPatch(entra, body).active).toBe(false);
  });

  // https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility#flags-to-alter-the-scim-behavior
  describe('Entra with and without its aadOptscim062020 flag', () => {
    it('disables without the flag: "Replace" and the string "False"', () => {
      const body = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      };
      const disabled = applyPatch(entra, body);
      expect(disabled.active).toBe(false);
      // and enables again the same way, a boolean kept either way
      expect(applyPatch(disabled, { ...body, Operations: [{ op: 'Replace', path: 'active', value: 'True' }] }).active).toBe(true);
    });

    it('disables with the flag: "replace" and false', () => {
      const body = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      };
      expect(applyPatch(entra, body)).toEqual({ ...entra, active: false });
    });

    it('adds a single-value string attribute without the flag ("Add") and with it ("add")', () => {
      const without = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'Add', path: 'nickName', value: 'Babs' }],
      };
      const withFlag = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'add', path: 'nickName', value: 'Babs' }],
      };
      expect(applyPatch(entra, without).extra).toEqual({ roles: [], nickName: 'Babs' });
      expect(applyPatch(entra, withFlag)).toEqual(applyPatch(entra, without));
    });

    it('replaces several attributes without the flag: one operation each, the enterprise one by its URN', () => {
      const body = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [
          { op: 'Replace', path: 'displayName', value: 'Pvlo' },
          { op: 'Replace', path: 'emails[type eq "work"].value', value: 'TestBcwqnm@test.microsoft.com' },
          { op: 'Replace', path: 'name.givenName', value: 'Gtfd' },
          { op: 'Replace', path: 'name.familyName', value: 'Pkqf' },
          { op: 'Replace', path: 'externalId', value: 'Eqpj' },
          { op: 'Replace', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber', value: 'Eqpj' },
        ],
      };
      expect(applyPatch(entra, body)).toEqual({
        ...entra,
        displayName: 'Pvlo',
        emails: [{ value: 'TestBcwqnm@test.microsoft.com', type: 'work', primary: true }],
        name: { formatted: 'givenName familyName', givenName: 'Gtfd', familyName: 'Pkqf' },
        externalId: 'Eqpj',
        enterprise: { employeeNumber: 'Eqpj' },
      });
    });

    it('replaces several attributes with the flag: a path-less value keyed by paths, dotted and URN-qualified', () => {
      const body = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [
          { op: 'replace', path: 'emails[type eq "work"].value', value: 'TestMhvaes@test.microsoft.com' },
          {
            op: 'replace',
            value: {
              displayName: 'Bjfe',
              'name.givenName': 'Kkom',
              'name.familyName': 'Unua',
              'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber': 'Aklq',
            },
          },
        ],
      };
      expect(applyPatch(full, body)).toEqual({
        ...full,
        displayName: 'Bjfe',
        emails: [
          { value: 'TestMhvaes@test.microsoft.com', type: 'work', primary: true },
          { value: 'babs@jensen.org', type: 'home' },
        ],
        name: { formatted: 'givenName familyName', givenName: 'Kkom', familyName: 'Unua' },
        enterprise: { ...full.enterprise, employeeNumber: 'Aklq' },
      });
    });

    it('refuses a Group’s member removal sent to a User (no members here), with or without the flag', () => {
      const without = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'Remove', path: 'members', value: [{ value: 'u1091' }] }],
      };
      const withFlag = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'remove', path: 'members[value eq "7f4bc1a3-285e-48ae-8202-5accb43efb0e"]' }],
      };
      expect(refusedAs(entra, without)).toBe('invalidPath');
      expect(refusedAs(entra, withFlag)).toBe('invalidPath');
    });
  });

  it('takes the SCIM Validator’s path-less name parts', () => {
    // https://learn.microsoft.com/en-us/answers/questions/1665068/scim-validation-tool-(https-scimvalidator-microsof
    // (as published it lacks the brace closing "value", restored here)
    const body = {
      Operations: [{ op: 'replace', value: { 'name.givenName': 'Oswaldo', 'name.familyName': 'Rylan' } }],
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
    };
    expect(applyPatch(entra, body).name).toEqual({ formatted: 'givenName familyName', givenName: 'Oswaldo', familyName: 'Rylan' });
  });

  it('takes Entra’s path-less formatted and family name', () => {
    // https://learn.microsoft.com/en-us/answers/questions/1435791/entraid-is-sending-incompliant-scim-patch-request
    const body = {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', value: { 'name.formatted': 'test test2', 'name.familyName': 'test' } }],
    };
    expect(applyPatch(entra, body).name).toEqual({ formatted: 'test test2', familyName: 'test', givenName: 'givenName' });
  });

  // Microsoft's own SCIM API documents the PatchOp its stack speaks, "operations" in lower case:
  // https://learn.microsoft.com/en-us/entra/identity/app-provisioning/entra-id-scim-api-reference#update-a-user
  describe('the PatchOp shapes of Microsoft’s SCIM API reference', () => {
    it('Example 1: an attribute value', () => {
      const body = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'displayName', value: 'Johnathan Doe' }],
      };
      expect(applyPatch(entra, body).displayName).toBe('Johnathan Doe');
    });

    it('Example 2: a complex value by its URN-qualified path, "operations" in lower case; the parts not named stay', () => {
      const body = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        operations: [
          { op: 'replace', path: 'urn:ietf:params:scim:schemas:core:2.0:User:name', value: { familyName: 'Jane', givenName: 'Doe' } },
        ],
      };
      expect(applyPatch(entra, body).name).toEqual({ formatted: 'givenName familyName', familyName: 'Jane', givenName: 'Doe' });
    });

    it('Example 3: a complex multi-valued attribute replaced whole, as sent', () => {
      const addresses = [
        {
          type: 'work',
          streetAddress: '2 Microsoft Way',
          locality: 'Redmond',
          region: 'King County',
          postalCode: '98052',
          'country/region': 'United States',
        },
      ];
      const body = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        operations: [{ op: 'replace', path: 'urn:ietf:params:scim:schemas:core:2.0:User:addresses', value: addresses }],
      };
      expect(applyPatch(full, body).extra).toEqual({ ...full.extra, addresses });
    });

    it('Example 4: a filter of two conditions joined by and', () => {
      const body = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        operations: [
          { op: 'replace', path: 'emails[type eq "work" and primary eq true].value', value: '{edited_username}@{{tenant_domain}}' },
        ],
      };
      expect(applyPatch(full, body).emails).toEqual([
        { value: '{edited_username}@{{tenant_domain}}', type: 'work', primary: true },
        { value: 'babs@jensen.org', type: 'home' },
      ]);
    });

    it('Example 5: the manager as {value}, kept as sent', () => {
      const body = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        operations: [
          {
            op: 'replace',
            path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager',
            value: { value: '915f96af-ea85-4687-b972-b26f69d719f9' },
          },
        ],
      };
      expect(applyPatch(full, body).enterprise).toEqual({ ...full.enterprise, manager: { value: '915f96af-ea85-4687-b972-b26f69d719f9' } });
    });

    it('Example 6: another extension’s attribute, not kept here, changes nothing', () => {
      const body = {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        operations: [
          {
            op: 'add',
            path: 'urn:ietf:params:scim:schemas:extension:Microsoft:Entra:2.0:CustomSecurityAttributes:Project.ProjectName',
            value: 'IdentityHubV2',
          },
        ],
      };
      expect(applyPatch(full, body)).toEqual(full);
    });
  });

  it('keeps a manager sent as a bare id, as Entra’s example User holds it, as the object RFC 7643 §4.3 defines', () => {
    // https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups#design-your-user-and-group-schema ("manager": "123456")
    const body = patchOf({ op: 'Add', path: `${enterpriseUserSchema}:manager`, value: '123456' });
    expect(applyPatch(entra, body).enterprise).toEqual({ manager: { value: '123456' } });
  });
});

describe('applyPatch: every PATCH of the clients’ published sequences (test/support/scim)', () => {
  const anyValue = new Proxy({}, { get: (_, name) => `${String(name)}@example.com` }) as Record<string, string>;
  const steps: ScimClientStep[] = [
    ...oktaCrudTest('oin'),
    ...entraProvisioning,
    ...entraPatchWithoutFlag,
    ...entraPatchWithFlag,
    ...entraSampleCodeExamples,
    ...entraValidator,
  ].filter((step) => step.method === 'PATCH');
  // The sample-code walkthrough's unqualified manager, with a one-item array: the enterprise
  // extension's manager (no core attribute has the name), kept as the object.
  const unqualifiedManager = 'Example 5. Update a user (manager)';
  it.each(steps.map((step) => [step.name, step] as const))('applies %s', (_, step) => {
    const user = applyPatch(full, bindStep(step, anyValue).body);
    expect(typeof user.active).toBe('boolean');
  });
  it('reads the unqualified manager as the enterprise extension’s', () => {
    const step = steps.find((candidate) => candidate.name === unqualifiedManager)!;
    expect(applyPatch(full, bindStep(step, anyValue).body).enterprise?.manager).toEqual({ value: '00aa00aa-bb11-cc22-dd33-44ee44ee44ee' });
  });
});

describe('applyPatch: operations', () => {
  it('reads op in any case: Add, REPLACE, Remove', () => {
    const body = patchOf(
      { op: 'Add', path: 'title', value: 'Engineer' },
      { op: 'REPLACE', path: 'displayName', value: 'Ana' },
      { op: 'Remove', path: 'externalId' },
    );
    const { externalId, ...rest } = entra;
    expect(externalId).toBeDefined();
    expect(applyPatch(entra, body)).toEqual({ ...rest, displayName: 'Ana', extra: { roles: [], title: 'Engineer' } });
  });

  it('applies every operation or none, and never changes the User it is given', () => {
    const before = structuredClone(full);
    expect(
      refusedAs(full, patchOf({ op: 'replace', path: 'displayName', value: 'Changed' }, { op: 'replace', path: 'active', value: 'maybe' })),
    ).toBe('invalidValue');
    applyPatch(
      full,
      patchOf(
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'new@example.com' },
        { op: 'remove', path: `${enterpriseUserSchema}:manager` },
      ),
    );
    expect(full).toEqual(before);
  });

  it('takes a null value as unassigning the attribute', () => {
    const patched = applyPatch(
      full,
      patchOf({ op: 'replace', value: { displayName: null, title: null } }, { op: 'replace', path: 'name.formatted', value: null }),
    );
    expect(patched.displayName).toBeUndefined();
    expect(patched.extra?.title).toBeUndefined();
    expect(patched.name).toEqual({ familyName: 'familyName', givenName: 'givenName' });
  });

  it('accepts a password and keeps none, by path or without', () => {
    expect(
      applyPatch(
        okta,
        patchOf({ op: 'replace', value: { password: 'n3w-Secret' } }, { op: 'replace', path: 'password', value: 'n3w-Secret' }),
      ),
    ).toEqual(okta);
  });

  it('ignores read-only attributes in a path-less value (Okta sends id in one), and refuses a path to them as mutability', () => {
    expect(
      applyPatch(
        okta,
        patchOf({
          op: 'replace',
          value: {
            id: '23a35c27-23d3-4c03-b4c5-6443c09e7173',
            meta: { resourceType: 'User' },
            groups: [],
            schemas: [userSchema],
            active: false,
          },
        }),
      ),
    ).toEqual({ ...okta, active: false });
    expect(refusedAs(okta, patchOf({ op: 'replace', path: 'id', value: 'x' }))).toBe('mutability');
    expect(refusedAs(okta, patchOf({ op: 'replace', path: 'meta.lastModified', value: '2020-01-01T00:00:00Z' }))).toBe('mutability');
    expect(refusedAs(okta, patchOf({ op: 'add', path: 'groups', value: [{ value: 'g1' }] }))).toBe('mutability');
  });

  it('ignores, in a path-less value, attributes no schema here defines, as a POST does', () => {
    expect(
      applyPatch(okta, patchOf({ op: 'add', value: { favouriteColour: 'teal', 'urn:example:ours:2.0:User:tag': 'x', displayName: 'T' } })),
    ).toEqual({ ...okta, displayName: 'T' });
  });

  const refused: [string, unknown, string][] = [
    ['a body that is no object', [{ op: 'replace', path: 'active', value: false }], 'invalidSyntax'],
    ['schemas without PatchOp', { schemas: [userSchema], Operations: [{ op: 'replace', path: 'active', value: false }] }, 'invalidSyntax'],
    ['no Operations', { schemas: [patchOpSchema] }, 'invalidSyntax'],
    ['empty Operations', patchOf(), 'invalidSyntax'],
    ['Operations as an object', { schemas: [patchOpSchema], Operations: { op: 'replace', path: 'active', value: false } }, 'invalidSyntax'],
    ['101 operations', patchOf(...Array.from({ length: 101 }, () => ({ op: 'replace', path: 'active', value: true }))), 'invalidSyntax'],
    ['an operation that is no object', patchOf('replace active'), 'invalidSyntax'],
    ['op delete', patchOf({ op: 'delete', path: 'title' }), 'invalidSyntax'],
    ['a JSON Patch op', patchOf({ op: 'copy', from: '/title', path: '/nickName' }), 'invalidSyntax'],
    ['no op', patchOf({ path: 'title', value: 'x' }), 'invalidSyntax'],
    ['op as a number', patchOf({ op: 1, path: 'title', value: 'x' }), 'invalidSyntax'],
    ['a path that is no string', patchOf({ op: 'replace', path: ['title'], value: 'x' }), 'invalidSyntax'],
    ['a replace without a value', patchOf({ op: 'replace', path: 'title' }), 'invalidSyntax'],
    ['a path-less replace of a string', patchOf({ op: 'replace', value: 'False' }), 'invalidSyntax'],
    ['a path-less add of an array', patchOf({ op: 'add', value: [{ active: false }] }), 'invalidSyntax'],
    ['a remove without a path', patchOf({ op: 'remove', value: { title: 'x' } }), 'noTarget'],
    ['a remove with an empty path', patchOf({ op: 'Remove', path: '' }), 'noTarget'],
    ['removing userName', patchOf({ op: 'remove', path: 'userName' }), 'invalidValue'],
    ['removing active', patchOf({ op: 'remove', path: 'active' }), 'invalidValue'],
    ['an empty userName', patchOf({ op: 'replace', path: 'userName', value: '' }), 'invalidValue'],
    ['a null userName', patchOf({ op: 'replace', value: { userName: null } }), 'invalidValue'],
    ['active as "yes"', patchOf({ op: 'replace', value: { active: 'yes' } }), 'invalidValue'],
    [
      'an email that is no address',
      patchOf({ op: 'replace', path: 'emails[type eq "work"].value', value: 'not an address' }),
      'invalidValue',
    ],
    [
      'a second primary email',
      patchOf({
        op: 'add',
        path: 'emails',
        value: [
          { value: 'a@example.com', primary: true },
          { value: 'b@example.com', primary: true },
        ],
      }),
      'invalidValue',
    ],
    ['whole values from a string', patchOf({ op: 'replace', path: 'emails[type eq "work"]', value: 'a@example.com' }), 'invalidValue'],
    ['a title that is no string', patchOf({ op: 'replace', path: 'title', value: 7 }), 'invalidValue'],
  ];
  it.each(refused)('refuses %s', (_, body, scimType) => {
    expect(refusedAs(full, body)).toBe(scimType);
  });

  it('takes 100 operations', () => {
    expect(
      applyPatch(
        full,
        patchOf(
          ...Array.from({ length: scimUserLimits.patchOperations }, (_, index) => ({
            op: 'replace',
            path: 'active',
            value: index % 2 === 1,
          })),
        ),
      ).active,
    ).toBe(true);
  });
});

describe('applyPatch: paths', () => {
  const paths: [string, string][] = [
    ['foo', 'invalidPath'],
    ['name.nickname', 'invalidPath'],
    ['userName.value', 'invalidPath'],
    ['emails.value', 'invalidPath'],
    ['displayName[type eq "work"]', 'invalidPath'],
    ['emails[value co "example"]', 'invalidPath'],
    ['emails[type eq "work"', 'invalidPath'],
    ['emails[type eq "work"]x', 'invalidPath'],
    ['emails[foo eq "work"].value', 'invalidPath'],
    ['emails[type eq "work" or type eq "home"].value', 'invalidPath'],
    ['emails[type eq work].value', 'invalidPath'],
    ['emails[type eq "work"].value.more', 'invalidPath'],
    ['emails[type eq "work"].foo', 'invalidPath'],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:nickName', 'invalidPath'],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.value', 'invalidPath'],
    ['urn:ietf:params:scim:schemas:core:2.0:User:foo', 'invalidPath'],
    ['9lives', 'invalidPath'],
    ['__proto__', 'invalidPath'],
    ['name..givenName', 'invalidPath'],
  ];
  it.each(paths)('refuses the path %s', (path, scimType) => {
    expect(refusedAs(full, patchOf({ op: 'replace', path, value: 'x' }))).toBe(scimType);
  });

  it('reads names in any case, qualified by the core schema’s URN or not, and keeps the schema’s spelling', () => {
    const patched = applyPatch(
      full,
      patchOf(
        { op: 'replace', path: 'DISPLAYNAME', value: 'A' },
        { op: 'replace', path: 'Name.GivenName', value: 'B' },
        { op: 'replace', path: 'URN:IETF:PARAMS:SCIM:SCHEMAS:CORE:2.0:USER:name.familyName', value: 'C' },
        { op: 'replace', path: 'Emails[Type EQ "WORK"].Value', value: 'd@example.com' },
        { op: 'replace', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:DEPARTMENT', value: 'E' },
        { op: 'add', path: 'Title', value: 'F' },
      ),
    );
    expect(patched).toMatchObject({ displayName: 'A', name: { givenName: 'B', familyName: 'C' }, extra: { title: 'F' } });
    expect(patched.emails?.[0]).toEqual({ value: 'd@example.com', type: 'work', primary: true });
    expect(patched.enterprise).toEqual({ ...full.enterprise, department: 'E' });
  });

  it('finds a filter’s closing bracket past one inside its quoted value', () => {
    const user = { ...entra, emails: [{ value: 'x@example.com', type: 'a]b' }] };
    expect(applyPatch(user, patchOf({ op: 'replace', path: 'emails[type eq "a]b"].value', value: 'y@example.com' })).emails).toEqual([
      { value: 'y@example.com', type: 'a]b' },
    ]);
  });
});

describe('applyPatch: emails', () => {
  const workEmail = 'emails[type eq "work"].value';

  it('makes the work email when there is none, by replace or add (Entra updates a User created without one)', () => {
    const bare: ScimUserAttributes = { userName: 'ana@example.com', active: true };
    expect(applyPatch(bare, patchOf({ op: 'Replace', path: workEmail, value: 'ana@work.example' })).emails).toEqual([
      { value: 'ana@work.example', type: 'work' },
    ]);
    expect(applyPatch(bare, patchOf({ op: 'Add', path: workEmail, value: 'ana@work.example' })).emails).toEqual([
      { value: 'ana@work.example', type: 'work' },
    ]);
    expect(
      applyPatch(bare, patchOf({ op: 'replace', path: 'emails[type eq "work" and primary eq true].value', value: 'ana@work.example' }))
        .emails,
    ).toEqual([{ value: 'ana@work.example', type: 'work', primary: true }]);
  });

  it('matches the type without case and leaves the other emails alone', () => {
    expect(applyPatch(full, patchOf({ op: 'replace', path: 'emails[type eq "HOME"].value', value: 'b@jensen.org' })).emails).toEqual([
      { value: 'bjensen@example.com', type: 'work', primary: true },
      { value: 'b@jensen.org', type: 'home' },
    ]);
  });

  it('removes the work email by its value’s path or by the filter alone; one not there is noTarget', () => {
    const home = [{ value: 'babs@jensen.org', type: 'home' }];
    expect(applyPatch(full, patchOf({ op: 'remove', path: workEmail })).emails).toEqual(home);
    expect(applyPatch(full, patchOf({ op: 'remove', path: 'emails[type eq "work"]' })).emails).toEqual(home);
    expect(applyPatch(full, patchOf({ op: 'remove', path: 'emails[type eq "work"].primary' })).emails).toEqual([
      { value: 'bjensen@example.com', type: 'work' },
      ...home,
    ]);
    expect(refusedAs(full, patchOf({ op: 'remove', path: 'emails[type eq "other"].value' }))).toBe('noTarget');
    expect(applyPatch(entra, patchOf({ op: 'remove', path: 'emails' })).emails).toBeUndefined();
  });

  it('takes a null value’s path as a remove: the email goes, and none is made', () => {
    expect(applyPatch(full, patchOf({ op: 'replace', path: 'emails[type eq "home"].value', value: null })).emails).toEqual([
      { value: 'bjensen@example.com', type: 'work', primary: true },
    ]);
    expect(applyPatch(entra, patchOf({ op: 'replace', path: 'emails[type eq "other"].value', value: null }))).toEqual(entra);
  });

  it('is noTarget when a filter on something but type selects nothing to set', () => {
    expect(refusedAs(full, patchOf({ op: 'replace', path: 'emails[value eq "nobody@example.com"].primary', value: true }))).toBe(
      'noTarget',
    );
  });

  it('adds emails after the others, replacing one already there rather than repeating it', () => {
    const added = applyPatch(
      full,
      patchOf({
        op: 'add',
        path: 'emails',
        value: [
          { value: 'BABS@jensen.org', type: 'Home' },
          { value: 'b@other.example', type: 'other' },
        ],
      }),
    );
    expect(added.emails).toEqual([
      { value: 'bjensen@example.com', type: 'work', primary: true },
      { value: 'BABS@jensen.org', type: 'Home' },
      { value: 'b@other.example', type: 'other' },
    ]);
  });

  it('makes the email set primary the only primary one (RFC 7644 §3.5.2)', () => {
    expect(
      applyPatch(full, patchOf({ op: 'add', path: 'emails', value: { value: 'new@example.com', type: 'other', primary: true } })).emails,
    ).toEqual([
      { value: 'bjensen@example.com', type: 'work', primary: false },
      { value: 'babs@jensen.org', type: 'home' },
      { value: 'new@example.com', type: 'other', primary: true },
    ]);
    expect(applyPatch(full, patchOf({ op: 'replace', path: 'emails[type eq "home"].primary', value: 'True' })).emails).toEqual([
      { value: 'bjensen@example.com', type: 'work', primary: false },
      { value: 'babs@jensen.org', type: 'home', primary: true },
    ]);
  });

  it('replaces them all, and removes those a remove lists by value (Entra’s older form)', () => {
    expect(
      applyPatch(full, patchOf({ op: 'replace', path: 'emails', value: [{ value: 'only@example.com', type: 'work' }] })).emails,
    ).toEqual([{ value: 'only@example.com', type: 'work' }]);
    expect(applyPatch(full, patchOf({ op: 'remove', path: 'emails', value: [{ value: 'BABS@jensen.org' }] })).emails).toEqual([
      { value: 'bjensen@example.com', type: 'work', primary: true },
    ]);
    expect(refusedAs(full, patchOf({ op: 'remove', path: 'emails', value: [{ value: 'nobody@example.com' }] }))).toBe('noTarget');
  });

  it('holds the User to its 20 emails', () => {
    const many = Array.from({ length: scimUserLimits.emails - 2 }, (_, index) => ({ value: `ana+${index}@example.com` }));
    expect(applyPatch(full, patchOf({ op: 'add', path: 'emails', value: many })).emails).toHaveLength(20);
    expect(refusedAs(full, patchOf({ op: 'add', path: 'emails', value: [...many, { value: 'one.more@example.com' }] }))).toBe(
      'invalidValue',
    );
  });
});

describe('applyPatch: name, other attributes, the enterprise extension', () => {
  it('sets the parts of name a replace or add names, and removes one', () => {
    expect(applyPatch(full, patchOf({ op: 'add', path: 'name', value: { middleName: 'Jane' } })).name).toEqual({
      formatted: 'givenName familyName',
      familyName: 'familyName',
      givenName: 'givenName',
      middleName: 'Jane',
    });
    expect(applyPatch(full, patchOf({ op: 'remove', path: 'name.formatted' })).name).toEqual({
      familyName: 'familyName',
      givenName: 'givenName',
    });
    expect(applyPatch(full, patchOf({ op: 'remove', path: 'name' })).name).toBeUndefined();
    expect(applyPatch(full, patchOf({ op: 'replace', value: { name: { givenName: 'Babs' } } })).name).toEqual({
      formatted: 'givenName familyName',
      familyName: 'familyName',
      givenName: 'Babs',
    });
  });

  it('sets, makes and removes a phone number or an address part by type (the Entra SCIM Validator’s Replace Attributes)', () => {
    const patched = applyPatch(
      full,
      patchOf(
        { op: 'replace', path: 'phoneNumbers[type eq "work"].value', value: '07-272-0828' },
        { op: 'replace', path: 'phoneNumbers[type eq "fax"].value', value: '07-272-0829' },
        { op: 'replace', path: 'addresses[type eq "work"].streetAddress', value: '2809 Johns Walk' },
        { op: 'remove', path: 'addresses[type eq "work"].postalCode' },
        { op: 'remove', path: 'phoneNumbers[type eq "mobile"].value' },
      ),
    );
    expect(patched.extra).toEqual({
      ...full.extra,
      phoneNumbers: [
        { value: '07-272-0828', type: 'work', primary: true },
        { type: 'fax', value: '07-272-0829' },
      ],
      addresses: [{ type: 'work', streetAddress: '2809 Johns Walk', locality: 'Hollywood' }],
    });
  });

  it('adds to a multi-valued attribute, removes the values a remove lists, and removes a simple one', () => {
    const patched = applyPatch(
      full,
      patchOf({ op: 'add', path: 'phoneNumbers', value: { value: '555-0100', type: 'home' } }, { op: 'remove', path: 'title' }),
    );
    expect(patched.extra?.phoneNumbers).toHaveLength(3);
    expect(patched.extra?.title).toBeUndefined();
    expect(
      applyPatch(full, patchOf({ op: 'remove', path: 'phoneNumbers', value: [{ value: '555-555-4444' }] })).extra?.phoneNumbers,
    ).toEqual([{ value: '555-555-8377', type: 'work', primary: true }]);
    expect(refusedAs(full, patchOf({ op: 'remove', path: 'phoneNumbers', value: [{ value: '555-0199' }] }))).toBe('noTarget');
    expect(applyPatch(full, patchOf({ op: 'remove', path: 'phoneNumbers' })).extra).not.toHaveProperty('phoneNumbers');
  });

  it('merges a path-less value keyed by the extension’s URN, and the URN as a path, keeping what they do not name', () => {
    const byKey = applyPatch(
      full,
      patchOf({ op: 'replace', value: { [enterpriseUserSchema]: { department: 'Sales', costCenter: '4130' } } }),
    );
    expect(byKey.enterprise).toEqual({ ...full.enterprise, department: 'Sales', costCenter: '4130' });
    const byPath = applyPatch(entra, patchOf({ op: 'add', path: enterpriseUserSchema, value: { division: 'Theme Park' } }));
    expect(byPath.enterprise).toEqual({ division: 'Theme Park' });
    expect(applyPatch(full, patchOf({ op: 'remove', path: enterpriseUserSchema })).enterprise).toBeUndefined();
    expect(refusedAs(full, patchOf({ op: 'replace', path: enterpriseUserSchema, value: 'Sales' }))).toBe('invalidValue');
  });

  it('keeps an attribute’s spelling as it was sent when changing it', () => {
    const user: ScimUserAttributes = { ...entra, enterprise: { Department: 'Ops' } };
    expect(applyPatch(user, patchOf({ op: 'replace', path: `${enterpriseUserSchema}:department`, value: 'Sales' })).enterprise).toEqual({
      Department: 'Sales',
    });
  });

  it('removes the manager by remove, and by the empty one Entra clears it with; the extension goes when nothing is left', () => {
    const managed: ScimUserAttributes = { ...entra, enterprise: { manager: { value: 'XYMKVVRYDIOO' } } };
    const manager = `${enterpriseUserSchema}:manager`;
    expect(applyPatch(full, patchOf({ op: 'remove', path: manager })).enterprise).toEqual({
      employeeNumber: '701984',
      department: 'Tour Operations',
    });
    expect(applyPatch(managed, patchOf({ op: 'replace', path: manager, value: { value: '' } })).enterprise).toBeUndefined();
    expect(applyPatch(managed, patchOf({ op: 'replace', path: manager, value: '' })).enterprise).toBeUndefined();
    expect(applyPatch(managed, patchOf({ op: 'remove', path: manager })).enterprise).toBeUndefined();
  });

  it('never takes a member named __proto__ as the object’s prototype; the table cannot keep it, so it is 400 invalidValue (issue 26)', () => {
    const value = JSON.parse(`{"${enterpriseUserSchema}": {"__proto__": {"polluted": true}, "department": "Ops"}}`) as unknown;
    expect(refusedAs(entra, patchOf({ op: 'replace', value }))).toBe('invalidValue');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Object.prototype's other names are members like any.
    const named = applyPatch(
      entra,
      patchOf({ op: 'replace', value: { [enterpriseUserSchema]: { toString: 'x', hasOwnProperty: 1, department: 'Ops' } } }),
    );
    expect(Object.getPrototypeOf(named.enterprise)).toBe(Object.prototype);
    expect(named.enterprise).toMatchObject({ toString: 'x', hasOwnProperty: 1, department: 'Ops' });
  });

  it('holds the extension to 8 KiB and the other attributes to 16 KiB', () => {
    expect(refusedAs(full, patchOf({ op: 'replace', path: `${enterpriseUserSchema}:department`, value: 'x'.repeat(8 * 1024) }))).toBe(
      'invalidValue',
    );
    expect(refusedAs(full, patchOf({ op: 'replace', path: 'addresses', value: [{ formatted: 'x'.repeat(16 * 1024) }] }))).toBe(
      'invalidValue',
    );
  });
});

describe('properties (fast-check)', () => {
  const scimTypes = ['invalidSyntax', 'invalidValue', 'invalidPath', 'noTarget', 'mutability'];
  const refusedOnly = (error: unknown) => {
    if (!(error instanceof Invalid)) throw error;
    expect(toHttpError(error).status).toBe(400);
    expect(scimTypes).toContain(error.facts.scimType);
  };

  it('never throws anything but a 400 refusal, whatever JSON arrives', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        try {
          applyPatch(full, body);
        } catch (error) {
          refusedOnly(error);
        }
      }),
      { numRuns: 500 },
    );
  });

  const paths = [
    'active',
    'userName',
    'displayName',
    'externalId',
    'name',
    'name.givenName',
    'emails',
    'emails[type eq "work"].value',
    'emails[type eq "home"]',
    'emails[value eq "bjensen@example.com"].primary',
    'phoneNumbers[type eq "work"].value',
    'addresses[type eq "work"].locality',
    'title',
    'roles',
    'password',
    'id',
    'meta.created',
    'members',
    `${enterpriseUserSchema}`,
    `${enterpriseUserSchema}:manager`,
    `${enterpriseUserSchema}:department`,
    'urn:example:other:2.0:User:tag',
    'emails[type eq',
    '',
  ];
  const value = fc.oneof(
    fc.jsonValue(),
    fc.constantFrom('True', 'False', true, false, 'ana@example.com', '', null),
    fc.dictionary(
      fc.constantFrom(...paths, 'value', 'type', 'primary', '__proto__'),
      fc.oneof(fc.jsonValue(), fc.constantFrom('ana@example.com', 'work', true)),
    ),
    fc.array(
      fc.record({
        value: fc.constantFrom('ana@example.com', 'bo@example.com', 'nope'),
        type: fc.constantFrom('work', 'home'),
        primary: fc.boolean(),
      }),
      { maxLength: 3 },
    ),
  );
  const operation = fc.record(
    {
      op: fc.constantFrom('add', 'Add', 'replace', 'Replace', 'REPLACE', 'remove', 'Remove', 'delete', 3),
      path: fc.constantFrom(...paths),
      value,
    },
    { requiredKeys: ['op'] },
  );

  it('of operations near the real ones: a User that still is one, or a 400 refusal, and the User given never changed', () => {
    fc.assert(
      fc.property(fc.array(operation, { minLength: 1, maxLength: 6 }), (operations) => {
        const before = structuredClone(full);
        try {
          const user = applyPatch(full, patchOf(...operations));
          expect(typeof user.active).toBe('boolean');
          expect(user.userName.trim()).not.toBe('');
          for (const email of user.emails ?? []) expect(email.value).toContain('@');
          expect((user.emails ?? []).filter((email) => email.primary === true).length).toBeLessThanOrEqual(1);
          expect(user).not.toHaveProperty('password');
          expect(user.extra ?? {}).not.toHaveProperty('password');
        } catch (error) {
          refusedOnly(error);
        }
        expect(full).toEqual(before);
      }),
      { numRuns: 1000 },
    );
  });
});
