/**
 * The GraphQL API over HTTP on PostgreSQL: authentication and tenancy, the error codes, validation paths
 * equal to REST's, readiness, the reports connection, and the depth, cost and size limits.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findOrCreateAccount, revokeApiKeyByValue } from '../../server/services/apiKeys.ts';
import { graphql } from '../helpers/graphql.ts';
import { insertReport } from '../helpers/records.ts';
import {
  fixture,
  type SubmissionBody,
  startTestService,
  type TestService,
  waitForReport,
} from '../helpers/service.ts';

const SUBMIT = `mutation Submit($input: SubmitFinancialReportInput!) {
  submitFinancialReport(input: $input) { reportId taskId enterpriseId versionNo status validationWarnings { code path message } }
}`;
const REPORT = `query Report($id: ID!) {
  report(id: $id) { reportId status errorMessage share { shareUrl } analysis { slug } }
}`;
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

describe('GraphQL API on postgres', () => {
  let service: TestService;
  let key: string;

  beforeAll(async () => {
    // One key asks for everything here, catalogues included: one point per request, so this file tests GraphQL
    // and not the pricing of reads by cost (tenant-fairness.test.ts does).
    service = await startTestService('postgres', { graphqlCostPerRead: 0 });
    key = await service.newKey('test');
  });
  afterAll(async () => {
    await service?.close();
  });

  /** A fresh account with one key; returns the key and the account id (for rows written behind the API). */
  async function tenant(mode: 'test' | 'live' = 'test') {
    const email = `gql-${randomUUID()}@example.com`;
    const accountKey = await service.newKey(mode, email);
    const accountId = await findOrCreateAccount(service.services.db.orm.em.fork(), email);
    return { key: accountKey, accountId, email };
  }

  async function submit(body: SubmissionBody, withKey = key) {
    const response = await graphql(service, withKey, SUBMIT, { input: body });
    expect(response.status, response.text).toBe(200);
    return response.body.data.submitFinancialReport;
  }

  describe('authentication', () => {
    it.each([
      ['no key', undefined, /X-API-Key/],
      ['a malformed key', 'not-a-key', /valid API key/],
      ['an unknown key', `ek_test_${'A'.repeat(43)}`, /not recognised/],
    ])('answers UNAUTHENTICATED (401) for %s, before validating anything', async (_what, badKey, message) => {
      for (const [query, variables] of [
        ['{ catalogue { riskLevels } }', undefined],
        ['{ __schema { queryType { name } } }', undefined],
        [SUBMIT, { input: { ...fixture('general_new-3y'), year_end: 1900 } }],
      ] as const) {
        const response = await graphql(service, badKey, query, variables);
        expect(response.status).toBe(401);
        expect(response.body.data).toBeUndefined();
        expect(response.body.errors).toHaveLength(1);
        expect(response.body.errors[0].extensions).toEqual({ code: 'UNAUTHENTICATED' });
        expect(response.body.errors[0].message).toMatch(message);
      }
    });

    it('rejects a revoked key on the next request', async () => {
      const own = await tenant();
      expect((await graphql(service, own.key, '{ catalogue { riskLevels } }')).status).toBe(200);
      await revokeApiKeyByValue(service.services.db.orm.em.fork(), own.key);
      const after = await graphql(service, own.key, '{ catalogue { riskLevels } }');
      expect(after.status).toBe(401);
      expect(after.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
      expect(after.body.errors[0].message).toMatch(/revoked/);
    });
  });

  describe('tenancy', () => {
    it('shows a report, its task and its analysis only to keys of the same account and mode', async () => {
      const owner = await tenant();
      const sameAccount = await service.newKey('test', owner.email);
      const ownerLive = await service.newKey('live', owner.email);
      const stranger = await service.newKey('test');
      const receipt = await submit(fixture('general_new-3y'), owner.key);
      await waitForReport(service, owner.key, receipt.reportId);

      const query = `query($report: ID!, $task: ID!) {
        report(id: $report) { reportId analysis(slugs: ["revenue"]) { slug } analysisItem(slug: "cost") { slug } }
        task(id: $task) { taskId report { reportId } }
      }`;
      const variables = { report: receipt.reportId, task: receipt.taskId };
      const own = await graphql(service, sameAccount, query, variables);
      expect(own.body.errors).toBeUndefined();
      expect(own.body.data.report.analysis).toEqual([{ slug: 'revenue' }]);
      expect(own.body.data.task.report.reportId).toBe(receipt.reportId);

      for (const other of [ownerLive, stranger]) {
        const response = await graphql(service, other, query, variables);
        expect(response.status).toBe(200);
        expect(response.body.data).toEqual({ report: null, task: null });
        expect(response.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toEqual([
          'NOT_FOUND',
          'NOT_FOUND',
        ]);
        const listed = await graphql(
          service,
          other,
          '{ reports(first: 100) { edges { node { reportId } } } }',
        );
        const ids = listed.body.data.reports.edges.map(
          (edge: { node: { reportId: string } }) => edge.node.reportId,
        );
        expect(ids).not.toContain(receipt.reportId);
      }
    });

    it('answers NOT_FOUND for unknown and malformed ids, with the path of the field', async () => {
      for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
        const response = await graphql(
          service,
          key,
          `query($id: ID!) { report(id: $id) { reportId } task(id: $id) { taskId } }`,
          {
            id,
          },
        );
        expect(response.status).toBe(200);
        expect(response.body.data).toEqual({ report: null, task: null });
        expect(response.body.errors).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ path: ['report'], extensions: { code: 'NOT_FOUND' } }),
            expect.objectContaining({ path: ['task'], extensions: { code: 'NOT_FOUND' } }),
          ]),
        );
      }
    });
  });

  describe('readiness', () => {
    it('answers REPORT_NOT_READY for the analysis of a pending or failed report, keeping the report', async () => {
      const own = await tenant();
      const pending = await insertReport(service.services, own.accountId, { status: 'pending' });
      const failed = await insertReport(service.services, own.accountId, {
        status: 'failed',
        errorMessage: 'statements could not be read',
      });
      for (const [ids, status] of [
        [pending, 'pending'],
        [failed, 'failed'],
      ] as const) {
        const response = await graphql(service, own.key, REPORT, { id: ids.reportId });
        expect(response.status).toBe(200);
        expect(response.body.data.report).toMatchObject({
          reportId: ids.reportId,
          status,
          share: null,
          analysis: null,
        });
        expect(response.body.errors).toHaveLength(1);
        expect(response.body.errors[0]).toMatchObject({
          path: ['report', 'analysis'],
          extensions: { code: 'REPORT_NOT_READY' },
        });
      }
      const failedRead = await graphql(service, own.key, REPORT, { id: failed.reportId });
      expect(failedRead.body.data.report.errorMessage).toBe('statements could not be read');
      const item = await graphql(
        service,
        own.key,
        `query($id: ID!) { report(id: $id) { analysisItem(slug: "revenue") { slug } } }`,
        {
          id: pending.reportId,
        },
      );
      expect(item.body.errors[0].extensions.code).toBe('REPORT_NOT_READY');
      const task = await graphql(
        service,
        own.key,
        `query($id: ID!) { task(id: $id) { status step report { status } } }`,
        {
          id: pending.taskId,
        },
      );
      expect(task.body.data.task).toEqual({
        status: 'processing',
        step: 'queued',
        report: { status: 'pending' },
      });
    });

    it('answers ANALYSIS_ITEM_NOT_FOUND for a slug the report lacks, VALIDATION_FAILED for unknown slugs', async () => {
      const receipt = await submit(fixture('small_enterprise-2y-no-cash-flow'));
      await waitForReport(service, key, receipt.reportId);
      const item = await graphql(
        service,
        key,
        `query($id: ID!) { report(id: $id) { status analysisItem(slug: "no_such_slug") { slug } } }`,
        {
          id: receipt.reportId,
        },
      );
      expect(item.body.data.report).toEqual({ status: 'success', analysisItem: null });
      expect(item.body.errors[0]).toMatchObject({
        path: ['report', 'analysisItem'],
        extensions: { code: 'ANALYSIS_ITEM_NOT_FOUND' },
      });
      const list = await graphql(
        service,
        key,
        `query($id: ID!) { report(id: $id) { analysis(slugs: ["revenue", "nope", "cost"]) { slug } } }`,
        {
          id: receipt.reportId,
        },
      );
      expect(list.body.errors[0].extensions).toEqual({
        code: 'VALIDATION_FAILED',
        errors: [{ path: 'slugs[1]', message: 'is not an analysis slug (the catalogue lists them)' }],
      });
      const some = await graphql(
        service,
        key,
        `query($id: ID!) { report(id: $id) { analysis(slugs: ["cost", "revenue"]) { slug } } }`,
        {
          id: receipt.reportId,
        },
      );
      // Catalogue order, whatever the order asked for.
      expect(some.body.data.report.analysis).toEqual([{ slug: 'revenue' }, { slug: 'cost' }]);
    });
  });

  describe('submission', () => {
    it('returns the 202 body’s data and a readable pending report', async () => {
      const body = {
        ...fixture('small_enterprise-2y-no-cash-flow'),
        enterprise_name: `提交测试-${randomUUID()}`,
      };
      const response = await graphql(
        service,
        key,
        `mutation($input: SubmitFinancialReportInput!) { submitFinancialReport(input: $input) {
          reportId taskId enterpriseId versionNo status shareUrl message validationWarnings { code path message }
          report { reportId status name } task { taskId status }
        } }`,
        { input: body },
      );
      const receipt = response.body.data.submitFinancialReport;
      expect(receipt).toMatchObject({ versionNo: 1, status: 'pending', shareUrl: null });
      expect(receipt.taskId).not.toBe(receipt.reportId);
      expect(receipt.message).toContain(receipt.reportId);
      expect(receipt.validationWarnings.some((w: { code: string }) => w.code === 'cash_flow_missing')).toBe(
        true,
      );
      expect(receipt.report).toEqual({
        reportId: receipt.reportId,
        status: 'pending',
        name: body.enterprise_name,
      });
      expect(receipt.task).toEqual({ taskId: receipt.taskId, status: 'processing' });
      expect((await waitForReport(service, key, receipt.reportId)).body.status).toBe('success');
    });

    it('reports every validation problem with exactly the paths and messages of REST, writing nothing', async () => {
      const body = fixture('general_new-3y');
      body.enterprise_name = '名'.repeat(201);
      body.year_end = body.year_start;
      body.ai_auto_analysis = 2;
      body.enterprise_info = { city: '杭州市', is_sme: 5 };
      body.years_data[1]!.sheets[0]!.items[3]!.current_year_amount = '1,234.00';
      body.years_data[0]!.sheets[1]!.items[2]!.ending_balance = '12e5';
      body.years_data[2]!.sheets[0]!.items[1]!.item_name =
        body.years_data[2]!.sheets[0]!.items[0]!.item_name!;
      body.years_data[1]!.sheets = body.years_data[1]!.sheets.filter(
        (sheet) => sheet.sheet_type !== 'balance',
      );
      const rest = await service.request('/api/v1/developer/reports/financial', {
        method: 'POST',
        key,
        body,
      });
      expect(rest.status).toBe(422);
      const reports = await graphql(service, key, '{ reports(first: 100) { edges { cursor } } }');

      const response = await graphql(service, key, SUBMIT, { input: body });
      expect(response.status).toBe(200);
      expect(response.body.data).toBeNull();
      expect(response.body.errors).toHaveLength(1);
      const [error] = response.body.errors;
      expect(error.path).toEqual(['submitFinancialReport']);
      expect(error.message).toBe(rest.body.detail);
      expect(error.extensions.code).toBe('VALIDATION_FAILED');
      expect(error.extensions.errors.length).toBeGreaterThanOrEqual(8);
      expect(error.extensions.errors).toEqual(rest.body.errors);
      expect(await graphql(service, key, '{ reports(first: 100) { edges { cursor } } }')).toMatchObject({
        body: reports.body,
      });
    });

    it('leaves type errors to GraphQL: BAD_USER_INPUT naming the variable path, before any resolver', async () => {
      const body = { ...fixture('general_new-3y'), accounting_standard: 'ifrs' };
      const response = await graphql(service, key, SUBMIT, { input: body });
      expect(response.status).toBe(400);
      expect(response.body.data).toBeUndefined();
      expect(response.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(response.body.errors[0].message).toContain('input.accounting_standard');
      const number = fixture('general_new-3y') as unknown as {
        years_data: Array<{ sheets: Array<{ items: Array<Record<string, unknown>> }> }>;
      };
      number.years_data[0]!.sheets[0]!.items[0]!.current_year_amount = 12.5;
      const amount = await graphql(service, key, SUBMIT, { input: number });
      expect(amount.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(amount.body.errors[0].message).toContain(
        'input.years_data[0].sheets[0].items[0].current_year_amount',
      );
    });

    it('cannot run a mutation over GET', async () => {
      const query = encodeURIComponent('mutation { __typename }');
      const response = await service.request(`/graphql?query=${query}`, { key });
      expect(response.status).toBe(405);
    });
  });

  describe('reports connection', () => {
    it('pages newest first by (created_at, id), filters by status and enterprise, and sees only its own', async () => {
      const own = await tenant();
      const base = Date.parse('2024-03-01T00:00:00.000Z');
      const at = (minutes: number) => new Date(base + minutes * 60_000);
      const rows: Array<{ reportId: string; minutes: number; status: string }> = [];
      for (const [minutes, status] of [
        [0, 'success'],
        [1, 'failed'],
        [2, 'pending'],
        [2, 'success'],
        [2, 'success'],
        [3, 'pending'],
        [4, 'success'],
      ] as const) {
        rows.push({
          ...(await insertReport(service.services, own.accountId, { status, createdAt: at(minutes) })),
          minutes,
          status,
        });
      }
      // Same account, other mode; and another account: never listed.
      await insertReport(service.services, own.accountId, {
        status: 'success',
        mode: 'live',
        createdAt: at(5),
      });
      await insertReport(service.services, (await tenant()).accountId, {
        status: 'success',
        createdAt: at(6),
      });
      const expected = [...rows]
        .sort((a, b) => b.minutes - a.minutes || (a.reportId < b.reportId ? 1 : -1))
        .map((row) => row.reportId);

      const PAGE = `query($first: Int!, $after: String, $filter: ReportFilter) {
        reports(first: $first, after: $after, filter: $filter) {
          edges { cursor node { reportId status enterpriseId createdAt } }
          pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        }
      }`;
      const seen: string[] = [];
      let after: string | null = null;
      for (let page = 0; page < 5; page++) {
        const response = await graphql(service, own.key, PAGE, { first: 3, after });
        expect(response.body.errors, response.text).toBeUndefined();
        const { edges, pageInfo } = response.body.data.reports;
        seen.push(...edges.map((edge: { node: { reportId: string } }) => edge.node.reportId));
        expect(pageInfo.startCursor).toBe(edges[0]?.cursor ?? null);
        expect(pageInfo.endCursor).toBe(edges.at(-1)?.cursor ?? null);
        expect(pageInfo.hasPreviousPage).toBe(false);
        if (!pageInfo.hasNextPage) break;
        after = pageInfo.endCursor;
      }
      expect(seen).toEqual(expected);

      const pending = await graphql(service, own.key, PAGE, { first: 100, filter: { status: 'pending' } });
      expect(
        pending.body.data.reports.edges.map((edge: { node: { reportId: string } }) => edge.node.reportId),
      ).toEqual(expected.filter((id) => rows.find((row) => row.reportId === id)!.status === 'pending'));
      const one = await graphql(service, own.key, PAGE, { first: 100 });
      const enterpriseId = one.body.data.reports.edges[3].node.enterpriseId;
      const byEnterprise = await graphql(service, own.key, PAGE, {
        first: 100,
        filter: { enterprise: enterpriseId },
      });
      expect(
        byEnterprise.body.data.reports.edges.map(
          (edge: { node: { reportId: string } }) => edge.node.reportId,
        ),
      ).toEqual([expected[3]]);
      const nothing = await graphql(service, own.key, PAGE, {
        first: 10,
        filter: { enterprise: 'not-a-uuid' },
      });
      expect(nothing.body.data.reports).toMatchObject({
        edges: [],
        pageInfo: { hasNextPage: false, endCursor: null },
      });
      const defaultPage = await graphql(service, own.key, '{ reports { edges { cursor } } }');
      expect(defaultPage.body.data.reports.edges).toHaveLength(expected.length);
    });

    it('rejects a page size outside 1–100 and a cursor it did not make, as VALIDATION_FAILED', async () => {
      for (const [variables, path] of [
        [{ first: 0 }, 'first'],
        [{ first: 101 }, 'first'],
        [{ first: 10, after: 'bm90LWEtY3Vyc29y' }, 'after'],
        [{ first: 10, after: '%%%' }, 'after'],
      ] as const) {
        const response = await graphql(
          service,
          key,
          'query($first: Int!, $after: String) { reports(first: $first, after: $after) { edges { cursor } } }',
          variables,
        );
        expect(response.body.data).toBeNull();
        expect(response.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
        expect(response.body.errors[0].extensions.errors.map((e: { path: string }) => e.path)).toEqual([
          path,
        ]);
      }
    });
  });

  describe('limits', () => {
    it('rejects an operation nested deeper than 8 levels, before executing it', async () => {
      const deep = `{ task(id: "${UNKNOWN_ID}") { report { task { report { task { report { task { report { task { taskId } } } } } } } } } }`;
      const response = await graphql(service, key, deep);
      expect(response.status).toBe(400);
      expect(response.body.data).toBeUndefined();
      expect(response.body.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_DEEP', maxDepth: 8 });
      const fine = `{ task(id: "${UNKNOWN_ID}") { report { task { report { task { report { task { taskId } } } } } } } }`;
      expect((await graphql(service, key, fine)).body.errors[0].extensions.code).toBe('NOT_FOUND');
    });

    it('rejects an operation whose estimated cost is over the limit, counting aliases and page sizes', async () => {
      const page = (alias: string, first: string) =>
        `${alias}: reports(first: ${first}) { edges { node { enterprise { name } analysis { slug riskItems { level } } } } }`;
      const one = await graphql(service, key, `{ ${page('a', '100')} }`);
      expect(one.body.errors).toBeUndefined();
      const three = await graphql(
        service,
        key,
        `{ ${page('a', '100')} ${page('b', '100')} ${page('c', '100')} }`,
      );
      expect(three.status).toBe(400);
      expect(three.body.errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', maxCost: 10_000 });
      // A variable page size counts as the largest page.
      const variable = await graphql(
        service,
        key,
        `query($n: Int!) { ${page('a', '$n')} ${page('b', '$n')} }`,
        { n: 1 },
      );
      expect(variable.body.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
      const small = await graphql(service, key, `query($n: Int!) { ${page('a', '$n')} }`, { n: 1 });
      expect(small.body.errors).toBeUndefined();
    });

    it('rejects documents of more than 2000 tokens, and bodies over the size limit', async () => {
      const long = `{ ${Array.from({ length: 1000 }, (_, i) => `a${i}: __typename`).join(' ')} }`;
      const tokens = await graphql(service, key, long);
      expect(tokens.status).toBe(400);
      expect(tokens.body.errors[0].message).toMatch(/more than 2000 tokens/);
      const big = await graphql(service, key, '{ __typename }', { padding: 'x'.repeat(9 * 1024 * 1024) });
      expect(big.status).toBe(413);
    });

    it('keeps introspection available to authenticated callers (the same schema as schema/schema.graphql)', async () => {
      const response = await graphql(
        service,
        key,
        '{ __schema { queryType { fields { name } } mutationType { name } } }',
      );
      expect(response.body.data.__schema.queryType.fields.map((f: { name: string }) => f.name)).toEqual(
        expect.arrayContaining(['report', 'reports', 'task', 'catalogue']),
      );
    });
  });

  it('serves the catalogue: slugs, labels, sections, spResult keys and units', async () => {
    const rest = await service.request('/api/v1/developer/catalogue', { key });
    const response = await graphql(
      service,
      key,
      '{ catalogue { sections { id label } riskLevels items { slug label section sectionLabel fields { key unit } } } }',
    );
    const { catalogue } = response.body.data;
    expect(catalogue.sections).toEqual(rest.body.sections);
    expect(catalogue.riskLevels).toEqual(rest.body.risk_levels);
    expect(catalogue.items).toEqual(
      rest.body.items.map(
        (item: {
          slug: string;
          label: string;
          section: string;
          section_label: string;
          fields: Array<{ key: string; unit: string }>;
        }) => ({
          slug: item.slug,
          label: item.label,
          section: item.section,
          sectionLabel: item.section_label,
          fields: item.fields.map((f) => ({ key: f.key, unit: f.unit })),
        }),
      ),
    );
  });
});
