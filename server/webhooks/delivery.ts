/**
 * Webhook events and their delivery (docs/webhooks.md).
 *
 * An event is recorded as one delivery row per enabled endpoint of the report's account and mode, and a pg-boss
 * job per delivery, in the caller's transaction — the one that finishes (or fails) the report — so an event is
 * never lost and never sent for a report that did not finish (at least once; the unique (endpoint, event)
 * key makes a repeated emission deliver once). Each attempt is a job: POST the payload signed per Standard
 * Webhooks, 10 s timeout, redirects not followed, addresses checked at connection (ssrf.ts). A 2xx delivers;
 * 410 Gone disables the endpoint; anything else (or no answer) is retried on RETRY_SCHEDULE_SECONDS, over
 * ~27.6 hours, then the delivery is failed. Every attempt is logged (status, latency, error).
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Transaction } from 'kysely';
import { runSql } from '../db/sql.ts';
import { transactionDb } from '../jobs/queue.ts';
import { webhookDeliveries } from '../observability/metrics.ts';
import type { ServiceContext } from '../services/context.ts';
import { type FinishedReport, reportEvent, serialiseEvent, type WebhookEvent } from './payload.ts';
import { signatureHeader } from './signing.ts';
import { guardedLookup, isBlockedLiteral } from './ssrf.ts';

export const WEBHOOK_QUEUE = 'webhook-delivery';
/** Delay before attempt 2, 3, …, 8 (after a failed attempt 1, 2, …, 7): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const RETRY_SCHEDULE_SECONDS = [5, 300, 1800, 7200, 18000, 36000, 36000] as const;
const MAX_RESPONSE_BYTES = 64 * 1024;

export type { WebhookEvent, WebhookEventType } from './payload.ts';

interface DeliveryJob {
  deliveryId: string;
}

export async function enqueueDelivery(
  ctx: ServiceContext,
  tx: EntityManager,
  deliveryId: string,
  delaySeconds: number,
  _manual = false,
): Promise<void> {
  const db = transactionDb(tx.getTransactionContext() as Transaction<unknown>);
  await ctx.queue.boss.send(WEBHOOK_QUEUE, { deliveryId } satisfies DeliveryJob, {
    db,
    ...(delaySeconds > 0 ? { startAfter: delaySeconds } : {}),
  });
}

/** Records `event` for the given endpoints (in `tx`) and queues their first attempts; returns the new ids. */
export async function recordDeliveries(
  ctx: ServiceContext,
  tx: EntityManager,
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
      await enqueueDelivery(ctx, tx, row.id, 0);
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
  const rows = await runSql<{ id: string }>(
    tx,
    `insert into webhook_deliveries (id, endpoint_id, event_key, event_type, payload, status, attempts, created_at, next_attempt_at)
     select gen_random_uuid(), e.id, $3, $4, $5, 'pending', 0, $6, $6
       from webhook_endpoints e where e.account_id = $1 and e.mode = $2 and e.enabled
     on conflict (endpoint_id, event_key) do nothing
     returning id`,
    [
      report.account_id,
      report.mode,
      `${event.type}:${report.id}`,
      event.type,
      serialiseEvent(event),
      new Date(),
    ],
  );
  for (const row of rows) await enqueueDelivery(ctx, tx, row.id, 0);
  return rows.length;
}

interface AttemptResult {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  timedOut: boolean;
}

/** One POST, without following redirects, within the timeout (config.webhookTimeoutMs, 10 s), to an address the SSRF guard allows. */
function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  allowPrivate: boolean,
  timeoutMs: number,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    if (!allowPrivate && isBlockedLiteral(url)) {
      resolve({ statusCode: null, latencyMs: 0, error: 'the address is not allowed', timedOut: false });
      return;
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (result: AttemptResult) => {
      if (!settled) {
        settled = true;
        resolve(result);
      }
    };
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: false,
        lookup: guardedLookup(allowPrivate) as never,
      },
      (res) => {
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) res.destroy();
        });
        const done = () =>
          finish({ statusCode: res.statusCode ?? null, latencyMs: elapsed(), error: null, timedOut: false });
        res.on('end', done);
        res.on('close', done);
      },
    );
    req.setTimeout(timeoutMs, () => {
      finish({
        statusCode: null,
        latencyMs: elapsed(),
        error: `no response within ${timeoutMs / 1000} s`,
        timedOut: true,
      });
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({ statusCode: null, latencyMs: elapsed(), error: error.code ?? error.message, timedOut: false }),
    );
    req.end(body);
  });
}

interface DeliveryTarget {
  id: string;
  payload: string;
  status: string;
  attempts: number;
  endpoint_id: string;
  url: string;
  enabled: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

/** One attempt of a delivery (the job's body). */
export async function attemptDelivery(ctx: ServiceContext, deliveryId: string): Promise<void> {
  const em = ctx.db.orm.em.fork();
  const [target] = await runSql<DeliveryTarget>(
    em,
    `select d.id, d.payload, d.status, d.attempts, d.endpoint_id, e.url, e.enabled, e.secret, e.previous_secret,
            e.previous_secret_expires_at
       from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where d.id = $1`,
    [deliveryId],
  );
  if (target?.status !== 'pending') return;
  const now = new Date();
  if (!target.enabled) {
    await runSql(
      em,
      `update webhook_deliveries set status = 'failed', last_error = $2, next_attempt_at = null where id = $1`,
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
  );
  const attempt = target.attempts + 1;
  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const gone = result.statusCode === 410;
  const retryIn = !ok && !gone ? RETRY_SCHEDULE_SECONDS[attempt - 1] : undefined;
  const status = ok ? 'delivered' : retryIn !== undefined ? 'pending' : 'failed';
  const error =
    result.error ??
    (ok
      ? null
      : result.statusCode !== null && result.statusCode >= 300 && result.statusCode < 400
        ? `redirect (${result.statusCode}) not followed`
        : `HTTP ${result.statusCode}`);
  await em.transactional(async (tx) => {
    await runSql(
      tx,
      `insert into webhook_attempts (delivery_id, attempt_no, attempted_at, status_code, latency_ms, error)
       values ($1, $2, $3, $4, $5, $6) on conflict do nothing`,
      [target.id, attempt, now, result.statusCode, result.latencyMs, error],
    );
    await runSql(
      tx,
      `update webhook_deliveries
          set attempts = $2, status = $3, last_status_code = $4, last_latency_ms = $5, last_error = $6,
              next_attempt_at = $7, delivered_at = $8
        where id = $1`,
      [
        target.id,
        attempt,
        status,
        result.statusCode,
        result.latencyMs,
        error,
        retryIn !== undefined ? new Date(now.getTime() + retryIn * 1000) : null,
        ok ? new Date() : null,
      ],
    );
    if (gone) {
      await runSql(
        tx,
        `update webhook_endpoints set enabled = false, disabled_reason = $2, updated_at = $3 where id = $1`,
        [target.endpoint_id, 'The endpoint answered 410 Gone; deliveries stopped.', new Date()],
      );
    }
    if (retryIn !== undefined) await enqueueDelivery(ctx, tx, target.id, retryIn);
  });
  webhookDeliveries.inc({
    outcome: ok ? 'delivered' : gone ? 'disabled' : result.timedOut ? 'timeout' : 'failed',
  });
}

/** Creates the delivery queue and starts this process's delivery workers. */
/**
 * Creates the delivery queue (idempotent). Every role calls it at start: an `api` process enqueues test
 * events and redeliveries even before any worker has started.
 */
export async function createWebhookQueue(ctx: ServiceContext): Promise<void> {
  // pg-boss retries only cover a crash inside an attempt; failed deliveries are rescheduled by attemptDelivery.
  await ctx.queue.boss.createQueue(WEBHOOK_QUEUE, {
    retryLimit: 3,
    retryDelay: 10,
    retryBackoff: true,
    expireInSeconds: 60,
  });
}

export async function startWebhookDelivery(ctx: ServiceContext): Promise<void> {
  const { boss } = ctx.queue;
  await createWebhookQueue(ctx);
  await boss.work<DeliveryJob>(
    WEBHOOK_QUEUE,
    { batchSize: 1, localConcurrency: 4, pollingIntervalSeconds: 1 },
    async ([job]) => {
      if (job) await attemptDelivery(ctx, job.data.deliveryId);
    },
  );
}
