import { fileLimits } from '../../shared/limits.ts';
import { expect } from 'vitest';
import type { Refusal } from '../../shared/domain/refusals.ts';
import type { NewTextSecret } from '../../shared/domain/secrets/create.ts';
import { sealText } from '../../shared/envelope/index.ts';
import { problemBody, type HttpError } from '../../shared/http/errors.ts';
import { toHttpError } from '../../shared/http/refusals.ts';
import { memorySecretPorts } from '../fakes/secretGroup.ts';

// What the secrets, files and requests groups' refusal tests share (test/unit/*-refusals.test.ts):
// a refusal caught, held to the HttpError it replaced, and the group's ports on the fakes.

export async function refusalOf(work: Promise<unknown>): Promise<unknown> {
  try {
    await work;
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

/** The refusal is of `kind`, and a client reads of it exactly what `before` said: problem, members, field errors, headers. */
export function expectShown(error: unknown, kind: abstract new (...args: never[]) => Refusal, before: HttpError): void {
  const after = toHttpError(error);
  expect(problemBody(after)).toEqual(problemBody(before));
  expect(after.extras.headers ?? {}).toEqual(before.extras.headers ?? {});
  expect(error).toBeInstanceOf(kind);
}

export const expectRefusal = async (work: Promise<unknown>, kind: abstract new (...args: never[]) => Refusal, before: HttpError) =>
  expectShown(await refusalOf(work), kind, before);

/** A port no test reaches (nothing is sent in a workspace, no upload begins): a call to it is a test's mistake. */
export const unused = (port: string) =>
  new Proxy(
    {},
    {
      get: (_, name) => {
        throw new Error(`unexpected call: ${port}.${String(name)}`);
      },
    },
  ) as never;

export const secretGroupPorts = () => ({
  ...memorySecretPorts(),
  config: {
    WEB_ORIGIN: 'https://secrets.example.com',
    HUSHLINK_MODE: 'local' as const,
    INLINE_COMPLETION_BYTES: fileLimits.inlineCompletionBytes,
  },
  workspaceMembership: unused('workspaceMembership'),
  files: unused('files'),
});

export async function textSecret(overrides: Partial<NewTextSecret> = {}) {
  const sealed = await sealText('the launch code');
  return {
    sealed,
    input: { envelope: sealed.envelope, salt: sealed.salt, expiresInSeconds: 3600, maxViews: 1, ...overrides } satisfies NewTextSecret,
  };
}
