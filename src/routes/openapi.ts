// GET /v1/openapi.json (the OpenAPI 3.1 document, no key) and GET /docs (the same document
// rendered for people). Both are built once per isolate: the document depends only on code.
import { Hono } from "hono";
import { buildOpenApiDocument, type OpenApiDocument } from "../contract/openapi.ts";
import { renderDocsPage } from "./docs-page.tsx";

let document: OpenApiDocument | undefined;
let page: string | undefined;

const openApiDocument = () => (document ??= buildOpenApiDocument());

export const openApiRoutes = new Hono<{ Bindings: Env }>()
  .get("/v1/openapi.json", (c) => c.json(openApiDocument(), 200, { "cache-control": "public, max-age=300" }))
  .get("/docs", (c) => c.html((page ??= renderDocsPage(openApiDocument())), 200, { "cache-control": "public, max-age=300" }));
