/**
 * Webhook events and their delivery (docs/webhooks.md).
 *
 * An event is recorded as one delivery row per enabled endpoint of the report's account and mode, and a pg-boss
 * job per delivery, in the caller's transaction — the one that finishes (or fails) the report — so an event is
 * never lost and never sent for a report that did not finish (at least once; the unique (endpoint, event)
 * key makes a repeated emission deliver once). Each attempt is a job: POST the payload signed per Standard
 * Webhooks, within a hard deadline (connect, headers and whole body), redirects not followed, addresses checked
 * at connection (ssrf.ts). A 2xx delivers; 410 Gone disables the endpoint; anything else (or no answer) is
 * retried on RETRY_SCHEDULE_SECONDS, over ~27.6 hours, then the delivery is failed. Every attempt is logged.
 *
 * Fairness: a job's pg-boss group is its account, and the workers fetch with a per-group cap (over every worker
 * process), so one account's backlog or slow receivers occupy at most `webhookAccountConcurrency` attempts while
 * other accounts' events take the free slots. Fresh events outrank retries (pg-boss priority), so a backlog
 * of retries never runs ahead of new events. The delivery worker (DeliveryWorker) runs many attempts at once
 * per process: they wait on receivers, not on the CPU.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Transaction } from 'kysely';
import type { Db, Job } from 'pg-boss';
import { ormOptions } from '../db/database.ts';
import { PreparingClient, prepared } from '../db/prepared.ts';
import { runSql } from '../db/sql.ts';
import { fetchAsCte, preparedDb } from '../jobs/queue.ts';
import { webhookDeliveries } from '../observability/metrics.ts';
import type { ServiceContext } from '../services/context.ts';
import { type FinishedReport, reportEvent, serialiseEvent, type WebhookEvent } from './payload.ts';
import { signatureHeader } from './signing.ts';
import { guardedLookup, isBlockedLiteral } from './ssrf.ts';

export const WEBHOOK_QUEUE = 'webhook-delivery';
/** Delay before attempt 2, 3, …, 8 (after a failed attempt 1, 2, …, 7): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;
const MAX_RESPONSE_BYTES = 64 * 1024;
/** pg-boss expires a job running this long (a worker that died mid-attempt): far above the attempt's deadline. */
export const DELIVERY_JOB_EXPIRY_SECONDS = 60;
/**
 * How long an attempt holds its delivery (attempt_started_at): a second job for the same delivery (a redelivery,
 * pg-boss's retry of an expired job) finding the lease held does nothing — the running attempt settles it. Longer
 * than an attempt can run (deadline + its settle), shorter than the job's expiry, so the retry of a job
 * whose worker died finds the lease lapsed.
 */
const LEASE_SECONDS = 30;
/** pg-boss priorities (higher first): new events before scheduled retries. */
const FRESH = 1;
const RETRY = 0;
/** Longest pause between fetches while idle (also the wake-up after another process queued an event). */
const IDLE_POLL_MS = 250;
/** Pause after a fetch that failed (the database unreachable). */
const FAILED_FETCH_PAUSE_MS = 1000;
/** How long a shutdown waits for cut attempts to record themselves and queue again. */
const HAND_BACK_MS = 2000;
/** Connections of the delivery worker's own pool (PostgreSQL; per worker process). */
const DELIVERY_POOL_SIZE = 3;
/** Most jobs taken in one fetch. */
const MAX_FETCH = 16;
/**
 * Attempts that end within this long of one another wake one fetch (a stream of events made a fetch per event), and
 * the jobs among them that settled nothing are completed in one statement; it delays the next fetch by at most this
 * much.
 */
const SETTLE_BATCH_MS = 20;

export type { WebhookEvent, WebhookEventType } from './payload.ts';

interface DeliveryJob {
  deliveryId: string;
}

/**
 * Queues an attempt of a delivery in `tx`, in its account's group. `retry`: a scheduled retry (ranks after new
 * events); a first attempt, a redelivery or a hand-back at shutdown ranks as new.
 */
export async function enqueueDelivery(
  ctx: ServiceContext,
  tx: EntityManager,
  deliveryId: string,
  accountId: string,
  delaySeconds: number,
  retry = false,
): Promise<void> {
  const db = preparedDb(tx.getTransactionContext() as Transaction<unknown>);
  await ctx.queue.boss.send(WEBHOOK_QUEUE, { deliveryId } satisfies DeliveryJob, {
    db,
    group: { id: accountId },
    priority: retry ? RETRY : FRESH,
    ...(delaySeconds > 0 ? { startAfter: delaySeconds } : {}),
  });
}

/** Records `event` for the given endpoints of one account (in `tx`) and queues their first attempts; returns the new ids. */
export async function recordDeliveries(
  ctx: ServiceContext,
  tx: EntityManager,
  accountId: string,
  endpointIds: readonly string[],
  eventKey: string,
  event: WebhookEvent,
): Promise<string[]> {
  const ids: string[] = [];
  for (const endpointId of endpointIds) {
    const rows = await runSql<{ id: string }>(
      tx,
      `insert into webhook_deliveries (id, endpoint_id, event_key, event_type, payload, status, attempts, created_at, next_attempt_at)
       values (gen_random_uuid(), $1, $2, $3, $4, 'pending', 0, $5, $5)
       on conflict (endpoint_id, event_key) do nothing returning id`,
      [endpointId, eventKey, event.type, serialiseEvent(event), new Date()],
    );
    for (const row of rows) {
      await enqueueDelivery(ctx, tx, row.id, accountId, 0);
      ids.push(row.id);
    }
  }
  return ids;
}

/**
 * `report.succeeded` or `report.failed` (by the report's status) to every enabled endpoint of the report's account
 * and mode, in `tx`: THE one call that emits report events (end of the analysis job, markFailed, the stale-report
 * sweeper). Payload `{ type, timestamp, data: { report_id, task_id, status, version_no, share_url,
 * error_message } }`, share_url absolute (APP_URL). Nothing happens for a report still pending, or with no endpoint.
 */
export async function emitReportEvent(
  ctx: ServiceContext,
  tx: EntityManager,
  reportId: string,
): Promise<number> {
  const [report] = await runSql<FinishedReport & { account_id: string; mode: string }>(
    tx,
    `select r.id, r.account_id, r.mode, r.status, r.version_no, r.share_token, r.error_message, t.id as task_id
       from reports r join tasks t on t.report_id = r.id
      where r.id = $1 and r.status in ('success', 'failed')`,
    [reportId],
  );
  if (!report) return 0;
  // The body is built and serialised by payload.ts, as a test event's is: one format for every delivery.
  const event = reportEvent(report, `${ctx.config.appUrl}/shared/reports/`, new Date());
  const rows = await runSql<{ id: string }>(tx, EMIT_SQL, [
    report.account_id,
    report.mode,
    `${event.type}:${report.id}`,
    event.type,
    serialiseEvent(event),
    new Date(),
  ]);
  for (const row of rows) await enqueueDelivery(ctx, tx, row.id, report.account_id, 0);
  return rows.length;
}

/**
 * One delivery per enabled endpoint of an account and mode, with the placeholders given: emitReportEvent's insert,
 * and the analysis job's assemble statement's (server/jobs/analyseReport.ts, which adds its own condition).
 */
export const DELIVERIES_INSERT_SQL = (
  accountId: string,
  mode: string,
  eventKey: string,
  eventType: string,
  payload: string,
  at: string,
) => `insert into webhook_deliveries (id, endpoint_id, event_key, event_type, payload, status, attempts, created_at, next_attempt_at)
    select gen_random_uuid(), e.id, ${eventKey}, ${eventType}, ${payload}, 'pending', 0, ${at}, ${at}
      from webhook_endpoints e where e.account_id = ${accountId} and e.mode = ${mode} and e.enabled`;

/** emitReportEvent's insert: once per endpoint and event. */
const EMIT_SQL = prepared(`
  ${DELIVERIES_INSERT_SQL('$1', '$2', '$3', '$4', '$5', '$6')}
  on conflict (endpoint_id, event_key) do nothing
  returning id`);

interface AttemptResult {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  timedOut: boolean;
  /** Cut short because this process is shutting down (handed back, not counted as the receiver's failure). */
  interrupted: boolean;
}

/**
 * Keep-alive connections to receivers, per protocol and SSRF setting: a receiver that gets a stream of events
 * keeps one connection per concurrent attempt instead of a TCP (and TLS) handshake per event. The guard runs when
 * a connection is opened (its lookup), so a reused connection goes to an address it already allowed; a connection
 * cut by a deadline, a shutdown or an oversized answer is destroyed, never reused. Idle connections close after
 * KEEP_ALIVE_IDLE_MS.
 */
const KEEP_ALIVE_IDLE_MS = 15_000;
const agents = new Map<string, HttpAgent>();
function agentFor(protocol: string, allowPrivate: boolean): HttpAgent {
  const key = `${protocol}${allowPrivate}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, maxFreeSockets: 8, timeout: KEEP_ALIVE_IDLE_MS };
    agent = protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    agents.set(key, agent);
  }
  return agent;
}

/**
 * One POST, without following redirects, to an address the SSRF guard allows, within a hard deadline of
 * `timeoutMs` over the whole exchange — connecting, the headers, and the body to its last byte: a receiver that
 * trickles its answer is cut at the deadline like one that never answers. `stop` aborts it early (shutdown).
 */
function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  allowPrivate: boolean,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    if (!allowPrivate && isBlockedLiteral(url)) {
      resolve({
        statusCode: null,
        latencyMs: 0,
        error: 'the address is not allowed',
        timedOut: false,
        interrupted: false,
      });
      return;
    }
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([deadline, stop]);
    let settled = false;
    const finish = (result: Omit<AttemptResult, 'latencyMs' | 'timedOut' | 'interrupted'>) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      resolve({ ...result, latencyMs: elapsed(), timedOut: false, interrupted: false });
    };
    const onAbort = () => {
      if (settled) return;
      settled = true;
      const timedOut = deadline.aborted;
      resolve({
        statusCode: null,
        latencyMs: elapsed(),
        error: timedOut
          ? `no complete response within ${timeoutMs / 1000} s`
          : 'interrupted: the worker shut down',
        timedOut,
        interrupted: !timedOut,
      });
      req.destroy();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: agentFor(url.protocol, allowPrivate),
        lookup: guardedLookup(allowPrivate) as never,
      },
      (res) => {
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) res.destroy();
        });
        const done = () => finish({ statusCode: res.statusCode ?? null, error: null });
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({ statusCode: null, error: error.code ?? error.message }),
    );
    if (signal.aborted) onAbort();
    else req.end(body);
  });
}

/** A leased delivery: what its attempt sends, and where (the row of the fetch's `leased` CTE, as JSON). */
interface DeliveryTarget {
  id: string;
  payload: string;
  attempts: number;
  endpoint_id: string;
  account_id: string;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
}

/** A fetched delivery job: pg-boss's job with the lease its fetch took (null: another attempt's to make). */
type LeasedJob = Job<DeliveryJob> & { lease: DeliveryTarget | string | null };

/**
 * pg-boss's fetch of delivery jobs (`fetch`, the text its fetch built, with `parameters` parameters) as one statement
 * with each fetched job's lease: a delivery that is no longer pending, or whose lease another attempt holds, gets
 * none — so a delivery never has two attempts at once — and of two jobs fetched together for one delivery (an event
 * and its redelivery) only the first. The lease's length is the one parameter added. A lease taken with the fetch
 * is one round trip (and statement) per attempt fewer than a lease taken after it.
 */
function leasingFetchSql(fetch: string, parameters: number): string {
  return `
  with fetched as (${fetch}
  ), leased as (
    update webhook_deliveries d set attempt_started_at = now()
      from (select distinct (data ->> 'deliveryId')::uuid as id from fetched) f, webhook_endpoints e
     where d.id = f.id and e.id = d.endpoint_id and d.status = 'pending'
       and (d.attempt_started_at is null or d.attempt_started_at < now() - make_interval(secs => $${parameters + 1}))
    returning d.id, d.payload, d.attempts, d.endpoint_id, e.account_id, e.url, e.enabled, e.secret,
              e.previous_secret, e.previous_secret_expires_at
  )
  select f.*,
         case when row_number() over (partition by f.data ->> 'deliveryId' order by f.id) = 1 then to_json(l) end
           as lease
    from fetched f left join leased l on l.id = (f.data ->> 'deliveryId')::uuid`;
}

const settleTexts = new WeakMap<object, string>();

/**
 * An attempt's log row, the delivery's new state and the completion of the job the attempt ran as (fenced to that
 * attempt as pg-boss's complete is; $10 and $11 empty: none), in one statement — atomic without a transaction, and
 * no completion statement of its own: the job ends in the commit that records its attempt, so a process dying
 * after the settle leaves no job to expire and run again.
 */
function settleSql(ctx: ServiceContext): string {
  let text = settleTexts.get(ctx.queue);
  if (text === undefined) {
    text = prepared(`
  with attempt as (
    insert into webhook_attempts (delivery_id, attempt_no, attempted_at, status_code, latency_ms, error)
    values ($1, $2, $3, $4, $5, $6)
  ), ${ctx.queue.completionCte(WEBHOOK_QUEUE, 'job_done', '$10', '$11')}
  update webhook_deliveries
     set attempts = $2, status = $7, last_status_code = $4, last_latency_ms = $5, last_error = $6,
         next_attempt_at = $8, delivered_at = $9, attempt_started_at = null
   where id = $1`);
    settleTexts.set(ctx.queue, text);
  }
  return text;
}

/** The job an attempt runs as (as fetched: the completion is fenced to its retry count). */
export interface DeliveryAttempt {
  id: string;
  retryCount: number;
}

/**
 * One attempt of a delivery whose lease its job's fetch took (leasingFetchSql). The attempt, whatever its outcome
 * (timeouts and a shutdown's interruption included), is written to the attempt log by the statement that releases
 * the lease and completes `job` (the job the attempt runs as, if any: it then returns 'completed') — in one
 * transaction with the next attempt's job or the endpoint's disabling when there is one, and on its own (no
 * transaction: three round trips fewer) when the delivery ends.
 */
export async function attemptDelivery(
  ctx: ServiceContext,
  target: DeliveryTarget,
  job: DeliveryAttempt | undefined,
  stop: AbortSignal = new AbortController().signal,
  orm: MikroORM = ctx.db.orm,
): Promise<'completed' | undefined> {
  const em = orm.em.fork();
  const now = new Date();
  if (!target.enabled) {
    await runSql(
      em,
      `update webhook_deliveries set status = 'failed', last_error = $2, next_attempt_at = null, attempt_started_at = null
        where id = $1`,
      [target.id, 'the endpoint is disabled'],
    );
    webhookDeliveries.inc({ outcome: 'disabled' });
    return;
  }
  const secrets = [target.secret];
  if (
    target.previous_secret &&
    target.previous_secret_expires_at &&
    new Date(target.previous_secret_expires_at) > now
  )
    secrets.push(target.previous_secret);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'financial-report-analysis-webhooks/1',
    'webhook-id': target.id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatureHeader(secrets, target.id, now, target.payload),
  };
  const { webhookAllowPrivate, webhookTimeoutMs } = ctx.config;
  const result = await post(
    new URL(target.url),
    headers,
    target.payload,
    webhookAllowPrivate,
    webhookTimeoutMs,
    stop,
  );
  const attempt = target.attempts + 1;
  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const gone = result.statusCode === 410;
  // A shutdown's interruption is handed back at once (as a new event would be), not on the retry schedule.
  const retryIn = result.interrupted ? 0 : !ok && !gone ? RETRY_SCHEDULE_SECONDS[attempt - 1] : undefined;
  const status = ok ? 'delivered' : retryIn !== undefined ? 'pending' : 'failed';
  const error =
    result.error ??
    (ok
      ? null
      : result.statusCode !== null && result.statusCode >= 300 && result.statusCode < 400
        ? `redirect (${result.statusCode}) not followed`
        : `HTTP ${result.statusCode}`);
  const settle = [
    target.id,
    attempt,
    now,
    result.statusCode,
    result.latencyMs,
    error,
    status,
    retryIn !== undefined ? new Date(now.getTime() + retryIn * 1000) : null,
    ok ? new Date() : null,
    ...ctx.queue.completionParams(job),
  ];
  const settleText = settleSql(ctx);
  if (!gone && retryIn === undefined) {
    // Delivered (or failed for good): the attempt and the delivery's end in one statement, no transaction.
    await runSql(em, settleText, settle);
  } else {
    await em.transactional(async (tx) => {
      await runSql(tx, settleText, settle);
      if (gone) {
        await runSql(
          tx,
          `update webhook_endpoints set enabled = false, disabled_reason = $2, updated_at = $3 where id = $1`,
          [target.endpoint_id, 'The endpoint answered 410 Gone; deliveries stopped.', new Date()],
        );
      }
      if (retryIn !== undefined)
        await enqueueDelivery(ctx, tx, target.id, target.account_id, retryIn, !result.interrupted);
    });
  }
  webhookDeliveries.inc({
    outcome: ok
      ? 'delivered'
      : gone
        ? 'disabled'
        : result.interrupted
          ? 'interrupted'
          : result.timedOut
            ? 'timeout'
            : 'failed',
  });
  return job ? 'completed' : undefined;
}

/**
 * Creates the delivery queue (idempotent). Every role calls it at start: an `api` process enqueues test
 * events and redeliveries even before any worker has started.
 */
export async function createWebhookQueue(ctx: ServiceContext): Promise<void> {
  // pg-boss retries only cover a crash inside an attempt; failed deliveries are rescheduled by attemptDelivery.
  const options = {
    retryLimit: 3,
    retryDelay: 10,
    retryBackoff: true,
    expireInSeconds: DELIVERY_JOB_EXPIRY_SECONDS,
  };
  await ctx.queue.boss.createQueue(WEBHOOK_QUEUE, options);
  await ctx.queue.boss.updateQueue(WEBHOOK_QUEUE, options);
  await ctx.queue.prepareEmbeddedInsert(WEBHOOK_QUEUE);
}

/**
 * The first attempts' jobs of the deliveries a statement inserted (CTE `deliveries`, returning `id`) as CTE `cte`
 * of that statement (JobQueue.jobInsertCtes): what enqueueDelivery does for each, without a statement each.
 * `accountId` is the SQL expression of their account (the jobs' group).
 */
export function deliveryJobsCtes(
  ctx: ServiceContext,
  cte: string,
  deliveries: string,
  accountId: string,
): string {
  return ctx.queue.jobInsertCtes(
    WEBHOOK_QUEUE,
    cte,
    `select coalesce(json_agg(json_build_object('data', json_build_object('deliveryId', d.id), 'priority', ${FRESH},
                                               'groupId', ${accountId}::text)), '[]'::json)
       from ${deliveries} d`,
  );
}

/**
 * This process's delivery worker: one fetch loop that keeps up to `webhookConcurrency` attempts running, each
 * settled on its own, its job completed by the settle (one slow receiver holds one slot, not a batch). It
 * fetches again as soon as a fetch came back non-empty, or SETTLE_BATCH_MS after an attempt ended (once for all
 * that ended meanwhile), else every IDLE_POLL_MS; each fetch passes the per-account cap (`groupConcurrency`),
 * which pg-boss checks against the active jobs of every process.
 */
export class DeliveryWorker {
  readonly #ctx: ServiceContext;
  readonly #inFlight = new Map<string, Promise<unknown>>();
  readonly #stop = new AbortController();
  /** On PostgreSQL, a small connection pool of the deliveries' own (see start). */
  #orm: MikroORM | null = null;
  #stopping = false;
  #wake: (() => void) | null = null;
  #loop: Promise<void> | null = null;
  /** Jobs whose attempt ended and that wait for the next batched completion. */
  readonly #toComplete: Array<{ id: string; retryCount: number }> = [];
  #flushTimer: NodeJS.Timeout | null = null;
  readonly #flushes = new Set<Promise<void>>();

  /** pg-boss's fetches, each taking its jobs' leases (leasingFetchSql). */
  readonly #fetchDb: Db;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
    this.#fetchDb = fetchAsCte(ctx.queue.fetchDb ?? ctx.queue.boss.getDb(), leasingFetchSql, () => [
      LEASE_SECONDS,
    ]);
  }

  /**
   * Starts the fetch loop. On PostgreSQL the attempts' statements (lease, settle) get a pool of
   * DELIVERY_POOL_SIZE connections of their own: on the application's pool they waited behind the worker's
   * analysis jobs whenever analysis fell behind, and their lag grew with it (docs/performance.md#webhooks).
   */
  async start(): Promise<void> {
    const { config, db } = this.#ctx;
    if (db.kind === 'postgres' && config.databaseUrl && !this.#orm) {
      this.#orm = await MikroORM.init({
        ...ormOptions({ databaseUrl: config.databaseUrl, dbPoolSize: DELIVERY_POOL_SIZE }),
        driverOptions: { Client: PreparingClient },
      });
    }
    this.#loop ??= this.#run();
  }

  async #run(): Promise<void> {
    const { boss } = this.#ctx.queue;
    const { webhookConcurrency, webhookAccountConcurrency } = this.#ctx.config;
    while (!this.#stopping) {
      const free = webhookConcurrency - this.#inFlight.size;
      let fetched = 0;
      let pause = IDLE_POLL_MS;
      if (free > 0) {
        try {
          const jobs = (await boss.fetch<DeliveryJob>(WEBHOOK_QUEUE, {
            db: this.#fetchDb,
            batchSize: Math.min(free, MAX_FETCH),
            groupConcurrency: webhookAccountConcurrency,
          })) as LeasedJob[];
          fetched = jobs.length;
          for (const job of jobs) this.#attempt(job);
        } catch (error) {
          // The database is unreachable: say so once a second, not at every idle poll.
          pause = FAILED_FETCH_PAUSE_MS;
          if (!this.#stopping) this.#ctx.logger.error({ err: error }, 'fetching webhook deliveries failed');
        }
      }
      if (fetched > 0 && this.#inFlight.size < webhookConcurrency) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pause);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = null;
    }
  }

  #attempt(job: LeasedJob): void {
    const { boss } = this.#ctx.queue;
    const fence = { id: job.id, retryCount: job.retryCount };
    // node-postgres and PGlite parse json; a driver that does not would hand back its text.
    const target = typeof job.lease === 'string' ? (JSON.parse(job.lease) as DeliveryTarget) : job.lease;
    // No lease: the delivery is settled, or another attempt holds it — nothing to send, the job just ends.
    const running = (
      target
        ? attemptDelivery(this.#ctx, target, fence, this.#stop.signal, this.#orm ?? this.#ctx.db.orm)
        : Promise.resolve(undefined)
    )
      .then(
        (outcome) => {
          // An attempt that settled completed its job in that statement; one that found nothing to send did not.
          if (outcome !== 'completed') this.#toComplete.push(fence);
        },
        (error: unknown) => {
          this.#ctx.logger.warn({ err: error, jobId: job.id, ...job.data }, 'webhook attempt failed');
          return boss.fail(WEBHOOK_QUEUE, [fence], { message: String(error) });
        },
      )
      .catch((error: unknown) =>
        this.#ctx.logger.error({ err: error, jobId: job.id }, 'settling a webhook job failed'),
      )
      .finally(() => {
        this.#inFlight.delete(job.id);
        this.#flushTimer ??= setTimeout(() => void this.#flush(), SETTLE_BATCH_MS);
      });
    this.#inFlight.set(job.id, running);
  }

  /**
   * Completes the jobs that ended since the last flush without settling an attempt (the delivery no longer pending,
   * its lease held, its endpoint disabled), in one statement, and wakes the fetch loop for the slots freed since.
   * A job not completed because the process died expires and runs again: its attempt then finds the delivery no
   * longer pending and sends nothing.
   */
  async #flush(): Promise<void> {
    if (this.#flushTimer) clearTimeout(this.#flushTimer);
    this.#flushTimer = null;
    const fences = this.#toComplete.splice(0);
    if (fences.length > 0) {
      const completing = this.#ctx.queue.boss.complete(WEBHOOK_QUEUE, fences).then(
        () => undefined,
        (error: unknown) =>
          this.#ctx.logger.error({ err: error, jobs: fences.length }, 'completing webhook jobs failed'),
      );
      this.#flushes.add(completing);
      void completing.finally(() => this.#flushes.delete(completing));
      await completing;
    }
    this.#wake?.();
  }

  /**
   * Stops fetching and lets the attempts in flight finish until `deadline` (epoch ms); those still running then
   * are cut short, logged as interrupted, and queued again at once — another worker sends them within its next
   * fetch, once. Returns how many finished and how many were handed back.
   */
  async stop(deadline: number): Promise<{ finished: number; handedBack: number }> {
    this.#stopping = true;
    this.#wake?.();
    // Every wait is bounded: a fetch or a settle stuck on the database must not hold the shutdown.
    const within = async (work: Promise<unknown>, until: number) => {
      let timer: NodeJS.Timeout | undefined;
      const done = await Promise.race([
        work.then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), Math.max(0, until - Date.now()));
        }),
      ]);
      clearTimeout(timer);
      return done;
    };
    await within(this.#loop ?? Promise.resolve(), deadline);
    const held = this.#inFlight.size;
    let late = 0;
    if (!(await within(Promise.allSettled([...this.#inFlight.values()]), deadline))) {
      late = this.#inFlight.size;
      this.#stop.abort();
      // The cut attempts write their log rows and queue themselves again: a moment, not a network wait.
      await within(Promise.allSettled([...this.#inFlight.values()]), Date.now() + HAND_BACK_MS);
    }
    await within(
      this.#flush().then(() => Promise.allSettled([...this.#flushes])),
      Date.now() + HAND_BACK_MS,
    );
    if (this.#orm) await within(this.#orm.close(true), Date.now() + HAND_BACK_MS);
    return { finished: held - late, handedBack: late };
  }
}
