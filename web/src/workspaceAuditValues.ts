/**
 * An audit row's values in words (issue 31): the service keeps them as the API takes them
 * (seconds, bytes, user ids, role and plan codes, booleans), and the trail shows them as a
 * person reads them: "1 day", "5 MB", the member's address, "Admin", "Yes". The export keeps
 * the raw values, for scripts.
 */
import { describeTime } from './dom.ts';
import { formatBytes } from './progress.ts';
import { planLabel, roleLabel } from './workspaceText.ts';

/** Who a user id is, as the page knows it (members listed, actors of the rows loaded). */
export type PeopleById = ReadonlyMap<string, string>;

/** The details' names in words; any other is shown with its underscores as spaces. */
const keyLabels: Record<string, string> = {
  max_expires_in: 'Longest expiry',
  max_views: 'Most views',
  require_passphrase: 'Passphrase required',
  allowed_recipient_domains: 'Recipients’ domains',
  allow_files: 'Files allowed',
  max_file_bytes: 'Largest file',
  allow_requests: 'Request links allowed',
  scim_admin_group: 'SCIM admin Group',
  display_name: 'Name shown',
  to_email: 'New owner',
  previous_owner: 'Previous owner',
  invitation_id: 'Invitation',
  email_domain: 'Email domain',
};

export const detailLabel = (key: string): string => keyLabels[key] ?? (key.charAt(0).toUpperCase() + key.slice(1)).replaceAll('_', ' ');

const durationUnits: readonly [seconds: number, one: string, many: string][] = [
  [86_400, 'day', 'days'],
  [3600, 'hour', 'hours'],
  [60, 'minute', 'minutes'],
];

/** 86400 → "1 day", 5400 → "90 minutes", 45 → "45 seconds": the largest unit the value is whole in. */
export function formatDuration(seconds: number): string {
  for (const [size, one, many] of durationUnits) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size} ${seconds === size ? one : many}`;
  }
  return `${seconds} ${seconds === 1 ? 'second' : 'seconds'}`;
}

/** "usr_0o94Xk2…": an id the page cannot name, shortened to what tells ids apart at a glance. */
export const shortId = (id: string): string => (id.length > 12 ? `${id.slice(0, 10)}…` : id);

const isUserId = (value: string) => /^usr_[A-Za-z0-9_-]+$/.test(value);

/** A user id as the member's address when the page knows it, else shortened. */
export const personText = (id: string, people: PeopleById): string => people.get(id) ?? shortId(id);

/** One detail's value in words, by its name and its kind. */
export function detailValue(key: string, value: unknown, people: PeopleById): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map((each) => detailValue(key, each, people)).join(', ');
  if (typeof value === 'number') {
    if (key.endsWith('_in') || key.endsWith('_seconds')) return formatDuration(value);
    if (key.endsWith('_bytes')) return formatBytes(value);
    return value.toLocaleString();
  }
  if (typeof value === 'object') return JSON.stringify(value);
  const text = String(value);
  if (key === 'role' || key === 'from' || key === 'to') return roleLabel(text);
  if (key === 'plan') return planLabel(text);
  if (isUserId(text)) return personText(text, people);
  if (key.endsWith('_id')) return shortId(text);
  if (key.endsWith('_at') && !Number.isNaN(Date.parse(text))) return describeTime(text);
  return text;
}
