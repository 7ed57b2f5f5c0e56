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
    jobConcurrency: int('JOB_CONCURRENCY', env.JOB_CONCURRENCY, Math.max(4, cpus * 4), 1),
    jobRetryLimit: int('JOB_RETRY_LIMIT', env.JOB_RETRY_LIMIT, 3),
    jobTimeoutSeconds: int('JOB_TIMEOUT_SECONDS', env.JOB_TIMEOUT_SECONDS, 300, 1),
    jobHeartbeatSeconds: int('JOB_HEARTBEAT_SECONDS', env.JOB_HEARTBEAT_SECONDS, 15, 10),
    jobMonitorSeconds: int('JOB_MONITOR_SECONDS', env.JOB_MONITOR_SECONDS, 10, 1),
  };
}
