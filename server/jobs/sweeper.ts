/**
 * Backstop for "no report stays pending for ever": pg-boss retries and dead-letters every job, but should a
 * job row ever be lost (a restored backup, a hand-edited queue), a report still pending long after its
 * last possible attempt is failed here.
 */
import { Report } from '../db/entities/report.entity.ts';
import { Task } from '../db/entities/task.entity.ts';
import type { ServiceContext } from '../services/context.ts';
import { emitReportEvent } from '../webhooks/delivery.ts';

/** The longest a report can legitimately stay pending: every attempt timing out, plus backoff. */
export function maxPendingSeconds(config: ServiceContext['config']): number {
  return config.jobTimeoutSeconds * (config.jobRetryLimit + 1) + 600;
}

/**
 * Fails reports pending for longer than `maxPendingSeconds`, each with its `report.failed` webhook event in the
 * same transaction (an integrator waiting for the event hears of these too). Returns how many it failed.
 */
export async function failStaleReports(ctx: ServiceContext, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - maxPendingSeconds(ctx.config) * 1000);
  const em = ctx.db.orm.em.fork();
  return em.transactional(async (tx) => {
    const stale = await tx.find(
      Report,
      { status: 'pending', createdAt: { $lt: cutoff } },
      { fields: ['id'] },
    );
    if (stale.length === 0) return 0;
    const ids = stale.map((report) => report.id);
    const message = 'The analysis did not finish in time and was abandoned; submit the report again.';
    await tx.nativeUpdate(
      Report,
      { id: { $in: ids }, status: 'pending' },
      { status: 'failed', errorMessage: message, completedAt: now, updatedAt: now },
    );
    await tx.nativeUpdate(
      Task,
      { report: { $in: ids }, status: 'processing' },
      { status: 'failed', errorMessage: message, finishedAt: now, updatedAt: now },
    );
    // By each report's status now: one that succeeded in the meantime gets no second event (its job emitted
    // report.succeeded, and an event is recorded once per endpoint).
    for (const id of ids) await emitReportEvent(ctx, tx, id);
    return ids.length;
  });
}
