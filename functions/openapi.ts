import { openapiApi } from '../shared/api/index.ts';
import { openApiDocument } from '../shared/api/document.ts';
import { apiDeps, type ApiDeps } from '../shared/http/apiDeps.ts';
import { groupHandler, type Operations } from '../shared/http/group.ts';
import { lambdaEntry, type Platform } from '../shared/platform.ts';

/** The document's wiring: nothing beyond what every API function has (its route is public). */
export type OpenApiDeps = ApiDeps;

export function compose(platform: Platform): OpenApiDeps {
  return apiDeps(platform);
}

/** Serves the OpenAPI document (DESIGN.md §7), made once per instance from the route table. */
export function operationsFor(): Operations<'openapi', OpenApiDeps> {
  let document: ReturnType<typeof openApiDocument> | undefined;
  return {
    async publishOpenApi(_request, deps) {
      document ??= openApiDocument(deps.config.WEB_ORIGIN);
      // The same for everyone and changed only by a deploy: clients and caches may keep it an hour.
      return { status: 200, body: document, headers: { 'cache-control': 'public, max-age=3600' } };
    },
  };
}

export const createHandler = (deps: OpenApiDeps) => groupHandler('openapi', operationsFor(), openapiApi, deps);
export const handler = lambdaEntry((platform) => createHandler(compose(platform)));
