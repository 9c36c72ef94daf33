import { openApiDocument } from '../shared/api/document.ts';
import { groupHandler, publicRoutesOnly, type GroupDeps, type Operations } from '../shared/http/group.ts';
import { openapiRoutes } from '../shared/routes.ts';
import { lambdaEntry, type Platform } from '../shared/platform.ts';

/** The document's wiring: the platform only (its one route is public, unlimited, and reads no table). */
export type OpenApiDeps = GroupDeps;

export function compose(platform: Platform): OpenApiDeps {
  return { ...platform, guard: publicRoutesOnly };
}

/** Serves the OpenAPI document (DESIGN.md §7), made and serialized once per instance from the route table. */
export function operationsFor(): Operations<'openapi', OpenApiDeps> {
  let made: { document: ReturnType<typeof openApiDocument>; serialized: string } | undefined;
  return {
    async publishOpenApi(_request, deps) {
      if (!made) {
        const document = openApiDocument(deps.config.WEB_ORIGIN);
        made = { document, serialized: JSON.stringify(document) };
      }
      // The same for everyone and changed only by a deploy: clients and caches may keep it an hour.
      return { status: 200, body: made.document, serialized: made.serialized, headers: { 'cache-control': 'public, max-age=3600' } };
    },
  };
}

export const createHandler = (deps: OpenApiDeps) => groupHandler(openapiRoutes, operationsFor(), {}, deps);
export const handler = lambdaEntry((platform) => createHandler(compose(platform)));
