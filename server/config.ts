/**
 * The only reader of process.env. Every setting the service understands is listed here and in the README.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AccountBudget, Budget, BudgetSize } from './lib/rateLimits.ts';

/** Where the service keeps Node's compile cache unless NODE_COMPILE_CACHE names a directory (main.ts). */
export const COMPILE_CACHE_DIR = fileURLToPath(
  new URL('../node_modules/.cache/financial-report-analysis/compile/', import.meta.url),
);

/** What this process runs: `all` (HTTP and jobs), `api` (HTTP, enqueues), `worker` (jobs, sweepers; ops endpoints). */
export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

export interface Config {
  /** What this process starts (read by runtime.ts only). */
  role: Role;
  /** How long a shutdown may take: in-flight requests and running jobs get this long, milliseconds. */
  shutdownGraceMs: number;
  /** Bearer token /metrics asks for; null → /metrics is open (keep it off the public network). */
  metricsToken: string | null;
  /** Submissions answer 503 + Retry-After while more analysis jobs than this wait in the queue. */
  maxQueuedJobs: number;
  /** Most analysis jobs of one account running at once, over every worker (per-account fairness). */
  jobAccountConcurrency: number;
  /** Fewest peers (other enterprises of the account, industry and year) before their distribution is shown. */
  benchmarkPeerMinimum: number;
  /** Reports older than this many days are deleted by a daily job; null → kept for ever. */
  reportRetentionDays: number | null;
  /** OTLP/HTTP endpoint traces are exported to; null → no tracing. */
  otelEndpoint: string | null;
  /** MikroORM's connection pool (application queries). */
  dbPoolSize: number;
  /** pg-boss's own connection pool (fetching, heartbeats, settling, maintenance). */
  queuePoolSize: number;
  /** PostgreSQL URL; null → embedded PGlite in `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  port: number;
  host: string;
  /** Public base URL of the web app, without a trailing slash; used for absolute share links. */
  appUrl: string;
  logLevel: string;
  /** Trust X-Forwarded-* headers (behind a reverse proxy): true when trustProxyHops > 0. */
  trustProxy: boolean;
  /**
   * Reverse proxies in front of the service (TRUST_PROXY=<hops>; `true` = 1, `false` = 0): the client address
   * is the right-most X-Forwarded-For entry not added by one of them (Koa's maxIpsCount).
   */
  trustProxyHops: number;
  /** Sizes of the rate-limit budgets (server/lib/rateLimits.ts). */
  rateLimits: Record<Budget, BudgetSize>;
  /** Ceilings of the caller budgets per account: every key and console session of an account together. */
  accountRateLimits: Record<AccountBudget, BudgetSize>;
  /** GraphQL query cost (server/graphql/limits.ts) one `reads` point buys; a request spends ⌈cost / this⌉. */
  graphqlCostPerRead: number;
  /** Live keys (not revoked) an account may hold per mode. */
  maxApiKeysPerMode: number;
  /** After SIGTERM an api keeps serving (while /readyz says 503) this long before it closes its listener, ms. */
  shutdownDrainMs: number;
  /** Maximum request body, bytes. */
  bodyLimitBytes: number;
  /** A request body must arrive within this many milliseconds of its headers (else 408). */
  bodyTimeoutMs: number;
  /** Request headers must arrive within this many milliseconds (20 s; not an environment variable). */
  headersTimeoutMs: number;
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
  /** How often a worker looks for jobs no NOTIFY announced (retried jobs, slots freed by another process). */
  jobPollSeconds: number;
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
  /** Analysis items per model call (one structured answer with an interpretation per item). */
  aiBatchSize: number;
  /** Model failures in a row (5xx, timeouts, connection errors, 429 after its retries) that open the circuit breaker. */
  aiBreakerThreshold: number;
  /** First cool-off of an open breaker before one probe is let through, ms; doubles while probes fail (×16 at most). */
  aiBreakerCooldownMs: number;
  /** Model tokens one account may use per UTC day; over it the built-in writer writes. 0 → no limit. */
  aiDailyTokenBudget: number;
  /** Webhook endpoints may resolve to loopback/private/link-local addresses (tests, local development). */
  webhookAllowPrivate: boolean;
  /**
   * Hard deadline of one webhook attempt (connect, headers and the whole body), milliseconds (10 s; not an
   * environment variable): well below the delivery job's 60 s expiry.
   */
  webhookTimeoutMs: number;
  /** Webhook attempts one worker process runs at once (they wait on receivers, not on the CPU). */
  webhookConcurrency: number;
  /** Webhook attempts of one account running at once, over every worker process. */
  webhookAccountConcurrency: number;
  /** Test events one account may send per minute (REST and GraphQL together). */
  webhookTestEventsPerMinute: number;
  /** Pending deliveries above which an account's test events and redeliveries are refused (429). */
  webhookMaxPendingDeliveries: number;
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

function trustProxyHops(value: string | undefined): number {
  const v = value?.trim().toLowerCase();
  if (!v || v === 'false') return 0;
  if (v === 'true') return 1;
  return int('TRUST_PROXY', v, 0);
}

/** A budget given as a sustained rate and a burst: `burst` requests per `burst / perSecond` seconds. */
function rateBudget(env: NodeJS.ProcessEnv, name: string, perSecond: number, burst: number): BudgetSize {
  const rate = int(`RATE_LIMIT_${name}_PER_SECOND`, env[`RATE_LIMIT_${name}_PER_SECOND`], perSecond, 1);
  const points = int(`RATE_LIMIT_${name}_BURST`, env[`RATE_LIMIT_${name}_BURST`], Math.max(burst, rate), 1);
  return { points, windowSeconds: points / rate };
}

function rateLimits(env: NodeJS.ProcessEnv): Record<Budget, BudgetSize> {
  return {
    reads: rateBudget(env, 'READS', 50, 100),
    submissions: rateBudget(env, 'SUBMISSIONS', 20, 40),
    ai_regeneration: {
      points: int('RATE_LIMIT_AI_PER_HOUR', env.RATE_LIMIT_AI_PER_HOUR, 20, 1),
      windowSeconds: 3600,
    },
    // Sign-in: 10 attempts per email and client address, 100 per email whoever tries, per 15 minutes.
    login_client: {
      points: int('RATE_LIMIT_LOGIN_PER_CLIENT', env.RATE_LIMIT_LOGIN_PER_CLIENT, 10, 1),
      windowSeconds: 900,
    },
    login_email: {
      points: int('RATE_LIMIT_LOGIN_PER_EMAIL', env.RATE_LIMIT_LOGIN_PER_EMAIL, 100, 1),
      windowSeconds: 900,
    },
    signup: {
      points: int('RATE_LIMIT_SIGNUP_PER_HOUR', env.RATE_LIMIT_SIGNUP_PER_HOUR, 20, 1),
      windowSeconds: 3600,
    },
    // Building a workbook costs CPU and the link needs no key: 10 per minute per client address.
    share_exports: {
      points: int('RATE_LIMIT_EXPORTS_PER_MINUTE', env.RATE_LIMIT_EXPORTS_PER_MINUTE, 10, 1),
      windowSeconds: 60,
    },
    // The share page and its JSON need no key either: a reader opens a link a few times, a flood is refused.
    share_reads: {
      points: int('RATE_LIMIT_SHARE_READS_PER_MINUTE', env.RATE_LIMIT_SHARE_READS_PER_MINUTE, 60, 1),
      windowSeconds: 60,
    },
  };
}

/** Per-account ceilings: by default twice one key's budget, so an account gains nothing from a third key. */
function accountRateLimits(
  env: NodeJS.ProcessEnv,
  perKey: Record<Budget, BudgetSize>,
): Record<AccountBudget, BudgetSize> {
  const perSecond = (size: BudgetSize) => size.points / size.windowSeconds;
  return {
    reads: rateBudget(env, 'ACCOUNT_READS', perSecond(perKey.reads) * 2, perKey.reads.points * 2),
    submissions: rateBudget(
      env,
      'ACCOUNT_SUBMISSIONS',
      perSecond(perKey.submissions) * 2,
      perKey.submissions.points * 2,
    ),
    ai_regeneration: {
      points: int(
        'RATE_LIMIT_ACCOUNT_AI_PER_HOUR',
        env.RATE_LIMIT_ACCOUNT_AI_PER_HOUR,
        perKey.ai_regeneration.points * 2,
        1,
      ),
      windowSeconds: 3600,
    },
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int('PORT', env.PORT, 3000);
  const cpus = availableParallelism();
  const role = oneOf('ROLE', env.ROLE, ROLES, 'all');
  const jobConcurrency = int('JOB_CONCURRENCY', env.JOB_CONCURRENCY, Math.min(64, Math.max(4, cpus * 16)), 1);
  const retention = int('REPORT_RETENTION_DAYS', env.REPORT_RETENTION_DAYS, 0);
  const perKey = rateLimits(env);
  return {
    role,
    shutdownGraceMs: int('SHUTDOWN_GRACE_SECONDS', env.SHUTDOWN_GRACE_SECONDS, 25, 1) * 1000,
    metricsToken: env.METRICS_TOKEN?.trim() || null,
    maxQueuedJobs: int('MAX_QUEUED_JOBS', env.MAX_QUEUED_JOBS, 10_000, 1),
    benchmarkPeerMinimum: int('BENCHMARK_PEER_MIN', env.BENCHMARK_PEER_MIN, 10, 2),
    jobAccountConcurrency: int(
      'JOB_ACCOUNT_CONCURRENCY',
      env.JOB_ACCOUNT_CONCURRENCY,
      Math.max(1, Math.ceil(jobConcurrency / 2)),
      1,
    ),
    reportRetentionDays: retention > 0 ? retention : null,
    otelEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || null,
    // A worker's queries come from its jobs; an api process's from requests. Sizes and the arithmetic against
    // max_connections: README "Running in production".
    // At least 2: a PostgreSQL start holds the migration lock on one connection while the migrations run on another
    // (server/db/database.ts migrate); with one the process waited for itself and never started.
    dbPoolSize: int('DB_POOL_SIZE', env.DB_POOL_SIZE, 10, 2),
    queuePoolSize: int('QUEUE_POOL_SIZE', env.QUEUE_POOL_SIZE, role === 'api' ? 2 : 5, 1),
    databaseUrl: env.DATABASE_URL?.trim() || null,
    dataDir: resolve(env.DATA_DIR?.trim() || './data'),
    port,
    host: env.HOST?.trim() || '0.0.0.0',
    appUrl: (env.APP_URL?.trim() || `http://localhost:${port}`).replace(/\/+$/, ''),
    logLevel: env.LOG_LEVEL?.trim() || 'info',
    trustProxy: trustProxyHops(env.TRUST_PROXY) > 0,
    trustProxyHops: trustProxyHops(env.TRUST_PROXY),
    rateLimits: perKey,
    accountRateLimits: accountRateLimits(env, perKey),
    graphqlCostPerRead: int('GRAPHQL_COST_PER_READ', env.GRAPHQL_COST_PER_READ, 100, 0),
    maxApiKeysPerMode: int('MAX_API_KEYS_PER_MODE', env.MAX_API_KEYS_PER_MODE, 20, 1),
    shutdownDrainMs: int('SHUTDOWN_DRAIN_SECONDS', env.SHUTDOWN_DRAIN_SECONDS, 5, 0) * 1000,
    bodyLimitBytes: int('BODY_LIMIT_MB', env.BODY_LIMIT_MB, 8, 1) * 1024 * 1024,
    bodyTimeoutMs: int('BODY_TIMEOUT_SECONDS', env.BODY_TIMEOUT_SECONDS, 30, 1) * 1000,
    headersTimeoutMs: 20_000,
    poolThreads: int('POOL_THREADS', env.POOL_THREADS, Math.max(1, cpus), 0),
    // A job mostly waits (database round trips, its turn in the pool): enough of them in flight keep the pool and
    // PostgreSQL busy (docs/performance.md: 8 → 32 on two cores, ≈ 80 → ≈ 105 reports/s sustained).
    jobConcurrency,
    jobRetryLimit: int('JOB_RETRY_LIMIT', env.JOB_RETRY_LIMIT, 3),
    jobTimeoutSeconds: int('JOB_TIMEOUT_SECONDS', env.JOB_TIMEOUT_SECONDS, 300, 1),
    // A dead worker's job is retried after at most heartbeat + monitor interval + first retry delay (≤ 2 s) +
    // a poll: 10 + 2 + 2 + 1 ≤ 15 s (docs/operations.md, failover).
    jobHeartbeatSeconds: int('JOB_HEARTBEAT_SECONDS', env.JOB_HEARTBEAT_SECONDS, 10, 10),
    jobMonitorSeconds: int('JOB_MONITOR_SECONDS', env.JOB_MONITOR_SECONDS, 2, 1),
    jobPollSeconds: int('JOB_POLL_SECONDS', env.JOB_POLL_SECONDS, 1, 1),
    aiApiKey: env.OPENAI_API_KEY?.trim() || null,
    aiBaseUrl: env.OPENAI_BASE_URL?.trim().replace(/\/+$/, '') || null,
    aiModel: env.AI_MODEL?.trim() || null,
    aiResponseFormat: oneOf('AI_RESPONSE_FORMAT', env.AI_RESPONSE_FORMAT, AI_RESPONSE_FORMATS, 'json_schema'),
    // A call answers a batch of items (AI_BATCH_SIZE): its answer is several times one item's.
    aiTimeoutMs: int('AI_TIMEOUT_SECONDS', env.AI_TIMEOUT_SECONDS, 60, 1) * 1000,
    aiMaxRetries: int('AI_MAX_RETRIES', env.AI_MAX_RETRIES, 2),
    aiRetryBaseMs: 1000,
    // 43 items in batches of 6 are 8 calls: one report's calls all in flight at once, two reports' in the process.
    aiConcurrency: int('AI_CONCURRENCY', env.AI_CONCURRENCY, 16, 1),
    aiReportConcurrency: int('AI_REPORT_CONCURRENCY', env.AI_REPORT_CONCURRENCY, 8, 1),
    aiBatchSize: int('AI_BATCH_SIZE', env.AI_BATCH_SIZE, 6, 1),
    aiBreakerThreshold: int('AI_BREAKER_THRESHOLD', env.AI_BREAKER_THRESHOLD, 5, 1),
    aiBreakerCooldownMs: int('AI_BREAKER_COOLDOWN_SECONDS', env.AI_BREAKER_COOLDOWN_SECONDS, 30, 1) * 1000,
    aiDailyTokenBudget: int('AI_DAILY_TOKEN_BUDGET', env.AI_DAILY_TOKEN_BUDGET, 2_000_000),
    webhookAllowPrivate: env.WEBHOOK_ALLOW_PRIVATE === '1' || env.WEBHOOK_ALLOW_PRIVATE === 'true',
    webhookTimeoutMs: 10_000,
    webhookConcurrency: int('WEBHOOK_CONCURRENCY', env.WEBHOOK_CONCURRENCY, 32, 1),
    webhookAccountConcurrency: int('WEBHOOK_ACCOUNT_CONCURRENCY', env.WEBHOOK_ACCOUNT_CONCURRENCY, 4, 1),
    webhookTestEventsPerMinute: int(
      'WEBHOOK_TEST_EVENTS_PER_MINUTE',
      env.WEBHOOK_TEST_EVENTS_PER_MINUTE,
      10,
      1,
    ),
    webhookMaxPendingDeliveries: int(
      'WEBHOOK_MAX_PENDING_DELIVERIES',
      env.WEBHOOK_MAX_PENDING_DELIVERIES,
      100,
      1,
    ),
  };
}
