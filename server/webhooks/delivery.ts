/**
 * Webhook events and their delivery (docs/webhooks.md).
 *
 * An event is recorded as one delivery row per enabled endpoint of the report's account and mode, in the caller's
 * transaction — the one that finishes (or fails) the report — so an event is never lost and never sent for a report
 * that did not finish (at least once; the unique (endpoint, event) key makes a repeated emission deliver once).
 * The delivery rows are the queue: a pending delivery is due at `next_attempt_at`, and an attempt takes it by a
 * lease (`attempt_started_at`) in the fetch that finds it. Each attempt POSTs the payload signed per Standard
 * Webhooks, within a hard deadline (connect, headers and whole body), redirects not followed, addresses checked at
 * connection (ssrf.ts). A 2xx delivers; 410 Gone disables the endpoint; anything else (or no answer) is retried on
 * RETRY_SCHEDULE_SECONDS, over ~27.6 hours, then the delivery is failed. Every attempt is logged, by the one
 * statement that settles it. A worker that dies mid-attempt leaves its lease to lapse (LEASE_SECONDS): the delivery
 * is then taken again.
 *
 * Fairness: a fetch takes, per account, at most `webhookAccountConcurrency` minus the account's attempts running
 * (over every worker process, counted from the leases), so one account's backlog or slow receivers occupy at most
 * that many attempts while other accounts' events take the free slots. It finds the accounts with deliveries
 * pending through an index (a loose scan), and per account only the deliveries due: its cost grows with the
 * accounts waiting, not with the deliveries queued. New events outrank retries (`priority`), so a backlog of
 * retries never runs ahead of new events. The delivery worker (DeliveryWorker) runs many attempts at once per
 * process: they wait on receivers, not on the CPU.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { type EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ormOptions } from '../db/database.ts';
import { PreparingClient, prepared } from '../db/prepared.ts';
import { runSql } from '../db/sql.ts';
import { webhookDeliveries } from '../observability/metrics.ts';
import type { ServiceContext } from '../services/context.ts';
import { type FinishedReport, reportEvent, serialiseEvent, type WebhookEvent } from './payload.ts';
import { signatureHeader } from './signing.ts';
import { guardedLookup, isBlockedLiteral } from './ssrf.ts';

/** Delay before attempt 2, 3, …, 8 (after a failed attempt 1, 2, …, 7): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;
const MAX_RESPONSE_BYTES = 64 * 1024;
/**
 * How long an attempt holds its delivery (attempt_started_at): a fetch passes over a delivery whose lease is held,
 * so a delivery never has two attempts at once, and takes it again once the lease has lapsed — the attempt of a
 * worker that died. Longer than an attempt can run (deadline + its settle).
 */
export const LEASE_SECONDS = 30;
/** Delivery priorities (higher first): new events (a redelivery and a hand-back at shutdown too) before retries. */
export const FRESH = 1;
const RETRY = 0;
/** Longest pause between fetches while idle (also the wake-up after another process recorded an event). */
const IDLE_POLL_MS = 250;
/** Pause after a fetch that failed (the database unreachable). */
const FAILED_FETCH_PAUSE_MS = 1000;
/** How long a shutdown waits for cut attempts to record themselves and queue again. */
const HAND_BACK_MS = 2000;
/** Connections of the delivery worker's own pool (PostgreSQL; per worker process). */
const DELIVERY_POOL_SIZE = 3;
/** Most deliveries taken in one fetch. */
const MAX_FETCH = 16;

export type { WebhookEvent, WebhookEventType } from './payload.ts';

/** Records `event` for the given endpoints of one account (in `tx`), due now; returns the new ids. */
export async function recordDeliveries(
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
      `insert into webhook_deliveries (id, endpoint_id, account_id, event_key, event_type, payload, status, attempts,
                                       priority, created_at, next_attempt_at)
       values (gen_random_uuid(), $1, $2, $3, $4, $5, 'pending', 0, ${FRESH}, $6, $6)
       on conflict (endpoint_id, event_key) do nothing returning id`,
      [endpointId, accountId, eventKey, event.type, serialiseEvent(event), new Date()],
    );
    for (const row of rows) ids.push(row.id);
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
  return rows.length;
}

/**
 * One delivery per enabled endpoint of an account and mode, due now, with the placeholders given: emitReportEvent's
 * insert, and the analysis job's assemble statement's (server/jobs/analyseReport.ts, which adds its own condition
 * and a hand-off lease, `lease`: handOffLeaseSql). Without a lease a delivery waits for the delivery worker's fetch.
 */
export const DELIVERIES_INSERT_SQL = (
  accountId: string,
  mode: string,
  eventKey: string,
  eventType: string,
  payload: string,
  at: string,
  lease = 'null::timestamptz',
) => `insert into webhook_deliveries (id, endpoint_id, account_id, event_key, event_type, payload, status, attempts,
                                    priority, created_at, next_attempt_at, attempt_started_at)
    select gen_random_uuid(), e.id, e.account_id, ${eventKey}, ${eventType}, ${payload}, 'pending', 0, ${FRESH}, ${at}, ${at},
           ${lease}
      from webhook_endpoints e where e.account_id = ${accountId} and e.mode = ${mode} and e.enabled`;

/**
 * The lease of a delivery handed to the process that records it (DeliveryWorker.reserveHandOff), as an expression
 * of DELIVERIES_INSERT_SQL's select: now() — the delivery is inserted with its attempt's lease taken, as the fetch
 * would take it — for the account's first endpoint (by id) when `handOff` (a boolean placeholder: this process has a
 * slot), the account holds fewer leases than `cap` (webhookAccountConcurrency, over every process, as the fetch
 * counts them) and has no new event due that waits for a fetch (it goes first: the fetch sends an account's new
 * events oldest first); null otherwise, and the delivery waits for a fetch. The CASE's branches are evaluated in
 * order: without `handOff` nothing is counted.
 */
export const handOffLeaseSql = (handOff: string, accountId: string, cap: string) => `
    case when not ${handOff}::boolean then null::timestamptz
         when row_number() over (order by e.id) > 1 then null
         when (select count(*) from webhook_deliveries l
                where l.account_id = ${accountId}
                  and l.attempt_started_at > now() - make_interval(secs => ${LEASE_SECONDS})) >= ${cap}::int then null
         when exists (select 1 from webhook_deliveries w
                       where w.account_id = ${accountId} and w.status = 'pending' and w.priority = ${FRESH}
                         and w.next_attempt_at <= now()
                         and (w.attempt_started_at is null
                              or w.attempt_started_at <= now() - make_interval(secs => ${LEASE_SECONDS}))) then null
         else now() end`;

/**
 * The select list (for a query over `deliveries`, the inserting CTE returning id, endpoint_id and attempt_started_at)
 * of the delivery handed off, as one JSON object with what its attempt needs besides the payload; null if none was.
 */
export const HANDED_OFF_SQL = (deliveries: string) => `
    (select row_to_json(h) from (
       select d.id, d.endpoint_id, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at
         from ${deliveries} d join webhook_endpoints e on e.id = d.endpoint_id
        where d.attempt_started_at is not null limit 1) h)`;

/** Releases the lease of a delivery handed off and never attempted ($1: its id). */
const RELEASE_SQL = `update webhook_deliveries set attempt_started_at = null
                      where id = $1 and status = 'pending' and attempts = 0`;

/** What HANDED_OFF_SQL returns of a delivery handed off. */
export type HandedOff = Pick<
  DeliveryTarget,
  'id' | 'endpoint_id' | 'url' | 'secret' | 'previous_secret' | 'previous_secret_expires_at'
>;

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

/** A leased delivery: what its attempt sends, and where (a row of FETCH_SQL). */
export interface DeliveryTarget {
  id: string;
  payload: string;
  attempts: number;
  endpoint_id: string;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | Date | null;
}

/**
 * The delivery worker's fetch ($1: the per-account cap, $2: the most to take, $3: LEASE_SECONDS): the accounts with
 * deliveries pending, found by a loose scan of webhook_deliveries_due_index (one probe per account, however many
 * deliveries each has queued); per account, its free slots (the cap less its leases held, over every process:
 * webhook_deliveries_leased_index) and at most that many of its due deliveries, new events first (one range scan
 * per priority, oldest first), skipping what another fetch is taking; then at most $2 of them over every account,
 * new events first and oldest first, each leased (so a delivery never has two attempts at once) and returned with
 * its endpoint. Two processes fetching at the same instant can each see an account's slot free, as two pg-boss
 * fetches could: the cap holds within a fetch, and over processes but for that race.
 */
export const FETCH_SQL = prepared(`
  with recursive accounts (account_id) as (
    (select account_id from webhook_deliveries where status = 'pending' order by account_id limit 1)
    union all
    select (select d.account_id from webhook_deliveries d
             where d.status = 'pending' and d.account_id > a.account_id order by d.account_id limit 1)
      from accounts a where a.account_id is not null
  ), slots as materialized (
    select a.account_id,
           $1::int - (select count(*) from webhook_deliveries l
                       where l.account_id = a.account_id
                         and l.attempt_started_at > now() - make_interval(secs => $3))::int as free
      from accounts a where a.account_id is not null
  ), candidates as (
    select c.id, c.account_id, c.priority, c.next_attempt_at, s.free
      from slots s cross join (values (${FRESH}), (${RETRY})) p (priority)
      cross join lateral (
        select d.id, d.account_id, d.priority, d.next_attempt_at from webhook_deliveries d
         where d.account_id = s.account_id and d.status = 'pending' and d.priority = p.priority
           and d.next_attempt_at <= now()
           and (d.attempt_started_at is null or d.attempt_started_at <= now() - make_interval(secs => $3))
         order by d.next_attempt_at
         limit s.free
         for update skip locked) c
     where s.free > 0
  ), picked as (
    select id from (
      select id, priority, next_attempt_at, free,
             row_number() over (partition by account_id order by priority desc, next_attempt_at) as n
        from candidates) r
     where n <= free
     order by priority desc, next_attempt_at
     limit $2
  )
  update webhook_deliveries d set attempt_started_at = now()
    from webhook_endpoints e
   where d.id = any (array(select id from picked)) and e.id = d.endpoint_id
  returning d.id, d.payload, d.attempts, d.endpoint_id, e.url, e.enabled, e.secret, e.previous_secret,
            e.previous_secret_expires_at`);

/** What one attempt settles: its log row and its delivery's new state (a row of SETTLE_SQL's input). */
export interface Settlement {
  id: string;
  attemptNo: number;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  status: 'delivered' | 'pending' | 'failed';
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  /** 410 Gone: the endpoint is disabled with this reason. */
  goneReason: string | null;
  priority: number;
  endpointId: string;
}

/**
 * The attempts' log rows, their deliveries' new states (and, on 410 Gone, their endpoints' disabling) in one
 * statement — atomic without a transaction — for every attempt given (parallel arrays, one element per attempt):
 * each delivery's next attempt is its `next_attempt_at` at its `priority`, and its lease is released. A delivery
 * deleted meanwhile (with its endpoint) gets no log row, rather than failing the statement for the others.
 *
 * Not a prepared statement: it is planned for each call, for the attempts it settles and the table's size then.
 * A cached plan is made once, for the table as its last ANALYZE saw it: made while the table was small it hashed the
 * whole table to settle four attempts, and kept doing so while a burst grew the table tenfold until autovacuum next
 * analysed it (0.9–1.1 ms a settle at 3,200 deliveries, growing with them, against 0.15 ms of planning and 0.17 ms of
 * execution planned per call; docs/performance.md, "Issue 26, fifteenth stop").
 */
export const SETTLE_SQL = `
  with s as (
    select * from unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[],
                         $8::timestamptz[], $9::timestamptz[], $10::text[], $11::smallint[], $12::uuid[])
      as s (id, attempt_no, attempted_at, status_code, latency_ms, error, status, next_attempt_at, delivered_at,
            gone_reason, priority, endpoint_id)
  ), attempt as (
    insert into webhook_attempts (delivery_id, attempt_no, attempted_at, status_code, latency_ms, error)
    select id, attempt_no, attempted_at, status_code, latency_ms, error from s
     where exists (select 1 from webhook_deliveries d where d.id = s.id)
  ), gone as (
    update webhook_endpoints e set enabled = false, disabled_reason = s.gone_reason, updated_at = s.attempted_at
      from s where e.id = s.endpoint_id and s.gone_reason is not null
  )
  update webhook_deliveries d
     set attempts = s.attempt_no, status = s.status, last_status_code = s.status_code, last_latency_ms = s.latency_ms,
         last_error = s.error, next_attempt_at = s.next_attempt_at, delivered_at = s.delivered_at,
         attempt_started_at = null, priority = s.priority
    from s where d.id = s.id`;

/** Settles `settlements` in one statement (SETTLE_SQL). */
export async function settleDeliveries(em: EntityManager, settlements: readonly Settlement[]): Promise<void> {
  await runSql(em, SETTLE_SQL, settleParams(settlements));
}

/** SETTLE_SQL's parameters for `settlements`: one array per column, one element per attempt. */
export function settleParams(settlements: readonly Settlement[]): unknown[][] {
  const column = <K extends keyof Settlement>(key: K) => settlements.map((settlement) => settlement[key]);
  return [
    column('id'),
    column('attemptNo'),
    column('attemptedAt'),
    column('statusCode'),
    column('latencyMs'),
    column('error'),
    column('status'),
    column('nextAttemptAt'),
    column('deliveredAt'),
    column('goneReason'),
    column('priority'),
    column('endpointId'),
  ];
}

/**
 * One attempt of a delivery whose lease the fetch took (FETCH_SQL): the POST and what it settles, whatever its outcome
 * (timeouts and a shutdown's interruption included) — the attempt's log row and the next attempt if there is one.
 * The caller settles it (settleDeliveries); null: the endpoint is disabled, and the delivery was failed here.
 */
export async function attemptDelivery(
  ctx: ServiceContext,
  target: DeliveryTarget,
  stop: AbortSignal,
  em: EntityManager,
): Promise<Settlement | null> {
  const now = new Date();
  if (!target.enabled) {
    await runSql(
      em,
      `update webhook_deliveries set status = 'failed', last_error = $2, next_attempt_at = null, attempt_started_at = null
        where id = $1`,
      [target.id, 'the endpoint is disabled'],
    );
    webhookDeliveries.inc({ outcome: 'disabled' });
    return null;
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
  // A shutdown's interruption is handed back at once, ranked as a new event, not on the retry schedule.
  const retryIn = result.interrupted ? 0 : !ok && !gone ? RETRY_SCHEDULE_SECONDS[attempt - 1] : undefined;
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
  return {
    id: target.id,
    attemptNo: attempt,
    attemptedAt: now,
    statusCode: result.statusCode,
    latencyMs: result.latencyMs,
    error:
      result.error ??
      (ok
        ? null
        : result.statusCode !== null && result.statusCode >= 300 && result.statusCode < 400
          ? `redirect (${result.statusCode}) not followed`
          : `HTTP ${result.statusCode}`),
    status: ok ? 'delivered' : retryIn !== undefined ? 'pending' : 'failed',
    nextAttemptAt: retryIn !== undefined ? new Date(now.getTime() + retryIn * 1000) : null,
    deliveredAt: ok ? new Date() : null,
    goneReason: gone ? 'The endpoint answered 410 Gone; deliveries stopped.' : null,
    priority: retryIn !== undefined && !result.interrupted ? RETRY : FRESH,
    endpointId: target.endpoint_id,
  };
}

/** An attempt that ended, waiting for its settle, with what to do once it has run. */
interface PendingSettle {
  settlement: Settlement;
  settled: () => void;
  fetched: boolean;
}

/**
 * This process's delivery worker: one fetch loop that keeps up to `webhookConcurrency` attempts running, each on its
 * own (one slow receiver holds one slot, not a batch). One settle statement runs at a time: an attempt that ends
 * while none runs is settled at once (with the others that ended in the same turn of the event loop), and those that
 * end while one runs are settled together right after it; a settle frees its attempts' slots and wakes the loop.
 * It also fetches again as soon as a fetch came back with all it asked for, else every IDLE_POLL_MS. Each fetch
 * passes the per-account cap (`webhookAccountConcurrency`) over the attempts of every process.
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
  #toSettle: PendingSettle[] = [];
  /** Whether a settle is scheduled, and whether one runs: never two at once (#scheduleSettle). */
  #settleScheduled = false;
  #settling = false;
  /** Slots reserved for deliveries being handed off (reserveHandOff), not yet adopted. */
  #reserved = 0;
  /** Deliveries taken by hand-off since the worker started (for tests and diagnostics). */
  #handedOff = 0;
  /**
   * Whether a fetch now may find what the last one did not: it took deliveries (there may be more), or since it
   * began an event of this process was recorded without being handed off. A settle wakes the loop for the slots it
   * frees only then, or when it settles a fetched attempt (its account may have more waiting for the slot): a
   * settle of hand-offs alone would wake a fetch that finds nothing.
   */
  #fetchMayFind = true;
  #fetches = 0;
  #settles = 0;

  constructor(ctx: ServiceContext) {
    this.#ctx = ctx;
  }

  /**
   * The one EntityManager of every statement the worker runs (fetch, settle): each is a statement of its own, never in
   * a transaction, so they share it (runSql runs them on its connection pool); forked once, not per statement.
   */
  #em: EntityManager | null = null;

  /**
   * Starts the fetch loop. On PostgreSQL the deliveries' statements (fetch, settle) get a pool of
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
    this.#em ??= (this.#orm ?? this.#ctx.db.orm).em.fork();
    this.#loop ??= this.#run();
  }

  /** Deliveries taken by hand-off so far. */
  get handedOff(): number {
    return this.#handedOff;
  }

  /** Fetches and settle statements run so far (for tests and diagnostics). */
  get statements(): { fetches: number; settles: number } {
    return { fetches: this.#fetches, settles: this.#settles };
  }

  /**
   * Reserves one of this process's attempt slots for a delivery its caller is about to record (the analysis job's
   * assemble statement, handOffLeaseSql): true if the worker runs, is not stopping and has a slot free. Every true
   * must be followed by adoptHandOff, whether or not the statement handed a delivery off.
   *
   * Why: a report event recorded in this process was otherwise found by the next fetch — one more statement and row
   * version per delivery, and up to IDLE_POLL_MS of delay while idle. Handed off, it is inserted with its lease
   * taken and attempted at once; if this process dies first, its lease lapses and a fetch takes it (LEASE_SECONDS),
   * as for an attempt cut short.
   */
  reserveHandOff(): boolean {
    if (!this.#loop || !this.#em || this.#stopping) return false;
    if (this.#inFlight.size + this.#reserved >= this.#ctx.config.webhookConcurrency) {
      this.#fetchMayFind = true;
      return false;
    }
    this.#reserved++;
    return true;
  }

  /**
   * Ends a reservation: attempts the delivery handed off (leased by the statement that recorded it, now committed),
   * if there is one. A worker that has begun to stop releases its lease instead, for another worker's fetch.
   */
  adoptHandOff(handed: HandedOff | null, payload: string): void {
    this.#reserved--;
    if (!handed) {
      // Recorded for a fetch (at its account's cap, behind an earlier event), or nothing was recorded.
      this.#fetchMayFind = true;
      return;
    }
    if (this.#stopping) {
      // Given back at once rather than left to lapse: another worker's next fetch sends it. Held in #inFlight
      // meanwhile, so that stop() waits for it before closing the connections.
      const release = runSql(this.#em!, RELEASE_SQL, [handed.id])
        .catch((error: unknown) =>
          this.#ctx.logger.warn(
            { err: error, deliveryId: handed.id },
            'giving back a webhook delivery failed',
          ),
        )
        .finally(() => this.#inFlight.delete(handed.id));
      this.#inFlight.set(handed.id, release);
      return;
    }
    this.#handedOff++;
    this.#attempt({ ...handed, payload, attempts: 0, enabled: true }, false);
  }

  async #run(): Promise<void> {
    const { webhookConcurrency, webhookAccountConcurrency } = this.#ctx.config;
    while (!this.#stopping) {
      const free = webhookConcurrency - this.#inFlight.size - this.#reserved;
      const asked = Math.min(free, MAX_FETCH);
      let fetched = 0;
      let pause = IDLE_POLL_MS;
      if (free > 0) {
        this.#fetchMayFind = false;
        this.#fetches++;
        try {
          const targets = await runSql<DeliveryTarget>(this.#em!, FETCH_SQL, [
            webhookAccountConcurrency,
            asked,
            LEASE_SECONDS,
          ]);
          fetched = targets.length;
          if (fetched > 0) this.#fetchMayFind = true;
          for (const target of targets) this.#attempt(target, true);
        } catch (error) {
          // The database is unreachable: say so once a second, not at every idle poll.
          pause = FAILED_FETCH_PAUSE_MS;
          this.#fetchMayFind = true;
          if (!this.#stopping) this.#ctx.logger.error({ err: error }, 'fetching webhook deliveries failed');
        }
      }
      // Again at once only after a fetch that filled what it asked for: one that took less took all there was to take
      // (due, and within each account's free slots), and the next finds nothing until an attempt settles — which
      // wakes the loop — or a new event is recorded (then the next poll). It was one empty fetch per settle.
      if (fetched === asked && fetched > 0 && this.#inFlight.size < webhookConcurrency) continue;
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

  /** Runs one attempt (`fetched`: leased by this worker's fetch, not handed off) in a slot of its own. */
  #attempt(target: DeliveryTarget, fetched: boolean): void {
    const running = attemptDelivery(this.#ctx, target, this.#stop.signal, this.#em!)
      .then((settlement) => {
        if (!settlement) return;
        return new Promise<void>((settled) => {
          this.#toSettle.push({ settlement, settled, fetched });
          this.#scheduleSettle();
        });
      })
      // An attempt that could not settle keeps its lease until it lapses (LEASE_SECONDS): then it is taken again.
      .catch((error: unknown) =>
        this.#ctx.logger.warn({ err: error, deliveryId: target.id }, 'webhook attempt failed'),
      )
      // Settled by #settle, which freed the slot and woke the loop; otherwise this frees it.
      .finally(() => {
        if (this.#inFlight.delete(target.id)) this.#wake?.();
      });
    this.#inFlight.set(target.id, running);
  }

  /**
   * Schedules the settle of the attempts waiting in #toSettle: in this turn of the event loop's check phase when no
   * settle runs, else right after the one running (#settle). An account's slots are held until their attempts are
   * settled, so the time from an attempt's end to its settle paces an account at its cap: a fixed wait of 20 ms to
   * gather attempts into one statement had held each slot that much longer, and one account's backlog drained at
   * about 150 deliveries a second (docs/performance.md, issue 26, twentieth stop). Under load the attempts that end
   * while a settle runs still share the next statement.
   */
  #scheduleSettle(): void {
    if (this.#settling || this.#settleScheduled) return;
    this.#settleScheduled = true;
    setImmediate(() => void this.#settle());
  }

  /**
   * Settles the attempts that ended since the last settle, in one statement, then wakes the fetch loop for the slots
   * they free (when a fetch may find something: #fetchMayFind). If that statement fails, each is settled on its own,
   * so that one bad row holds back no other. Those that ended meanwhile are settled next.
   */
  async #settle(): Promise<void> {
    this.#settleScheduled = false;
    const batch = this.#toSettle.splice(0);
    if (batch.length === 0) return;
    this.#settling = true;
    try {
      await this.#settleBatch(batch);
    } finally {
      this.#settling = false;
      if (this.#toSettle.length > 0) this.#scheduleSettle();
    }
  }

  async #settleBatch(batch: PendingSettle[]): Promise<void> {
    this.#settles++;
    const em = this.#em!;
    try {
      await settleDeliveries(
        em,
        batch.map((entry) => entry.settlement),
      );
    } catch (error) {
      if (batch.length === 1)
        this.#ctx.logger.warn(
          { err: error, deliveryId: batch[0]!.settlement.id },
          'settling a webhook attempt failed',
        );
      else
        await Promise.all(
          batch.map((entry) =>
            settleDeliveries(em, [entry.settlement]).catch((single: unknown) =>
              this.#ctx.logger.warn(
                { err: single, deliveryId: entry.settlement.id },
                'settling a webhook attempt failed',
              ),
            ),
          ),
        );
    }
    for (const entry of batch) {
      this.#inFlight.delete(entry.settlement.id);
      entry.settled();
    }
    if (this.#fetchMayFind || batch.some((entry) => entry.fetched)) this.#wake?.();
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
    if (this.#orm) await within(this.#orm.close(true), Date.now() + HAND_BACK_MS);
    return { finished: held - late, handedBack: late };
  }
}
