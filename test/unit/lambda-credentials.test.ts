import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lambdaBundling, lambdaCredentialsModule } from '../../lib/lambda.ts';
import { defaultProvider } from '../../shared/adapters/lambdaCredentials.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the credentials of the Lambda bundles', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('are the execution role’s, from the environment Lambda sets', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'ASIAEXAMPLE');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'secret-example');
    vi.stubEnv('AWS_SESSION_TOKEN', 'session-example');
    await expect(defaultProvider()()).resolves.toMatchObject({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret-example',
      sessionToken: 'session-example',
    });
    vi.stubEnv('AWS_ACCESS_KEY_ID', '');
    await expect(defaultProvider()()).rejects.toThrow(/environment variable credentials/);
  });

  it('stand in for the SDK’s provider chain in the build CDK runs (the alias names an existing module)', () => {
    expect(lambdaBundling.esbuildArgs).toEqual({ '--alias': `@aws-sdk/credential-provider-node=./${lambdaCredentialsModule}` });
    expect(existsSync(`${root}${lambdaCredentialsModule}`)).toBe(true);
  });

  it('leave the chain’s providers out of a function’s bundle', async () => {
    const result = await esbuild.build({
      entryPoints: [`${root}functions/schedule.ts`],
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
      mainFields: ['module', 'main'],
      absWorkingDir: root,
      alias: { '@aws-sdk/credential-provider-node': `${root}${lambdaCredentialsModule}` },
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((input) => input.includes('credential-provider-env'))).toBe(true);
    for (const gone of ['credential-provider-node/', 'credential-provider-sso', 'credential-provider-ini', 'credential-provider-imds']) {
      expect(
        inputs.filter((input) => input.includes(gone)),
        gone,
      ).toEqual([]);
    }
  });
});
