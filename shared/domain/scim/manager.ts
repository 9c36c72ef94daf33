/**
 * The enterprise extension's `manager` (RFC 7643 §4.3): a complex attribute, `value` (the
 * manager's User id), `$ref` (that User's URI) and `displayName`. Directories send it in more
 * shapes than the RFC's: Entra's example User holds a bare id (`"manager": "123456"`), its
 * tutorial's Example 5 adds a one-item array, the SCIM Validator an object, Okta an object with a
 * displayName. Each is kept as {value, $ref?, displayName?}, and every answer shows the object,
 * with a `$ref` the service builds when none was sent, as the validator reads `manager.value`. Pure: no I/O.
 */
import { isObject, keyOf, membersOf, readString, invalidValue, type JsonObject } from './attributes.ts';

/** A manager as kept: `$ref` when the client sent one; answers build it from `value` otherwise. */
export type ScimManager = { value: string; $ref?: string | undefined; displayName?: string | undefined };

/**
 * The manager `value` names, or null for none: an empty id (`""`, `{"value": ""}`) is how Entra
 * clears one (the validator's "Remove Manager"), as null is. `$ref` and `displayName` are kept
 * as sent (the schema makes them readWrite), but for a `$ref` that is the User's URL (`…/Users/<value>`); other
 * members are not kept.
 */
export function readManager(value: unknown): ScimManager | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') return { value: readString(value, 'manager') };
  if (Array.isArray(value)) {
    if (value.length > 1) throw invalidValue('manager is single-valued: send one manager.');
    return readManager(value[0]);
  }
  if (!isObject(value)) throw invalidValue('manager must be the manager’s User id, or an object with its value.');
  const members = membersOf(value, 'manager');
  const id = members.get('value');
  if (id === undefined || id === null || id === '') return null;
  const manager: ScimManager = { value: readString(id, 'manager.value') };
  const ref = members.get('$ref');
  // One that only says where the User is (what answers build, read back by a GET-then-PUT) is
  // built again by each answer, under the host it is read from.
  if (ref !== undefined && ref !== null && !isUserUrl(readString(ref, 'manager.$ref'), manager.value)) manager.$ref = ref as string;
  const displayName = members.get('displayname');
  if (displayName !== undefined && displayName !== null) manager.displayName = readString(displayName, 'manager.displayName');
  return manager;
}

const userPath = (id: string) => `/Users/${encodeURIComponent(id)}`;
const isUserUrl = (ref: string, id: string) => ref.endsWith(userPath(id)) || ref.endsWith(`/Users/${id}`);

/**
 * The extension's object with its manager as kept (or gone, when it names none). Also what a
 * User stored before the manager was read this way (a bare id, kept as sent) is read back as.
 */
export function withKeptManager(enterprise: JsonObject): JsonObject {
  const key = keyOf(enterprise, 'manager');
  if (key === undefined) return enterprise;
  const { [key]: sent, ...rest } = enterprise;
  const manager = readManager(sent);
  return manager === null ? rest : { ...rest, manager };
}

/**
 * A stored extension object read back (the stores call it): a bare id kept as sent before is the
 * object now. Tolerant: a manager that cannot be read (a number kept as sent) stays as stored
 * rather than failing every read of the User; a PATCH of it is refused as invalidValue.
 */
export function storedEnterprise(enterprise: JsonObject): JsonObject {
  try {
    return withKeptManager(enterprise);
  } catch {
    return enterprise;
  }
}

/**
 * The extension's object as answers show it: the manager with its `$ref`, as sent or else the
 * absolute URL of the manager's User under `baseUrl` (as `meta.location` is built).
 */
export function enterpriseResource(enterprise: JsonObject, baseUrl: string): JsonObject {
  const kept = storedEnterprise(enterprise);
  if (!isObject(kept.manager)) return kept;
  const manager = kept.manager as ScimManager | undefined;
  if (manager === undefined) return kept;
  const $ref = manager.$ref ?? `${baseUrl.replace(/\/+$/, '')}${userPath(manager.value)}`;
  return {
    ...kept,
    manager: { value: manager.value, $ref, ...(manager.displayName !== undefined ? { displayName: manager.displayName } : {}) },
  };
}
