import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { groups } from '../../shared/routes.ts';

// A group's property suite is one line (`propertySuite('<group>')`); a new group must have it.
it('every route group has its property suite', () => {
  expect(groups.filter((group) => !existsSync(`test/property/${group}.test.ts`))).toEqual([]);
});
