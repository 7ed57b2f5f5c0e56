/**
 * Backstop for "no report stays pending for ever": pg-boss retries and dead-letters every job, but should a
 * job row ever be lost (a restored backup, a hand-edited queue), a report still pending long after its
 * last possible attempt is failed here.
 */
import { Report } from '../db/entities/report.entity.ts';
import { Task } from '../db/entities/task.entity.ts';
import type { ServiceContext } from '../services/context.ts';

/** The longest a report can legitimately stay pending: every attempt timing out, plus backoff. */
export function maxPendingSeconds(config: ServiceContext['config']): number {
  return config.jobTimeoutSeconds * (config.jobRetryLimit + 1) + 600;
}

/** Fails reports pending for longer than `maxPendingSeconds`. Returns how many it failed. */
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
    return ids.length;
  });
}
