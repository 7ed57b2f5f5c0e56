/**
 * `npm run bench:ai`: the AI step against a local OpenAI-compatible server (test/helpers/fakeOpenAi.ts) with a
 * configurable latency, failure rate and generation speed. For each scenario it runs the real service (HTTP,
 * PostgreSQL, pg-boss, the pool) at its default settings with a live key and AI-on reports of the 6-year
 * submission, and prints submit → success p50/p95 at 1 and 8 concurrent reports, model calls and tokens per
 * report, and the items the built-in writer wrote. Nothing here is a test.
 *
 *   npm run bench:ai                         # every scenario
 *   npm run bench:ai -- 2s 10s outage        # some of them
 *   BENCH_AI_TPS=50 npm run bench:ai -- 2s   # with generation speed (tokens per second per request)
 *   AI_BATCH_SIZE=3 AI_REPORT_CONCURRENCY=15 npm run bench:ai -- 2s   # other AI settings
 *
 * Scenarios: `2s` and `10s` (a model answering after 2 s / 10 s), `outage` (every call answered 500 after
 * 200 ms: three reports one after another), `flaky` (2 s, a fifth of calls answered 500).
 */

import { loadConfig } from '../../server/config.ts';
import { syntheticSubmission } from '../fixtures/synthetic.ts';
import { type FakeOpenAi, simulatedModel, startFakeOpenAi } from '../helpers/fakeOpenAi.ts';
import { startTestService, type TestService, waitForReport } from '../helpers/service.ts';

const API = '/api/v1/developer';
const BODY = { ...syntheticSubmission({ years: 6, lastYear: 2024 }), ai_auto_analysis: 1 };
const TPS = Number(process.env.BENCH_AI_TPS ?? 0);
const SEQUENTIAL = Number(process.env.BENCH_AI_SEQUENTIAL ?? 3);

interface Scenario {
  latencyMs: number;
  failureRate: number;
  /** Concurrency levels to measure; `sequential` reports one after another at level 1. */
  levels: number[];
}

const SCENARIOS: Record<string, Scenario> = {
  '2s': { latencyMs: 2_000, failureRate: 0, levels: [1, 8] },
  '10s': { latencyMs: 10_000, failureRate: 0, levels: [1, 8] },
  outage: { latencyMs: 200, failureRate: 1, levels: [1] },
  flaky: { latencyMs: 2_000, failureRate: 0.2, levels: [1] },
};

/** A deterministic random source, so a failure rate fails the same requests on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A realistic answer: about 330 Chinese characters over the three paragraphs, as models write them. */
function realisticAnswer(slug: string) {
  const sentence = `${slug}的最新年度数据显示，关键指标较上一年度有所变化，其中主要项目的变动幅度值得关注，需要结合业务实际加以解释。`;
  return {
    summary: sentence.repeat(3),
    risk_focus: `应重点关注${slug}相关的风险：${sentence}`,
    next_steps: [
      `核实${slug}相关明细账与合同`,
      '对比同行业平均水平并分析差异原因',
      '复核期后回款与现金流量情况',
    ],
    risk_items: [{ level: 'warning', message: `${slug}显示现金回笼偏慢，需关注回款风险。` }],
  };
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

interface Outcome {
  ms: number;
  calls: number;
  totalTokens: number;
  promptTokens: number;
  fallbacks: number;
  modelItems: number;
}

async function runReport(service: TestService, key: string): Promise<Outcome> {
  const started = performance.now();
  const submitted = await service.request(`${API}/reports/financial`, { method: 'POST', key, body: BODY });
  if (submitted.status !== 202) throw new Error(`submit answered ${submitted.status}: ${submitted.text}`);
  const done = await waitForReport(service, key, submitted.body.report_id, 900_000);
  const ms = performance.now() - started;
  if (done.body.status !== 'success') throw new Error(`report ended ${done.body.status}`);
  const usage = done.body.ai_usage ?? {};
  return {
    ms,
    calls: usage.calls ?? 0,
    totalTokens: usage.total_tokens ?? 0,
    promptTokens: usage.prompt_tokens ?? 0,
    fallbacks: usage.fallbacks ?? 0,
    modelItems: usage.model_items ?? 0,
  };
}

function summarise(name: string, level: number, outcomes: Outcome[], fake: FakeOpenAi) {
  const ms = outcomes.map((o) => o.ms).sort((a, b) => a - b);
  const avg = (f: (o: Outcome) => number) =>
    Math.round(outcomes.reduce((s, o) => s + f(o), 0) / outcomes.length);
  const row = {
    scenario: name,
    concurrent: level,
    reports: outcomes.length,
    p50_s: +(percentile(ms, 50) / 1000).toFixed(1),
    p95_s: +(percentile(ms, 95) / 1000).toFixed(1),
    calls_per_report: avg((o) => o.calls),
    http_requests_seen: fake.requests.length,
    prompt_tokens_per_report: avg((o) => o.promptTokens),
    total_tokens_per_report: avg((o) => o.totalTokens),
    model_items: avg((o) => o.modelItems),
    fallbacks: avg((o) => o.fallbacks),
    max_in_flight: fake.maxInFlight,
  };
  console.log(JSON.stringify(row));
  return row;
}

async function runScenario(name: string, scenario: Scenario) {
  const fake = await startFakeOpenAi();
  // The AI settings of the environment (defaults unless AI_BATCH_SIZE, AI_REPORT_CONCURRENCY, … are set).
  const env = loadConfig(process.env);
  const service = await startTestService('postgres', {
    aiTimeoutMs: env.aiTimeoutMs,
    aiMaxRetries: env.aiMaxRetries,
    aiConcurrency: env.aiConcurrency,
    aiReportConcurrency: env.aiReportConcurrency,
    aiBatchSize: env.aiBatchSize,
    aiBreakerThreshold: env.aiBreakerThreshold,
    aiBreakerCooldownMs: env.aiBreakerCooldownMs,
    aiModel: 'bench-model',
    aiBaseUrl: fake.baseUrl,
    aiApiKey: 'sk-bench',
    // The defaults a deployment gets, not the test helper's small pool of jobs.
    jobConcurrency: 32,
  });
  const rows = [];
  try {
    const key = await service.newKey('live', `bench-ai-${name}-${Date.now()}@example.com`);
    for (const level of scenario.levels) {
      fake.reset(
        simulatedModel({
          latencyMs: scenario.latencyMs,
          failureRate: scenario.failureRate,
          tokensPerSecond: TPS,
          write: realisticAnswer,
          random: seeded(42),
        }),
      );
      const outcomes: Outcome[] = [];
      if (level === 1) {
        for (let i = 0; i < SEQUENTIAL; i++) outcomes.push(await runReport(service, key));
      } else {
        outcomes.push(...(await Promise.all(Array.from({ length: level }, () => runReport(service, key)))));
      }
      rows.push(summarise(name, level, outcomes, fake));
    }
  } finally {
    await service.close();
    await fake.close();
  }
  return rows;
}

const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
const names = wanted.length > 0 ? wanted : Object.keys(SCENARIOS);
const settings = loadConfig(process.env);
console.log(
  JSON.stringify({
    tokens_per_second: TPS || 'unlimited',
    sequential_reports_at_1: SEQUENTIAL,
    batch_size: settings.aiBatchSize,
    report_concurrency: settings.aiReportConcurrency,
    concurrency: settings.aiConcurrency,
  }),
);
for (const name of names) {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`unknown scenario ${name}; one of ${Object.keys(SCENARIOS).join(', ')}`);
  await runScenario(name, scenario);
}
process.exit(0);
