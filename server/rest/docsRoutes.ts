/**
 * The REST contract: /api/v1/openapi.json (schema/openapi.yaml as JSON) and a readable reference at /docs
 * (Swagger UI from the installed swagger-ui-dist, served from node_modules: the page loads nothing from
 * another origin). Neither needs an API key.
 */
import { hash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { Router } from '@koa/router';
import { send } from '@koa/send';
import type { Middleware } from 'koa';
import { parse } from 'yaml';
import { RouteNotFoundError } from '../errors.ts';

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/docs';
const OPENAPI_SOURCE = new URL('../../schema/openapi.yaml', import.meta.url);
/** Where a process keeps the parsed document for the next (node_modules/.cache, as build tools do). */
const OPENAPI_CACHE = new URL('../../node_modules/.cache/financial-report-analysis/', import.meta.url);

/** The files of swagger-ui-dist the page uses (and their source maps, for the browser's dev tools). */
const ASSET_FILES = new Set(
  ['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png', 'favicon-16x16.png'].flatMap((file) =>
    file.endsWith('.png') ? [file] : [file, `${file}.map`],
  ),
);

const ONE_YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/**
 * No inline script (the initializer is a file of its own), nothing from another origin. Swagger UI sets
 * style attributes and uses data: images in its CSS, hence those two allowances.
 */
const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

let openApiDocument: Record<string, unknown> | undefined;

/**
 * The OpenAPI document as parsed from schema/openapi.yaml: a copy of its own for each caller. The 440 kB of YAML are
 * parsed once per process (0.2–0.3 s; start-up needs it twice: the GraphQL sp_result types and the docs routes).
 */
export function loadOpenApiDocument(): Record<string, unknown> {
  openApiDocument ??= parseOpenApiSource(OPENAPI_SOURCE, OPENAPI_CACHE);
  return structuredClone(openApiDocument);
}

/**
 * The OpenAPI document at `source` parsed, from the JSON an earlier process wrote in `cacheDir` of the same text when
 * there is one: parsing schema/openapi.yaml took 0.5–0.6 s of every start of the service (and of every test file that
 * builds the app) on the VMs of docs/performance.md, its JSON 12 ms. The file is named by the YAML's SHA-256, so an edited document is parsed
 * again; it is written under a name of its own and renamed, so a reader never sees half of one. Where it cannot be
 * read, parsed or written (a read-only install), the YAML is parsed as before.
 */
export function parseOpenApiSource(source: URL, cacheDir: URL): Record<string, unknown> {
  const text = readFileSync(source, 'utf8');
  const name = `openapi-${hash('sha256', text, 'hex').slice(0, 32)}.json`;
  const cached = new URL(name, cacheDir);
  try {
    return JSON.parse(readFileSync(cached, 'utf8')) as Record<string, unknown>;
  } catch {
    // Not written yet (or unreadable): parse the YAML.
  }
  const document = parse(text) as Record<string, unknown>;
  try {
    mkdirSync(cacheDir, { recursive: true });
    const partial = new URL(`${name}.${process.pid}.${Date.now()}`, cacheDir);
    writeFileSync(partial, JSON.stringify(document));
    renameSync(partial, cached);
  } catch {
    // A read-only install: the next process parses the YAML too.
  }
  return document;
}

function swaggerUi(): { root: string; version: string } {
  // swagger-ui-dist's main module would load the whole browser bundle into Node; only its location is needed.
  const manifest = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { root: dirname(manifest), version };
}

function docsPage(assets: string, initializer: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Financial Report Analysis API — reference</title>
    <link rel="stylesheet" href="${assets}/swagger-ui.css">
    <link rel="icon" type="image/png" href="${assets}/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="${assets}/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${assets}/swagger-ui-bundle.js" charset="utf-8"></script>
    <script src="${initializer}" charset="utf-8"></script>
  </body>
</html>
`;
}

function initializerScript(): string {
  // validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io for a badge.
  const options = {
    url: OPENAPI_PATH,
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    layout: 'BaseLayout',
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
    tryItOutEnabled: false,
  };
  return `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle(Object.assign(${JSON.stringify(options)}, {
    presets: [SwaggerUIBundle.presets.apis],
  }));
});
`;
}

/** The router itself, so that tests can list its routes. */
export function docsRouter(): Router {
  // Parsed once, when the app is built: a broken document fails start-up, not the first request.
  const documentJson = JSON.stringify(loadOpenApiDocument());
  const documentEtag = `"${hash('sha256', documentJson, 'base64url').slice(0, 27)}"`;
  const ui = swaggerUi();
  // The version is part of the asset path, so the files can be cached for good and an upgrade still shows.
  const assets = `${DOCS_PATH}/assets/${ui.version}`;
  const initializer = `${DOCS_PATH}/swagger-initializer.js`;
  const page = docsPage(assets, initializer);
  const script = initializerScript();

  const router = new Router();

  router.get(OPENAPI_PATH, (ctx) => {
    ctx.status = 200;
    ctx.etag = documentEtag;
    // Revalidate every time (cheap with the ETag): the document changes with each release.
    ctx.set('Cache-Control', 'no-cache');
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = documentJson;
  });

  router.get(DOCS_PATH, (ctx) => {
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page;
  });

  router.get(initializer, (ctx) => {
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = script;
  });

  router.get(`${DOCS_PATH}/assets/:version/:file`, async (ctx) => {
    const { version, file } = ctx.params;
    // Only the listed files of the installed version. Answered here rather than passed on, so that the web
    // app's fallback (mounted after this router) never serves its page for a missing asset.
    if (version !== ui.version || !file || !ASSET_FILES.has(file)) {
      throw new RouteNotFoundError(ctx.method, ctx.path);
    }
    ctx.set('X-Content-Type-Options', 'nosniff');
    await send(ctx, file, { root: ui.root, maxage: ONE_YEAR_MS, immutable: true, index: false });
  });

  return router;
}

export function docsRoutes(): Middleware {
  // The router's middleware type asks for the params it adds to the context itself; app.use takes it as is.
  return docsRouter().routes() as Middleware;
}
