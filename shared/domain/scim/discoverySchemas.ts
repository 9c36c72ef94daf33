/**
 * The attribute definitions /Schemas publishes (RFC 7643 §7, §8.7.1): exactly the attributes a
 * User keeps here (attributes.ts, userBody.ts, patch.ts), with what the service does to each.
 * Entra reads them when an admin saves the provisioning settings and offers them for mapping,
 * so nothing is listed that would be dropped. Pure: no I/O.
 */

export type ScimAttributeType = 'string' | 'boolean' | 'decimal' | 'integer' | 'dateTime' | 'reference' | 'binary' | 'complex';

/** One attribute's characteristics (RFC 7643 §2.2, §7). */
export type ScimAttributeDefinition = {
  name: string;
  type: ScimAttributeType;
  multiValued: boolean;
  description: string;
  required: boolean;
  /** Strings, references and binaries only. */
  caseExact?: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'never' | 'default' | 'request';
  uniqueness: 'none' | 'server' | 'global';
  canonicalValues?: string[];
  referenceTypes?: string[];
  subAttributes?: ScimAttributeDefinition[];
};

type Characteristics = Partial<Omit<ScimAttributeDefinition, 'name' | 'type' | 'description'>>;

const hasCase = (type: ScimAttributeType): boolean => type === 'string' || type === 'reference' || type === 'binary';

/** The RFC's defaults (§2.2): optional, single-valued, readWrite, returned by default, not unique, case-insensitive. */
function attribute(
  name: string,
  type: ScimAttributeType,
  description: string,
  characteristics: Characteristics = {},
): ScimAttributeDefinition {
  return {
    name,
    type,
    multiValued: false,
    description,
    required: false,
    ...(hasCase(type) ? { caseExact: false } : {}),
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...characteristics,
  };
}

const complex = (
  name: string,
  description: string,
  subAttributes: ScimAttributeDefinition[],
  characteristics: Characteristics = {},
): ScimAttributeDefinition => attribute(name, 'complex', description, { ...characteristics, subAttributes });

const text = (name: string, description: string, characteristics: Characteristics = {}): ScimAttributeDefinition =>
  attribute(name, 'string', description, characteristics);

type Values = {
  /** The `value` sub-attribute; addresses have none, only their parts. */
  value?: ScimAttributeDefinition;
  parts?: ScimAttributeDefinition[];
  /** The RFC's canonical `type`s; any other word is kept too. */
  types?: string[];
  /** `display` is kept as sent, but for emails, where it is read-only (RFC 7643 §2.4) and ignored. */
  display?: 'kept' | 'ignored';
};

/** A multi-valued attribute (RFC 7643 §2.4): objects of these sub-attributes, `primary` always a boolean, one value primary at most. */
function multiValued(
  name: string,
  description: string,
  { value, parts = [], types = [], display = 'kept' }: Values,
): ScimAttributeDefinition {
  const typeWords = types.length > 0 ? `: ${types.join(', ')}, or another word` : '';
  return complex(
    name,
    description,
    [
      ...(value ? [value] : []),
      ...parts,
      display === 'kept'
        ? text('display', 'A human-readable name for the value, kept as sent.')
        : text('display', 'A human-readable name for the value: read-only, never set, ignored when sent.', { mutability: 'readOnly' }),
      text('type', `A label for the value's function, kept as sent${typeWords}.`, types.length > 0 ? { canonicalValues: types } : {}),
      attribute('primary', 'boolean', 'Whether this is the preferred value; at most one is. Also read from "True" and "False".'),
    ],
    { multiValued: true },
  );
}

const nameParts = [
  text('formatted', 'The full name, formatted for display (e.g. "Ms. Barbara J Jensen, III").'),
  text('familyName', 'The family name, or last name in most Western languages.'),
  text('givenName', 'The given name, or first name in most Western languages.'),
  text('middleName', 'The middle name(s).'),
  text('honorificPrefix', 'The honorific prefix(es), or title in most Western languages (e.g. "Ms.").'),
  text('honorificSuffix', 'The honorific suffix(es) (e.g. "III").'),
];

/** An address's parts (RFC 7643 §4.1.2). Addresses have no `value`. */
const addressParts = [
  text('formatted', 'The full mailing address, formatted for display.'),
  text('streetAddress', 'The street address, with house number, street name, P.O. box.'),
  text('locality', 'The city or locality.'),
  text('region', 'The state or region.'),
  text('postalCode', 'The zip code or postal code.'),
  text('country', 'The country, as an ISO 3166-1 alpha-2 code (e.g. "US").'),
];

/** A group's reference (RFC 7643 §4.1.2), read-only: group membership is not provisioned here. */
const groupParts = [
  text('value', 'The identifier of a group.', { mutability: 'readOnly' }),
  attribute('$ref', 'reference', 'The URI of a group.', { mutability: 'readOnly', referenceTypes: ['Group'] }),
  text('display', 'A human-readable name for the group.', { mutability: 'readOnly' }),
  text('type', 'How the User is a member: direct or indirect.', { mutability: 'readOnly', canonicalValues: ['direct', 'indirect'] }),
];

/** The core User schema (RFC 7643 §4.1) as this service keeps it. */
export const userAttributes: ScimAttributeDefinition[] = [
  text('id', "The User's identifier, set by this service when it is made; never changes.", {
    caseExact: true,
    mutability: 'readOnly',
    returned: 'always',
    uniqueness: 'server',
  }),
  text('externalId', "The directory's own identifier for the User, kept as sent. Unique in the workspace.", {
    caseExact: true,
    uniqueness: 'server',
  }),
  text(
    'userName',
    "The User's unique identifier in the workspace, compared without case (the directory's sign-in name, usually an email address).",
    {
      required: true,
      uniqueness: 'server',
    },
  ),
  complex('name', "The components of the User's name. A PATCH of name sets the parts it sends and keeps the others.", nameParts),
  text('displayName', 'The name of the User, suitable for display to end-users.'),
  text('nickName', 'The casual way to address the User.'),
  attribute('profileUrl', 'reference', "A URI of the User's online profile, kept as sent.", { referenceTypes: ['external'] }),
  text('title', 'The User\'s title, such as "Vice President".'),
  text('userType', 'The relationship between the organization and the User, such as "Employee" or "Contractor".'),
  text('preferredLanguage', 'The User\'s preferred written or spoken language, as an Accept-Language value (e.g. "en-US").'),
  text('locale', 'The User\'s default location for localization (e.g. "en-US").'),
  text('timezone', 'The User\'s time zone, in the IANA database\'s format (e.g. "America/Los_Angeles").'),
  attribute(
    'active',
    'boolean',
    'Whether the User is a member of the workspace holding a seat. False removes the membership and frees its seat; the User and the account stay. True when not sent; also read from "True" and "False".',
  ),
  text('password', 'Accepted and never kept: members sign in by email or single sign-on.', { mutability: 'writeOnly', returned: 'never' }),
  multiValued('emails', "The User's email addresses: 20 at most.", {
    value: text('value', 'An email address.'),
    types: ['work', 'home', 'other'],
    display: 'ignored',
  }),
  multiValued('phoneNumbers', "The User's phone numbers, kept as sent.", {
    value: text('value', 'A phone number.'),
    types: ['work', 'home', 'mobile', 'fax', 'pager', 'other'],
  }),
  multiValued('ims', "The User's instant messaging addresses, kept as sent.", {
    value: text('value', 'An instant messaging address.'),
    types: ['aim', 'gtalk', 'icq', 'xmpp', 'msn', 'skype', 'qq', 'yahoo'],
  }),
  multiValued('photos', 'URLs of photos of the User, kept as sent.', {
    value: attribute('value', 'reference', 'The URL of a photo of the User.', { referenceTypes: ['external'] }),
    types: ['photo', 'thumbnail'],
  }),
  multiValued('addresses', "The User's physical mailing addresses, kept as sent.", {
    parts: addressParts,
    types: ['work', 'home', 'other'],
  }),
  complex('groups', 'Groups are not supported: never set, ignored when sent.', groupParts, { multiValued: true, mutability: 'readOnly' }),
  multiValued('entitlements', "The User's entitlements, kept as sent.", { value: text('value', 'An entitlement.') }),
  multiValued('roles', "The User's roles in the directory, kept as sent (its workspace role is member).", {
    value: text('value', 'A role.'),
  }),
  multiValued('x509Certificates', "The User's X.509 certificates, kept as sent.", {
    value: attribute('value', 'binary', 'A DER-encoded X.509 certificate, in base64.'),
  }),
];

/** The enterprise extension (RFC 7643 §4.3): its object is kept as sent, these attributes set one by one by PATCH. */
export const enterpriseUserAttributes: ScimAttributeDefinition[] = [
  text('employeeNumber', 'A numeric or alphanumeric identifier assigned to the User by the organization.'),
  text('costCenter', 'The name of a cost center.'),
  text('organization', 'The name of an organization.'),
  text('division', 'The name of a division.'),
  text('department', 'The name of a department.'),
  complex(
    'manager',
    "The User's manager: accepted as this object or as the manager's id alone (Entra sends the id), always returned as the complex object {value, $ref, displayName}; an empty value removes it.",
    [
      text('value', "The id of the SCIM resource representing the User's manager."),
      attribute('$ref', 'reference', "The URI of the SCIM resource representing the User's manager.", { referenceTypes: ['User'] }),
      // The RFC makes it readOnly, for a server that fills it in; this one keeps what is sent.
      text('displayName', "The display name of the User's manager, kept as sent."),
    ],
  ),
];

/** A Group (RFC 7643 §4.2): its displayName and externalId unique in the workspace, its members the workspace's Users. */
export const groupAttributes: ScimAttributeDefinition[] = [
  text('displayName', 'A human-readable name for the Group, unique in the workspace (case-insensitively).', {
    required: true,
    uniqueness: 'server',
  }),
  text('externalId', "The directory's own identifier of the Group, unique in the workspace.", { caseExact: true, uniqueness: 'server' }),
  complex(
    'members',
    "The Group's members: Users of this workspace. The Group the workspace's policy names (scim_admin_group) makes its members admins.",
    [
      attribute('value', 'string', 'The id of a User of this workspace.', { caseExact: true, mutability: 'immutable' }),
      attribute('$ref', 'reference', 'The URI of the User.', { referenceTypes: ['User'], mutability: 'immutable' }),
      attribute('type', 'string', 'Always User: Groups do not nest.', { canonicalValues: ['User'], mutability: 'immutable' }),
    ],
    { multiValued: true },
  ),
];
