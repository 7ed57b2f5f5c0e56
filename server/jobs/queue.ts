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
  | 'jobConcurrency'
  | 'jobRetryLimit'
  | 'jobTimeoutSeconds'
  | 'jobHeartbeatSeconds'
  | 'jobMonitorSeconds'
  | 'jobAccountConcurrency'
>;

/** What a process's queue does besides enqueueing (runtime.ts decides it from the role). */
export interface QueueRole {
  /** Runs pg-boss's supervisor: expiry, missed heartbeats (failover), queue counts, retention of job rows. */
  supervise: boolean;
  /** Keeps a LISTEN connection so new jobs wake this process's workers at once. */
  listen: boolean;
}

/** Jobs by state, for /metrics. */
export type QueueDepth = Array<{ queue: string; state: string; count: number }>;

/** How long a count of waiting jobs is trusted for back-pressure before it is taken again. */
const WAITING_COUNT_TTL_MS = 1000;

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
  #stopping = false;
  /** Analysis jobs this process holds (claimed, not settled): what a shutdown hands back if they run late. */
  readonly #inHand = new Map<string, Job<AnalysisJobData>>();
  /** pg-boss's table for the analysis queue (for the count of waiting jobs). */
  #table = 'job_common';
  /** Jobs waiting, as last counted, and jobs this process enqueued since. */
  #waiting = { count: 0, at: 0, since: 0 };
  #counting: Promise<number> | null = null;

  private constructor(boss: PgBoss, settings: JobSettings, logger: Logger) {
    this.boss = boss;
    this.#settings = settings;
    this.#logger = logger;
  }

  /** Connects pg-boss, installs or migrates its schema, and creates the queues. Starts no worker. */
  static async start(
    config: Config,
    db: Database,
    logger: Logger,
    role: QueueRole = { supervise: true, listen: true },
  ): Promise<JobQueue> {
    const common = {
      schema: 'pgboss',
      useListenNotify: role.listen,
      supervise: role.supervise,
      // The supervisor's pass finds jobs whose worker stopped its heartbeat; it runs this often (failover time).
      superviseIntervalSeconds: config.jobMonitorSeconds,
      monitorIntervalSeconds: config.jobMonitorSeconds,
      schedule: false,
    };
    const boss = db.pglite
      ? new PgBoss({ ...common, db: fromPglite(db.pglite), backend: 'pglite' })
      : new PgBoss({
          ...common,
          connectionString: config.databaseUrl ?? undefined,
          max: config.queuePoolSize,
        });
    boss.on('error', (error) => {
      // Once stopping, a handler cut short at the deadline reports that its settle found the pool closed: expected.
      if (!queue.#stopping) logger.error({ err: error }, 'pg-boss error');
      else logger.debug({ err: error }, 'pg-boss error while stopping');
    });
    boss.on('warning', (warning) => logger.warn({ warning }, 'pg-boss warning'));
    const queue = new JobQueue(boss, config, logger);
    await boss.start();
    await queue.#createQueues();
    queue.#table = (await boss.getQueue(ANALYSIS_QUEUE))?.table ?? queue.#table;
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
      // 1–2 s before the first retry (backoff doubles it each time): part of the failover time.
      retryDelay: 1,
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

  /**
   * Enqueues the analysis of a report inside the caller's open transaction. The job's group is the account:
   * workers run at most `jobAccountConcurrency` jobs of one group at once (pg-boss groupConcurrency), so one
   * account's burst waits behind its own jobs, not in front of everyone else's.
   */
  async enqueueAnalysis(
    trx: Transaction<unknown>,
    data: AnalysisJobData,
    accountId: string,
  ): Promise<string> {
    const id = await this.boss.send(ANALYSIS_QUEUE, data, {
      db: transactionDb(trx),
      group: { id: accountId },
    });
    if (!id) throw new Error('pg-boss did not create the analysis job');
    this.#waiting.since++;
    return id;
  }

  /**
   * Whether fewer than `limit` analysis jobs wait (created or retry). Counted at most once a second per
   * process, plus what this process enqueued since; counted again whenever that estimate reaches the limit,
   * so a refusal is always based on a fresh count.
   */
  async hasRoom(limit: number): Promise<boolean> {
    const w = this.#waiting;
    if (Date.now() - w.at < WAITING_COUNT_TTL_MS && w.count + w.since < limit) return true;
    return (await this.#countWaiting()) < limit;
  }

  #countWaiting(): Promise<number> {
    this.#counting ??= (async () => {
      try {
        const { rows } = await this.boss
          .getDb()
          .executeSql(
            `select count(*)::int as n from pgboss.${this.#table} where name = $1 and state < 'active'`,
            [ANALYSIS_QUEUE],
          );
        const count = Number((rows[0] as { n: number }).n);
        this.#waiting = { count, at: Date.now(), since: 0 };
        return count;
      } finally {
        this.#counting = null;
      }
    })();
    return this.#counting;
  }

  /** Jobs by state from pg-boss's queue counts (refreshed by the supervisor's pass): /metrics. */
  async depth(): Promise<QueueDepth> {
    const queues = await this.boss.getQueues([ANALYSIS_QUEUE, ANALYSIS_DEAD_LETTER_QUEUE]);
    return queues.flatMap((q) =>
      (
        [
          ['ready', q.readyCount],
          ['deferred', q.deferredCount],
          ['active', q.activeCount],
          ['failed', q.failedCount],
        ] as const
      ).map(([state, count]) => ({ queue: q.name, state, count: Number(count) || 0 })),
    );
  }

  /** A round trip through pg-boss's own connection pool (readiness). */
  async ping(): Promise<void> {
    await this.boss.getDb().executeSql('select 1', []);
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
        // Over every worker process (the database counts active jobs per group when it hands jobs out).
        groupConcurrency: this.#settings.jobAccountConcurrency,
        burstWhenBatchFull: true,
        perJobResults: true,
        // Retried jobs (a dead worker's) raise no notification: found by this poll (part of the failover time).
        pollingIntervalSeconds: 1,
        notifyPollingIntervalSeconds: 1,
      },
      async (jobs) =>
        Promise.all(
          jobs.map(async (job) => {
            this.#inHand.set(job.id, job);
            try {
              await analyse(job);
              return { id: job.id, status: 'completed' as const };
            } catch (error) {
              log.warn(
                { err: error, jobId: job.id, retry: job.retryCount, ...job.data },
                'analysis job attempt failed',
              );
              return { id: job.id, status: 'failed' as const, output: { message: String(error) } };
            } finally {
              this.#inHand.delete(job.id);
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

  /**
   * Stops taking jobs and lets the ones in hand finish until `deadline` (epoch ms). Those still running then are
   * handed back: failed as this attempt and made due at once, so another worker takes them on its next poll
   * rather than after their heartbeat expires. Returns how many finished and how many were handed back.
   */
  async stopWorking(deadline: number): Promise<{ finished: number; handedBack: number }> {
    this.#stopping = true;
    const held = this.#inHand.size;
    const drained = Promise.allSettled(
      [ANALYSIS_QUEUE, ANALYSIS_DEAD_LETTER_QUEUE].map((name) => this.boss.offWork(name, { wait: true })),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      drained,
      new Promise((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      }),
    ]);
    clearTimeout(timer);
    const late = [...this.#inHand.values()];
    if (late.length > 0) {
      const attempts = late.map((job) => ({ id: job.id, retryCount: job.retryCount }));
      await this.boss.fail(ANALYSIS_QUEUE, attempts, { message: 'handed back: the worker shut down' });
      for (const job of late)
        await this.boss.update(ANALYSIS_QUEUE, undefined, { id: job.id, startAfter: 0 });
      this.#logger.warn({ jobs: late.map((job) => job.id) }, 'handed running jobs back at shutdown');
    }
    return { finished: Math.max(0, held - late.length), handedBack: late.length };
  }

  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    this.#stopping = true;
    // Jobs were drained or handed back by stopWorking (when this process worked): nothing is waited for here.
    await this.boss.stop({ graceful: false, close: true });
  }
}
