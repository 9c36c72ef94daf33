import * as z from 'zod/mini';
import { accountApi } from './account.ts';
import { secretsApi } from './secrets.ts';
import { webhooksApi } from './webhooks.ts';

/** The OpenAPI document itself, as far as a client relies on it. */
export const openapiApi = {
  OpenApiDocument: z.looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.looseObject({})),
  }),
};

/**
 * Every named schema of every group: what the route table's rows name and the OpenAPI
 * document publishes. Only the document's function imports all of them; each group's
 * function imports its own contract.
 */
export const schemas = { ...secretsApi, ...accountApi, ...webhooksApi, ...openapiApi };
export type Schemas = typeof schemas;
export type SchemaName = keyof Schemas;

/** The contracts by group, for the document and the tests (names must not repeat across groups). */
export const contracts = { secrets: secretsApi, account: accountApi, webhooks: webhooksApi, openapi: openapiApi };
