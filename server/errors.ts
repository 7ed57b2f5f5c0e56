/**
 * The one error hierarchy of the service. Services throw these; REST maps them to RFC 9457 problem
 * documents (server/rest/problem.ts) and GraphQL to `extensions.code` — each in one place.
 */

export interface FieldProblem {
  /** The field, in the request body's own terms: `years_data[1].sheets[0].items[3].current_year_amount`. */
  path: string;
  message: string;
}

export class AppError extends Error {
  /** Machine-readable code, stable across releases: also the last segment of the problem `type`. */
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly errors: FieldProblem[] | undefined;

  constructor(code: string, status: number, title: string, detail: string, errors?: FieldProblem[]) {
    super(detail);
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.title = title;
    this.errors = errors;
  }
}

/** A path or message longer than this is cut (a client-chosen field name could be megabytes long). */
const MAX_PROBLEM_TEXT = 200;
const cut = (text: string) => (text.length > MAX_PROBLEM_TEXT ? `${text.slice(0, MAX_PROBLEM_TEXT)}…` : text);
const boundedProblem = (problem: FieldProblem): FieldProblem => ({
  path: cut(problem.path),
  message: cut(problem.message),
});

/** At most this many field errors are returned; the rest are counted (`errors_omitted`). */
export const MAX_FIELD_ERRORS = 100;

export class ValidationError extends AppError {
  /** Field errors found beyond the MAX_FIELD_ERRORS returned (0 when every one is listed). */
  readonly omitted: number;

  constructor(errors: FieldProblem[], detail?: string) {
    const count = errors.length;
    const omitted = Math.max(0, errors.length - MAX_FIELD_ERRORS);
    super(
      'validation_failed',
      422,
      'The request body is invalid',
      detail ??
        `${count} field${count === 1 ? '' : 's'} failed validation; see errors` +
          (omitted > 0 ? ` (the first ${count - omitted}; ${omitted} more not listed).` : '.'),
      errors.slice(0, MAX_FIELD_ERRORS).map(boundedProblem),
    );
    this.omitted = omitted;
  }
}

export class MalformedJsonError extends AppError {
  constructor(detail = 'The request body is not valid JSON.') {
    super('malformed_json', 400, 'Malformed JSON', detail);
  }
}

export class UnsupportedMediaTypeError extends AppError {
  constructor(got: string | undefined) {
    super(
      'unsupported_media_type',
      415,
      'Unsupported media type',
      `Send the body as Content-Type: application/json${got ? ` (got "${got}")` : ''}.`,
    );
  }
}

export class UnsupportedContentEncodingError extends AppError {
  constructor(got: string) {
    super(
      'unsupported_content_encoding',
      415,
      'Unsupported content encoding',
      `Content-Encoding "${got.slice(0, 40)}" is not supported; send identity, gzip, deflate, br or zstd.`,
    );
  }
}

export class RequestTimeoutError extends AppError {
  constructor(timeoutMs: number) {
    super(
      'request_timeout',
      408,
      'Request timeout',
      `The request body did not arrive within ${Math.round(timeoutMs / 1000)} seconds.`,
    );
  }
}

/** A body limit as people say it: `8 MB` for submissions, `16 kB` for the console's sign-in. */
function formatLimit(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.round(bytes / 1024)} kB`;
}

export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super(
      'payload_too_large',
      413,
      'Payload too large',
      `The request body exceeds the limit of ${formatLimit(limitBytes)}.`,
    );
  }
}

export class UnauthenticatedError extends AppError {
  constructor(detail: string) {
    super('unauthenticated', 401, 'Unauthenticated', detail);
  }
}

export class NotFoundError extends AppError {
  constructor(resource: string, id: string) {
    super('not_found', 404, 'Not found', `No ${resource} with id "${id}" is visible to this API key.`);
  }
}

export class AnalysisItemNotFoundError extends AppError {
  constructor(reportId: string, slug: string) {
    super(
      'analysis_item_not_found',
      404,
      'Not found',
      `Report ${reportId} has no analysis item "${slug}". GET /api/v1/developer/reports/${reportId}/analysis lists them.`,
    );
  }
}

export class RouteNotFoundError extends AppError {
  constructor(method: string, path: string) {
    super('route_not_found', 404, 'Not found', `There is no endpoint ${method} ${path}.`);
  }
}

export class NotReadyError extends AppError {
  constructor(reportId: string, status: string) {
    super(
      'report_not_ready',
      409,
      'Report not ready',
      status === 'failed'
        ? `Report ${reportId} failed; it has no analysis. See error_message on the report.`
        : `Report ${reportId} is still ${status}; analysis can be read once its status is success.`,
    );
  }
}

export class ServiceUnavailableError extends AppError {
  constructor(detail: string) {
    super('service_unavailable', 503, 'Service unavailable', detail);
  }
}

/** Back-pressure: too many analysis jobs wait; the client should retry after `retryAfterSeconds`. */
export class QueueFullError extends AppError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super(
      'queue_full',
      503,
      'Service unavailable',
      `Too many reports are waiting to be analysed; submit again in ${retryAfterSeconds} s.`,
    );
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export class ConflictError extends AppError {
  constructor(code: string, detail: string) {
    super(code, 409, 'Conflict', detail);
  }
}

export class TooManyRequestsError extends AppError {
  readonly retryAfterSeconds: number;
  constructor(detail: string, retryAfterSeconds: number) {
    super('too_many_requests', 429, 'Too many requests', detail);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export class ForbiddenError extends AppError {
  constructor(code: string, detail: string) {
    super(code, 403, 'Forbidden', detail);
  }
}

/**
 * A cookie-authenticated request without the session's CSRF token (X-CSRF-Token), or a sign-in request sent
 * from another site. A browser attaches the cookie on its own; only the console's own pages can read the
 * token and set the header, so its absence means the request may not come from the console.
 */
export class CsrfError extends ForbiddenError {
  constructor(detail: string) {
    super('csrf_failed', detail);
  }
}

/** A request header with a value the API does not accept; `detail` names the header. */
export class InvalidHeaderError extends AppError {
  constructor(header: string, detail: string) {
    super('invalid_header', 400, 'Invalid header', `${header}: ${detail}`);
  }
}

/** The Idempotency-Key was used (within its 24 hours) with a different request body. */
export class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super(
      'idempotency_key_reused',
      422,
      'Idempotency-Key reused',
      'This Idempotency-Key was already used with a different request body. Use a new key for a new request.',
    );
  }
}

/** The first request with this Idempotency-Key is still being recorded: retry after `retryAfterSeconds`. */
export class IdempotencyKeyInUseError extends ConflictError {
  readonly retryAfterSeconds = 1;
  constructor() {
    super(
      'idempotency_key_in_use',
      'A request with this Idempotency-Key is still being processed; retry shortly to get its response.',
    );
  }
}
