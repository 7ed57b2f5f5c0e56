/**
 * Durable background jobs on pg-boss, in the service's own database (PostgreSQL or embedded PGlite).
 *
 * Why pg-boss: a job is a row written in the same transaction as the report it belongs to, so a 202 is
 * never answered for a report without a job; workers claim jobs with SKIP LOCKED; a worker that dies stops
 * sending heartbeats and its job is retried; retries back off; a job that exhausts them moves to a
 * dead-letter queue, whose handler marks the report failed — so no report stays pending for ever.
 *
 * Analysis jobs are taken by one dispatcher per process (AnalysisDispatcher below), not by pg-boss's `work`: pg-boss's
 * fetchers each wait for their whole batch, and every new job's NOTIFY woke every idle one (≈ 4 fetches a report).
 * The dispatcher fetches exactly the free slots, one fetch at a time, and keeps what `work` gave: heartbeats, each
 * job settled on its own, the per-account cap over all processes (groupConcurrency), expiry of a handler that hangs.
 */
import type { Kysely } from 'kysely';
import { CompiledQuery } from 'kysely';
import { type Db, fromPglite, type Job, PgBoss } from 'pg-boss';
// pg-boss's statement builders (the installed, pinned version): a job's insert is embedded in the statement that
// writes what the job is for (JobQueue.analysisJobInsertCtes). Checked when the queue starts; the tests run through it.
import { attemptPairs, completeJobs, insertJobs, notifyChannelSql } from 'pg-boss/dist/plans.js';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { prepared } from '../db/prepared.ts';

export const ANALYSIS_QUEUE = 'report-analysis';
export const ANALYSIS_DEAD_LETTER_QUEUE = 'report-analysis-dead';
/** Most analysis jobs one fetch takes: a fetch of many costs PostgreSQL hardly more than a fetch of one. */
const MAX_FETCH = 16;
/**
 * How long a job that ended waits for others to settle with it in one statement (and, with them, to free their slots
 * for one fetch). The report was marked done in its own transaction before: nothing a client sees waits for this.
 */
const SETTLE_MS = 20;

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
  | 'jobPollSeconds'
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
 * pg-boss statements run on a Kysely executor of MikroORM's as named prepared statements (server/db/prepared.ts).
 * pg-boss runs its own unnamed, so PostgreSQL parsed and planned them on every call; the texts used here are few and
 * fixed. Two uses:
 * - an open transaction: a job's insert commits or rolls back with what it is for;
 * - the service's pool (`JobQueue.fetchDb`): the workers' fetches — CTEs counting each account's active jobs, planned
 *   in 0.35 ms against 0.15 ms to run (pg_stat_statements with track_planning, 2026-11-29). A fetch's text depends
 *   only on the queue and the batch size (inlined as its LIMIT): at most MAX_FETCH texts per queue. Not on PGlite,
 *   whose statements pg-boss runs in-process.
 */
export function preparedDb(executor: Kysely<unknown>): Db {
  return {
    executeSql: async (text, values) => {
      const result = await executor.executeQuery(CompiledQuery.raw(prepared(text), values ?? []));
      return { rows: result.rows as unknown[] };
    },
  };
}

/**
 * `db` with each of pg-boss's fetch statements run as `build(text, parameters)`: the fetch as a CTE of a statement
 * that also does what its jobs need next (their leases, their claims), with `extra()`'s values as the parameters
 * after pg-boss's. Each text is built once.
 */
export function fetchAsCte(
  db: Db,
  build: (fetch: string, parameters: number) => string,
  extra: () => unknown[],
): Db {
  const texts = new Map<string, string>();
  return {
    executeSql: (text, values = []) => {
      let wrapped = texts.get(text);
      if (wrapped === undefined) {
        wrapped = build(text, values.length);
        texts.set(text, wrapped);
      }
      return db.executeSql(wrapped, [...values, ...extra()]);
    },
  };
}

/**
 * pg-boss's insert of `name`'s jobs (plans.insertJobs, the text its send runs) as two CTEs named `cte` (the insert,
 * returning the jobs' ids) and `<cte>_notified` (for a queue with NOTIFY, the NOTIFY its send adds), as a function of
 * the SQL expression that replaces its one parameter, the jobs' json array. Throws if the installed pg-boss no
 * longer builds the insert this way.
 */
function embeddedJobInsert(
  schema: string,
  table: string,
  name: string,
  notify: boolean,
): (cte: string, jobs: string) => string {
  const insert = insertJobs(schema, { table, name, returnId: true }).trim();
  const parameter = '$1::text::json';
  if (!/^INSERT INTO /i.test(insert) || insert.split(parameter).length !== 2 || /\$[2-9]/.test(insert))
    throw new Error(`pg-boss's job insert has changed: jobs of ${name} cannot be embedded`);
  return (cte, jobs) => {
    const notified = notify
      ? `select pg_notify(${notifyChannelSql(schema)}, '${name}') from ${cte} limit 1`
      : 'select 1 where false';
    return `${cte} as (${insert.replace(parameter, () => `(${jobs})`)}), ${cte}_notified as (${notified})`;
  };
}

/**
 * pg-boss's fenced completion of jobs (plans.completeJobs, the text its complete runs for fetched attempts) as one
 * CTE named `cte`, returning the ids it completed: its UPDATE with its parameters — queue name, ids, output, attempt
 * pairs — replaced by the given SQL expressions. Throws if the installed pg-boss no longer builds it this way.
 */
function embeddedCompletion(schema: string, table: string): (cte: string, refs: readonly string[]) => string {
  const sql = completeJobs(schema, table, undefined, true);
  const update = /^\s*WITH results AS \(\s*(UPDATE [\s\S]*RETURNING id)\s*\)\s*SELECT COUNT\(\*\)/i.exec(
    sql,
  )?.[1];
  if (!update || /\$[5-9]|\$\d\d/.test(update) || !/\$4::text\[\]/.test(update))
    throw new Error(`pg-boss's job completion has changed: it cannot be embedded`);
  return (cte, refs) =>
    `${cte} as (${update.replace(/\$([1-4])(?!\d)/g, (_, n: string) => refs[Number(n) - 1]!)})`;
}

export class JobQueue {
  readonly boss: PgBoss;
  /** What the workers' fetches run on (`fetch(queue, { db })`): prepared statements; undefined → pg-boss's pool. */
  readonly fetchDb: Db | undefined;
  readonly #settings: JobSettings;
  readonly #logger: Logger;
  #started = false;
  #stopping = false;
  /** This process's analysis dispatcher, once `work` started it. */
  #dispatcher: AnalysisDispatcher | null = null;
  /** pg-boss's table for the analysis queue (for the count of waiting jobs). */
  #table = 'job_common';
  /** Jobs waiting, as last counted, and jobs this process enqueued since. */
  #waiting = { count: 0, at: 0, since: 0 };
  #counting: Promise<number> | null = null;
  /** The analysis queue's completion to embed (analysisCompletionCte), once its table is known. */
  #completion: ((cte: string, refs: readonly string[]) => string) | null = null;
  /** The analysis queue's job insert to embed (analysisJobInsertCtes), once its table is known. */
  #insert: ((cte: string, jobs: string) => string) | null = null;

  private constructor(boss: PgBoss, settings: JobSettings, logger: Logger, fetchDb: Db | undefined) {
    this.boss = boss;
    this.fetchDb = fetchDb;
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
    const queue = new JobQueue(
      boss,
      config,
      logger,
      db.pglite ? undefined : preparedDb(db.orm.em.getConnection().getClient() as Kysely<unknown>),
    );
    // pg-boss wakes only its own workers on a NOTIFY; the analysis queue has none, so its listener (one connection,
    // reconnected by pg-boss, which calls onReconnect to recover what the gap missed) also wakes the dispatcher.
    const bossDb = boss.getDb();
    const listen = bossDb.listen?.bind(bossDb);
    if (listen)
      bossDb.listen = (channel, onNotification, onReconnect) =>
        listen(
          channel,
          (payload) => {
            onNotification(payload);
            if (payload === ANALYSIS_QUEUE) queue.#dispatcher?.notified();
          },
          () => {
            onReconnect();
            queue.#dispatcher?.notified();
          },
        );
    await boss.start();
    await queue.#createQueues();
    const analysis = await boss.getQueue(ANALYSIS_QUEUE);
    if (!analysis) throw new Error(`queue ${ANALYSIS_QUEUE} does not exist`);
    queue.#table = analysis.table;
    queue.#insert = embeddedJobInsert('pgboss', analysis.table, ANALYSIS_QUEUE, analysis.notify === true);
    queue.#completion = embeddedCompletion('pgboss', analysis.table);
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
   * The analysis queue's job insert as two CTEs of a caller's statement — `cte` (pg-boss's own insert, returning the jobs'
   * ids) and `<cte>_notified` (the queue's NOTIFY if it has one, sent on commit, as pg-boss's send does) — so a job is
   * written by the statement that writes what it is for: no round trip of its own. `jobs` is an SQL expression of
   * type json: an array of jobs in pg-boss's payload shape (keys of its json_to_recordset, e.g. `data`, `groupId`,
   * `priority`; absent keys take the queue's settings). The caller must read `<cte>_notified`
   * (`(select count(*) from <cte>_notified)`): a CTE that is not read does not run.
   */
  analysisJobInsertCtes(cte: string, jobs: string): string {
    if (!this.#insert) throw new Error('the job queue has not started');
    return this.#insert(cte, jobs);
  }

  /**
   * The completion of an analysis job's attempt as a CTE `cte` of a caller's statement (the job's assemble statement),
   * fenced to the attempt as pg-boss's complete is, returning the id when it completed it: the report's success and
   * its job's completion commit together, with no statement of their own. `id` and `attempts` are SQL expressions
   * of the parameters completionParams gives, in that order: the job's id (null: the CTE completes nothing) and its
   * attempt pair.
   *
   * The id goes in as a one-element array (`array[id::uuid]`, where pg-boss's own complete passes an array parameter):
   * the caller's statement is prepared, and the plan cached for an array parameter assumes ten ids, for which a scan
   * of the whole job table looked cheaper than ten probes of its key whenever the table was small at the last
   * ANALYZE. That plan was then kept while the table grew: every report's completion read every job (1,200 rows a
   * report in the bench's ten seconds). For one id the key is cheaper at any size past a few pages.
   */
  analysisCompletionCte(cte: string, id: string, attempts: string): string {
    if (!this.#completion) throw new Error('the job queue has not started');
    return this.#completion(cte, [`'${ANALYSIS_QUEUE}'`, `array[${id}::uuid]`, 'null', attempts]);
  }

  /** The parameters of analysisCompletionCte for `attempt` (none: the CTE completes nothing). */
  completionParams(attempt?: { id: string; retryCount: number }): [string | null, string[]] {
    return attempt ? [attempt.id, attemptPairs([attempt.id], [attempt.retryCount])] : [null, []];
  }

  /**
   * The json array (text) of one analysis job for analysisJobInsertCtes: pg-boss's payload, as its send makes it. The job's
   * group is the account: workers run at most `jobAccountConcurrency` jobs of one group at once (pg-boss
   * groupConcurrency), so one account's burst waits behind its own jobs, not in front of everyone else's.
   */
  analysisJobJson(data: AnalysisJobData, accountId: string): string {
    return JSON.stringify([
      { id: null, data, priority: 0, singletonKey: null, groupId: accountId, groupTier: null },
    ]);
  }

  /** Counts `jobs` analysis jobs this process enqueued through analysisJobInsertCtes (for hasRoom's estimate). */
  enqueued(jobs: number): void {
    this.#waiting.since += jobs;
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

  /** Fetches of analysis jobs this process made (for tests and diagnostics). */
  get analysisFetches(): number {
    return this.#dispatcher?.fetches ?? 0;
  }

  /**
   * Starts this process's workers: analysis jobs, and the dead letters that mark reports failed. `compute`: the
   * process's compute pool, whose backlog holds fetches back (AnalysisDispatcher). `fetchWith`: what the analysis
   * fetches run on, given the database they would run on (the job's claim joins the fetch: claimingFetchDb).
   */
  async work(
    analyse: (job: Job<AnalysisJobData>) => Promise<AnalysisOutcome>,
    giveUp: (job: Job<AnalysisJobData>) => Promise<void>,
    compute?: ComputeBacklog,
    fetchWith?: (db: Db) => Db,
  ): Promise<void> {
    this.#dispatcher ??= new AnalysisDispatcher(
      this.boss,
      fetchWith ? fetchWith(this.fetchDb ?? this.boss.getDb()) : this.fetchDb,
      this.#settings,
      this.#logger,
      analyse,
      () => this.#stopping,
      compute,
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
    const dispatcher = this.#dispatcher;
    const inHand = dispatcher?.inHand ?? new Map<string, Job<AnalysisJobData>>();
    let timer: NodeJS.Timeout | undefined;
    const until = (work: Promise<unknown>) =>
      Promise.race([
        work,
        new Promise((resolve) => {
          timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        }),
      ]).finally(() => clearTimeout(timer));
    // A fetch in flight still lands its jobs in hand: they are counted, and drained or handed back like the rest.
    await until(dispatcher?.stopFetching() ?? Promise.resolve());
    const held = inHand.size;
    await until(
      Promise.allSettled([
        dispatcher?.drained(),
        this.boss.offWork(ANALYSIS_DEAD_LETTER_QUEUE, { wait: true }),
      ]),
    );
    dispatcher?.stopHeartbeats();
    const late = [...inHand.values()];
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
    // Not awaited: a fetch still in flight finds the pool closed, and says so only at debug level.
    void this.#dispatcher?.stopFetching();
    this.#dispatcher?.stopHeartbeats();
    // Jobs were drained or handed back by stopWorking (when this process worked): nothing is waited for here.
    await this.boss.stop({ graceful: false, close: true });
  }
}

/**
 * What an analysis handler reports: `completed` when it completed its own job inside its last transaction
 * (JobQueue.analysisCompletionCte), so the dispatcher only gives the slot back.
 */
export type AnalysisOutcome = 'completed' | undefined;

interface Ended {
  job: Job<AnalysisJobData>;
  error: unknown;
  failed: boolean;
  /** Completed by the handler itself, in its transaction. */
  completed: boolean;
}

/** What the dispatcher reads of the compute pool (AnalysisPool). */
export interface ComputeBacklog {
  /** Whether every thread already has work queued behind what it runs. */
  readonly backlogged: boolean;
  /** Calls `listener` each time the pool stops being backlogged. */
  onDrained(listener: () => void): void;
}

/** A job's claim: settles and heartbeats are fenced to the attempt this process fetched. */
const attempt = (job: Job<AnalysisJobData>) => ({ id: job.id, retryCount: job.retryCount });

/**
 * One fetch loop per process for analysis jobs. It fetches min(free slots, MAX_FETCH) jobs at a time and starts each
 * at once, so a process runs `jobConcurrency` jobs whether they come as a backlog or one at a time, and never holds
 * more. It fetches when a slot is free and there may be work: after a NOTIFY for the queue, a fetch that came back
 * full, the settling of ended jobs (their accounts' slots are free again), or the poll (JOB_POLL_SECONDS, for retried
 * jobs, which raise no NOTIFY) — never two fetches at once. While this process holds an account at its cap, a NOTIFY
 * waits for the next job to end (≤ the poll): under one account's backlog every new job is that account's, and
 * fetching on each NOTIFY came back empty.
 *
 * Why every settle fetches, not only one that frees a slot of an account this process held at its cap: an account's
 * cap is counted over every process by the fetch statement, and this process can be below it while the account's
 * jobs wait — another worker process holds the rest of its slots, or a fetch's snapshot still counted a job whose
 * completion was committing. Refilling only from a process at its cap then waited for the poll: a one-second stall
 * once a burst's submissions stopped (docs/performance.md, issue 26's fifth stop). The price is a fetch that finds
 * nothing when the queue is empty: at light load, one more fetch per report.
 *
 * While the compute pool is backlogged (a batch queued for every thread besides those running), the dispatcher does
 * not fetch: a job claimed then would only wait in the pool's queue, holding its submission in memory, and under a
 * backlog every settle made a fetch for one job — a fetch counting each account's active jobs, most of a report's
 * cost in the job tables. It fetches every free slot at once when the pool drains (the pool says so), so the pool
 * still has a batch queued for each thread while the new jobs are claimed. A job that waits then waits in the
 * queue, not in the pool: the same wait, in order of the fetch (priority, fairness) instead of the pool's.
 * One `touch` per half heartbeat interval refreshes every job in hand. Jobs that end within SETTLE_MS of each other
 * (or while a settle is in flight) are completed in one statement and free their slots for one fetch; a failure is
 * failed on its own, so only that job is retried.
 */
class AnalysisDispatcher {
  readonly #boss: PgBoss;
  readonly #fetchDb: Db | undefined;
  readonly #settings: JobSettings;
  readonly #logger: Logger;
  readonly #analyse: (job: Job<AnalysisJobData>) => Promise<AnalysisOutcome>;
  readonly #quiet: () => boolean;
  readonly #compute: ComputeBacklog | undefined;
  readonly #pollMs: number;
  /** Fetches made (for tests and diagnostics). */
  fetches = 0;
  /** Jobs claimed and not yet settled: what heartbeats refresh and a shutdown hands back if they run late. */
  readonly inHand = new Map<string, Job<AnalysisJobData>>();
  /** Jobs in hand per account (pg-boss group), to tell when this process holds one at its cap. */
  readonly #perGroup = new Map<string, number>();
  /** Whether jobs may be waiting that a fetch would get. */
  #due = true;
  #nextPoll = 0;
  #stopping = false;
  #wake: (() => void) | null = null;
  readonly #loop: Promise<void>;
  readonly #heartbeat: NodeJS.Timeout;
  /** Jobs that ended and wait to be settled; they keep their slots (and their account's) until then. */
  #ended: Array<Ended> = [];
  #settling: Promise<void> | null = null;
  #idle: (() => void) | null = null;

  constructor(
    boss: PgBoss,
    fetchDb: Db | undefined,
    settings: JobSettings,
    logger: Logger,
    analyse: (job: Job<AnalysisJobData>) => Promise<AnalysisOutcome>,
    quiet: () => boolean,
    compute?: ComputeBacklog,
  ) {
    this.#boss = boss;
    this.#compute = compute;
    compute?.onDrained(() => {
      if (this.#due) this.#wake?.();
    });
    this.#fetchDb = fetchDb;
    this.#settings = settings;
    this.#logger = logger;
    this.#analyse = analyse;
    this.#quiet = quiet;
    this.#pollMs = settings.jobPollSeconds * 1000;
    // Twice per heartbeat interval, as pg-boss's workers do; a dead process's jobs miss it and are retried.
    this.#heartbeat = setInterval(() => void this.#touch(), (settings.jobHeartbeatSeconds * 1000) / 2);
    this.#loop = this.#run();
  }

  /** A NOTIFY for the queue (or the listener reconnected): a job may be waiting. */
  notified(): void {
    this.#due = true;
    if (!this.#atCap()) this.#wake?.();
  }

  #atCap(): boolean {
    for (const count of this.#perGroup.values())
      if (count >= this.#settings.jobAccountConcurrency) return true;
    return false;
  }

  async #run(): Promise<void> {
    const { jobConcurrency, jobAccountConcurrency } = this.#settings;
    while (!this.#stopping) {
      let pause = 0;
      if (Date.now() >= this.#nextPoll) this.#due = true;
      const free = jobConcurrency - this.inHand.size;
      // The pool has a batch queued for every thread: leave the jobs in the queue until it drains (class comment).
      const deferred = free > 0 && this.#due && this.#compute?.backlogged === true;
      if (free > 0 && this.#due && !deferred) {
        this.#due = false;
        this.fetches++;
        this.#nextPoll = Date.now() + this.#pollMs;
        const batchSize = Math.min(free, MAX_FETCH);
        try {
          const jobs = await this.#boss.fetch<AnalysisJobData>(ANALYSIS_QUEUE, {
            db: this.#fetchDb,
            batchSize,
            // Over every worker process (the database counts active jobs per group when it hands jobs out).
            groupConcurrency: jobAccountConcurrency,
          });
          for (const job of jobs) this.#start(job);
          if (jobs.length === batchSize) this.#due = true;
        } catch (error) {
          // The database is unreachable: try again at the next poll, and say so once a second at most.
          if (this.#stopping)
            this.#logger.debug({ err: error }, 'fetching analysis jobs failed while stopping');
          else this.#logger.error({ err: error }, 'fetching analysis jobs failed');
          pause = this.#pollMs;
        }
      }
      const full = this.inHand.size >= jobConcurrency;
      if (this.#stopping || (pause === 0 && this.#due && !full && !deferred)) continue;
      // With every slot taken only the end of a job wakes the loop (its settle does); else also the poll.
      await new Promise<void>((resolve) => {
        // Deferred: the pool's drain or a settle wakes it (the poll only as a safeguard).
        const wait = deferred ? this.#pollMs : Math.max(pause, this.#nextPoll - Date.now());
        const timer = full ? undefined : setTimeout(resolve, wait);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
  }

  #start(job: Job<AnalysisJobData>): void {
    this.inHand.set(job.id, job);
    if (job.groupId) this.#perGroup.set(job.groupId, (this.#perGroup.get(job.groupId) ?? 0) + 1);
    // A handler that outlives the job's expiry gives its slot back, failed, as pg-boss's worker does (the
    // supervisor retries the job anyway); it may still finish, and its settle then finds the claim gone.
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`handler execution exceeded ${job.expireInSeconds}s`)),
        job.expireInSeconds * 1000,
      );
    });
    Promise.race([Promise.resolve().then(() => this.#analyse(job)), expired]).then(
      (outcome) =>
        this.#end({ job, error: undefined, failed: false, completed: outcome === 'completed' }, timer),
      (error: unknown) => {
        this.#logger.warn(
          { err: error, jobId: job.id, retry: job.retryCount, ...job.data },
          'analysis job attempt failed',
        );
        this.#end({ job, error, failed: true, completed: false }, timer);
      },
    );
  }

  #end(ended: Ended, timer: NodeJS.Timeout | undefined) {
    clearTimeout(timer);
    this.#ended.push(ended);
    this.#settling ??= new Promise((resolve) => setTimeout(resolve, SETTLE_MS)).then(() => this.#settle());
  }

  /** Settles what ended, in rounds: jobs that end during a round's statements go together in the next one. */
  async #settle(): Promise<void> {
    while (this.#ended.length > 0) {
      const round = this.#ended.splice(0);
      const completed = round
        .filter((ended) => !ended.failed && !ended.completed)
        .map((ended) => attempt(ended.job));
      try {
        if (completed.length > 0) await this.#boss.complete(ANALYSIS_QUEUE, completed);
        for (const { job, error, failed } of round)
          if (failed) await this.#boss.fail(ANALYSIS_QUEUE, [attempt(job)], { message: String(error) });
      } catch (error) {
        // Left active, the jobs miss their heartbeats and are retried: a report is never lost, at worst run again.
        if (this.#quiet()) this.#logger.debug({ err: error }, 'settling analysis jobs failed while stopping');
        else this.#logger.error({ err: error }, 'settling analysis jobs failed');
      }
      for (const { job } of round) this.#release(job);
      // Slots are free again, this process's and the accounts': their waiting jobs, if any, can be fetched now.
      this.#due = true;
      this.#wake?.();
    }
    this.#settling = null;
    if (this.inHand.size === 0) this.#idle?.();
  }

  #release(job: Job<AnalysisJobData>): void {
    this.inHand.delete(job.id);
    if (!job.groupId) return;
    const count = this.#perGroup.get(job.groupId) ?? 0;
    if (count > 1) this.#perGroup.set(job.groupId, count - 1);
    else this.#perGroup.delete(job.groupId);
  }

  async #touch(): Promise<void> {
    if (this.inHand.size === 0) return;
    try {
      await this.#boss.touch(ANALYSIS_QUEUE, [...this.inHand.values()].map(attempt));
    } catch (error) {
      this.#logger.warn({ err: error }, 'analysis job heartbeat failed');
    }
  }

  /** Stops fetching; resolves once no fetch is in flight. */
  stopFetching(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    return this.#loop;
  }

  /** Resolves when every job in hand has ended and been settled. */
  drained(): Promise<void> {
    if (this.inHand.size === 0 && !this.#settling) return Promise.resolve();
    return new Promise((resolve) => {
      this.#idle = resolve;
    });
  }

  stopHeartbeats(): void {
    clearInterval(this.#heartbeat);
  }
}
