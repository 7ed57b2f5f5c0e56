/**
 * The web app and what it reads without a key:
 * - GET /api/v1/shared/reports/:token — the public, read-only share endpoint (one report's content only);
 * - GET /api/v1/shared/reports/:token/export.xlsx — the same report as an Excel workbook (every indicator by year);
 * - /assets/* — the Vite build's content-hashed files, cached for a year (precompressed .br/.gz when accepted);
 * - the SPA's routes (/, /shared/reports/:token, /console…) answered with index.html, never cached. A share
 *   link that cannot be opened (unknown, private, expired) gets index.html with status 404, and the SPA shows
 *   its not-found view; other unknown paths a browser navigates to get the same 404 page.
 * API paths (/api, /graphql, /docs, /healthz) are never answered here: they fall through to the JSON 404.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Router } from '@koa/router';
import { send } from '@koa/send';
import type { Context, Middleware, Next } from 'koa';
import { AppError, NotFoundError } from '../errors.ts';
import { clientSubject } from '../lib/rateLimits.ts';
import { chargeAddress } from '../middlewares/rateLimit.ts';
import { presentSharedReport } from '../presenters/sharePresenter.ts';
import type { ServiceContext } from '../services/context.ts';
import { exportSharedReport } from '../services/shareExport.ts';
import { findSharedReport, getSharedReport } from '../services/sharing.ts';

/** Where `vite build` writes the app (vite.config.ts). */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const IMMUTABLE = 'public, max-age=31536000, immutable';
const RESERVED = /^\/(api|graphql|docs|healthz|assets)(\/|$)/;
/**
 * Only same-origin scripts, styles, data and XHR: the page loads nothing from the internet. Inline style
 * attributes are allowed because Vue bindings and ECharts set element styles.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const gzipAsync = promisify(gzip);

class WebAppNotBuiltError extends AppError {
  constructor() {
    super(
      'web_app_not_built',
      503,
      'Service unavailable',
      'The web app has not been built. Run `npm run build:web` (npm ci runs it too).',
    );
  }
}

/** JSON, gzip-compressed when the client accepts it (a report is ~100–200 kB of JSON, ~10× smaller gzipped). */
async function sendJson(ctx: Context, body: unknown): Promise<void> {
  const json = JSON.stringify(body);
  ctx.vary('Accept-Encoding');
  ctx.type = 'application/json';
  if (json.length >= 1024 && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = await gzipAsync(json);
  } else {
    ctx.body = json;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Link previews (Open Graph) of a share link: the enterprise's name and "财务分析报告", never a figure — a
 * preview is shown to whoever the link is pasted to, and the page itself stays out of search engines.
 */
function previewTags(name: string): string {
  const title = escapeHtml(`${name} · 财务分析报告`);
  const description = escapeHtml(`${name}的财务分析报告`);
  return [
    `<meta property="og:type" content="article" />`,
    `<meta property="og:title" content="${title}" />`,
    `<meta property="og:description" content="${description}" />`,
    `<meta name="description" content="${description}" />`,
    `<meta name="twitter:card" content="summary" />`,
  ].join('\n    ');
}

/**
 * The share page's own data, requested by the browser as it parses the page (`<link rel="preload" as="fetch">`)
 * instead of once the entry script has run: the page's fetch of the same URL (same mode and credentials) takes the
 * preloaded response, so the reader's phone starts the report's download in parallel with the app's code.
 */
function preloadTag(token: string): string {
  return `<link rel="preload" as="fetch" href="/api/v1/shared/reports/${escapeHtml(encodeURIComponent(token))}" crossorigin="anonymous" />`;
}

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  css?: string[];
}

/** The share page's route component in the build's manifest (vite.config.ts `build.manifest`). */
const SHARE_PAGE_SOURCE = 'src/pages/SharedReport.vue';

/**
 * The share page's own code and styles: the route's chunk and the chunks it imports statically (not the entry,
 * which the HTML loads anyway, and not the chart code, which the page imports later on purpose), from the build's
 * manifest. Without these, the phone asks for the page's chunk only once the entry has arrived and run — one more
 * round trip on the slow line before the first screen. Empty when the build has no manifest.
 */
export function sharePageAssets(manifest: Record<string, ManifestChunk>): {
  scripts: string[];
  styles: string[];
} {
  const scripts: string[] = [];
  const styles: string[] = [];
  const seen = new Set<string>();
  const visit = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || seen.has(key) || chunk.isEntry) return;
    seen.add(key);
    scripts.push(`/${chunk.file}`);
    for (const css of chunk.css ?? []) if (!styles.includes(`/${css}`)) styles.push(`/${css}`);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(SHARE_PAGE_SOURCE);
  return { scripts, styles };
}

async function sharePreloadTags(): Promise<string[]> {
  let manifest: Record<string, ManifestChunk>;
  try {
    manifest = JSON.parse(await readFile(`${WEB_DIST}.vite/manifest.json`, 'utf8')) as Record<
      string,
      ManifestChunk
    >;
  } catch {
    return [];
  }
  const { scripts, styles } = sharePageAssets(manifest);
  return [
    ...scripts.map((href) => `<link rel="modulepreload" crossorigin href="${escapeHtml(href)}" />`),
    ...styles.map((href) => `<link rel="preload" as="style" crossorigin href="${escapeHtml(href)}" />`),
  ];
}

async function sendIndex(
  ctx: Context,
  status: 200 | 404,
  preview?: { name: string; token: string },
): Promise<void> {
  let html: string;
  try {
    html = await readFile(`${WEB_DIST}index.html`, 'utf8');
  } catch {
    throw new WebAppNotBuiltError();
  }
  if (preview) {
    html = html
      .replace(/<title>[^<]*<\/title>/, `<title>${escapeHtml(`${preview.name} · 财务分析报告`)}</title>`)
      .replace(
        /<head>/,
        `<head>\n    ${[preloadTag(preview.token), ...(await sharePreloadTags())].join('\n    ')}`,
      )
      .replace('</head>', `  ${previewTags(preview.name)}\n  </head>`);
  }
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Cache-Control', 'no-cache');
  ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Robots-Tag', 'noindex, nofollow');
  ctx.body = html;
}

/** A file of the build, or next() when there is none (a missing asset is a 404, never the SPA). */
async function sendStatic(ctx: Context, next: Next, cacheControl: string): Promise<void> {
  ctx.vary('Accept-Encoding');
  ctx.set('Cache-Control', cacheControl);
  ctx.set('X-Content-Type-Options', 'nosniff');
  try {
    if (await send(ctx, ctx.path, { root: WEB_DIST, index: false, hidden: false })) return;
  } catch (error) {
    const status = (error as { status?: number }).status;
    if (status !== 404 && status !== 400 && status !== 403) throw error;
  }
  ctx.remove('Cache-Control');
  ctx.remove('Content-Encoding');
  await next();
}

export function webRoutes(services: ServiceContext): Middleware {
  const api = new Router({ prefix: '/api/v1/shared' });
  api.get('/reports/:token', async (ctx) => {
    // Set first so that the 404 problem document is not cached either: a link made public again must work.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Robots-Tag', 'noindex, nofollow');
    await chargeAddress(ctx, 'share_reads', clientSubject(ctx.ip));
    await sendJson(ctx, presentSharedReport(await getSharedReport(services, ctx.params.token!)));
  });
  api.get('/reports/:token/export.xlsx', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Robots-Tag', 'noindex, nofollow');
    await chargeAddress(ctx, 'share_exports', clientSubject(ctx.ip));
    const { name, body } = await exportSharedReport(services, ctx.params.token!);
    ctx.type = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    ctx.set(
      'Content-Disposition',
      `attachment; filename="report.xlsx"; filename*=UTF-8''${encodeURIComponent(name)}`,
    );
    ctx.body = body;
  });
  const apiRoutes = api.routes() as Middleware;

  async function spa(ctx: Context, next: Next): Promise<void> {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const path = ctx.path;
    if (path.startsWith('/assets/')) return sendStatic(ctx, next, IMMUTABLE);
    if (RESERVED.test(path)) return next();

    if (path === '/' || path === '/console' || path.startsWith('/console/')) return sendIndex(ctx, 200);
    const share = /^\/shared\/reports\/([^/]+)$/.exec(path);
    if (share) {
      // The page and its JSON share one budget per client address (a reader needs a few of each).
      await chargeAddress(ctx, 'share_reads', clientSubject(ctx.ip));
      try {
        const token = decodeURIComponent(share[1]!);
        const report = await findSharedReport(services, token);
        return sendIndex(ctx, 200, { name: report.name, token });
      } catch (error) {
        if (error instanceof NotFoundError || error instanceof URIError) return sendIndex(ctx, 404);
        throw error;
      }
    }
    // Files at the top of the build (public/), if any.
    if (/^\/[^/]+\.[A-Za-z0-9]+$/.test(path) && path !== '/index.html') {
      return sendStatic(ctx, next, 'public, max-age=3600');
    }
    // Any other page a browser navigates to: the SPA's not-found view, with a real 404.
    if (ctx.accepts('json', 'html') === 'html') return sendIndex(ctx, 404);
    return next();
  }

  return (ctx, next) => apiRoutes(ctx, () => spa(ctx, next));
}
