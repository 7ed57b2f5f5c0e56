/**
 * REST and GraphQL are two views of the same services and presenters: submit through one, read through the
 * other, and every field agrees (GraphQL's camelCase names are REST's snake_case names), on PostgreSQL and
 * on embedded PGlite.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
