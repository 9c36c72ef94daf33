import { expect } from 'vitest';
import type { Reply } from './runtime.ts';

/** A refusal as the document says: its status, problem+json, and its code. */
export function expectProblem(reply: Reply, status: number, code: string) {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status);
  expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(reply.body).toMatchObject({ status, code });
}
