/**
 * Durable background jobs on pg-boss, in the service's own database (PostgreSQL or embedded PGlite).
 *
 * Why pg-boss: a job is a row written in the same transaction as the report it belongs to, so a 202 is
 * never answered for a report without a job; workers claim jobs with SKIP LOCKED; a worker that dies stops
 * sending heartbeats and its job is retried; retries back off; a job that exhausts them moves to a
 * dead-letter queue, whose handler marks the report failed — so no report stays pending for ever.
 */
import type { Transaction } from 'kysely';
import { CompiledQuery } from 'kysely';
import { type Db, fromPglite, type Job, PgBoss } from 'pg-boss';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';

export const ANALYSIS_QUEUE = 'report-analysis';
export const ANALYSIS_DEAD_LETTER_QUEUE = 'report-analysis-dead';
const JOBS_PER_FETCH = 4;

export interface AnalysisJobData {
  reportId: string;
  taskId: string;
}

export type JobSettings = Pick<
  Config,
  'jobConcurrency' | 'jobRetryLimit' | 'jobTimeoutSeconds' | 'jobHeartbeatSeconds' | 'jobMonitorSeconds'
>;

/**
 * pg-boss statements run on an open Kysely transaction (MikroORM's), so they commit or roll back with it. They
 * run prepared (server/db/prepared.ts): pg-boss builds its insert from the schema and queue alone, so the texts
 * are few and fixed, and planning its insert cost PostgreSQL more than running it.
 */
export function transactionDb(trx: Transaction<unknown>): Db {
  return {
    executeSql: async (text, values) => {
      const result = await trx.executeQuery(CompiledQuery.raw(prepared(text), values ?? []));
      return { rows: result.rows as unknown[] };
    },
  };
}

export class JobQueue {
  readonly boss: PgBoss;
  readonly #settings: JobSettings;
  readonly #logger: Logger;
  #started = false;

  private constructor(boss: PgBoss, settings: JobSettings, logger: Logger) {
    this.boss = boss;
    this.#settings = settings;
    this.#logger = logger;
  }

  /** Connects pg-boss, installs or migrates its schema, and creates the queues. Starts no worker. */
  static async start(config: Config, db: Database, logger: Logger): Promise<JobQueue> {
    const common = {
      schema: 'pgboss',
      useListenNotify: true,
      superviseIntervalSeconds: config.jobMonitorSeconds,
      monitorIntervalSeconds: config.jobMonitorSeconds,
      schedule: false,
    };
    const boss = db.pglite
      ? new PgBoss({ ...common, db: fromPglite(db.pglite), backend: 'pglite' })
      : new PgBoss({ ...common, connectionString: config.databaseUrl ?? undefined, max: 5 });
    boss.on('error', (error) => logger.error({ err: error }, 'pg-boss error'));
    boss.on('warning', (warning) => logger.warn({ warning }, 'pg-boss warning'));
    await boss.start();
    const queue = new JobQueue(boss, config, logger);
    await queue.#createQueues();
    queue.#started = true;
    return queue;
  }

  async #createQueues(): Promise<void> {
    const s = this.#settings;
    await this.boss.createQueue(ANALYSIS_DEAD_LETTER_QUEUE, {
      retryLimit: 5,
      retryDelay: 5,
      retryBackoff: true,
    });
    const options = {
      retryLimit: s.jobRetryLimit,
      retryDelay: 2,
      retryBackoff: true,
      retryDelayMax: 60,
      expireInSeconds: s.jobTimeoutSeconds,
      heartbeatSeconds: s.jobHeartbeatSeconds,
      deadLetter: ANALYSIS_DEAD_LETTER_QUEUE,
      notify: true,
    };
    // createQueue leaves an existing queue's settings alone; updateQueue makes config changes stick.
    await this.boss.createQueue(ANALYSIS_QUEUE, options);
    const { deadLetter: _dead, ...updatable } = options;
    await this.boss.updateQueue(ANALYSIS_QUEUE, updatable);
  }

  /** Enqueues the analysis of a report inside the caller's open transaction. */
  async enqueueAnalysis(trx: Transaction<unknown>, data: AnalysisJobData): Promise<string> {
    const id = await this.boss.send(ANALYSIS_QUEUE, data, { db: transactionDb(trx) });
    if (!id) throw new Error('pg-boss did not create the analysis job');
    return id;
  }

  /** Starts this process's workers: analysis jobs, and the dead letters that mark reports failed. */
  async work(
    analyse: (job: Job<AnalysisJobData>) => Promise<void>,
    giveUp: (job: Job<AnalysisJobData>) => Promise<void>,
  ): Promise<void> {
    const log = this.#logger;
    // Batches of JOBS_PER_FETCH with burstWhenBatchFull: while there is a backlog, a worker fetches again as soon as
    // its batch is done instead of sleeping out its polling interval (pg-boss ignores bursting for batches of
    // one). Each job of a batch is settled on its own (perJobResults), so one failure retries only that job.
    const batchSize = Math.min(JOBS_PER_FETCH, this.#settings.jobConcurrency);
    await this.boss.work<AnalysisJobData>(
      ANALYSIS_QUEUE,
      {
        batchSize,
        localConcurrency: Math.max(1, Math.ceil(this.#settings.jobConcurrency / batchSize)),
        burstWhenBatchFull: true,
        perJobResults: true,
        pollingIntervalSeconds: 1,
        notifyPollingIntervalSeconds: 2,
      },
      async (jobs) =>
        Promise.all(
          jobs.map(async (job) => {
            try {
              await analyse(job);
              return { id: job.id, status: 'completed' as const };
            } catch (error) {
              log.warn(
                { err: error, jobId: job.id, retry: job.retryCount, ...job.data },
                'analysis job attempt failed',
              );
              return { id: job.id, status: 'failed' as const, output: { message: String(error) } };
            }
          }),
        ),
    );
    await this.boss.work<AnalysisJobData>(
      ANALYSIS_DEAD_LETTER_QUEUE,
      { pollingIntervalSeconds: 5 },
      async ([job]) => {
        if (job) await giveUp(job);
      },
    );
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    // Graceful: let jobs in hand finish for a while; whatever is left is retried by whoever runs next.
    await this.boss.stop({ graceful: true, timeout: 10_000, close: true });
  }
}
