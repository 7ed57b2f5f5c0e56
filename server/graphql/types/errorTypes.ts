/**
 * The shape of `errors[].extensions` as schema types, for client generators: GraphQL has no field that returns
 * an error, so these types are referenced by no field; a client types `extensions` with them
 * (`ErrorExtensions`, `ErrorCode`). The codes are those server/graphql/errors.ts sends (docs/graphql.md#errors).
 */
import { builder } from '../builder.ts';
import { GRAPHQL_ERROR_CODES } from '../errors.ts';

export const ErrorCodeEnum = builder.enumType('ErrorCode', {
  description: 'Every `extensions.code` an error can carry (docs/graphql.md#errors).',
  values: Object.fromEntries(
    Object.entries(GRAPHQL_ERROR_CODES).map(([code, description]) => [code, { description }]),
  ) as Record<keyof typeof GRAPHQL_ERROR_CODES, { description: string }>,
});

const FieldProblemRef = builder.objectRef<{ path: string; message: string }>('FieldProblem').implement({
  description: 'One problem of a VALIDATION_FAILED error: the field in REST’s terms, and what is wrong.',
  fields: (t) => ({ path: t.exposeString('path'), message: t.exposeString('message') }),
});

builder
  .objectRef<{
    code: keyof typeof GRAPHQL_ERROR_CODES;
    errors?: { path: string; message: string }[];
    errors_truncated?: boolean;
    errors_omitted?: number;
  }>('ErrorExtensions')
  .implement({
    description:
      '`errors[].extensions` of every error this API sends (a client types it with this; no field returns it). ' +
      'Keys are those sent: `code` always; `errors`, `errors_truncated`, `errors_omitted` for VALIDATION_FAILED.',
    fields: (t) => ({
      code: t.expose('code', { type: ErrorCodeEnum }),
      errors: t.expose('errors', { type: [FieldProblemRef], nullable: true }),
      errors_truncated: t.exposeBoolean('errors_truncated', { nullable: true }),
      errors_omitted: t.exposeInt('errors_omitted', { nullable: true }),
    }),
  });
