/**
 * Starts and stops the whole service in one process: database (migrated), job queue, worker pool, job
 * workers, HTTP server. main.ts calls it with the environment's config; tests call it with their own.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Logger, pino } from 'pino';
import { AnalysisPool } from '../worker/pool.ts';
import { createAiRuntime } from './ai/interpretations.ts';
import { buildApp } from './app.ts';
import type { Config } from './config.ts';
import { migrate, openDatabase } from './db/database.ts';
import { analyseReport, markFailed } from './jobs/analyseReport.ts';
import { startHousekeeping } from './jobs/housekeeping.ts';
import { JobQueue } from './jobs/queue.ts';
import { failStaleReports } from './jobs/sweeper.ts';
import type { ServiceContext } from './services/context.ts';
import { startWebhookDelivery } from './webhooks/delivery.ts';

export interface RunningService {
  services: ServiceContext;
  server: Server;
  /** Base URL the HTTP server listens on, e.g. http://127.0.0.1:3000. */
  url: string;
  stop(): Promise<void>;
}

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel });
}

export async function startService(
  config: Config,
  logger: Logger = createLogger(config),
): Promise<RunningService> {
  const db = await openDatabase(config);
  const cleanups: Array<() => Promise<void>> = [() => db.close()];
  const stopAll = async () => {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => logger.error({ err: error }, 'shutdown step failed'));
    }
  };
  try {
    await migrate(db.orm);
    const queue = await JobQueue.start(config, db, logger);
    cleanups.push(() => queue.stop());
    const pool = new AnalysisPool(config.poolThreads);
    cleanups.push(() => pool.close());
    const services: ServiceContext = { config, db, queue, pool, logger, ai: createAiRuntime(config, logger) };

    await queue.work(
      (job) =>
        analyseReport(services, job.data, logger.child({ jobId: job.id, reportId: job.data.reportId })),
      async (job) => {
        logger.warn({ jobId: job.id, ...job.data }, 'analysis job gave up; marking the report failed');
        await markFailed(services, job.data);
      },
    );
    await startHousekeeping(services);
    await startWebhookDelivery(services);
    const sweep = setInterval(() => {
      failStaleReports(services).then(
        (count) => count > 0 && logger.warn({ count }, 'failed reports that stayed pending too long'),
        (error: unknown) => logger.error({ err: error }, 'stale-report sweep failed'),
      );
    }, 60_000);
    sweep.unref();
    cleanups.push(async () => clearInterval(sweep));

    const app = buildApp(services);
    const server = app.listen(config.port, config.host);
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}`;
    logger.info(
      { url, database: db.kind, poolThreads: pool.threads, aiModel: services.ai.client?.model ?? null },
      'service started',
    );
    return { services, server, url, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
