/**
 * Lambda's event filtering (the `FilterCriteria` of an event source mapping), for the local
 * pollers: a pattern is an object whose leaves are arrays of allowed values; a record matches
 * when every key of the pattern matches. Of the rule kinds Lambda offers, the ones the stack's
 * patterns use are understood: exact values and `{exists: true|false}`. Any other rule throws
 * when the filter is made, so a pattern the local runtime cannot honour never passes silently.
 */
export type FilterPattern = { readonly [key: string]: FilterPattern | readonly FilterRule[] };
export type FilterRule = string | number | boolean | null | { readonly exists: boolean };

/** A record passes when any one of the patterns matches it (Lambda's `Filters` list). */
export function eventFilter(patterns: readonly FilterPattern[]): (record: unknown) => boolean {
  for (const pattern of patterns) check(pattern, '');
  return (record) => patterns.some((pattern) => matches(pattern, record));
}

function check(pattern: FilterPattern, at: string): void {
  for (const [key, value] of Object.entries(pattern)) {
    const path = `${at}.${key}`;
    if (Array.isArray(value)) {
      for (const rule of value as readonly FilterRule[]) {
        if (rule !== null && typeof rule === 'object' && (Object.keys(rule).join() !== 'exists' || typeof rule.exists !== 'boolean')) {
          throw new Error(`filter rule at ${path} is not one the local runtime understands: ${JSON.stringify(rule)}`);
        }
      }
    } else if (value !== null && typeof value === 'object') {
      check(value as FilterPattern, path);
    } else {
      throw new Error(`filter pattern at ${path} must be an array of rules or an object`);
    }
  }
}

function matches(pattern: FilterPattern, value: unknown): boolean {
  const object = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return Object.entries(pattern).every(([key, expected]) => {
    const present = Object.hasOwn(object, key);
    if (!Array.isArray(expected)) return present && matches(expected as FilterPattern, object[key]);
    return (expected as readonly FilterRule[]).some((rule) => {
      if (rule !== null && typeof rule === 'object') return rule.exists === present;
      return present && object[key] === rule;
    });
  });
}
