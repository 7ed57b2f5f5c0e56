/**
 * Scalars: DateTime (the presenters' ISO 8601 UTC text; parsed into a Date as input) and JSON (the deprecated untyped
 * `spResult`, and the few sp_result values that are maps or always null; `typedSpResult` types the rest).
 */
import { GraphQLError } from 'graphql';
import { builder } from '../builder.ts';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function isoUtc(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string' && ISO_UTC.test(value) && !Number.isNaN(Date.parse(value))) return value;
  throw new GraphQLError(
    'DateTime must be an ISO 8601 UTC date-time ending in Z, e.g. 2024-05-01T08:30:00.000Z',
  );
}

builder.scalarType('DateTime', {
  description:
    'An ISO 8601 date-time in UTC, ending in `Z` (e.g. `2024-05-01T08:30:00.000Z`), as output and as input.',
  // RFC 3339 date-time (the scalars.graphql.org spec), restricted to UTC with `Z`.
  specifiedByURL: 'https://scalars.graphql.org/chillicream/date-time.html',
  coerceOutputValue: isoUtc,
  // Input (a share link's expiry): the same text, and only it — one unambiguous form, no local times.
  coerceInputValue: (value) => new Date(isoUtc(typeof value === 'string' ? value : null)),
});

builder.scalarType('JSON', {
  description:
    'Any JSON value: the deprecated `spResult`, and sp_result maps such as `null_reasons` (see `typedSpResult`).',
  coerceOutputValue: (value) => value,
  coerceInputValue: (value) => value,
});
