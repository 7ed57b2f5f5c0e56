/**
 * The AI step when the model is down or the account has spent its day's tokens, against a local
 * OpenAI-compatible server over real HTTP: the process's circuit breaker (opening after consecutive failures,
 * refusing at once while open, closing after a successful probe) and AI_DAILY_TOKEN_BUDGET; and the verdict of
 * contract 1 reaching the model's prompt. Reports still succeed, with the built-in writer's texts and the
 * reason in ai_usage.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aiBreakerState, aiCalls, type aiTokens } from '../../server/observability/metrics.ts';
import { REPORT_SLUGS } from '../../worker/engine/registry.ts';
import {
  answerFor,
  completion,
  type FakeOpenAi,
  type RequestBody,
  SAMPLE_VERDICT,
  startFakeOpenAi,
  userPayload,
} from '../helpers/fakeOpenAi.ts';
import { graphql } from '../helpers/graphql.ts';
import { until } from '../helpers/process.ts';
import { fixture, startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const API = '/api/v1/developer';
const BATCH = 6;
const CALLS = Math.ceil(REPORT_SLUGS.length / BATCH);
const THRESHOLD = 3;
const RETRIES = 1;
/** Tokens a paid call bills: a real batch's order of size, so the budget below is reached mid-report. */
const PER_CALL = 3_000;
/** Each call reserves its estimate (a few thousand tokens) first: room for the two calls a report runs at once. */
const BUDGET = 20_000;

const free = ({ body }: { body: RequestBody }) => ({
  body: completion(answerFor(body), { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }),
});
const paid = ({ body }: { body: RequestBody }) => ({
  body: completion(answerFor(body), {
    prompt_tokens: PER_CALL - 500,
    completion_tokens: 500,
    total_tokens: PER_CALL,
  }),
});
const outage = () => ({ status: 500, body: { error: { message: 'upstream down' } } });

describe('AI step resilience', () => {
  let fake: FakeOpenAi;
  let service: TestService;

  beforeAll(async () => {
    fake = await startFakeOpenAi(free);
    service = await startTestService('postgres', {
      aiModel: 'fake-model',
      aiBaseUrl: fake.baseUrl,
      aiTimeoutMs: 2_000,
      aiMaxRetries: RETRIES,
      aiRetryBaseMs: 20,
      aiConcurrency: 4,
      aiReportConcurrency: 2,
      aiBatchSize: BATCH,
      aiBreakerThreshold: THRESHOLD,
      // Long enough that the next report arrives while it is open, even on a loaded machine.
      aiBreakerCooldownMs: 5_000,
      aiDailyTokenBudget: BUDGET,
    });
  });
  afterAll(async () => {
    await service?.close();
    await fake?.close();
  });

  async function report(key: string, ai: 0 | 1 = 1) {
    const body = { ...fixture('general_new-3y'), ai_auto_analysis: ai };
    const submitted = await service.request(`${API}/reports/financial`, { method: 'POST', key, body });
    expect(submitted.status).toBe(202);
    const done = await waitForReport(service, key, submitted.body.report_id);
    expect(done.body.status).toBe('success');
    const list = await service.request(`${API}/reports/${submitted.body.report_id}/analysis`, { key });
    return {
      id: submitted.body.report_id as string,
      usage: done.body.ai_usage,
      sources: (list.body.items as Array<{ ai_source: string }>).map((item) => item.ai_source),
    };
  }
  const gauge = async () => (await aiBreakerState.get()).values[0]?.value;
  const counter = async (metric: typeof aiTokens | typeof aiCalls, labels: Record<string, string>) =>
    (await metric.get()).values.find((v) =>
      Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x),
    )?.value ?? 0;

  it('opens the breaker after consecutive failures, writes with the built-in writer at once while open, and closes after a successful probe', async () => {
    const key = await service.newKey('live');
    fake.reset(outage);
    const first = await report(key);
    expect(first.sources.every((source) => source === 'builtin')).toBe(true);
    // Far fewer than every batch × its attempts (CALLS × 2 = 16): the breaker stopped the rest.
    expect(fake.requests.length).toBeGreaterThanOrEqual(THRESHOLD);
    expect(fake.requests.length).toBeLessThanOrEqual(THRESHOLD + 2);
    expect(first.usage).toMatchObject({ calls: fake.requests.length, fallbacks: REPORT_SLUGS.length });
    expect(first.usage.fallback_reasons.model_unavailable).toBeGreaterThan(0);
    expect(service.services.ai.breaker.state).toBe('open');
    expect(await gauge()).toBe(2);

    // The next report does not wait on the model at all.
    const before = fake.requests.length;
    const second = await report(key);
    expect(fake.requests.length - before).toBe(0);
    expect(second.sources.every((source) => source === 'builtin')).toBe(true);
    expect(second.usage).toMatchObject({
      calls: 0,
      fallbacks: REPORT_SLUGS.length,
      fallback_reasons: { model_unavailable: REPORT_SLUGS.length },
    });
    // GraphQL says the same, through the same service (its generateAiAnalysis takes the same path).
    const regenerated = await graphql(
      service,
      key,
      `mutation($id: ID!) { generateAiAnalysis(reportId: $id, slug: "revenue") { slug aiSource } }`,
      { id: second.id },
    );
    expect(regenerated.body.data.generateAiAnalysis).toEqual([{ slug: 'revenue', aiSource: 'builtin' }]);
    const read = await graphql(
      service,
      key,
      'query($id: ID!) { report(id: $id) { aiUsage { calls fallbackReasons } } }',
      { id: second.id },
    );
    expect(read.body.data.report.aiUsage).toEqual({
      calls: 0,
      fallbackReasons: { model_unavailable: REPORT_SLUGS.length + 1 },
    });
    expect(fake.requests.length - before).toBe(0);

    // The model is back: after the cool-off one probe goes out, the rest wait for it, then every item is the model's.
    fake.reset(free);
    const deadline = Date.now() + 15_000;
    while (service.services.ai.breaker.state === 'open' && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(service.services.ai.breaker.state).toBe('half_open');
    const third = await report(key);
    expect(third.sources.every((source) => source === 'model')).toBe(true);
    expect(fake.requests).toHaveLength(CALLS);
    expect(service.services.ai.breaker.state).toBe('closed');
    expect(await gauge()).toBe(0);
  });

  it('stops calling the model for an account over its daily token budget, and says so in ai_usage', async () => {
    const key = await service.newKey('live');
    fake.reset(paid);
    const first = await report(key);
    // Each call reserves its estimated tokens before it starts, and settles to what it was billed: calls stop
    // once the account's day (billed + reserved) reaches the budget.
    const calls = fake.requests.length;
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThan(CALLS);
    expect(first.usage.total_tokens).toBe(calls * PER_CALL);
    expect(first.usage.fallback_reasons.budget_exhausted).toBeGreaterThan(0);
    expect(first.sources.filter((source) => source === 'builtin')).toHaveLength(
      first.usage.fallback_reasons.budget_exhausted,
    );
    const [day] = await service.services.db.orm.em
      .fork()
      .getConnection()
      .execute(
        `select d.tokens from ai_daily_usage d join reports r on r.account_id = d.account_id
          where r.id = ? and d.day = (now() at time zone 'utc')::date`,
        [first.id],
      );
    expect(Number(day?.tokens)).toBe(calls * PER_CALL);

    // Reservations of calls in flight may stop a run before the billed total reaches the budget; the next
    // reports use what is left, and once the day is spent a report makes no call at all. Never more than one
    // call over the budget.
    let second = await report(key);
    for (let i = 0; i < 3 && second.usage.calls > 0; i++) second = await report(key);
    const billed = fake.requests.length;
    expect(billed * PER_CALL).toBeGreaterThanOrEqual(BUDGET - 2 * PER_CALL);
    expect(billed * PER_CALL).toBeLessThan(BUDGET + PER_CALL);
    expect(second.usage.fallback_reasons).toEqual({ budget_exhausted: REPORT_SLUGS.length });
    const regenerated = await service.request(`${API}/reports/${second.id}/analysis/revenue/ai-analysis`, {
      method: 'POST',
      key,
    });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.ai_source).toBe('builtin');
    expect(fake.requests).toHaveLength(billed);

    // Another account is not affected.
    const otherKey = await service.newKey('live');
    const other = await report(otherKey, 0);
    const one = await service.request(`${API}/reports/${other.id}/analysis/revenue/ai-analysis`, {
      method: 'POST',
      key: otherKey,
    });
    expect(one.status).toBe(200);
    expect(one.body.ai_source).toBe('model');
    expect(fake.requests).toHaveLength(billed + 1);
  });

  it('puts the verdict and its drivers (contract 1) in every prompt of an on-demand run', async () => {
    const key = await service.newKey('live');
    fake.reset(free);
    const { id } = await report(key, 0);
    await service.services.db.orm.em
      .fork()
      .getConnection()
      .execute(
        `update analysis_results set sp_result = jsonb_set(sp_result::jsonb, '{verdict}', ?::jsonb)
          where report_id = ? and slug = 'core_risk_insight'`,
        [JSON.stringify(SAMPLE_VERDICT), id],
      );
    const response = await service.request(`${API}/reports/${id}/ai-analysis`, { method: 'POST', key });
    expect(response.status).toBe(200);
    expect(fake.requests).toHaveLength(CALLS);
    for (const request of fake.requests) {
      expect(userPayload(request).report.verdict).toMatchObject({
        grade: 'D',
        label: '较高风险',
        drivers: [
          { label: '资产负债率', effect: -12.4 },
          { label: '经营活动现金流', effect: -8.1 },
          { label: '净资产收益率', effect: 2.2 },
        ],
      });
    }
  });

  it('treats the daily token budget as a ceiling: with AI_DAILY_TOKEN_BUDGET=1 a report makes one model call', async () => {
    const tight = await startTestService('postgres', {
      aiModel: 'fake-model',
      aiBaseUrl: fake.baseUrl,
      aiTimeoutMs: 2_000,
      aiMaxRetries: 0,
      aiConcurrency: 8,
      aiReportConcurrency: 8,
      aiBatchSize: BATCH,
      aiDailyTokenBudget: 1,
    });
    try {
      // A slow model: the batched calls of the report all start together, as in production.
      fake.reset(({ body }) => ({ ...paid({ body }), delayMs: 200 }));
      const key = await tight.newKey('live');
      const submitted = await tight.request(`${API}/reports/financial`, {
        method: 'POST',
        key,
        body: { ...fixture('general_new-3y'), ai_auto_analysis: 1 },
      });
      const done = await waitForReport(tight, key, submitted.body.report_id);
      expect(done.body.status).toBe('success');
      expect(fake.requests).toHaveLength(1);
      expect(done.body.ai_usage.calls).toBe(1);
      // 43 items in batches of 7 or 6: every batch but the admitted one falls back.
      expect(done.body.ai_usage.fallback_reasons.budget_exhausted).toBeGreaterThanOrEqual(
        REPORT_SLUGS.length - BATCH - 1,
      );
      // The day holds what the call was billed, not its reservation.
      const [day] = await tight.services.db.orm.em
        .fork()
        .getConnection()
        .execute(`select tokens from ai_daily_usage where day = (now() at time zone 'utc')::date`);
      expect(Number(day?.tokens)).toBe(PER_CALL);
    } finally {
      await tight.close();
    }
  });

  it('ends the job, without a retry, when the report is deleted while the model writes', async () => {
    const key = await service.newKey('live');
    fake.reset(({ body }) => ({ ...free({ body }), delayMs: 300 }));
    const submitted = await service.request(`${API}/reports/financial`, {
      method: 'POST',
      key,
      body: { ...fixture('general_new-3y'), ai_auto_analysis: 1 },
    });
    expect(submitted.status).toBe(202);
    await until('the AI step to call the model', async () => fake.requests.length > 0 || undefined, 10_000);
    const deleted = await service.request(`${API}/reports/${submitted.body.report_id}`, {
      method: 'DELETE',
      key,
    });
    expect(deleted.status).toBe(204);
    // The attempt ends once the model has answered: its assemble finds the report gone.
    const job = await until(
      'the analysis job to end its attempt',
      async () => {
        const [row] = await service.services.db.orm.em
          .fork()
          .getConnection()
          .execute<Array<{ state: string; retry_count: number }>>(
            `select state, retry_count from pgboss.job where name = 'report-analysis' and data->>'reportId' = ?`,
            [submitted.body.report_id],
          );
        return row && row.state !== 'active' && row.state !== 'created' ? row : undefined;
      },
      15_000,
    );
    expect(job).toEqual({ state: 'completed', retry_count: 0 });
  });

  it('counts a 429 that outlasts its retries as a failure: the breaker opens', async () => {
    const key = await service.newKey('live');
    expect(service.services.ai.breaker.state).toBe('closed');
    fake.reset(() => ({
      status: 429,
      headers: { 'retry-after-ms': '10' },
      body: { error: { message: 'rate limited' } },
    }));
    const skippedBefore = await counter(aiCalls, { outcome: 'breaker_open' });
    const limited = await report(key);
    expect(limited.sources.every((source) => source === 'builtin')).toBe(true);
    expect(limited.usage.fallback_reasons.rate_limited).toBeGreaterThan(0);
    expect(limited.usage.fallback_reasons.model_unavailable).toBeGreaterThan(0);
    expect(fake.requests.length).toBeLessThan(CALLS * (RETRIES + 1));
    expect(service.services.ai.breaker.state).toBe('open');
    expect(await counter(aiCalls, { outcome: 'rate_limited' })).toBeGreaterThanOrEqual(THRESHOLD);
    expect(await counter(aiCalls, { outcome: 'breaker_open' })).toBeGreaterThanOrEqual(skippedBefore);
  });
});
