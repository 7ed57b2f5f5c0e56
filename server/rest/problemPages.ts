/**
 * The page each problem `type` resolves to: GET /problems/{code} explains one error code (what it means and
 * what to do), as HTML for a browser and as JSON for a program (Accept: application/json). GET /problems lists
 * them all. Every code a problem body can carry is listed here; a test checks the list covers AppError codes.
 */
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { RouteNotFoundError } from '../errors.ts';
import { IMPORT_PROBLEM_DOCS } from '../import/importErrors.ts';
import { PROBLEM_BASE } from './problem.ts';

export interface ProblemCodeDoc {
  status: number;
  title: string;
  meaning: string;
  action: string;
}

export const PROBLEM_CODES: Record<string, ProblemCodeDoc> = {
  validation_failed: {
    status: 422,
    title: 'The request body is invalid',
    meaning: 'One or more fields failed validation. `errors` lists each one by its path in the body.',
    action: 'Fix the named fields and send the request again. Retrying unchanged fails the same way.',
  },
  malformed_json: {
    status: 400,
    title: 'Malformed JSON',
    meaning: 'The body could not be parsed as JSON.',
    action: 'Send a valid JSON document.',
  },
  invalid_header: {
    status: 400,
    title: 'Invalid header',
    meaning:
      'A request header has a value the API does not accept (for example an empty or over-long Idempotency-Key).',
    action: 'Fix the header named in `detail`.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    meaning: 'The body was not sent as application/json.',
    action: 'Send Content-Type: application/json.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    meaning: 'The body exceeds the configured limit (BODY_LIMIT_MB).',
    action: 'Send fewer years or fewer line items per request.',
  },
  unauthenticated: {
    status: 401,
    title: 'Unauthenticated',
    meaning:
      'No API key was sent, or it is unknown or revoked (the response carries `WWW-Authenticate: ApiKey`). For the console: no valid session.',
    action: 'Send a valid key in the X-API-Key header, or sign in again.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    meaning: 'The caller is authenticated but may not do this (e.g. an API key managing keys).',
    action: 'Use the console session for console-only operations.',
  },
  csrf_failed: {
    status: 403,
    title: 'Forbidden',
    meaning: 'A console request came without the session’s CSRF token.',
    action: 'Send the token from the sign-in response in X-CSRF-Token.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    meaning:
      'No such resource is visible to this key (another account’s or mode’s resources do not exist for you).',
    action: 'Check the id and that the key has the same mode (test or live) as the one that created it.',
  },
  analysis_item_not_found: {
    status: 404,
    title: 'Not found',
    meaning: 'The report has no analysis item with this slug.',
    action: 'GET …/reports/{id}/analysis lists the slugs; the catalogue describes them.',
  },
  route_not_found: {
    status: 404,
    title: 'Not found',
    meaning: 'There is no endpoint with this method and path.',
    action: 'See the reference at /docs.',
  },
  report_not_ready: {
    status: 409,
    title: 'Report not ready',
    meaning:
      'The report has not succeeded (it is pending or failed), so it has no analysis or share link yet.',
    action:
      'Poll the report (honour Retry-After) until its status is success; a failed report needs a new submission.',
  },
  email_taken: {
    status: 409,
    title: 'Conflict',
    meaning: 'An account with this email already exists.',
    action: 'Sign in instead.',
  },
  too_many_api_keys: {
    status: 409,
    title: 'Conflict',
    meaning: 'The account already holds the most active API keys of this mode (MAX_API_KEYS_PER_MODE, 20).',
    action: 'Revoke a key you no longer use in the console, then create the new one.',
  },
  idempotency_key_in_use: {
    status: 409,
    title: 'Conflict',
    meaning: 'A request with this Idempotency-Key is still being processed.',
    action: 'Retry after the Retry-After delay; the first request’s response is then replayed.',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency-Key reused',
    meaning: 'This Idempotency-Key was used in the last 24 hours with a different request body.',
    action: 'Use a new key for a new submission; reuse a key only to retry the identical request.',
  },
  too_many_requests: {
    status: 429,
    title: 'Too many requests',
    meaning: 'A rate limit was reached.',
    action: 'Wait for the Retry-After delay, then retry.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    meaning: 'A dependency (the database) is not reachable.',
    action: 'Retry with exponential backoff.',
  },
  web_app_not_built: {
    status: 503,
    title: 'Service unavailable',
    meaning: 'The web app has not been built on this server.',
    action: 'Operators: run npm run build:web.',
  },
  internal_error: {
    status: 500,
    title: 'Internal server error',
    meaning: 'Something failed on the server side.',
    action:
      'Retry (submissions with an Idempotency-Key, so a retry cannot create a second report); quote request_id if it persists.',
  },
  ...IMPORT_PROBLEM_DOCS,
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(code: string, doc: ProblemCodeDoc): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(code)} — ${doc.status} ${escapeHtml(doc.title)}</title></head>
<body><main><h1><code>${escapeHtml(code)}</code></h1>
<p>HTTP ${doc.status} — ${escapeHtml(doc.title)}</p>
<h2>What it means</h2><p>${escapeHtml(doc.meaning)}</p>
<h2>What to do</h2><p>${escapeHtml(doc.action)}</p>
<p>Every problem body carries <code>request_id</code>; quote it when reporting an issue. All codes: <a href="${PROBLEM_BASE.slice(0, -1)}">${PROBLEM_BASE.slice(0, -1)}</a>.</p>
</main></body></html>
`;
}

export function problemPageRoutes(): Middleware {
  const router = new Router();
  router.get(PROBLEM_BASE.slice(0, -1), (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = Object.entries(PROBLEM_CODES).map(([code, doc]) => ({
      code,
      type: `${PROBLEM_BASE}${code}`,
      ...doc,
    }));
  });
  router.get(`${PROBLEM_BASE}:code`, (ctx) => {
    const code = ctx.params.code!;
    const doc = Object.hasOwn(PROBLEM_CODES, code) ? PROBLEM_CODES[code] : undefined;
    if (!doc) throw new RouteNotFoundError(ctx.method, ctx.path);
    ctx.set('Cache-Control', 'public, max-age=3600');
    if (ctx.accepts('html', 'json') === 'json') {
      ctx.body = { code, type: `${PROBLEM_BASE}${code}`, ...doc };
      return;
    }
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'");
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page(code, doc);
  });
  return router.routes() as Middleware;
}
