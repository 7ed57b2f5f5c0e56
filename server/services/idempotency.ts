/**
 * Idempotent submission (IETF draft-ietf-httpapi-idempotency-key-header, Stripe's semantics): a submission sent
 * with an Idempotency-Key is recorded at most once per (account, mode, key) within 24 hours.
 *
 * - First request: the key is claimed (a row `in_progress`, committed on its own), then the report, its task,
 *   its job and the key's completion (the receipt to replay) are written in ONE transaction — so a recorded
 *   report always has its replayable receipt, and a crash leaves either both or neither.
 * - Same key, same body (by fingerprint: SHA-256 of the body's canonical JSON — key order and whitespace do not
 *   matter): the first receipt again, flagged `replayed`.
 * - Same key, different body: IdempotencyKeyReusedError (422). Still being recorded: IdempotencyKeyInUseError
 *   (409, Retry-After). A claim older than ABANDONED_CLAIM_MS (its process died between claim and commit) is
 *   taken over by the next request: nothing was recorded under it.
 * - A request that fails (validation, database) releases the key: nothing was recorded, so a corrected retry may
 *   use it.
 * - The report a completed key answered with was deleted (DELETE, retention): the same body claims the key again
 *   and records a new report — a replay never hands out a dead id.
 * Expired rows are deleted by the housekeeping job (server/jobs/housekeeping.ts); a row past `expires_at` is
 * ignored even before that.
 */
import { createHash } from 'node:crypto';
import { prepared } from '../db/prepared.ts';
import { runSql } from '../db/sql.ts';
import {
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  InvalidHeaderError,
  ValidationError,
} from '../errors.ts';
import { submissions } from '../observability/metrics.ts';
import type { Principal } from './apiKeys.ts';
import type { ServiceContext } from './context.ts';
import { type SubmissionReceipt, submitReport } from './reports.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim this old without completion belongs to a request whose process died: nothing was recorded. */
export const ABANDONED_CLAIM_MS = 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentSubmission {
  receipt: SubmissionReceipt;
  /** True when this is the stored response of an earlier request with the same key and body. */
  replayed: boolean;
}

/** Checks an Idempotency-Key value (1–255 visible ASCII characters); `field` names it in the error. */
export function checkIdempotencyKey(key: string, field = 'Idempotency-Key'): string {
  if (!KEY_PATTERN.test(key)) {
    throw new InvalidHeaderError(
      field,
      'must be 1 to 255 visible ASCII characters (a UUID v4 is a good key).',
    );
  }
  return key;
}

/** Nesting the fingerprint follows; REST bodies are bounded lower (jsonBody), this guards any other caller. */
const MAX_FINGERPRINT_DEPTH = 64;

function canonical(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_FINGERPRINT_DEPTH) {
    throw new ValidationError([
      { path: '', message: `nests deeper than ${MAX_FINGERPRINT_DEPTH} levels of arrays and objects` },
    ]);
  }
  if (Array.isArray(value)) return value.map((item) => canonical(item, depth + 1));
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, canonical((value as Record<string, unknown>)[k], depth + 1)]),
  );
}

/** SHA-256 (hex) of the body's canonical JSON: objects' keys sorted, no whitespace. */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)) ?? 'null')
    .digest('hex');
}

const CLAIM_SQL = prepared(`
  insert into idempotency_keys as k (account_id, mode, key, fingerprint, state, created_at, locked_at, expires_at)
  values ($1, $2, $3, $4, 'in_progress', $5, $5, $6)
  on conflict (account_id, mode, key) do update
     set fingerprint = excluded.fingerprint, state = 'in_progress', status_code = null, response = null,
         report_id = null, created_at = excluded.created_at, locked_at = excluded.locked_at,
         expires_at = excluded.expires_at
   where k.expires_at <= $5 or (k.state = 'in_progress' and k.locked_at < $7)
      or (k.state = 'completed' and k.fingerprint = $4
          and not exists (select 1 from reports r where r.id = k.report_id))
  returning true as claimed`);

const READ_SQL = prepared(`
  select fingerprint, state, status_code, response from idempotency_keys
   where account_id = $1 and mode = $2 and key = $3`);

const COMPLETE_SQL = prepared(`
  update idempotency_keys set state = 'completed', status_code = $4, response = $5::jsonb, report_id = $6
   where account_id = $1 and mode = $2 and key = $3`);

const RELEASE_SQL = prepared(`
  delete from idempotency_keys where account_id = $1 and mode = $2 and key = $3 and state = 'in_progress'`);

const EXPIRE_SQL = prepared(`delete from idempotency_keys where expires_at <= $1 returning key`);

/**
 * Submits a report; with a key, at most once per key and body (see the module comment). Without a key this is
 * submitReport: not idempotent, as the spec says.
 */
export async function submitReportIdempotently(
  ctx: ServiceContext,
  principal: Principal,
  key: string | undefined,
  body: unknown,
): Promise<IdempotentSubmission> {
  if (key === undefined) return { receipt: await submitReport(ctx, principal, body), replayed: false };
  checkIdempotencyKey(key);
  const fingerprint = requestFingerprint(body);
  const scope = [principal.accountId, principal.mode, key];
  const em = ctx.db.orm.em.fork();
  const now = new Date();
  const [claim] = await runSql<{ claimed: boolean }>(em, CLAIM_SQL, [
    ...scope,
    fingerprint,
    now,
    new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
    new Date(now.getTime() - ABANDONED_CLAIM_MS),
  ]);
  if (!claim) {
    const [row] = await runSql<{
      fingerprint: string;
      state: string;
      status_code: number | null;
      response: SubmissionReceipt | null;
    }>(em, READ_SQL, scope);
    // Deleted between the two statements (expired and collected): the caller retries as a first request.
    if (!row) throw new IdempotencyKeyInUseError();
    if (row.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
    if (row.state !== 'completed' || !row.response) throw new IdempotencyKeyInUseError();
    submissions.inc({ mode: principal.mode, outcome: 'replayed' });
    return { receipt: row.response, replayed: true };
  }
  try {
    const receipt = await submitReport(ctx, principal, body, async (tx, recorded) => {
      await runSql(tx, COMPLETE_SQL, [...scope, 202, JSON.stringify(recorded), recorded.reportId]);
    });
    return { receipt, replayed: false };
  } catch (error) {
    await runSql(em, RELEASE_SQL, scope).catch(() => undefined);
    throw error;
  }
}

/** Deletes keys past their 24 hours; returns how many. Run by the housekeeping job. */
export async function expireIdempotencyKeys(ctx: ServiceContext, now = new Date()): Promise<number> {
  const rows = await runSql(ctx.db.orm.em.fork(), EXPIRE_SQL, [now]);
  return rows.length;
}
