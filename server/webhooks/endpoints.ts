/**
 * Webhook endpoints of an account and mode: create (the `whsec_` secret returned once), list, get, update, delete,
 * rotate the secret (the old one keeps signing for 24 hours), and the delivery log with manual redelivery. Both
 * transports (REST, GraphQL) call these; authorisation (account and mode of the principal) happens here, and so
 * do the per-account limits (endpoints, test events per minute, pending deliveries), under one lock per account
 * so concurrent requests cannot pass a limit together. An endpoint records the key or console session that
 * created it: revoking that key, or changing the password, disables it (disableEndpointsCreatedBy…).
 */
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { textProblem } from '../../schema/text.ts';
import { runSql } from '../db/sql.ts';
import { NotFoundError, TooManyRequestsError, ValidationError } from '../errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { Principal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
import { FRESH, recordDeliveries } from './delivery.ts';
import { testEvent } from './payload.ts';
import { newWebhookSecret } from './signing.ts';
import { checkResolvedHost, checkUrlForm, UnsafeUrlError } from './ssrf.ts';

export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;
export const MAX_ENDPOINTS = 20;

export interface EndpointRow {
  id: string;
  url: string;
  description: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  mode: 'test' | 'live';
  previous_secret_expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_type: string;
  payload: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
  delivered_at: Date | null;
}

export interface AttemptRow {
  attempt_no: number;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

const ENDPOINT_COLUMNS = `id, url, description, enabled, disabled_reason, mode, previous_secret_expires_at, created_at, updated_at`;
const DELIVERY_COLUMNS = `id, endpoint_id, event_type, payload, status, attempts, last_status_code, last_latency_ms,
  last_error, next_attempt_at, created_at, delivered_at`;

export interface EndpointInput {
  url?: unknown;
  description?: unknown;
  enabled?: unknown;
}

async function checkInput(
  ctx: ServiceContext,
  principal: Principal,
  input: EndpointInput,
  creating: boolean,
): Promise<{ url?: string; description?: string | null; enabled?: boolean }> {
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    throw new ValidationError([{ path: '', message: 'must be an object' }]);
  const unknown = Object.keys(input).filter((k) => !['url', 'description', 'enabled'].includes(k));
  if (unknown.length > 0)
    throw new ValidationError(unknown.map((path) => ({ path, message: 'is not a known field' })));
  const out: { url?: string; description?: string | null; enabled?: boolean } = {};
  if (input.url !== undefined || creating) {
    if (typeof input.url !== 'string')
      throw new ValidationError([{ path: 'url', message: 'is required (a string)' }]);
    try {
      const url = checkUrlForm(input.url.trim(), principal.mode);
      await checkResolvedHost(url, ctx.config.webhookAllowPrivate);
      out.url = url.toString();
    } catch (error) {
      if (error instanceof UnsafeUrlError)
        throw new ValidationError([{ path: 'url', message: error.message }]);
      throw error;
    }
  }
  if (input.description !== undefined) {
    if (
      input.description !== null &&
      (typeof input.description !== 'string' || input.description.length > 500)
    )
      throw new ValidationError([
        { path: 'description', message: 'must be a string of at most 500 characters, or null' },
      ]);
    const unclean = input.description === null ? undefined : textProblem(input.description);
    if (unclean) throw new ValidationError([{ path: 'description', message: unclean }]);
    out.description = input.description;
  }
  if (input.enabled !== undefined) {
    if (typeof input.enabled !== 'boolean')
      throw new ValidationError([{ path: 'enabled', message: 'must be a boolean' }]);
    out.enabled = input.enabled;
  }
  return out;
}

/**
 * Serialises the webhook changes of one account (transaction-scoped advisory lock): a limit counted under it
 * holds however many requests arrive at once. Not the account row: a row lock would also stall the account's
 * submissions (their foreign-key checks).
 */
async function lockAccount(tx: EntityManager, accountId: string): Promise<void> {
  await runSql(tx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`webhooks:${accountId}`]);
}

export async function createEndpoint(
  ctx: ServiceContext,
  principal: Principal,
  input: EndpointInput,
): Promise<{ endpoint: EndpointRow; secret: string }> {
  const values = await checkInput(ctx, principal, input, true);
  const secret = newWebhookSecret();
  const now = new Date();
  const endpoint = await ctx.db.orm.em.fork().transactional(async (tx) => {
    await lockAccount(tx, principal.accountId);
    const [{ count } = { count: 0 }] = await runSql<{ count: number }>(
      tx,
      `select count(*)::int as count from webhook_endpoints where account_id = $1 and mode = $2`,
      [principal.accountId, principal.mode],
    );
    if (count >= MAX_ENDPOINTS)
      throw new ValidationError([
        { path: 'url', message: `at most ${MAX_ENDPOINTS} endpoints per account and mode` },
      ]);
    const [row] = await runSql<EndpointRow>(
      tx,
      `insert into webhook_endpoints (id, account_id, mode, url, description, enabled, secret, created_at, updated_at,
                                      created_by_api_key_id, created_by_session_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8, $9, $10) returning ${ENDPOINT_COLUMNS}`,
      [
        randomUUID(),
        principal.accountId,
        principal.mode,
        values.url,
        values.description ?? null,
        values.enabled ?? true,
        secret,
        now,
        principal.apiKeyId,
        principal.sessionId ?? null,
      ],
    );
    return row!;
  });
  return { endpoint, secret };
}

export async function listEndpoints(ctx: ServiceContext, principal: Principal): Promise<EndpointRow[]> {
  return runSql<EndpointRow>(
    ctx.db.orm.em.fork(),
    `select ${ENDPOINT_COLUMNS} from webhook_endpoints where account_id = $1 and mode = $2 order by created_at desc, id desc`,
    [principal.accountId, principal.mode],
  );
}

export async function getEndpoint(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
): Promise<EndpointRow> {
  const [endpoint] = isUuid(id)
    ? await runSql<EndpointRow>(
        ctx.db.orm.em.fork(),
        `select ${ENDPOINT_COLUMNS} from webhook_endpoints where id = $1 and account_id = $2 and mode = $3`,
        [id, principal.accountId, principal.mode],
      )
    : [];
  if (!endpoint) throw new NotFoundError('webhook endpoint', id);
  return endpoint;
}

export async function updateEndpoint(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
  input: EndpointInput,
): Promise<EndpointRow> {
  const current = await getEndpoint(ctx, principal, id);
  const values = await checkInput(ctx, principal, input, false);
  const enabled = values.enabled ?? current.enabled;
  const [endpoint] = await runSql<EndpointRow>(
    ctx.db.orm.em.fork(),
    `update webhook_endpoints
        set url = $2, description = $3, enabled = $4, disabled_reason = case when $4 then null else disabled_reason end,
            updated_at = $5
      where id = $1 returning ${ENDPOINT_COLUMNS}`,
    [
      current.id,
      values.url ?? current.url,
      values.description === undefined ? current.description : values.description,
      enabled,
      new Date(),
    ],
  );
  return endpoint!;
}

export async function deleteEndpoint(ctx: ServiceContext, principal: Principal, id: string): Promise<void> {
  const endpoint = await getEndpoint(ctx, principal, id);
  await runSql(ctx.db.orm.em.fork(), `delete from webhook_endpoints where id = $1`, [endpoint.id]);
}

/** A new secret; the current one keeps signing (beside it) for ROTATION_GRACE_MS. */
export async function rotateSecret(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
): Promise<{ endpoint: EndpointRow; secret: string }> {
  const current = await getEndpoint(ctx, principal, id);
  const secret = newWebhookSecret();
  const now = new Date();
  const [endpoint] = await runSql<EndpointRow>(
    ctx.db.orm.em.fork(),
    `update webhook_endpoints
        set previous_secret = secret, previous_secret_expires_at = $3, secret = $2, updated_at = $4
      where id = $1 returning ${ENDPOINT_COLUMNS}`,
    [current.id, secret, new Date(now.getTime() + ROTATION_GRACE_MS), now],
  );
  return { endpoint: endpoint!, secret };
}

/**
 * The account's sending limits, checked under its lock (in `tx`): at most `webhookMaxPendingDeliveries` pending
 * deliveries (report events are never refused — only what a caller sends by hand), and for a test event at most
 * `webhookTestEventsPerMinute` in the last minute. Over either → 429 with the seconds to wait.
 */
async function checkSendingLimits(
  ctx: ServiceContext,
  tx: EntityManager,
  accountId: string,
  testEvent: boolean,
): Promise<void> {
  await lockAccount(tx, accountId);
  const since = new Date(Date.now() - 60_000);
  const [counts] = await runSql<{ pending: number; tests: number; oldest_test: Date | null }>(
    tx,
    `with mine as (select id from webhook_endpoints where account_id = $1)
     select (select count(*) from webhook_deliveries d where d.account_id = $1 and d.status = 'pending')::int
              as pending,
            (select count(*) from webhook_deliveries d where d.endpoint_id in (select id from mine)
                and d.event_type = 'webhook.test' and d.created_at > $2)::int as tests,
            (select min(d.created_at) from webhook_deliveries d where d.endpoint_id in (select id from mine)
                and d.event_type = 'webhook.test' and d.created_at > $2) as oldest_test`,
    [accountId, since],
  );
  const { webhookMaxPendingDeliveries: maxPending, webhookTestEventsPerMinute: perMinute } = ctx.config;
  if (counts!.pending >= maxPending) {
    throw new TooManyRequestsError(
      `This account already has ${counts!.pending} webhook deliveries pending (at most ${maxPending}); ` +
        'try again once some are delivered.',
      30,
    );
  }
  if (testEvent && counts!.tests >= perMinute) {
    const wait = Math.max(
      1,
      Math.ceil((new Date(counts!.oldest_test!).getTime() + 60_000 - Date.now()) / 1000),
    );
    throw new TooManyRequestsError(
      `At most ${perMinute} webhook test events per minute per account; try again in ${wait} seconds.`,
      wait,
    );
  }
}

/** Sends a `webhook.test` event to the endpoint now (a delivery like any other, in its log), within the limits. */
export async function sendTestEvent(
  ctx: ServiceContext,
  principal: Principal,
  id: string,
): Promise<DeliveryRow> {
  const endpoint = await getEndpoint(ctx, principal, id);
  const event = testEvent(endpoint.id, new Date());
  const em = ctx.db.orm.em.fork();
  const deliveryId = await em.transactional(async (tx) => {
    await checkSendingLimits(ctx, tx, principal.accountId, true);
    const [created] = await recordDeliveries(
      tx,
      principal.accountId,
      [endpoint.id],
      `webhook.test:${randomUUID()}`,
      event,
    );
    return created!;
  });
  return getDelivery(ctx, principal, endpoint.id, deliveryId).then((d) => d.delivery);
}

export async function listDeliveries(
  ctx: ServiceContext,
  principal: Principal,
  endpointId: string,
  limit = 50,
): Promise<DeliveryRow[]> {
  const endpoint = await getEndpoint(ctx, principal, endpointId);
  return runSql<DeliveryRow>(
    ctx.db.orm.em.fork(),
    `select ${DELIVERY_COLUMNS} from webhook_deliveries where endpoint_id = $1 order by created_at desc, id desc limit $2`,
    [endpoint.id, limit],
  );
}

export async function getDelivery(
  ctx: ServiceContext,
  principal: Principal,
  endpointId: string,
  deliveryId: string,
): Promise<{ delivery: DeliveryRow; attempts: AttemptRow[] }> {
  const endpoint = await getEndpoint(ctx, principal, endpointId);
  const em = ctx.db.orm.em.fork();
  const [delivery] = isUuid(deliveryId)
    ? await runSql<DeliveryRow>(
        em,
        `select ${DELIVERY_COLUMNS} from webhook_deliveries where id = $1 and endpoint_id = $2`,
        [deliveryId, endpoint.id],
      )
    : [];
  if (!delivery) throw new NotFoundError('webhook delivery', deliveryId);
  const attempts = await runSql<AttemptRow>(
    em,
    `select attempt_no, attempted_at, status_code, latency_ms, error from webhook_attempts where delivery_id = $1 order by attempt_no`,
    [delivery.id],
  );
  return { delivery, attempts };
}

/** Queues the delivery again now (same webhook-id, so a receiver's de-duplication still recognises it). */
export async function redeliver(
  ctx: ServiceContext,
  principal: Principal,
  endpointId: string,
  deliveryId: string,
): Promise<DeliveryRow> {
  const { delivery } = await getDelivery(ctx, principal, endpointId, deliveryId);
  await ctx.db.orm.em.fork().transactional(async (tx) => {
    await checkSendingLimits(ctx, tx, principal.accountId, false);
    // Due now, ranked as a new event. An attempt still running keeps its lease and settles the delivery itself.
    await runSql(
      tx,
      `update webhook_deliveries set status = 'pending', next_attempt_at = $2, priority = $3 where id = $1`,
      [delivery.id, new Date(), FRESH],
    );
  });
  return (await getDelivery(ctx, principal, endpointId, deliveryId)).delivery;
}

// ---- Revocation --------------------------------------------------------------------------------------------

/** Disables the enabled endpoints `where` selects (a condition on webhook_endpoints), saying why; returns how many. */
async function disableEndpoints(em: EntityManager, where: string, params: unknown[], reason: string) {
  const rows = await runSql<{ id: string }>(
    em,
    `update webhook_endpoints set enabled = false, disabled_reason = $1, updated_at = now()
      where enabled and ${where} returning id`,
    [reason, ...params],
  );
  return rows.length;
}

/** Revoking an API key disables every endpoint that key created (in the caller's transaction or manager). */
export async function disableEndpointsCreatedByKey(em: EntityManager, apiKeyId: string): Promise<number> {
  return disableEndpoints(
    em,
    'created_by_api_key_id = $2',
    [apiKeyId],
    'Disabled because the API key that created it was revoked. Check the URL before enabling it again.',
  );
}

/**
 * A password change disables every endpoint of the account created in a console session other than the one
 * that changed it: a session opened with a stolen password may have registered it.
 */
export async function disableEndpointsOfOtherSessions(
  em: EntityManager,
  accountId: string,
  keptSessionId: string,
): Promise<number> {
  return disableEndpoints(
    em,
    'account_id = $2 and created_by_session_id is not null and created_by_session_id <> $3',
    [accountId, keptSessionId],
    'Disabled because the account’s password was changed and another console session created it. ' +
      'Check the URL before enabling it again.',
  );
}

// ---- What leaves the server ------------------------------------------------------------------------------

const iso = (date: Date | null) => (date ? new Date(date).toISOString() : null);

export function presentEndpoint(endpoint: EndpointRow) {
  return {
    id: endpoint.id,
    url: endpoint.url,
    description: endpoint.description,
    enabled: endpoint.enabled,
    disabled_reason: endpoint.disabled_reason,
    mode: endpoint.mode,
    events: ['report.succeeded', 'report.failed'],
    previous_secret_expires_at: iso(endpoint.previous_secret_expires_at),
    created_at: iso(endpoint.created_at)!,
    updated_at: iso(endpoint.updated_at)!,
  };
}

export function presentDelivery(delivery: DeliveryRow, attempts?: AttemptRow[]) {
  return {
    id: delivery.id,
    endpoint_id: delivery.endpoint_id,
    event_type: delivery.event_type,
    payload: JSON.parse(delivery.payload) as unknown,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.last_status_code,
    last_latency_ms: delivery.last_latency_ms,
    last_error: delivery.last_error,
    next_attempt_at: iso(delivery.next_attempt_at),
    created_at: iso(delivery.created_at)!,
    delivered_at: iso(delivery.delivered_at),
    ...(attempts
      ? {
          attempt_log: attempts.map((a) => ({
            attempt: a.attempt_no,
            attempted_at: iso(a.attempted_at)!,
            status_code: a.status_code,
            latency_ms: a.latency_ms,
            error: a.error,
          })),
        }
      : {}),
  };
}
