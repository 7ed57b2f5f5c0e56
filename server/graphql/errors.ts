/**
 * What a failure looks like over GraphQL: the one place (REST's twin is rest/problem.ts). Every error Yoga
 * sends passes through `maskError`, which maps the service's error hierarchy to `extensions.code`:
 *
 *   AppError (server/errors.ts) → its message and `extensions.code` = its REST code in upper case
 *     (NOT_FOUND, UNAUTHENTICATED, REPORT_NOT_READY, ANALYSIS_ITEM_NOT_FOUND, VALIDATION_FAILED, FORBIDDEN,
 *     CSRF_FAILED …); outside execution (no field path) also REST's HTTP status;
 *     VALIDATION_FAILED also carries `extensions.errors`: [{ path, message }], REST's `errors`.
 *   GraphQL's own request errors (syntax, validation, the query limits) → unchanged, with their codes
 *     (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, QUERY_TOO_DEEP, QUERY_TOO_COMPLEX …); one without a code
 *     — a variable that does not fit its type — gets BAD_USER_INPUT.
 *   Anything else → "Unexpected error." with INTERNAL_SERVER_ERROR; the original is logged, never sent.
 */
import type { StandardSchemaV1 } from '@pothos/plugin-validation';
import { GraphQLError } from 'graphql';
import type { Logger } from 'pino';
import * as yup from 'yup';
import { toFieldErrors } from '../../schema/submission.ts';
import { AppError, UnauthenticatedError, ValidationError } from '../errors.ts';

/**
 * The argument that carries a mutation's body. Paths inside it are given without it, so they are REST's
 * paths to the letter (`years_data[1].sheets[0].items[3].current_year_amount`); any other argument's
 * problems start with the argument's name (`slugs[2]`).
 */
const BODY_ARGUMENT = 'input';

type IssuePath = StandardSchemaV1.Issue['path'];

/** Standard Schema path segments → yup's path text, the format REST reports. */
function pathText(path: IssuePath): string {
  const keys = (path ?? []).map((segment) =>
    typeof segment === 'object' && segment !== null ? segment.key : segment,
  );
  if (keys[0] === BODY_ARGUMENT) keys.shift();
  let text = '';
  for (const key of keys) {
    const name = String(key);
    if (typeof key === 'number' || /^\d+$/.test(name)) text += `[${name}]`;
    else if (name.includes('.')) text += `["${name}"]`;
    else text += text ? `.${name}` : name;
  }
  return text;
}

/**
 * Turns the validation plugin's issues into the service's ValidationError, de-duplicated and ordered exactly
 * as REST orders them (by running them through the same toFieldErrors).
 */
export function validationErrorFromIssues(issues: readonly StandardSchemaV1.Issue[]): ValidationError {
  const leaves = issues.map(
    (issue) => new yup.ValidationError(issue.message, undefined, pathText(issue.path)),
  );
  return new ValidationError(toFieldErrors(new yup.ValidationError(leaves)));
}

/** Follows GraphQL's wrapping (a located error around what a resolver threw) to the error itself. */
function originalOf(error: unknown): unknown {
  let current = error;
  while (current instanceof GraphQLError && current.originalError) current = current.originalError;
  return current;
}

function location(error: unknown) {
  return error instanceof GraphQLError
    ? { nodes: error.nodes, source: error.source, positions: error.positions, path: error.path }
    : {};
}

export function toGraphQLError(error: AppError, located?: unknown): GraphQLError {
  const where = location(located);
  return new GraphQLError(error.message, {
    ...where,
    extensions: {
      code: error.code.toUpperCase(),
      ...(error.errors ? { errors: error.errors } : {}),
      ...(error instanceof ValidationError && error.omitted > 0
        ? { errors_truncated: true, errors_omitted: error.omitted }
        : {}),
      // Authentication (401), the CSRF check (403) and a bad X-Console-Mode (422) fail before execution, for
      // the whole request (no field path), so the HTTP status says it too, as REST's would. Errors of single
      // fields keep 200: the rest of the response still holds data.
      ...(error instanceof UnauthenticatedError || !where.path ? { http: { status: error.status } } : {}),
    },
  });
}

/** Yoga's `maskedErrors.maskError`. */
export function createMaskError(logger: Logger) {
  return function maskError(error: unknown, message: string): Error {
    const original = originalOf(error);
    if (original instanceof AppError) return toGraphQLError(original, error);
    if (original instanceof GraphQLError) {
      const outer = error as GraphQLError;
      if (outer.path || outer.extensions.code !== undefined || original.extensions.code !== undefined)
        return outer;
      return new GraphQLError(outer.message, {
        ...location(outer),
        extensions: { ...outer.extensions, code: 'BAD_USER_INPUT' },
      });
    }
    const where = location(error);
    logger.error({ err: original, path: where.path?.join('.') }, 'unexpected error in a GraphQL request');
    return new GraphQLError(message, {
      ...where,
      extensions: {
        code: 'INTERNAL_SERVER_ERROR',
        // Outside execution (no field path) nothing was resolved: the whole request failed, so 500.
        ...(where.path ? {} : { http: { status: 500 } }),
      },
    });
  };
}

/**
 * Every `extensions.code` a client can meet (docs/graphql.md#errors), as the schema's `ErrorCode` enum: the
 * service's errors (REST's codes upper-cased), GraphQL's own, the query limits and the transport's refusals.
 */
export const GRAPHQL_ERROR_CODES = {
  UNAUTHENTICATED:
    'X-API-Key missing, malformed, unknown or revoked; or a console session cookie that names no live session (401).',
  CSRF_FAILED: "A request with the console's session cookie but without its X-CSRF-Token (403).",
  FORBIDDEN: 'A console-only field asked for with an API key.',
  NOT_FOUND: 'No such record visible to this key.',
  ANALYSIS_ITEM_NOT_FOUND: 'analysisItem(slug:) names an item the report does not have.',
  REPORT_NOT_READY: 'analysis / analysisItem of a report that is pending or failed.',
  VALIDATION_FAILED: 'The input breaks a rule; extensions.errors lists every problem as { path, message }.',
  IDEMPOTENCY_KEY_IN_USE: 'The first request with this idempotency key is still being recorded.',
  IDEMPOTENCY_KEY_REUSED: 'The idempotency key was already used with a different input.',
  QUEUE_FULL: 'Too many reports wait to be analysed: retry later.',
  TOO_MANY_REQUESTS: "The key's budget for this operation is spent.",
  BAD_USER_INPUT: 'A variable does not fit its GraphQL type.',
  GRAPHQL_PARSE_FAILED: 'The document does not parse, or is too long.',
  GRAPHQL_VALIDATION_FAILED: 'The document does not fit the schema.',
  QUERY_TOO_DEEP: 'Over the depth limit.',
  QUERY_TOO_COMPLEX: 'Over the cost limit.',
  TOO_MANY_ALIASES: 'Over the alias cap.',
  TOO_MANY_AI_MUTATIONS: 'More than one generateAiAnalysis in one request.',
  NOT_ACCEPTABLE: 'The Accept header names no media type GraphQL responses come in.',
  UNSUPPORTED_MEDIA_TYPE: 'The body is not JSON.',
  REQUEST_ENTITY_TOO_LARGE: 'The body is over BODY_LIMIT_MB.',
  INTERNAL_SERVER_ERROR: 'A bug on our side; the details are only logged.',
} as const;
