/**
 * Maps every error to an RFC 9457 problem document (application/problem+json). The only place that
 * decides what a failure looks like over REST.
 */
import type { Context, Next } from 'koa';
import type { Logger } from 'pino';
import { AppError, QueueFullError, TooManyRequestsError, ValidationError } from '../errors.ts';

export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  errors?: Array<{ path: string; message: string }>;
  /** Present (true) when more field errors were found than `errors` lists; `errors_omitted` says how many. */
  errors_truncated?: true;
  errors_omitted?: number;
}

export function problemFromError(error: AppError, instance?: string): ProblemDocument {
  return {
    type: `/problems/${error.code}`,
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
  ctx.body = problem;
}

export function problemMiddleware(logger: Logger) {
  return async function problems(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (error) {
      if (error instanceof AppError) {
        if (error instanceof TooManyRequestsError || error instanceof QueueFullError)
          ctx.set('Retry-After', String(error.retryAfterSeconds));
        sendProblem(ctx, problemFromError(error, ctx.path));
        return;
      }
      logger.error({ err: error, method: ctx.method, path: ctx.path }, 'unhandled error');
      sendProblem(ctx, {
        type: '/problems/internal_error',
        title: 'Internal server error',
        status: 500,
        detail: 'Something went wrong on our side. The request can be retried.',
        code: 'internal_error',
        instance: ctx.path,
      });
    }
  };
}
