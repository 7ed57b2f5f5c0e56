/**
 * Idempotent submission (IETF draft-ietf-httpapi-idempotency-key-header, Stripe's semantics): a submission sent
 * with an Idempotency-Key is recorded at most once per (account, mode, key) within 24 hours.
 *
 * - First request: the report, its task, its job and the key — completed, with the receipt to replay — are
 *   written by ONE statement (server/services/reports.ts): a recorded report always has its replayable receipt, a
 *   crash or a failure leaves neither, and no statement or transaction of its own is spent on the key.
 * - Same key, same body (by fingerprint: SHA-256 of the body's canonical JSON — key order and whitespace do not
 *   matter): the key's insert finds the row and records nothing, the statement fails with KEY_TAKEN_SQLSTATE (the
 *   report made for it rolled back with it) and the first receipt is answered again, flagged `replayed`.
 * - Same key while another request holding it has not committed: IdempotencyKeyInUseError (409, Retry-After) —
 *   an advisory lock on the key, taken by the submission's statement, tells without waiting.
 * - Same key, different body: IdempotencyKeyReusedError (422).
 * - A key `in_progress` (a claim of the earlier design, committed on its own before the report) answers
 *   IdempotencyKeyInUseError while it is fresh; one older than ABANDONED_CLAIM_MS is taken over.
 * - A request that fails (validation, back-pressure, database) writes no key: a corrected retry may use it.
 * - The report a completed key answered with was deleted (DELETE, retention): the foreign key set the key's
 *   report_id to null, so the same body records a new report under it — a replay never hands out a dead id.
 * Expired rows are deleted by the housekeeping job (server/jobs/housekeeping.ts); a row past `expires_at` is
 * ignored even before that.
 */
import { hash } from 'node:crypto';
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
import { KEY_TAKEN_SQLSTATE, type SubmissionReceipt, submitReport } from './reports.ts';

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

/**
 * A copy of the value whose objects have their keys inserted in sorted order: its JSON is the canonical form. Keys
 * are assigned in order rather than collected into entries for Object.fromEntries (a third of the cost; objects of
 * one shape share V8's hidden-class transitions) — the same copy, so fingerprints stored before keep matching.
 * `__proto__` is defined, not assigned: an assignment would set the copy's prototype instead of a key.
 */
function canonical(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_FINGERPRINT_DEPTH) {
    throw new ValidationError([
      { path: '', message: `nests deeper than ${MAX_FINGERPRINT_DEPTH} levels of arrays and objects` },
    ]);
  }
  if (Array.isArray(value)) return value.map((item) => canonical(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = canonical((value as Record<string, unknown>)[key], depth + 1);
    if (key === '__proto__')
      Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
    else copy[key] = item;
  }
  return copy;
}

/** SHA-256 (hex) of the body's canonical JSON: objects' keys sorted, no whitespace. */
export function requestFingerprint(body: unknown): string {
  return hash('sha256', JSON.stringify(canonical(body)) ?? 'null', 'hex');
}

const READ_SQL = prepared(`
  select fingerprint, state, status_code, response from idempotency_keys
   where account_id = $1 and mode = $2 and key = $3`);

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
  try {
    const now = new Date();
    const receipt = await submitReport(ctx, principal, body, {
      key,
      fingerprint,
      now,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      abandonedBefore: new Date(now.getTime() - ABANDONED_CLAIM_MS),
    });
    return { receipt, replayed: false };
  } catch (error) {
    // The key belongs to another request: the submission's statement recorded nothing (reports.ts).
    if ((error as { code?: unknown }).code !== KEY_TAKEN_SQLSTATE) throw error;
  }
  const [row] = await runSql<{
    fingerprint: string;
    state: string;
    status_code: number | null;
    response: SubmissionReceipt | null;
  }>(ctx.db.orm.em.fork(), READ_SQL, scope);
  // Deleted between the two statements (expired and collected): the caller retries as a first request.
  if (!row) throw new IdempotencyKeyInUseError();
  if (row.fingerprint !== fingerprint) throw new IdempotencyKeyReusedError();
  if (row.state !== 'completed' || !row.response) throw new IdempotencyKeyInUseError();
  submissions.inc({ mode: principal.mode, outcome: 'replayed' });
  return { receipt: row.response, replayed: true };
}

/** Deletes keys past their 24 hours; returns how many. Run by the housekeeping job. */
export async function expireIdempotencyKeys(ctx: ServiceContext, now = new Date()): Promise<number> {
  const rows = await runSql(ctx.db.orm.em.fork(), EXPIRE_SQL, [now]);
  return rows.length;
}
