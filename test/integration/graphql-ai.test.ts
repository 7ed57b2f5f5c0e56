/**
 * On-demand AI interpretation through GraphQL: the same service as REST's POST …/ai-analysis.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account } from '../../server/db/entities/account.entity.ts';
import { graphql } from '../helpers/graphql.ts';
import { insertReport } from '../helpers/records.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const GENERATE = `mutation Generate($reportId: ID!, $slug: String) {
  generateAiAnalysis(reportId: $reportId, slug: $slug) { slug aiContent aiSource riskItems { source } }
}`;

describe('GraphQL generateAiAnalysis', () => {
  let service: TestService;
  let key: string;

  beforeAll(async () => {
    service = await startTestService('pglite');
    key = await service.newKey('test', 'gql-ai@example.com');
  });
  afterAll(async () => {
    await service?.close();
  });

  it('writes the interpretation of every item, or of one, for a report submitted without AI', async () => {
    const submitted = await service.request('/api/v1/developer/reports/financial', {
      method: 'POST',
      key,
      body: { ...fixture('general_new-3y'), ai_auto_analysis: 0 },
    });
    const reportId = submitted.body.report_id;
    await waitForReport(service, key, reportId);
    const before = await service.request(`/api/v1/developer/reports/${reportId}/analysis/revenue`, { key });
    expect(before.body.ai_content).toBeNull();

    const one = await graphql(service, key, GENERATE, { reportId, slug: 'revenue' });
    expect(one.body.errors).toBeUndefined();
    expect(one.body.data.generateAiAnalysis).toHaveLength(1);
    const [item] = one.body.data.generateAiAnalysis;
    expect(item.slug).toBe('revenue');
    expect(item.aiSource).toBe('builtin');
    expect(item.aiContent).toContain('2024');

    const all = await graphql(service, key, GENERATE, { reportId });
    expect(all.body.errors).toBeUndefined();
    const list = await service.request(`/api/v1/developer/reports/${reportId}/analysis`, { key });
    expect(all.body.data.generateAiAnalysis.map((i: { slug: string }) => i.slug)).toEqual(
      list.body.items.map((i: { slug: string }) => i.slug),
    );
    for (const restItem of list.body.items) {
      expect(restItem.ai_content, restItem.slug).toBeTruthy();
      expect(restItem.ai_source).toBe('builtin');
    }
  });

  it('answers REPORT_NOT_READY before success and NOT_FOUND for an unknown report', async () => {
    const em = service.services.db.orm.em.fork();
    const account = await em.findOneOrFail(Account, { email: 'gql-ai@example.com' });
    const { reportId } = await insertReport(service.services, account.id, { status: 'pending' });
    const pending = await graphql(service, key, GENERATE, { reportId });
    expect(pending.body.errors[0].extensions.code).toBe('REPORT_NOT_READY');
    const unknown = await graphql(service, key, GENERATE, {
      reportId: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknown.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
