/**
 * The only reader of process.env. Every setting the service understands is listed here and in the README.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';

export interface Config {
  /** PostgreSQL URL; null → embedded PGlite in `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  port: number;
  host: string;
  /** Public base URL of the web app, without a trailing slash; used for absolute share links. */
  appUrl: string;
  logLevel: string;
  /** Trust X-Forwarded-* headers (behind a reverse proxy). */
  trustProxy: boolean;
  /** Maximum request body, bytes. */
  bodyLimitBytes: number;
  /** Indicator worker threads (Piscina). */
  poolThreads: number;
  /** Report jobs one process runs at once. */
  jobConcurrency: number;
  /** Attempts after the first before a report is marked failed. */
  jobRetryLimit: number;
  /** A job not finished within this many seconds is taken as lost (its process died) and retried. */
  jobTimeoutSeconds: number;
  /** A worker that has not sent a heartbeat for this long is taken as dead and its job retried (≥ 10). */
  jobHeartbeatSeconds: number;
  /** How often pg-boss looks for expired jobs and missed heartbeats. */
  jobMonitorSeconds: number;
  /** Key for the OpenAI-compatible server; null when it needs none (e.g. a local Ollama or vLLM). */
  aiApiKey: string | null;
  /** Base URL of an OpenAI-compatible server (…/v1); null → api.openai.com. */
  aiBaseUrl: string | null;
  /** Model name; null → no model is configured and the built-in writer writes every interpretation. */
  aiModel: string | null;
  /** `json_schema` (structured output) or `json_object` (JSON mode, for servers without json_schema). */
  aiResponseFormat: 'json_schema' | 'json_object';
  /** Longest wait for one model call, milliseconds. */
  aiTimeoutMs: number;
  /** Retries of a model call after a 429, a 5xx, a timeout or a connection error. */
  aiMaxRetries: number;
  /** First backoff before a retry, milliseconds; doubled on each retry (not an environment variable). */
  aiRetryBaseMs: number;
  /** Model calls in flight at once in this process, over all reports. */
  aiConcurrency: number;
  /** Model calls in flight at once for one report, so one large report cannot take every slot. */
  aiReportConcurrency: number;
  /** Webhook endpoints may resolve to loopback/private/link-local addresses (tests, local development). */
  webhookAllowPrivate: boolean;
  /** Longest wait for a webhook endpoint's answer, milliseconds (10 s; not an environment variable). */
  webhookTimeoutMs: number;
}

const AI_RESPONSE_FORMATS = ['json_schema', 'json_object'] as const;

function oneOf<T extends string>(
  name: string,
  value: string | undefined,
  allowed: readonly T[],
  fallback: T,
): T {
  const v = value?.trim();
  if (!v) return fallback;
  if (!(allowed as readonly string[]).includes(v))
    throw new Error(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  return v as T;
}

function int(name: string, value: string | undefined, fallback: number, min = 0): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${value}"`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int('PORT', env.PORT, 3000);
  const cpus = availableParallelism();
  return {
    databaseUrl: env.DATABASE_URL?.trim() || null,
    dataDir: resolve(env.DATA_DIR?.trim() || './data'),
    port,
    host: env.HOST?.trim() || '0.0.0.0',
    appUrl: (env.APP_URL?.trim() || `http://localhost:${port}`).replace(/\/+$/, ''),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    trustProxy: env.TRUST_PROXY === '1' || env.TRUST_PROXY === 'true',
    bodyLimitBytes: int('BODY_LIMIT_MB', env.BODY_LIMIT_MB, 8, 1) * 1024 * 1024,
    poolThreads: int('POOL_THREADS', env.POOL_THREADS, Math.max(1, cpus), 0),
    // A job mostly waits (database round trips, its turn in the pool): enough of them in flight keep the pool and
    // PostgreSQL busy (docs/performance.md: 8 → 32 on two cores, ≈ 80 → ≈ 105 reports/s sustained).
    jobConcurrency: int('JOB_CONCURRENCY', env.JOB_CONCURRENCY, Math.min(64, Math.max(4, cpus * 16)), 1),
    jobRetryLimit: int('JOB_RETRY_LIMIT', env.JOB_RETRY_LIMIT, 3),
    jobTimeoutSeconds: int('JOB_TIMEOUT_SECONDS', env.JOB_TIMEOUT_SECONDS, 300, 1),
    jobHeartbeatSeconds: int('JOB_HEARTBEAT_SECONDS', env.JOB_HEARTBEAT_SECONDS, 15, 10),
    jobMonitorSeconds: int('JOB_MONITOR_SECONDS', env.JOB_MONITOR_SECONDS, 10, 1),
    aiApiKey: env.OPENAI_API_KEY?.trim() || null,
    aiBaseUrl: env.OPENAI_BASE_URL?.trim().replace(/\/+$/, '') || null,
    aiModel: env.AI_MODEL?.trim() || null,
    aiResponseFormat: oneOf('AI_RESPONSE_FORMAT', env.AI_RESPONSE_FORMAT, AI_RESPONSE_FORMATS, 'json_schema'),
    aiTimeoutMs: int('AI_TIMEOUT_SECONDS', env.AI_TIMEOUT_SECONDS, 30, 1) * 1000,
    aiMaxRetries: int('AI_MAX_RETRIES', env.AI_MAX_RETRIES, 2),
    aiRetryBaseMs: 1000,
    aiConcurrency: int('AI_CONCURRENCY', env.AI_CONCURRENCY, 4, 1),
    aiReportConcurrency: int('AI_REPORT_CONCURRENCY', env.AI_REPORT_CONCURRENCY, 2, 1),
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === '1' || env.WEBHOOK_ALLOW_PRIVATE === 'true',
    webhookTimeoutMs: 10_000,
  };
}
