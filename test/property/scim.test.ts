import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newEmail } from '../support/accounts.ts';
import { oversizedIds } from '../support/property/arbitraries.ts';
import { prototypeNames } from '../support/property/scim.ts';
import { propertySuite } from '../support/property/suite.ts';
import { oktaUser } from '../support/scim/directory.ts';

const suite = propertySuite('scim');

// What the generators above found answered 500 (issue 18), each pinned to its answer.
describe('scim: what the generators found', () => {
  /** A request with the first directory's key; a body as JSON text, or a value to write as JSON. */
  const scim = (method: string, path: string, body?: unknown) => {
    const headers = {
      authorization: `Bearer ${suite.fixtures().directoryKeys.get('a')!}`,
      ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
    };
    return suite.send({
      method,
      path: `/scim/v2${path}`,
      headers,
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  };
  const scimError = (reply: { text: string }) => JSON.parse(reply.text) as { scimType?: string; detail: string };
  // Within externalId's 1,024 characters, past the 1,024 bytes of the key its uniqueness is kept under (`SCIM_EXTERNAL#<externalId>`).
  const wideExternalIds = ['😀'.repeat(300), '中'.repeat(400), 'x'.repeat(1011), 'é'.repeat(600)];

  it('POST, PUT and PATCH: an externalId wider than its uniqueness key can hold is 400 invalidValue; one that fits is kept', async () => {
    for (const externalId of wideExternalIds) {
      const created = await scim('POST', '/Users', oktaUser(newEmail('scim-wide'), { externalId }));
      expect(created.status, `${externalId.slice(0, 4)}… (${externalId.length}) → ${created.text.slice(0, 200)}`).toBe(400);
      expect(scimError(created).scimType).toBe('invalidValue');
    }
    const fits = 'é'.repeat(500);
    const created = await scim('POST', '/Users', oktaUser(newEmail('scim-wide'), { externalId: fits }));
    expect(created.status, created.text.slice(0, 200)).toBe(201);
    const { id } = JSON.parse(created.text) as { id: string };
    for (const externalId of wideExternalIds) {
      const patched = await scim('PATCH', `/Users/${id}`, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'externalId', value: externalId }],
      });
      expect(patched.status, patched.text.slice(0, 200)).toBe(400);
      expect(scimError(patched).scimType).toBe('invalidValue');
      const replaced = await scim('PUT', `/Users/${id}`, { ...oktaUser(newEmail('scim-wide')), externalId });
      expect(replaced.status, replaced.text.slice(0, 200)).toBe(400);
    }
    const found = await scim('GET', `/Users?filter=${encodeURIComponent(`externalId eq "${fits}"`)}`);
    expect(JSON.parse(found.text)).toMatchObject({ totalResults: 1, Resources: [{ id, externalId: fits }] });
  });

  it('POST, PUT and PATCH: what is kept as sent (the enterprise extension, the other core attributes) holds only what DynamoDB can: else 400 invalidValue', async () => {
    // As JSON text: a value 5,000 deep is past what JSON.stringify can write here.
    const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const enterprise = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
    const unstorable: Array<[string, string, string]> = [
      ['an integer past 2^53 - 1', enterprise, '{"employeeNumber":-9007199254740992}'],
      ['a number past DynamoDB’s 9.99e125', enterprise, '{"costCenter":1e308}'],
      ['a number below 1e-130', 'phoneNumbers', '[{"value":1e-320,"type":"work"}]'],
      ['5,000 levels of nesting', enterprise, `{"division":${deep(5000)}}`],
      ['40 levels of nesting', 'addresses', `[{"type":"work","streetAddress":${deep(40)}}]`],
      // Found at 10,000 runs (seed 1447899007): a PATCH of employeeNumber to {"": ""}.
      ['a member with an empty name', enterprise, '{"employeeNumber":{"":""}}'],
    ];
    const userWith = (name: string, text: string) =>
      `${JSON.stringify(oktaUser(newEmail('scim-kept'))).slice(0, -1)},${JSON.stringify(name)}:${text}}`;
    const created = await scim('POST', '/Users', oktaUser(newEmail('scim-kept')));
    const { id } = JSON.parse(created.text) as { id: string };
    for (const [what, name, text] of unstorable) {
      const posted = await scim('POST', '/Users', userWith(name, text));
      expect(posted.status, `POST with ${what} → ${posted.text.slice(0, 200)}`).toBe(400);
      expect(scimError(posted).scimType).toBe('invalidValue');
      const put = await scim('PUT', `/Users/${id}`, userWith(name, text));
      expect(put.status, `PUT with ${what} → ${put.text.slice(0, 200)}`).toBe(400);
      const patched = await scim('PATCH', `/Users/${id}`, `{"Operations":[{"op":"add","value":{${JSON.stringify(name)}:${text}}}]}`);
      expect(patched.status, `PATCH with ${what} → ${patched.text.slice(0, 200)}`).toBe(400);
    }
    // What DynamoDB holds is kept exactly as sent.
    const storable = {
      // (Not the manager: it is kept as its object, issue 30.)
      [enterprise]: { employeeNumber: 9007199254740991, costCenter: -1e-130, organization: JSON.parse(deep(12)) as unknown, division: 0 },
    };
    const kept = await scim('PATCH', `/Users/${id}`, { Operations: [{ op: 'add', value: storable }] });
    expect(kept.status, kept.text.slice(0, 200)).toBe(200);
    expect(JSON.parse(kept.text)[enterprise]).toEqual(storable[enterprise]);
  });

  it('POST, PUT and PATCH: Object.prototype’s names as members of the enterprise extension or a role are kept as sent, or 400 invalidValue where the table cannot keep them (constructor, __proto__)', async () => {
    // Found by the generators of prototype names (issue 26): {"constructor":1} in the extension or a role was a 500.
    const enterprise = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
    // Deactivated, so the Users made hold no seat.
    const userWith = (name: string, text: string) =>
      `${JSON.stringify(oktaUser(newEmail('scim-proto'), { active: false })).slice(0, -1)},${JSON.stringify(name)}:${text}}`;
    const { id } = JSON.parse((await scim('POST', '/Users', oktaUser(newEmail('scim-proto'), { active: false }))).text) as { id: string };
    let kept = 0;
    let refused = 0;
    for (const name of prototypeNames) {
      // The class a `constructor` member was read as: none (the 500), a Set's, a String's (written as "[object Object]").
      for (const value of name === 'constructor' ? ['1', '{"name":"Set"}', '{"name":"String"}'] : ['1']) {
        // As JSON text: `__proto__` is a member there, as JSON.parse makes it.
        const member = `{${JSON.stringify(name)}:${value}}`;
        const sent: Array<[string, string]> = [
          [enterprise, member],
          ['roles', `[${member}]`],
          ['roles', `[{"value":"User","display":${member}}]`],
        ];
        for (const [attribute, text] of sent) {
          const what = `${attribute.slice(-12)} ${text}`;
          const requests: Array<[string, () => ReturnType<typeof scim>]> = [
            ['POST', () => scim('POST', '/Users', userWith(attribute, text))],
            ['PUT', () => scim('PUT', `/Users/${id}`, userWith(attribute, text))],
            // A replace: an add appends to roles.
            [
              'PATCH',
              () => scim('PATCH', `/Users/${id}`, `{"Operations":[{"op":"replace","value":{${JSON.stringify(attribute)}:${text}}}]}`),
            ],
          ];
          for (const [method, send] of requests) {
            const reply = await send();
            if (name === 'constructor' || name === '__proto__') {
              expect(reply.status, `${method} ${what} → ${reply.text.slice(0, 200)}`).toBe(400);
              expect(scimError(reply).scimType).toBe('invalidValue');
              refused++;
              continue;
            }
            expect(reply.status, `${method} ${what} → ${reply.text.slice(0, 200)}`).toBe(method === 'POST' ? 201 : 200);
            const user = JSON.parse(reply.text) as Record<string, unknown>;
            expect(user[attribute], `${method} ${what}`).toEqual(JSON.parse(text));
            // Read back from the table as it was sent.
            expect(JSON.parse((await scim('GET', `/Users/${user.id as string}`)).text)[attribute], `${method} ${what}`).toEqual(
              JSON.parse(text),
            );
            kept++;
          }
        }
      }
    }
    expect([kept, refused]).toEqual([36, 36]);
  }, 36_000);

  it('GET, PUT, PATCH and DELETE /Users/{id}: an id no User can have (past 1 KiB, or odd) is a 404 that never reaches the table', async () => {
    const body = { PUT: oktaUser(newEmail('scim-odd')), PATCH: { Operations: [{ op: 'replace', value: { active: false } }] } } as Record<
      string,
      unknown
    >;
    for (const id of [
      ...new Set(fc.sample(oversizedIds, 30)),
      'scu_',
      `scu_${'A'.repeat(23)}`,
      'constructor',
      '010101001010101011001010101011',
      'SCU_AAAAAAAAAAAAAAAAAAAAAA',
    ]) {
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
        const calls = await suite.calls.during(async () => {
          const reply = await scim(method, `/Users/${encodeURIComponent(id)}`, body[method]);
          expect(reply.status, `${method} ${id.slice(0, 40)} (${id.length}) → ${reply.text.slice(0, 200)}`).toBe(404);
        });
        expect(calls.filter((call) => String(call.input.Key?.sk?.S ?? call.input.Key?.sk).startsWith('SCIM_USER#'))).toEqual([]);
      }
    }
    // A well-formed id of no User still asks the table, and is 404 too.
    expect((await scim('GET', `/Users/scu_${'A'.repeat(22)}`)).status).toBe(404);
  });

  it('GET /Users: a filter on a userName or externalId no User can have (past their limits, in characters or bytes) matches nobody', async () => {
    for (const filter of [
      `userName eq "${'中'.repeat(980)}"`,
      `userName eq "${'😀'.repeat(490)}"`,
      `userName eq "${'x'.repeat(980)}"`,
      `externalId eq "${'中'.repeat(980)}"`,
      `externalId eq "${'é'.repeat(600)}"`,
      `userName eq "a@property.example" or externalId eq "${'é'.repeat(900)}"`,
    ]) {
      const reply = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      expect(reply.status, `${filter.slice(0, 30)}… → ${reply.text.slice(0, 200)}`).toBe(200);
      expect(JSON.parse(reply.text)).toMatchObject({ totalResults: 0, Resources: [] });
    }
  });
});
