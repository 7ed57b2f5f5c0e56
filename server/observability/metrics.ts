/**
 * The one metrics registry (Prometheus, prom-client). Code that measures imports its instrument from here;
 * nothing else creates a registry or an instrument. `/metrics` serialises `registry`.
 *
 * Label values are bounded sets (route templates, not paths; outcomes, not messages), so a hostile caller
 * cannot grow the series count.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export const registry = new Registry();
collectDefaultMetrics({ register: registry });

/** HTTP request duration by route template (e.g. `/api/v1/developer/reports/:id`), method and status. */
export const httpRequestDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration, by route template, method and status code.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** Report submissions by mode (test|live) and outcome (accepted|rejected|replayed|throttled). */
export const submissions = new Counter({
  name: 'report_submissions_total',
  help: 'Report submissions, by key mode and outcome.',
  labelNames: ['mode', 'outcome'] as const,
  registers: [registry],
});

/** Jobs by queue and state (created, retry, active, …); set when /metrics is scraped. */
export const jobQueueDepth = new Gauge({
  name: 'job_queue_depth',
  help: 'Jobs in the queue, by queue name and state.',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
});

/** Duration of each step of a report job (store, compute, ai, assemble) and of whole jobs (step="job"). */
export const jobStepDuration = new Histogram({
  name: 'job_step_duration_seconds',
  help: 'Duration of report job steps.',
  labelNames: ['step'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [registry],
});

/** Worker-pool utilisation (0–1) and queued pool tasks; set when /metrics is scraped. */
export const poolUtilisation = new Gauge({
  name: 'worker_pool_utilisation',
  help: 'Piscina worker-pool utilisation, 0 to 1.',
  registers: [registry],
});
export const poolQueueSize = new Gauge({
  name: 'worker_pool_queue_size',
  help: 'Tasks waiting for a worker thread.',
  registers: [registry],
});

/** Model calls by outcome (ok|error|timeout|rate_limited|breaker_open). */
export const aiCalls = new Counter({
  name: 'ai_model_calls_total',
  help: 'Calls to the OpenAI-compatible model, by outcome.',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

/** Items the built-in writer wrote instead of the model, by reason (model_unavailable, budget_exhausted, …). */
export const aiFallbacks = new Counter({
  name: 'ai_builtin_fallbacks_total',
  help: 'Analysis items written by the built-in writer instead of the model, by reason.',
  labelNames: ['reason'] as const,
  registers: [registry],
});

/** Tokens the model used, by kind (prompt|completion). */
export const aiTokens = new Counter({
  name: 'ai_tokens_total',
  help: 'Model tokens used, by kind.',
  labelNames: ['kind'] as const,
  registers: [registry],
});

/** The model circuit breaker: 0 closed, 1 half-open, 2 open. */
export const aiBreakerState = new Gauge({
  name: 'ai_circuit_breaker_state',
  help: 'Model circuit breaker state: 0 closed, 1 half-open, 2 open.',
  registers: [registry],
});

/** Webhook delivery attempts by outcome (delivered|failed|timeout|disabled). */
export const webhookDeliveries = new Counter({
  name: 'webhook_deliveries_total',
  help: 'Webhook delivery attempts, by outcome.',
  labelNames: ['outcome'] as const,
  registers: [registry],
});
