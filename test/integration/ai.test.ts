/**
 * The AI step against a local OpenAI-compatible server (real HTTP through the openai package): structured
 * output, retries after 429, timeouts and invalid answers falling back to the built-in writer, the
 * concurrency cap, token usage, test-mode reports never calling the model, and AI analysis on demand.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findOrCreateAccount } from '../../server/services/apiKeys.ts';
import { REPORT_SLUGS } from '../../worker/engine/registry.ts';
import {
  answerFor,
  completion,
  type FakeOpenAi,
  okAll,
  type RequestBody,
  startFakeOpenAi,
  userPayload,
  validAnswer,
} from '../helpers/fakeOpenAi.ts';
import { insertReport } from '../helpers/records.ts';
import {
  type FixtureName,
  fixture,
  startTestService,
  type TestService,
  waitForReport,
} from '../helpers/service.ts';

const API = '/api/v1/developer';
// Long enough that a loaded CI machine does not time out a fake answer; short enough to test timeouts.
const TIMEOUT_MS = 1_500;
const MAX_RETRIES = 1;
const LIVE_EMAIL = `ai-${Date.now()}@example.com`;
const BATCH = 6;
/** Model calls for a whole report: its items in batches of BATCH. */
const CALLS = Math.ceil(REPORT_SLUGS.length / BATCH);

/** A valid answer to a request (one batch), each item's text with `extra` fields. */
const answer = (body: RequestBody, extra: Partial<Record<string, unknown>> = {}) => ({
  body: completion(answerFor(body, (slug) => validAnswer(slug, extra))),
});

interface Item {
  slug: string;
  ai_content: string | null;
  ai_source: string | null;
  risk_items: Array<{ level: string; message: string; code: string | null; source: string }>;
}

describe('AI interpretation with an OpenAI-compatible model', () => {
  let fake: FakeOpenAi;
  let service: TestService;
  let live: string;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    service = await startTestService('postgres', {
      aiModel: 'fake-model',
      aiApiKey: 'sk-test',
      aiBaseUrl: fake.baseUrl,
      aiTimeoutMs: TIMEOUT_MS,
      aiMaxRetries: MAX_RETRIES,
      aiRetryBaseMs: 20,
      aiConcurrency: 3,
      aiReportConcurrency: 2,
      aiBatchSize: BATCH,
    });
    live = await service.newKey('live', LIVE_EMAIL);
  });
  afterAll(async () => {
    await service?.close();
    await fake?.close();
  });
  beforeEach(() => fake.reset(okAll));

  async function submit(key: string, name: FixtureName, ai: 0 | 1): Promise<string> {
    const body = { ...fixture(name), ai_auto_analysis: ai };
    const submitted = await service.request(`${API}/reports/financial`, { method: 'POST', key, body });
    expect(submitted.status).toBe(202);
    const done = await waitForReport(service, key, submitted.body.report_id);
    expect(done.body.status).toBe('success');
    return submitted.body.report_id;
  }

  async function items(key: string, reportId: string): Promise<Item[]> {
    const list = await service.request(`${API}/reports/${reportId}/analysis`, { key });
    expect(list.status).toBe(200);
    return list.body.items;
  }

  it('writes every item with the model through structured output, and records the usage', async () => {
    const reportId = await submit(live, 'general_new-3y', 1);
    const all = await items(live, reportId);
    expect(all.map((item) => item.slug)).toEqual(REPORT_SLUGS);
    for (const item of all) {
      expect(item.ai_source, item.slug).toBe('model');
      expect(item.ai_content).toContain(`模型解读：${item.slug}`);
      expect(item.ai_content).toContain('核查建议：1. 核实');
      const proposed = item.risk_items.filter((risk) => risk.source === 'model');
      expect(proposed).toEqual([
        {
          level: 'warning',
          message: `模型发现${item.slug}的现金回笼偏慢。`,
          code: `ai.${item.slug}`,
          source: 'model',
        },
      ]);
    }
    // Rule-based risk items are kept, marked as such.
    const expense = all.find((item) => item.slug === 'expense')!;
    expect(expense.risk_items[0]).toMatchObject({ code: 'expense.growth_outpaces_revenue', source: 'rule' });

    // Several items per call: every item asked about exactly once, core_risk_insight in the first batch.
    expect(fake.requests).toHaveLength(CALLS);
    const asked = fake.requests.flatMap((r) => userPayload(r).items.map((i: { slug: string }) => i.slug));
    expect(asked.toSorted()).toEqual([...REPORT_SLUGS].sort());
    expect(userPayload(fake.requests[0]).items[0].slug).toBe('core_risk_insight');
    const request = fake.requests[0];
    expect(request.model).toBe('fake-model');
    expect(request.response_format.type).toBe('json_schema');
    expect(request.response_format.json_schema.strict).toBe(true);
    expect(request.response_format.json_schema.schema.required).toEqual(['items']);
    expect(request.response_format.json_schema.schema.properties.items.items.required).toEqual([
      'slug',
      'summary',
      'risk_focus',
      'next_steps',
      'risk_items',
    ]);
    // The model sees computed indicators, never the raw statements or the enterprise's name.
    const prompts = fake.requests
      .flatMap((r) => r.messages.map((m: { content: string }) => m.content))
      .join('\n');
    const submitted = fixture('general_new-3y');
    const rawRevenue = submitted.years_data
      .at(-1)!
      .sheets.find((sheet) => sheet.sheet_type === 'income')!
      .items.find((item) => item.item_name === 'revenue')!.current_year_amount!;
    expect(prompts.includes(rawRevenue), 'a raw statement amount reached the model').toBe(false);
    expect(prompts.includes(submitted.enterprise_name!), 'the enterprise name reached the model').toBe(false);
    // The computed indicators, labelled with the catalogue's label and unit, a column per year.
    const revenue = fake.requests
      .flatMap((r) => userPayload(r).items)
      .find((i: { slug: string }) => i.slug === 'revenue');
    expect(revenue.table['营业收入（万元）'].at(-1)).toBe(8925.77);

    const report = await service.request(`${API}/reports/${reportId}`, { key: live });
    expect(report.body.ai_usage).toMatchObject({
      model: 'fake-model',
      runs: 1,
      calls: CALLS,
      prompt_tokens: 120 * CALLS,
      completion_tokens: 80 * CALLS,
      total_tokens: 200 * CALLS,
      fallbacks: 0,
      model_items: REPORT_SLUGS.length,
      builtin_items: 0,
    });
  });

  it('keeps at most AI_CONCURRENCY model calls in flight across reports', async () => {
    fake.reset(({ body }) => ({ ...answer(body), delayMs: 30 }));
    const [first, second] = await Promise.all([
      submit(live, 'general_new-3y', 1),
      submit(live, 'small_enterprise-2y-no-cash-flow', 1),
    ]);
    expect(fake.requests.length).toBe(CALLS * 2);
    expect(fake.maxInFlight).toBeLessThanOrEqual(3);
    expect(fake.maxInFlight).toBeGreaterThanOrEqual(2);
    for (const reportId of [first, second]) {
      for (const item of await items(live, reportId)) expect(item.ai_source).toBe('model');
    }
  });

  it('retries a 429 with backoff and then uses the answer', async () => {
    const reportId = await submit(live, 'general_new-3y', 0);
    fake.reset(({ body, index }) =>
      index === 0
        ? { status: 429, headers: { 'retry-after-ms': '30' }, body: { error: { message: 'rate limited' } } }
        : answer(body),
    );
    const response = await service.request(`${API}/reports/${reportId}/analysis/revenue/ai-analysis`, {
      method: 'POST',
      key: live,
    });
    expect(response.status).toBe(200);
    expect(response.body.ai_source).toBe('model');
    expect(response.body.ai_content).toContain('模型解读：revenue');
    expect(fake.requests).toHaveLength(2);
    const usage = (await service.request(`${API}/reports/${reportId}`, { key: live })).body.ai_usage;
    expect(usage).toMatchObject({ runs: 1, calls: 2, total_tokens: 200, fallbacks: 0, model_items: 1 });
  });

  it('falls back to the built-in writer when the model never answers, within timeout × attempts', async () => {
    const reportId = await submit(live, 'general_new-3y', 0);
    fake.reset(() => 'hang');
    const started = Date.now();
    const response = await service.request(`${API}/reports/${reportId}/analysis/revenue/ai-analysis`, {
      method: 'POST',
      key: live,
    });
    const elapsed = Date.now() - started;
    expect(response.status).toBe(200);
    expect(response.body.ai_source).toBe('builtin');
    expect(response.body.ai_content).toContain('2024年营业收入为8,925.77万元');
    expect(response.body.risk_items.every((risk: { source: string }) => risk.source === 'rule')).toBe(true);
    expect(elapsed).toBeLessThan(TIMEOUT_MS * (MAX_RETRIES + 1) + 1_000);
    expect(fake.requests.length).toBeGreaterThanOrEqual(1);
    expect(fake.requests.length).toBeLessThanOrEqual(MAX_RETRIES + 1);
    const usage = (await service.request(`${API}/reports/${reportId}`, { key: live })).body.ai_usage;
    expect(usage).toMatchObject({ fallbacks: 1, model_items: 0, builtin_items: 1, total_tokens: 0 });
  });

  it('falls back, without retrying, for the items of an answer that is not JSON or breaks the schema', async () => {
    const reportId = await submit(live, 'general_new-4y-inconsistent', 0);
    // Per item, inside otherwise valid batches: missing, a bad level, an empty text, missing fields, a wrong type.
    const broken: Record<string, Record<string, unknown> | null> = {
      revenue: null,
      cost: validAnswer('cost', { risk_items: [{ level: 'critical', message: '等级不存在' }] }),
      expense: validAnswer('expense', { summary: '' }),
      profitability: { summary: '只有一段解读' },
      balance_sheet: validAnswer('balance_sheet', { next_steps: '核实' }),
    };
    // And one whole answer that is not JSON: every item of that batch.
    let notJson: string[] = [];
    fake.reset(({ slugs, index }) => {
      if (index === 3) {
        notJson = slugs;
        return { body: completion('Sorry, I cannot help with that.') };
      }
      const items = slugs
        .filter((slug) => broken[slug] !== null)
        .map((slug) => ({ slug, ...(broken[slug] ?? validAnswer(slug)) }));
      return { body: completion(JSON.stringify({ items })) };
    });
    const response = await service.request(`${API}/reports/${reportId}/ai-analysis`, {
      method: 'POST',
      key: live,
    });
    expect(response.status).toBe(200);
    expect(response.body.total).toBe(REPORT_SLUGS.length);
    const fallen = new Set([...Object.keys(broken), ...notJson]);
    expect(notJson.length).toBeGreaterThan(0);
    for (const item of response.body.items as Item[]) {
      expect(item.ai_source, item.slug).toBe(fallen.has(item.slug) ? 'builtin' : 'model');
      expect(item.ai_content?.trim()).toBeTruthy();
    }
    const balance = (response.body.items as Item[]).find((item) => item.slug === 'balance_sheet')!;
    expect(balance.ai_content).toContain('存货');
    expect(balance.ai_content).toContain('285.05万元');
    // One request per batch: an invalid answer is not asked again.
    expect(fake.requests).toHaveLength(CALLS);
    const usage = (await service.request(`${API}/reports/${reportId}`, { key: live })).body.ai_usage;
    expect(usage).toMatchObject({
      calls: CALLS,
      fallbacks: fallen.size,
      builtin_items: fallen.size,
      model_items: REPORT_SLUGS.length - fallen.size,
      fallback_reasons: { invalid_output: fallen.size },
    });
  });

  it('regenerates on demand, replacing earlier AI text and model risks but never rule risks', async () => {
    const reportId = await submit(live, 'general_new-3y', 0);
    const before = await items(live, reportId);
    for (const item of before) {
      expect(item.ai_content).toBeNull();
      expect(item.ai_source).toBeNull();
    }
    expect((await service.request(`${API}/reports/${reportId}`, { key: live })).body.ai_usage).toBeNull();
    const path = `${API}/reports/${reportId}/analysis/expense/ai-analysis`;

    fake.reset(({ body }) =>
      answer(body, { risk_items: [{ level: 'danger', message: '第一次的模型风险' }] }),
    );
    const first = await service.request(path, { method: 'POST', key: live });
    fake.reset(({ body }) =>
      answer(body, {
        summary: '第二次解读：费用结构发生变化。',
        risk_items: [{ level: 'info', message: '第二次' }],
      }),
    );
    const second = await service.request(path, { method: 'POST', key: live });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body.ai_content).toContain('第二次解读');
    expect(second.body.risk_items).toEqual([
      expect.objectContaining({ code: 'expense.growth_outpaces_revenue', source: 'rule' }),
      { level: 'info', message: '第二次', code: 'ai.expense', source: 'model' },
    ]);
    const read = await service.request(`${API}/reports/${reportId}/analysis/expense`, { key: live });
    expect(read.body).toEqual(second.body);
    // Other items are untouched by a one-item run.
    const revenue = await service.request(`${API}/reports/${reportId}/analysis/revenue`, { key: live });
    expect(revenue.body.ai_content).toBeNull();
    const usage = (await service.request(`${API}/reports/${reportId}`, { key: live })).body.ai_usage;
    expect(usage).toMatchObject({ runs: 2, calls: 2, total_tokens: 400, model_items: 2 });
  });

  it('answers 409 before success, 404 for an unknown slug or report, and 401 without a key', async () => {
    const accountId = await findOrCreateAccount(service.services.db.orm.em.fork(), LIVE_EMAIL);
    const pending = await insertReport(service.services, accountId, { status: 'pending', mode: 'live' });
    const notReady = await service.request(`${API}/reports/${pending.reportId}/ai-analysis`, {
      method: 'POST',
      key: live,
    });
    expect(notReady.status).toBe(409);
    expect(notReady.body.code).toBe('report_not_ready');
    const notReadyItem = await service.request(
      `${API}/reports/${pending.reportId}/analysis/revenue/ai-analysis`,
      {
        method: 'POST',
        key: live,
      },
    );
    expect(notReadyItem.status).toBe(409);

    const reportId = await submit(live, 'small_enterprise-2y-no-cash-flow', 0);
    const unknownSlug = await service.request(`${API}/reports/${reportId}/analysis/nonsense/ai-analysis`, {
      method: 'POST',
      key: live,
    });
    expect(unknownSlug.status).toBe(404);
    expect(unknownSlug.body.code).toBe('analysis_item_not_found');
    const otherTenant = await service.request(`${API}/reports/${reportId}/ai-analysis`, {
      method: 'POST',
      key: await service.newKey('live'),
    });
    expect(otherTenant.status).toBe(404);
    expect(otherTenant.body.code).toBe('not_found');
    const anonymous = await service.request(`${API}/reports/${reportId}/ai-analysis`, { method: 'POST' });
    expect(anonymous.status).toBe(401);
    expect(fake.requests).toHaveLength(0);
  });

  it('never calls the model for a test-mode report, in the job or on demand', async () => {
    fake.reset(() => ({ status: 500, body: { error: { message: 'a test-mode report called the model' } } }));
    const test = await service.newKey('test');
    const reportId = await submit(test, 'general_old-5y-ai', 1);
    const all = await items(test, reportId);
    for (const item of all) {
      expect(item.ai_source, item.slug).toBe('builtin');
      expect(item.ai_content).toContain('2019年');
    }
    const regenerated = await service.request(`${API}/reports/${reportId}/ai-analysis`, {
      method: 'POST',
      key: test,
    });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.items.map((item: Item) => item.ai_content)).toEqual(
      all.map((item) => item.ai_content),
    );
    expect(fake.requests).toHaveLength(0);
    const usage = (await service.request(`${API}/reports/${reportId}`, { key: test })).body.ai_usage;
    expect(usage).toMatchObject({ model: null, runs: 2, calls: 0, total_tokens: 0, fallbacks: 0 });
    expect(usage.builtin_items).toBe(REPORT_SLUGS.length * 2);
  });
});

describe('AI interpretation without a configured model (embedded database)', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService('pglite');
  });
  afterAll(async () => {
    await service?.close();
  });

  it('writes every item with the built-in writer and records a run without tokens', async () => {
    const key = await service.newKey('live');
    const body = { ...fixture('general_new-4y-inconsistent'), ai_auto_analysis: 1 };
    const submitted = await service.request(`${API}/reports/financial`, { method: 'POST', key, body });
    const done = await waitForReport(service, key, submitted.body.report_id);
    expect(done.body.ai_usage).toMatchObject({ model: null, runs: 1, calls: 0, fallbacks: 0 });
    const list = await service.request(`${API}/reports/${submitted.body.report_id}/analysis`, { key });
    for (const item of list.body.items as Item[]) {
      expect(item.ai_source).toBe('builtin');
      expect(item.ai_content).toContain('2024');
    }
    const one = await service.request(
      `${API}/reports/${submitted.body.report_id}/analysis/core_risk_insight/ai-analysis`,
      { method: 'POST', key },
    );
    expect(one.status).toBe(200);
    expect(one.body.ai_content).toContain('危险');
    expect(one.body.ai_source).toBe('builtin');
  });
});
