import * as z from 'zod/mini';
import { accountRequests } from './account.ts';
import { accountReplies } from './accountReplies.ts';
import { secretsRequests } from './secrets.ts';
import { secretsReplies } from './secretsReplies.ts';
import { gateRequests } from './gate.ts';
import { filesRequests } from './files.ts';
import { filesReplies } from './filesReplies.ts';
import { gateReplies } from './gateReplies.ts';
import { requestsRequests } from './requests.ts';
import { requestsReplies } from './requestsReplies.ts';
import { webhooksRequests } from './webhooks.ts';
import { webhooksReplies } from './webhooksReplies.ts';
import { billingReplies, billingRequests, billingWebhookReplies, billingWebhookRequests } from './billing.ts';
import { workspacesRequests } from './workspaces.ts';
import { workspacesReplies } from './workspacesReplies.ts';
import { scimReplies, scimRequests } from './scim.ts';
import { chatReplies, chatRequests } from './chat.ts';

/** The OpenAPI document itself, as far as a client relies on it. */
export const openapiReplies = {
  OpenApiDocument: z.looseObject({
    openapi: z.literal('3.1.0'),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.looseObject({})),
  }),
};

/** Each group's contract: what its routes take (parsed at run time) and answer (types and the document only). */
export const contracts = {
  secrets: { requests: secretsRequests, replies: secretsReplies },
  gate: { requests: gateRequests, replies: gateReplies },
  files: { requests: filesRequests, replies: filesReplies },
  requests: { requests: requestsRequests, replies: requestsReplies },
  account: { requests: accountRequests, replies: accountReplies },
  webhooks: { requests: webhooksRequests, replies: webhooksReplies },
  workspaces: { requests: workspacesRequests, replies: workspacesReplies },
  billing: { requests: billingRequests, replies: billingReplies },
  billingWebhook: { requests: billingWebhookRequests, replies: billingWebhookReplies },
  scim: { requests: scimRequests, replies: scimReplies },
  chat: { requests: chatRequests, replies: chatReplies },
  openapi: { requests: {}, replies: openapiReplies },
};

/**
 * Every named schema of every group: what the route table's rows name and the OpenAPI
 * document publishes. Only the document's function imports all of them; each group's
 * function imports its own requests, and the replies' types only.
 */
export const schemas = {
  ...secretsRequests,
  ...secretsReplies,
  ...gateRequests,
  ...gateReplies,
  ...filesRequests,
  ...filesReplies,
  ...requestsRequests,
  ...requestsReplies,
  ...accountRequests,
  ...accountReplies,
  ...webhooksRequests,
  ...webhooksReplies,
  ...workspacesRequests,
  ...workspacesReplies,
  ...billingRequests,
  ...billingReplies,
  ...billingWebhookReplies,
  ...scimRequests,
  ...scimReplies,
  ...chatRequests,
  ...chatReplies,
  ...openapiReplies,
};
export type Schemas = typeof schemas;
export type SchemaName = keyof Schemas;
