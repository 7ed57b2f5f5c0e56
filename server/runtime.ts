/**
 * Decides from the configuration what this process starts, and how it stops. The only reader of the role:
 *
 * - `all` (default): everything below in one process;
 * - `api`: the HTTP API (REST, GraphQL, web app) — it enqueues jobs but runs none, and starts no worker threads;
 * - `worker`: the job workers (analysis, dead letters), pg-boss's supervisor (expiry, missed heartbeats), the
 *   sweepers (stale reports, retention) and the worker pool; its HTTP port serves only /healthz, /readyz, /metrics.
 *
 * Any number of each on one PostgreSQL. Stopping (SIGTERM/SIGINT in main.ts) is `stop()`: /readyz answers 503 at
 * once; the API keeps serving for the drain period (SHUTDOWN_DRAIN_SECONDS: long enough for a load balancer to
 * see the 503 and stop sending; closing the listener at once reset the connections already queued to it), then
 * stops accepting connections and lets requests in flight finish; job workers stop taking jobs and
 * let running ones finish — those still running near the end of the grace are handed back for another worker
 * to take at once; then the queue, the pool and the database close.
 */
import { createServer, type Server } from 'node:http';
import { getCompileCacheDir } from 'node:module';
import type { AddressInfo } from 'node:net';
import { type Logger, pino } from 'pino';
import { AnalysisPool } from '../worker/pool.ts';
import { createAiRuntime } from './ai/interpretations.ts';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { migrate, openDatabase } from './db/database.ts';
import {
  analyseReport,
  type ClaimingJob,
  claimingFetchDb,
  claimOf,
  markFailed,
} from './jobs/analyseReport.ts';
import { startHousekeeping } from './jobs/housekeeping.ts';
import { JobQueue } from './jobs/queue.ts';
import { purgeExpiredReports, RETENTION_INTERVAL_MS } from './jobs/retention.ts';
import { failStaleReports } from './jobs/sweeper.ts';
import { onResponseClosed } from './lib/responseClosed.ts';
import type { ServiceContext } from './services/context.ts';
import { ReadCache } from './services/readCache.ts';
import { DeliveryWorker } from './webhooks/delivery.ts';

export interface RunningService {
  services: ServiceContext;
  server: Server;
  /** Base URL the HTTP server listens on, e.g. http://127.0.0.1:3000. */
  url: string;
  /** Whether a shutdown has begun (/readyz is 503 from that moment). */
  readonly shuttingDown: boolean;
  /** Shuts down as described above, within `config.shutdownGraceMs`; safe to call more than once. */
  stop(): Promise<ShutdownReport>;
}

/** What a shutdown did (logged by main.ts; asserted by tests). */
export interface ShutdownReport {
  ms: number;
  requestsInFlight: number;
  jobsFinished: number;
  jobsHandedBack: number;
  /** Webhook attempts cut short at the deadline, logged as interrupted and queued again at once. */
  deliveriesHandedBack: number;
}

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel });
}

/** Part of the grace kept back for handing jobs back and closing connections, so the process ends within it. */
function closingReserveMs(graceMs: number): number {
  return Math.min(3000, Math.floor(graceMs / 4));
}

export async function startService(
  config: Config,
  logger: Logger = createLogger(config),
): Promise<RunningService> {
  const api = config.role !== 'worker';
  const works = config.role !== 'api';
  const db = await openDatabase(config);
  const closers: Array<() => Promise<void>> = [() => db.close()];
  /**
   * Closes what was opened, last first. With a deadline, a step still waiting then is abandoned (a database
   * connection held by a statement stuck behind a lock cannot be released politely): the process ends anyway,
   * and its connections with it.
   */
  const closeAll = async (deadline = Number.POSITIVE_INFINITY) => {
    for (const close of closers.reverse()) {
      const left = deadline - Date.now();
      let timer: NodeJS.Timeout | undefined;
      const step = close().catch((error: unknown) => logger.error({ err: error }, 'shutdown step failed'));
      const gaveUp = await Promise.race([
        step.then(() => false),
        Number.isFinite(left)
          ? new Promise<boolean>((resolve) => {
              timer = setTimeout(() => resolve(true), Math.max(0, left));
            })
          : new Promise<boolean>(() => undefined),
      ]);
      clearTimeout(timer);
      if (gaveUp) {
        logger.warn('shutdown: a resource did not close within the grace; leaving it to the exit');
        return;
      }
    }
  };
  let shuttingDown = false;
  try {
    await migrate(db.orm);
    const queue = await JobQueue.start(config, db, logger, { supervise: works, listen: works });
    closers.push(() => queue.stop());
    // An api process computes nothing: no worker threads.
    const pool = new AnalysisPool(works ? config.poolThreads : 0);
    closers.push(() => pool.close());
    const readCache = await ReadCache.start(queue.boss.getDb(), logger);
    closers.push(() => readCache.stop());
    const services: ServiceContext = {
      config,
      db,
      queue,
      pool,
      logger,
      ai: createAiRuntime(config, logger),
      readCache,
    };

    const timers: NodeJS.Timeout[] = [];
    const deliveries = works ? new DeliveryWorker(services) : null;
    if (deliveries) services.deliveries = deliveries;
    if (works) {
      await queue.work(
        (job) =>
          analyseReport(
            services,
            job.data,
            logger.child({ jobId: job.id, reportId: job.data.reportId }),
            { id: job.id, retryCount: job.retryCount },
            claimOf(job as ClaimingJob),
          ),
        async (job) => {
          logger.warn({ jobId: job.id, ...job.data }, 'analysis job gave up; marking the report failed');
          await markFailed(services, job.data);
        },
        pool,
        (db) => claimingFetchDb(db, logger),
      );
      await startHousekeeping(services);
      await deliveries?.start();
      const every = (ms: number, what: string, run: () => Promise<number>, immediately = false) => {
        const tick = () =>
          run().then(
            (count) => count > 0 && logger.warn({ count }, what),
            (error: unknown) => logger.error({ err: error }, `${what}: failed`),
          );
        const timer = setInterval(tick, ms);
        timer.unref();
        timers.push(timer);
        if (immediately) void tick();
      };
      every(60_000, 'failed reports that stayed pending too long', () => failStaleReports(services));
      if (config.reportRetentionDays !== null) {
        every(
          RETENTION_INTERVAL_MS,
          'deleted reports past retention',
          () => purgeExpiredReports(services),
          true,
        );
      }
    }

    const app = buildApp(services, { api, shuttingDown: () => shuttingDown });
    // Slow clients cannot hold sockets: headers must arrive within 20 s; a REST body within BODY_TIMEOUT_SECONDS
    // (jsonBody answers 408 with a problem body); any request, GraphQL bodies included, within 5 s more
    // (then Node itself answers 408 and closes). Node checks these every connectionsCheckingInterval (30 s by
    // default, which would let a stalled header live up to 50 s): once a second keeps the limits as documented.
    const server = createServer(
      {
        headersTimeout: config.headersTimeoutMs,
        requestTimeout: Math.max(config.headersTimeoutMs, config.bodyTimeoutMs) + 5_000,
        connectionsCheckingInterval: 1_000,
      },
      app.callback(),
    );
    server.listen(config.port, config.host);
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    // While shutting down, every response closes its connection: a keep-alive client reconnects elsewhere.
    server.on('request', (_req, res) => {
      if (shuttingDown) res.setHeader('Connection', 'close');
    });
    let inFlight = 0;
    server.on('request', (_req, res) => {
      inFlight++;
      onResponseClosed(res, () => inFlight--);
    });

    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}`;
    logger.info(
      {
        url,
        role: config.role,
        database: db.kind,
        poolThreads: pool.threads,
        aiModel: services.ai.client?.model ?? null,
        // Where main.ts keeps Node's compile cache; null: off.
        compileCache: getCompileCacheDir() ?? null,
      },
      'service started',
    );

    let stopping: Promise<ShutdownReport> | null = null;
    const stop = () => {
      stopping ??= (async () => {
        const started = Date.now();
        shuttingDown = true;
        const requestsInFlight = inFlight;
        const deadline = started + config.shutdownGraceMs - closingReserveMs(config.shutdownGraceMs);
        for (const timer of timers) clearInterval(timer);
        // The drain: an api serves on (answering with Connection: close, /readyz 503) until the balancer has
        // moved away. At most half the grace, so requests in flight keep the other half.
        const drainUntil = api
          ? started + Math.min(config.shutdownDrainMs, Math.max(0, (deadline - started) / 2))
          : started;
        const closeHttp = async () => {
          const drain = drainUntil - Date.now();
          if (drain > 0) await new Promise((resolve) => setTimeout(resolve, drain));
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          await untilOrDeadline(closed, deadline, () => server.closeIdleConnections());
          server.closeAllConnections();
        };
        // An API stops accepting after its drain. A worker's port (ops endpoints only) stays open while it drains, so
        // /readyz keeps saying 503 and /metrics keeps answering until its jobs are done.
        const [, jobs, sent] = await Promise.all([
          api ? closeHttp() : undefined,
          works
            ? queue.stopWorking(deadline).catch((error: unknown) => {
                // Jobs not handed back are found by their missed heartbeat instead (failover).
                logger.error({ err: error }, 'handing jobs back failed');
                return { finished: 0, handedBack: 0 };
              })
            : { finished: 0, handedBack: 0 },
          deliveries?.stop(deadline) ?? { finished: 0, handedBack: 0 },
        ]);
        if (!api) await closeHttp();
        await closeAll(started + config.shutdownGraceMs - 250);
        const report = {
          ms: Date.now() - started,
          requestsInFlight,
          jobsFinished: jobs.finished,
          jobsHandedBack: jobs.handedBack,
          deliveriesHandedBack: sent.handedBack,
        };
        logger.info(report, 'stopped');
        return report;
      })();
      return stopping;
    };
    return {
      services,
      server,
      url,
      get shuttingDown() {
        return shuttingDown;
      },
      stop,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * Waits for `done` until `deadline`, calling `tick` every 100 ms meanwhile (closing connections that went idle
 * after their last response).
 */
async function untilOrDeadline(done: Promise<void>, deadline: number, tick: () => void): Promise<void> {
  let finished = false;
  void done.then(() => {
    finished = true;
  });
  while (!finished && Date.now() < deadline) {
    tick();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(100, deadline - Date.now()))));
  }
}
