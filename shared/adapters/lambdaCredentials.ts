import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * The credential provider every AWS client of a Lambda bundle uses: the execution role's keys,
 * which Lambda puts in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN) before the handler loads. The Lambda build aliases the SDK's default
 * provider chain (`@aws-sdk/credential-provider-node`: SSO, profiles, processes, web identity,
 * the metadata services, with the clients they need) to this module (lib/lambda.ts), which
 * keeps about 37 KiB of gzip out of every bundle; the chain's first step in Lambda was this one
 * anyway. Same signature as the chain it stands in for; only the Lambda bundles use it.
 */
export const defaultProvider: typeof fromEnv = (init) => fromEnv(init);
