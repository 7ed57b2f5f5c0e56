/**
 * Maps every error to an RFC 9457 problem document (application/problem+json). The only place that
 * decides what a failure looks like over REST.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import {
  AppError,
  IdempotencyKeyInUseError,
  QueueFullError,
  TooManyRequestsError,
  UnauthenticatedError,
  ValidationError,
} from '../errors.ts';

/** Where each problem `type` resolves: GET /problems/{code} explains the code (server/rest/problemPages.ts). */
export const PROBLEM_BASE = '/problems/';

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  /** The request's X-Request-Id (sent by the client or made here): quote it when asking about a failure. */
  request_id?: string;
  errors?: Array<{ path: string; message: string }>;
  /** Present (true) when more field errors were found than `errors` lists; `errors_omitted` says how many. */
  errors_truncated?: true;
  errors_omitted?: number;
}

export function problemFromError(error: AppError, instance?: string): ProblemDocument {
  return {
    type: `${PROBLEM_BASE}${error.code}`,
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    ...(instance ? { instance } : {}),
    ...(error.errors ? { errors: error.errors } : {}),
    ...(error instanceof ValidationError && error.omitted > 0
      ? { errors_truncated: true as const, errors_omitted: error.omitted }
      : {}),
  };
}

export function sendProblem(ctx: Context, problem: ProblemDocument): void {
  ctx.status = problem.status;
  ctx.type = 'application/problem+json';
  // An error describes this request only; no cache should keep it (a 401 could otherwise mask a fixed key).
  ctx.set('Cache-Control', 'no-store');
  const requestId = ctx.response.get('X-Request-Id');
  ctx.body = requestId ? { ...problem, request_id: requestId } : problem;
}

export function problemMiddleware(logger: Logger) {
  return async function problems(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (error) {
      if (error instanceof AppError) {
        if (
          error instanceof TooManyRequestsError ||
          error instanceof QueueFullError ||
          error instanceof IdempotencyKeyInUseError
        )
          ctx.set('Retry-After', String(error.retryAfterSeconds));
        // RFC 9110 §11.6.1: a 401 names the scheme it wants (documented in docs/api-behaviour.md).
        if (error instanceof UnauthenticatedError && ctx.path.startsWith('/api/v1/developer'))
          ctx.set('WWW-Authenticate', 'ApiKey header="X-API-Key"');
        sendProblem(ctx, problemFromError(error, ctx.path));
        return;
      }
      logger.error({ err: error, method: ctx.method, path: ctx.path }, 'unhandled error');
      sendProblem(ctx, {
        type: `${PROBLEM_BASE}internal_error`,
        title: 'Internal server error',
        status: 500,
        detail: 'Something went wrong on our side. The request can be retried.',
        code: 'internal_error',
        instance: ctx.path,
      });
    }
  };
}
