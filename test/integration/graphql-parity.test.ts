/**
 * REST and GraphQL are two views of the same services and presenters: submit through one, read through the
 * other, and every field agrees (GraphQL's camelCase names are REST's snake_case names), on PostgreSQL and
 * on embedded PGlite.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spResultTypeName } from '../../server/graphql/types/spResult.ts';
import { loadOpenApiDocument } from '../../server/rest/docsRoutes.ts';
import { REPORT_SLUGS } from '../../worker/engine/registry.ts';
import type { Backend } from '../helpers/database.ts';
import { graphql } from '../helpers/graphql.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const REPORT_FIELDS = `reportId name status errorMessage enterpriseId versionNo accountingStandard yearStart yearEnd
  aiAutoAnalysis validationWarnings { code path message } createdAt completedAt
  share { isPublic shareToken shareUrl webUrl shareExpiresAt }
  aiUsage { model runs calls promptTokens completionTokens totalTokens fallbacks modelItems builtinItems fallbackReasons updatedAt }`;
const TASK_FIELDS =
  'taskId reportId done reportUrl status step attempts errorMessage createdAt startedAt finishedAt';
const ITEM_FIELDS = 'slug label spResult riskItems { level message code source } aiContent aiSource cachedAt';
const RECEIPT_FIELDS =
  'reportId taskId enterpriseId versionNo status shareUrl validationWarnings { code path message } message';

const READ = `query Read($report: ID!, $task: ID!) {
  report(id: $report) { ${REPORT_FIELDS} analysis { ${ITEM_FIELDS} } revenue: analysisItem(slug: "revenue") { ${ITEM_FIELDS} } }
  task(id: $task) { ${TASK_FIELDS} }
}`;
const SUBMIT = `mutation($input: SubmitFinancialReportInput!) { submitFinancialReport(input: $input) { ${RECEIPT_FIELDS} } }`;

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema };
const spSchemas = (loadOpenApiDocument() as { components: { schemas: Record<string, JsonSchema> } })
  .components.schemas;

/** A selection of every key of a generated sp_result schema (nested objects and arrays of them included). */
function selectAll(schema: JsonSchema): string {
  return Object.entries(schema.properties ?? {})
    .map(([key, inner]) => {
      const object = inner.items?.properties ? inner.items : inner.properties ? inner : undefined;
      return object ? `${key} { ${selectAll(object)} }` : key;
    })
    .join(' ');
}

/** GraphQL answers every selected key; REST omits the optional ones (data_gaps …): drop those nulls. */
function withoutAbsent(gql: unknown, rest: unknown): unknown {
  if (Array.isArray(gql)) return gql.map((entry, i) => withoutAbsent(entry, (rest as unknown[])?.[i]));
  if (gql === null || typeof gql !== 'object') return gql;
  const restObject = (rest ?? {}) as Record<string, unknown>;
  return Object.fromEntries(
    Object.entries(gql)
      .filter(([key, value]) => key !== '__typename' && (value !== null || key in restObject))
      .map(([key, value]) => [key, withoutAbsent(value, restObject[key])]),
  );
}

const snake = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * A GraphQL object in REST's terms: every key snake_cased, recursively — except inside spResult, a JSON
 * value passed through untouched (its keys are REST's already).
 */
function restShape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(restShape);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [snake(key), key === 'spResult' ? inner : restShape(inner)]),
  );
}

describe.each<Backend>(['postgres', 'pglite'])('REST ⇄ GraphQL parity on %s', (backend) => {
  let service: TestService;
  let key: string;

  beforeAll(async () => {
    service = await startTestService(backend);
    key = await service.newKey('test');
  });
  afterAll(async () => {
    await service?.close();
  });

  async function readRest(reportId: string, taskId: string) {
    const [report, task, analysis, revenue] = await Promise.all(
      [
        `/api/v1/developer/reports/${reportId}`,
        `/api/v1/developer/tasks/${taskId}`,
        `/api/v1/developer/reports/${reportId}/analysis`,
        `/api/v1/developer/reports/${reportId}/analysis/revenue`,
      ].map((path) => service.request(path, { key })),
    );
    for (const response of [report, task, analysis, revenue]) expect(response?.status).toBe(200);
    return { report: report!.body, task: task!.body, analysis: analysis!.body, revenue: revenue!.body };
  }

  async function readGraphQL(reportId: string, taskId: string) {
    const response = await graphql(service, key, READ, { report: reportId, task: taskId });
    expect(response.body.errors, response.text).toBeUndefined();
    const { analysis, revenue, ...report } = response.body.data.report;
    return { report, task: response.body.data.task, analysis, revenue };
  }

  it('types sp_result per slug: typedSpResult holds every key REST sends, for every item', async () => {
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: fixture('general_new-4y-inconsistent'),
    });
    await waitForReport(service, key, submitted.body.report_id);
    const rest = await service.request(`/api/v1/developer/reports/${submitted.body.report_id}/analysis`, {
      key,
    });
    // One query per slug (a query is capped at 2,000 tokens), each selecting every key of its member.
    for (const slug of REPORT_SLUGS) {
      const query = `query($id: ID!) { report(id: $id) { analysisItem(slug: "${slug}") { typedSpResult {
        __typename ... on ${spResultTypeName(slug)} { ${selectAll(spSchemas[`SpResult_${slug}`]!)} } } } } }`;
      const response = await graphql(service, key, query, { id: submitted.body.report_id });
      expect(response.body.errors, response.text).toBeUndefined();
      const typed = response.body.data.report.analysisItem.typedSpResult;
      const restItem = rest.body.items.find((entry: { slug: string }) => entry.slug === slug);
      expect(typed.__typename).toBe(spResultTypeName(slug));
      expect(withoutAbsent(typed, restItem.sp_result), slug).toEqual(restItem.sp_result);
    }
  });

  /** Both transports' reads of one report, compared field by field. */
  async function expectSameReads(reportId: string, taskId: string) {
    const rest = await readRest(reportId, taskId);
    const gql = await readGraphQL(reportId, taskId);
    expect(rest.report.status).toBe('success');
    expect(restShape(gql.report)).toEqual(rest.report);
    expect(restShape(gql.task)).toEqual(rest.task);
    expect(restShape(gql.analysis)).toEqual(rest.analysis.items);
    expect(gql.analysis).toHaveLength(rest.analysis.total);
    expect(restShape(gql.revenue)).toEqual(rest.revenue);
  }

  it('submits through GraphQL and reads the same report, task and analysis through REST', async () => {
    const body = { ...fixture('general_old-5y-ai'), enterprise_name: `GraphQL 提交-${randomUUID()}` };
    const submitted = await graphql(service, key, SUBMIT, { input: body });
    expect(submitted.body.errors, submitted.text).toBeUndefined();
    const receipt = submitted.body.data.submitFinancialReport;
    await waitForReport(service, key, receipt.reportId);
    await expectSameReads(receipt.reportId, receipt.taskId);

    // The receipt is the 202 body: same fields, same values, as REST's receipt for the same body.
    const rest = await service.request('/api/v1/developer/reports/financial', { method: 'POST', key, body });
    expect(rest.status).toBe(202);
    const asRest = restShape(receipt) as Record<string, unknown>;
    expect(Object.keys(asRest).sort()).toEqual(Object.keys(rest.body).sort());
    expect(asRest).toEqual({
      ...rest.body,
      report_id: receipt.reportId,
      task_id: receipt.taskId,
      version_no: rest.body.version_no - 1,
      message: rest.body.message.replace(rest.body.report_id, receipt.reportId),
    });
    await waitForReport(service, key, rest.body.report_id);
  });

  it('submits through REST and reads the same report, task and analysis through GraphQL', async () => {
    const body = { ...fixture('general_new-4y-inconsistent'), enterprise_name: `REST 提交-${randomUUID()}` };
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body,
    });
    expect(submitted.status).toBe(202);
    await waitForReport(service, key, submitted.body.report_id);
    await expectSameReads(submitted.body.report_id, submitted.body.task_id);
  });
});
