/**
 * Removing reports: by their owner (REST DELETE, GraphQL deleteReport, the console) and by the retention job.
 * Deleting the report row removes everything that belongs to it in the same statement — its statements,
 * analysis results, task (with the stored submission) and share link (a column of the row) — through the
 * foreign keys' ON DELETE CASCADE; anything later tables hang off a report should cascade the same way.
 * A report still pending loses its job's work: the job finds no task and ends without writing anything.
 * A deletion that races a job's statement on the same report can deadlock with it (the deletion locks the report,
 * then its task through the cascade; the job's claim locks the task, then the report through its statements'
 * foreign key): PostgreSQL aborts one of the two, and the deletion is run again (retryingDeadlocks), never a 500.
 */
import { retryingDeadlocks, runSql } from '../db/sql.ts';
import { NotFoundError } from '../errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { Principal } from './apiKeys.ts';
import type { ServiceContext } from './context.ts';
import { forgetReports } from './readCache.ts';

const DELETE_OWNED_SQL = `
  delete from reports where id = $1 and account_id = $2 and mode = $3 returning id`;

/** Reports created before $1, a batch at a time: one short transaction per batch, not one for everything. */
const PURGE_BATCH_SQL = `
  delete from reports where id in (select id from reports where created_at < $1 limit $2) returning id`;
const PURGE_BATCH = 500;

/**
 * Deletes one of the principal's reports (its account, its mode — as every read decides visibility) with all
 * that belongs to it. NotFoundError when it does not exist or is not theirs (the two are indistinguishable).
 * Returns the id.
 */
export async function deleteReport(
  ctx: ServiceContext,
  principal: Principal,
  reportId: string,
): Promise<string> {
  if (!isUuid(reportId)) throw new NotFoundError('report', reportId);
  const rows = await retryingDeadlocks(() =>
    runSql(ctx.db.orm.em.fork(), DELETE_OWNED_SQL, [reportId, principal.accountId, principal.mode]),
  );
  if (rows.length === 0) throw new NotFoundError('report', reportId);
  forgetReports([reportId]);
  return reportId;
}

/** Deletes every report created before `cutoff` (retention), in batches. Returns how many. */
export async function purgeReportsCreatedBefore(ctx: ServiceContext, cutoff: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const rows = await retryingDeadlocks(() =>
      runSql<{ id: string }>(ctx.db.orm.em.fork(), PURGE_BATCH_SQL, [cutoff, PURGE_BATCH]),
    );
    forgetReports(rows.map((row) => row.id));
    total += rows.length;
    if (rows.length < PURGE_BATCH) return total;
  }
}
