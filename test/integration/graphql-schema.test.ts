/**
 * The GraphQL contract without a server: the committed SDL is the printed schema, the error mapping masks
 * what it does not know, and the limits count what they say they count.
 */
import { readFileSync } from 'node:fs';
import { GraphQLError, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { AppError, NotFoundError, ValidationError } from '../../server/errors.ts';
import { createMaskError, validationErrorFromIssues } from '../../server/graphql/errors.ts';
import { MAX_COST, MAX_DEPTH, queryLimitsRule } from '../../server/graphql/limits.ts';
import { printGraphQLSchema, SCHEMA_PATH } from '../../server/graphql/printSchema.ts';
import { schema } from '../../server/graphql/schema.ts';
import { REPORT_SLUGS } from '../../worker/engine/registry.ts';

describe('GraphQL schema and error mapping', () => {
  it('is committed as schema/schema.graphql, printed from the code', () => {
    // Regenerate with `npm run schema:graphql` when this fails.
    expect(readFileSync(SCHEMA_PATH, 'utf8')).toBe(printGraphQLSchema());
  });

  it('keeps REST’s field names in the submission input', () => {
    const input = schema.getType('SubmitFinancialReportInput') as unknown as { getFields(): object };
    expect(Object.keys(input.getFields()).sort()).toEqual(
      [
        'accounting_standard',
        'ai_auto_analysis',
        'enterprise_info',
        'enterprise_name',
        'year_end',
        'year_start',
        'years_data',
      ].sort(),
    );
  });

  it('maps service errors to extensions.code, and masks and logs anything else', () => {
    const logged: unknown[] = [];
    const logger = { error: (...args: unknown[]) => logged.push(args) } as never;
    const maskError = createMaskError(logger);
    const located = (original: Error) =>
      new GraphQLError(original.message, { path: ['report'], originalError: original });

    const notFound = maskError(
      located(new NotFoundError('report', 'x')),
      'Unexpected error.',
    ) as GraphQLError;
    expect(notFound.message).toBe('No report with id "x" is visible to this API key.');
    expect(notFound.extensions).toEqual({ code: 'NOT_FOUND' });
    expect(notFound.path).toEqual(['report']);
    const invalid = maskError(
      located(new ValidationError([{ path: 'year_end', message: 'must be greater than year_start' }])),
      'Unexpected error.',
    ) as GraphQLError;
    expect(invalid.extensions).toEqual({
      code: 'VALIDATION_FAILED',
      errors: [{ path: 'year_end', message: 'must be greater than year_start' }],
    });
    expect(
      (maskError(located(new AppError('report_not_ready', 409, 't', 'd')), 'x') as GraphQLError).extensions
        .code,
    ).toBe('REPORT_NOT_READY');
    expect(logged).toEqual([]);

    const secret = new Error('connection to 10.0.0.7 refused: password authentication failed');
    const masked = maskError(located(secret), 'Unexpected error.') as GraphQLError;
    expect(masked.message).toBe('Unexpected error.');
    expect(masked.extensions).toEqual({ code: 'INTERNAL_SERVER_ERROR' });
    expect(JSON.stringify(masked)).not.toContain('10.0.0.7');
    expect(logged).toEqual([[{ err: secret, path: 'report' }, 'unexpected error in a GraphQL request']]);
    // Outside execution (no path) the whole request failed: 500.
    expect((maskError(secret, 'Unexpected error.') as GraphQLError).extensions).toEqual({
      code: 'INTERNAL_SERVER_ERROR',
      http: { status: 500 },
    });
  });

  it('turns validation issues into REST’s paths, in REST’s order', () => {
    const error = validationErrorFromIssues([
      { message: 'b', path: ['input', 'years_data', 10, 'year'] },
      { message: 'a', path: ['input', 'years_data', 9, 'sheets', '0', 'items', '2', 'item_name'] },
      { message: 'c', path: ['input', 'year_end'] },
      { message: 'c', path: ['input', 'year_end'] },
      { message: 'd', path: [{ key: 'slugs' }, { key: 1 }] },
    ]);
    expect(error.errors).toEqual([
      { path: 'slugs[1]', message: 'd' },
      { path: 'year_end', message: 'c' },
      { path: 'years_data[9].sheets[0].items[2].item_name', message: 'a' },
      { path: 'years_data[10].year', message: 'b' },
    ]);
  });

  it('counts depth and cost as documented', () => {
    const check = (query: string) => validate(schema, parse(query), [queryLimitsRule(MAX_DEPTH, MAX_COST)]);
    // Per report of a page: connection + edge + node + enterprise + slugs × (item + risk items).
    const perReport = 1 + 1 + 1 + 1 + REPORT_SLUGS.length * 2;
    const page = (first: number) =>
      `{ reports(first: ${first}) { edges { node { enterprise { name } analysis { slug riskItems { level } } } } } }`;
    expect(100 * perReport).toBeLessThanOrEqual(MAX_COST);
    expect(check(page(100))).toEqual([]);
    const twice = check(`{ a: ${page(100).slice(2, -2)} b: ${page(100).slice(2, -2)} }`);
    expect(twice.map((e) => e.extensions.cost)).toEqual([200 * perReport]);
    // A negative page size counts as 0: it cannot offset other fields' cost.
    const offset = check(
      `{ a: reports(first: -1000000) { edges { cursor } } ${page(100).slice(2, -2).replace('reports', 'b: reports')} ${page(100).slice(2, -2).replace('reports', 'c: reports')} }`,
    );
    expect(offset.map((e) => e.extensions.code)).toEqual(['QUERY_TOO_COMPLEX']);
    // Introspection is exempt; unknown fragments and fragment cycles are left to GraphQL's own rules.
    expect(
      check(
        '{ __schema { types { fields { type { ofType { ofType { ofType { ofType { ofType { name } } } } } } } } } }',
      ),
    ).toEqual([]);
    expect(check('{ ...Unknown }')).toEqual([]);
    expect(check('query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }')).toEqual([]);
  });
});
