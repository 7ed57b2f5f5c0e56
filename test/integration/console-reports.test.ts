/**
 * The console's reports list filters: by enterprise name (case-insensitive substring, wildcards literal) and
 * by status, through the same `reports` field API keys use.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../helpers/graphql.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

describe('reports filters', () => {
  let service: TestService;
  let key: string;
  beforeAll(async () => {
    service = await startTestService('pglite');
    key = await service.newKey('test', `filters-${randomUUID()}@example.com`);
    for (const name of ['杭州西湖Alpha有限公司', '宁波Beta_100%贸易', '杭州滨江Gamma']) {
      const submitted = await service.request('/api/v1/developer/reports/financial', {
        method: 'POST',
        key,
        body: { ...fixture('small_enterprise-2y-no-cash-flow'), enterprise_name: name },
      });
      expect(submitted.status, submitted.text).toBe(202);
      await waitForReport(service, key, submitted.body.report_id);
    }
  });
  afterAll(async () => {
    await service?.close();
  });

  const names = async (filter: Record<string, unknown>) => {
    const response = await graphql(
      service,
      key,
      'query($f: ReportFilter) { reports(first: 50, filter: $f) { edges { node { name status } } } }',
      { f: filter },
    );
    expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
    return response.body.data.reports.edges.map((e: { node: { name: string } }) => e.node.name).sort();
  };

  it('finds reports by part of the enterprise name, case-insensitively', async () => {
    expect(await names({ nameContains: '杭州' })).toEqual(['杭州滨江Gamma', '杭州西湖Alpha有限公司'].sort());
    expect(await names({ nameContains: 'alpha' })).toEqual(['杭州西湖Alpha有限公司']);
    expect(await names({ nameContains: '  ' })).toHaveLength(3);
  });

  it('matches % and _ literally', async () => {
    expect(await names({ nameContains: '_100%' })).toEqual(['宁波Beta_100%贸易']);
    expect(await names({ nameContains: '%' })).toEqual(['宁波Beta_100%贸易']);
    expect(await names({ nameContains: 'a_1' })).toEqual(['宁波Beta_100%贸易']);
    expect(await names({ nameContains: 'ta_' })).toEqual(['宁波Beta_100%贸易']);
  });

  it('combines with the status filter', async () => {
    expect(await names({ nameContains: '杭州', status: 'success' })).toHaveLength(2);
    expect(await names({ nameContains: '杭州', status: 'failed' })).toEqual([]);
  });

  it('refuses a search text over 200 characters on its field', async () => {
    const response = await graphql(
      service,
      key,
      'query($f: ReportFilter) { reports(filter: $f) { edges { cursor } } }',
      {
        f: { nameContains: 'x'.repeat(201) },
      },
    );
    expect(response.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(response.body.errors[0].extensions)).toContain('filter.nameContains');
  });
});
