/**
 * An audit row's values in words (issue 31): the service keeps them as the API takes them
 * (seconds, bytes, user ids, role and plan codes, booleans), and the trail shows them as a
 * person reads them: "1 day", "5 MB", the member's address, "Admin", "Yes". The export keeps
 * the raw values, for scripts. Roles and plans are named here for every workspace page
 * (`workspaceWords` in the catalogues), in the page's language.
 */
import { policyRules } from '../../shared/domain/workspaces/policy.ts';
import { describeTime } from './dom.ts';
import { hasMessage, locale, t } from './i18n.ts';
import { formatBytes } from './progress.ts';

/** Who a user id is, as the page knows it (members listed, actors of the rows loaded). */
export type PeopleById = ReadonlyMap<string, string>;

/** A role's name ("Admin"); a code the catalogue does not know is shown as it is. */
export const roleName = (role: string): string => (hasMessage(`workspaceWords.role.${role}`) ? t(`workspaceWords.role.${role}`) : role);

/** A plan's name ("Team"); a code the catalogue does not know is shown as it is. */
export const planName = (plan: string): string => (hasMessage(`workspaceWords.plan.${plan}`) ? t(`workspaceWords.plan.${plan}`) : plan);

/** The details the service writes (docs/decisions.md, "Audit rows"), named in the catalogue (`workspaceAudit.detail.<name>`). */
const namedDetails = new Set([
  'email',
  'role',
  'from',
  'to',
  'name',
  'slug',
  'region',
  'hostname',
  'state',
  'logo',
  'accent',
  'issuer',
  'directory_key',
  'client_id',
  'client_secret',
  'enforce',
  'sso_jit',
  'plan',
  'seats',
  'previous_plan',
  'previous_seats',
  'note',
  'by',
  'method',
  'members',
  'scim_id',
  'user_name',
  'active',
  // The policy's rules, as the policy module names them (a policy change's details).
  ...policyRules,
  'scim_admin_group',
  'display_name',
  'to_email',
  'previous_owner',
  'invitation_id',
  'email_domain',
]);

/** A detail's name in words; any other is shown as it comes, its underscores as spaces. */
export const detailLabel = (key: string): string =>
  namedDetails.has(key) ? t(`workspaceAudit.detail.${key}`) : (key.charAt(0).toUpperCase() + key.slice(1)).replaceAll('_', ' ');

/** 86400 → "1 day", 5400 → "90 minutes", 45 → "45 seconds": the largest unit the value is whole in. */
export function formatDuration(seconds: number): string {
  if (seconds >= 86_400 && seconds % 86_400 === 0) return t('workspaceAudit.duration.days', { count: seconds / 86_400 });
  if (seconds >= 3600 && seconds % 3600 === 0) return t('workspaceAudit.duration.hours', { count: seconds / 3600 });
  if (seconds >= 60 && seconds % 60 === 0) return t('workspaceAudit.duration.minutes', { count: seconds / 60 });
  return t('workspaceAudit.duration.seconds', { count: seconds });
}

/** "usr_0o94Xk2…": an id the page cannot name, shortened to what tells ids apart at a glance. */
export const shortId = (id: string): string => (id.length > 12 ? `${id.slice(0, 10)}…` : id);

const isUserId = (value: string) => /^usr_[A-Za-z0-9_-]+$/.test(value);

/** A user id as the member's address when the page knows it, else shortened. */
export const personText = (id: string, people: PeopleById): string => people.get(id) ?? shortId(id);

const listFormat = new Intl.ListFormat(locale, { type: 'unit', style: 'short' });

/** A claim's state, and a logo `set`: the codes the service writes for them, each in words. */
const wordValues: Record<string, readonly string[]> = { state: ['verified', 'pending'], logo: ['set'] };

/**
 * Whether a detail's value is shown in the page's words ("1 day", "Yes", "Admin", a date) rather
 * than as data (an address, a name, a domain, an id), which is never translated.
 */
export function inWords(key: string, value: unknown): boolean {
  if (value === null || value === undefined || typeof value === 'boolean' || typeof value === 'number') return true;
  if (Array.isArray(value)) return value.length === 0 || value.every((each) => inWords(key, each));
  if (typeof value !== 'string') return false;
  if (key === 'role' || key === 'from' || key === 'to' || key === 'plan' || key === 'previous_plan') return true;
  if (wordValues[key]?.includes(value)) return true;
  return key.endsWith('_at') && !Number.isNaN(Date.parse(value));
}

/** One detail's value in words, by its name and its kind. */
export function detailValue(key: string, value: unknown, people: PeopleById): string {
  if (value === null || value === undefined) return t('workspaceAudit.value.none');
  if (typeof value === 'boolean') return value ? t('workspaceAudit.value.yes') : t('workspaceAudit.value.no');
  if (Array.isArray(value))
    return value.length === 0 ? t('workspaceAudit.value.none') : listFormat.format(value.map((each) => detailValue(key, each, people)));
  if (typeof value === 'number') {
    if (key.endsWith('_in') || key.endsWith('_seconds')) return formatDuration(value);
    if (key.endsWith('_bytes')) return formatBytes(value);
    return value.toLocaleString(locale);
  }
  if (typeof value === 'object') return JSON.stringify(value);
  const text = String(value);
  if (key === 'role' || key === 'from' || key === 'to') return roleName(text);
  if (key === 'plan' || key === 'previous_plan') return planName(text);
  if (wordValues[key]?.includes(text)) return t(`workspaceAudit.value.${key}.${text}`);
  if (isUserId(text)) return personText(text, people);
  if (key.endsWith('_id')) return shortId(text);
  if (key.endsWith('_at') && !Number.isNaN(Date.parse(text))) return describeTime(text);
  return text;
}
