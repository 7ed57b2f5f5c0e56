/**
 * An integrator's program against the types GraphQL Code Generator (typescript + typescript-operations) makes from
 * the served schema and test/clients/graphqlOperations.graphql (test/integration/generated-clients.test.ts): it
 * must type-check under `tsc --strict` with no cast.
 */
import type { ListQuery, PollQuery, SubmitMutation } from '../artifacts/clients/graphql/operations.ts';
import type { ErrorExtensions } from '../artifacts/clients/graphql/types.ts';

export function submitted(result: SubmitMutation): string {
  return result.submitFinancialReport.reportId;
}

export function poll(result: PollQuery): {
  done: boolean;
  revenue: number | null | undefined;
  years: number[];
} {
  const report = result.report;
  if (!report) return { done: false, revenue: null, years: [] };
  const completedAt: string | null | undefined = report.completedAt;
  const spResult = report.analysisItem?.typedSpResult;
  if (spResult?.__typename !== 'RevenueSpResult')
    return { done: completedAt != null, revenue: null, years: [] };
  return {
    done: report.status === 'success',
    revenue: spResult.operating_revenue,
    years: spResult.series.map((entry) => entry.year),
  };
}

export function listed(result: ListQuery): string[] {
  return result.reports.edges.map((edge) => `${edge.node.id} ${edge.node.createdAt}`);
}

/** A typed error: `extensions.code` is the ErrorCode enum, `errors` the field problems. */
export function problems(errors: ReadonlyArray<{ message: string; extensions: ErrorExtensions }>): string[] {
  return errors.flatMap((error) =>
    error.extensions.code === 'VALIDATION_FAILED'
      ? (error.extensions.errors ?? []).map((problem) => problem.path)
      : error.extensions.code === 'NOT_FOUND'
        ? ['not found']
        : [error.message],
  );
}
