import { describe, expect, it } from 'vitest';
import { scimListLimits } from '../../shared/limits.ts';
import { Invalid } from '../../shared/domain/refusals.ts';
import { coreAttributes, enterpriseAttributes, isMultiExtra, multiValuedParts, nameParts } from '../../shared/domain/scim/attributes.ts';
import { resourceTypes, scimSchemas, serviceProviderConfig, type ScimAttributeDefinition } from '../../shared/domain/scim/discovery.ts';
import {
  enterpriseUserSchema,
  listResponseSchema,
  patchOpSchema,
  userSchema,
  type ScimUser,
  type ScimUserAttributes,
} from '../../shared/domain/scim/model.ts';
import { groupSchema } from '../../shared/domain/scim/groupModel.ts';
import { applyPatch } from '../../shared/domain/scim/patch.ts';
import { parseUserBody, toScimResource } from '../../shared/domain/scim/userBody.ts';
import { toHttpError } from '../../shared/http/refusals.ts';

const baseUrl = 'https://vault.example.com/scim/v2';

const schemaNamed = (id: string) => scimSchemas(baseUrl).Resources.find((schema) => schema.id === id)!;
const described = (id: string) => schemaNamed(id).attributes;
const definition = (name: string) => described(userSchema).find((attribute) => attribute.name === name)!;
const names = (attributes: ScimAttributeDefinition[]) => attributes.map((attribute) => attribute.name).sort();

/** Every attribute and sub-attribute, with its path. */
function everyAttribute(attributes: ScimAttributeDefinition[], parent = ''): [string, ScimAttributeDefinition][] {
  return attributes.flatMap((attribute) => {
    const path = parent ? `${parent}.${attribute.name}` : attribute.name;
    return [[path, attribute] as [string, ScimAttributeDefinition], ...everyAttribute(attribute.subAttributes ?? [], path)];
  });
}

/** A value an attribute so defined may take, as a directory would send it. */
function sample(attribute: ScimAttributeDefinition, path: string): unknown {
  const one = (): unknown => {
    if (attribute.type === 'complex')
      return Object.fromEntries(attribute.subAttributes!.map((sub) => [sub.name, sample(sub, `${path}.${sub.name}`)]));
    if (attribute.type === 'boolean') return true;
    if (attribute.type === 'binary') return 'MIIDQzCCAqygAwIBAgICEAAwDQYJKoZIhvcNAQEFBQAwTjELMAkGA1UEBhMC';
    if (attribute.type === 'reference') return `https://directory.example.com/${path}`;
    if (path === 'emails.value') return 'ada@example.com';
    return attribute.canonicalValues?.[0] ?? `${path} as sent`;
  };
  return attribute.multiValued ? [one()] : one();
}

/** What a User shows of `value` sent for `attribute`, by the schema: readWrite kept, the rest not. */
function shown(attribute: ScimAttributeDefinition, value: unknown): unknown {
  if (attribute.mutability !== 'readWrite') return undefined;
  if (attribute.type !== 'complex') return value;
  const one = (item: Record<string, unknown>) =>
    Object.fromEntries(
      attribute.subAttributes!.flatMap((sub) => (shown(sub, item[sub.name]) === undefined ? [] : [[sub.name, shown(sub, item[sub.name])]])),
    );
  return Array.isArray(value) ? value.map(one) : one(value as Record<string, unknown>);
}

const stored = (attributes: ScimUserAttributes): ScimUser => ({
  ...attributes,
  id: 'usr_5Xq2',
  workspaceId: 'wsp_1',
  userId: 'u_1',
  createdAt: Date.parse('2026-03-02T10:00:00.000Z'),
  lastModified: Date.parse('2026-03-02T11:30:00.000Z'),
  version: 1,
});
const resourceOf = (attributes: ScimUserAttributes) => toScimResource(stored(attributes), baseUrl) as Record<string, unknown>;

const someone = parseUserBody({ userName: 'ada@example.com', emails: [{ value: 'ada@example.com', type: 'work' }] });
const patched = (path: string, value: unknown) =>
  applyPatch(someone, { schemas: [patchOpSchema], Operations: [{ op: 'replace', path, value }] });

describe('ServiceProviderConfig', () => {
  it('says what is supported, honestly: PATCH and the filter, nothing else optional; the directory key as a bearer token', () => {
    expect(serviceProviderConfig(baseUrl)).toEqual({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      authenticationSchemes: [
        {
          type: 'oauthbearertoken',
          name: 'Directory key',
          description: 'The workspace directory key (hlscim_…) as Authorization: Bearer <key>, from the workspace SSO settings',
          primary: true,
        },
      ],
      meta: { resourceType: 'ServiceProviderConfig', location: 'https://vault.example.com/scim/v2/ServiceProviderConfig' },
    });
  });

  it('gives the page size the listing cuts to as filter.maxResults', () => {
    expect(serviceProviderConfig(baseUrl).filter.maxResults).toBe(scimListLimits.maxResults);
    expect(scimListLimits.defaultCount).toBeLessThanOrEqual(scimListLimits.maxResults);
  });
});

describe('/Schemas', () => {
  it('is a ListResponse of the User schema, its enterprise extension and the Group schema, whole on one page', () => {
    const list = scimSchemas(baseUrl);
    expect(list).toMatchObject({ schemas: [listResponseSchema], totalResults: 3, startIndex: 1, itemsPerPage: 3 });
    expect(Object.keys(list)).toEqual(['schemas', 'totalResults', 'startIndex', 'itemsPerPage', 'Resources']);
    expect(list.Resources.map(({ attributes: _, ...schema }) => schema)).toEqual([
      {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
        id: userSchema,
        name: 'User',
        description: expect.any(String),
        meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${userSchema}` },
      },
      {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
        id: enterpriseUserSchema,
        name: 'EnterpriseUser',
        description: expect.any(String),
        meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${enterpriseUserSchema}` },
      },
      {
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'],
        id: groupSchema,
        name: 'Group',
        description: expect.any(String),
        meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${groupSchema}` },
      },
    ]);
  });

  it('describes a Group as groupBody.ts reads it: displayName required and unique, externalId unique, members of Users', () => {
    const group = scimSchemas(baseUrl).Resources.find((schema) => schema.id === groupSchema)!;
    expect(group.attributes.map((attribute) => attribute.name)).toEqual(['displayName', 'externalId', 'members']);
    expect(group.attributes[0]).toMatchObject({ required: true, uniqueness: 'server', caseExact: false });
    expect(group.attributes[1]).toMatchObject({ uniqueness: 'server', caseExact: true });
    expect(group.attributes[2]).toMatchObject({ type: 'complex', multiValued: true });
    expect(group.attributes[2]!.subAttributes!.map((attribute) => attribute.name)).toEqual(['value', '$ref', 'type']);
  });

  it('describes every attribute a User body is read for, and no other', () => {
    // meta is the one left out: a common attribute every resource has, which no schema describes (RFC 7643 §3.1, §8.7.1).
    expect(names(described(userSchema))).toEqual([...coreAttributes.values()].filter((name) => name !== 'meta').sort());
    expect(names(described(enterpriseUserSchema))).toEqual([...enterpriseAttributes.values()].sort());
    expect(names(definition('name').subAttributes!)).toEqual([...nameParts.values()].sort());
    expect(names(definition('emails').subAttributes!)).toEqual(['display', 'primary', 'type', 'value']);
    for (const attribute of described(userSchema).filter((attribute) => isMultiExtra(attribute.name))) {
      // Each is a sub-attribute a PATCH path may name.
      for (const sub of attribute.subAttributes!)
        expect(multiValuedParts.get(sub.name.toLowerCase()), `${attribute.name}.${sub.name}`).toBe(sub.name);
    }
  });

  it('describes what a created User shows: every readWrite attribute as sent, the read-only and write-only ones not', () => {
    const body: Record<string, unknown> = { schemas: [userSchema, enterpriseUserSchema] };
    for (const attribute of described(userSchema)) body[attribute.name] = sample(attribute, attribute.name);
    const enterprise = Object.fromEntries(
      described(enterpriseUserSchema).map((attribute) => [attribute.name, sample(attribute, attribute.name)]),
    );
    body[enterpriseUserSchema] = enterprise;

    const resource = resourceOf(parseUserBody(body));
    for (const attribute of described(userSchema).filter((attribute) => attribute.name !== 'id')) {
      expect(resource[attribute.name], attribute.name).toEqual(shown(attribute, body[attribute.name]));
    }
    expect(resource.id).toBe('usr_5Xq2'); // the service's, not the one sent
    expect(resource).not.toHaveProperty('password');
    expect(resource).not.toHaveProperty('groups');
    expect(resource[enterpriseUserSchema]).toEqual(enterprise);
  });

  it('describes what a PATCH sets: each readWrite attribute by its path, each sub-attribute by a filtered path, the enterprise ones by URN', () => {
    for (const attribute of described(userSchema).filter((attribute) => attribute.mutability === 'readWrite')) {
      const value = sample(attribute, attribute.name);
      expect(resourceOf(patched(attribute.name, value))[attribute.name], attribute.name).toEqual(shown(attribute, value));
    }
    for (const sub of definition('name').subAttributes!) {
      expect(patched(`name.${sub.name}`, 'Ada').name, sub.name).toEqual({ [sub.name]: 'Ada' });
    }
    const multi = described(userSchema).filter((attribute) => attribute.multiValued && attribute.mutability === 'readWrite');
    for (const attribute of multi) {
      // type, primary and display only label a value: a value of nothing else is no value.
      for (const sub of attribute.subAttributes!.filter((sub) => !['type', 'primary', 'display'].includes(sub.name))) {
        const value = sample(sub, `${attribute.name}.${sub.name}`);
        const values = resourceOf(patched(`${attribute.name}[type eq "work"].${sub.name}`, value))[attribute.name];
        expect(values, `${attribute.name}.${sub.name}`).toContainEqual({ type: 'work', [sub.name]: value });
      }
    }
    for (const attribute of described(enterpriseUserSchema)) {
      const value = sample(attribute, attribute.name);
      expect(resourceOf(patched(`${enterpriseUserSchema}:${attribute.name}`, value))[enterpriseUserSchema], attribute.name).toEqual({
        [attribute.name]: value,
      });
    }
  });

  it('keeps nothing it calls read-only or write-only: a PATCH of id or groups is refused, of password or an email’s display not kept', () => {
    for (const name of ['id', 'groups']) {
      const refusal = (() => {
        try {
          patched(name, sample(definition(name), name));
        } catch (error) {
          return error;
        }
      })();
      expect(refusal, name).toBeInstanceOf(Invalid);
      expect(toHttpError(refusal).status).toBe(400);
      expect(refusal).toMatchObject({ facts: { scimType: 'mutability' } });
    }
    expect(patched('password', 'hunter2')).toEqual(someone);
    expect(patched('emails[type eq "work"].display', 'Ada at work')).toEqual(someone);
  });

  it('gives every attribute the characteristics RFC 7643 §7 lists, sub-attributes never complex', () => {
    const attributes = [...everyAttribute(described(userSchema)), ...everyAttribute(described(enterpriseUserSchema))];
    for (const [path, attribute] of attributes) {
      expect(attribute, path).toMatchObject({
        name: expect.stringMatching(/^\$?[A-Za-z][\w-]*$/),
        type: expect.stringMatching(/^(string|boolean|decimal|integer|dateTime|reference|binary|complex)$/),
        multiValued: expect.any(Boolean),
        description: expect.stringMatching(/\S/),
        required: expect.any(Boolean),
        mutability: expect.stringMatching(/^(readOnly|readWrite|immutable|writeOnly)$/),
        returned: expect.stringMatching(/^(always|never|default|request)$/),
        uniqueness: expect.stringMatching(/^(none|server|global)$/),
      });
      expect(typeof attribute.caseExact === 'boolean', `${path}.caseExact`).toBe(
        ['string', 'reference', 'binary'].includes(attribute.type),
      );
      expect(Array.isArray(attribute.subAttributes), `${path}.subAttributes`).toBe(attribute.type === 'complex');
      expect(Array.isArray(attribute.referenceTypes), `${path}.referenceTypes`).toBe(attribute.type === 'reference');
      if (path.includes('.')) expect(attribute.type, path).not.toBe('complex');
      if (attribute.subAttributes)
        expect(new Set(names(attribute.subAttributes).map((name) => name.toLowerCase())).size, path).toBe(attribute.subAttributes.length);
    }
    expect(new Set(attributes.filter(([path]) => !path.includes('.')).map(([path]) => path.toLowerCase())).size).toBe(
      described(userSchema).length + described(enterpriseUserSchema).length,
    );
  });

  it('says how the service treats the attributes that matter to a directory', () => {
    expect(definition('id')).toMatchObject({
      type: 'string',
      mutability: 'readOnly',
      returned: 'always',
      uniqueness: 'server',
      caseExact: true,
    });
    expect(definition('userName')).toMatchObject({
      type: 'string',
      required: true,
      uniqueness: 'server',
      caseExact: false,
      mutability: 'readWrite',
    });
    expect(definition('externalId')).toMatchObject({ type: 'string', required: false, caseExact: true, uniqueness: 'server' });
    expect(definition('password')).toMatchObject({ mutability: 'writeOnly', returned: 'never' });
    expect(definition('groups')).toMatchObject({ mutability: 'readOnly', multiValued: true });
    expect(definition('active')).toMatchObject({ type: 'boolean', multiValued: false, required: false });
    expect(definition('emails')).toMatchObject({ type: 'complex', multiValued: true });
    expect(definition('emails').subAttributes!.find((sub) => sub.name === 'type')!.canonicalValues).toEqual(['work', 'home', 'other']);
    expect(definition('emails').subAttributes!.find((sub) => sub.name === 'primary')!.type).toBe('boolean');
    const manager = described(enterpriseUserSchema).find((attribute) => attribute.name === 'manager')!;
    expect(names(manager.subAttributes!)).toEqual(['$ref', 'displayName', 'value']);
    // Only id and userName are unique; nothing but userName is required.
    const attributes = [...everyAttribute(described(userSchema)), ...everyAttribute(described(enterpriseUserSchema))];
    expect(attributes.filter(([, attribute]) => attribute.required).map(([path]) => path)).toEqual(['userName']);
    expect(attributes.filter(([, attribute]) => attribute.uniqueness !== 'none').map(([path]) => path)).toEqual([
      'id',
      'externalId',
      'userName',
    ]);
    expect(attributes.filter(([, attribute]) => attribute.returned === 'never').map(([path]) => path)).toEqual(['password']);
  });
});

describe('/ResourceTypes', () => {
  it('lists User, with the enterprise extension optional, and Group', () => {
    expect(resourceTypes(baseUrl)).toEqual({
      schemas: [listResponseSchema],
      totalResults: 2,
      startIndex: 1,
      itemsPerPage: 2,
      Resources: [
        {
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
          id: 'User',
          name: 'User',
          endpoint: '/Users',
          description: expect.stringMatching(/\S/),
          schema: userSchema,
          schemaExtensions: [{ schema: enterpriseUserSchema, required: false }],
          meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/User` },
        },
        {
          schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
          id: 'Group',
          name: 'Group',
          endpoint: '/Groups',
          description: expect.stringMatching(/\S/),
          schema: groupSchema,
          schemaExtensions: [],
          meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/Group` },
        },
      ],
    });
  });

  it('names only schemas /Schemas describes', () => {
    const ids = scimSchemas(baseUrl).Resources.map((schema) => schema.id);
    for (const type of resourceTypes(baseUrl).Resources) {
      expect(ids).toContain(type.schema);
      for (const extension of type.schemaExtensions) expect(ids).toContain(extension.schema);
    }
  });
});

describe('the three documents', () => {
  const documents = (base: string) => ({
    serviceProviderConfig: serviceProviderConfig(base),
    schemas: scimSchemas(base),
    resourceTypes: resourceTypes(base),
  });

  /** Every `meta` in a document, however deep. */
  const metas = (value: unknown): { location: string }[] =>
    typeof value !== 'object' || value === null
      ? []
      : Object.entries(value).flatMap(([key, member]) => (key === 'meta' ? [member as { location: string }] : metas(member)));

  it('put every meta.location under the base URL, absolute, a trailing slash or not', () => {
    for (const base of [baseUrl, `${baseUrl}/`, 'http://localhost:8787/scim/v2']) {
      const locations = metas(documents(base)).map((meta) => meta.location);
      expect(locations).toHaveLength(6);
      for (const location of locations) {
        expect(location.startsWith(`${base.replace(/\/$/, '')}/`), location).toBe(true);
        expect(new URL(location).href, location).toBe(location);
        expect(location).not.toContain('//Schemas');
      }
    }
    expect(documents(`${baseUrl}/`)).toEqual(documents(baseUrl));
  });

  it('are JSON as they are, with integer counts', () => {
    const all = documents(baseUrl);
    expect(JSON.parse(JSON.stringify(all))).toEqual(all);
    const { bulk, filter } = all.serviceProviderConfig;
    for (const count of [bulk.maxOperations, bulk.maxPayloadSize, filter.maxResults]) expect(Number.isInteger(count)).toBe(true);
    for (const list of [all.schemas, all.resourceTypes]) {
      for (const count of [list.totalResults, list.startIndex, list.itemsPerPage]) expect(Number.isInteger(count)).toBe(true);
      expect(list.totalResults).toBe(list.Resources.length);
    }
  });

  it('are the caller’s own: changing one answer changes no later one', () => {
    const first = scimSchemas(baseUrl);
    first.Resources[0]!.attributes[0]!.description = 'changed';
    first.Resources[0]!.attributes.pop();
    expect(scimSchemas(baseUrl).Resources[0]!.attributes[0]!.description).not.toBe('changed');
    expect(scimSchemas(baseUrl).Resources[0]!.attributes).toHaveLength(described(userSchema).length);
  });
});
