/**
 * Data lifecycle: with REPORT_RETENTION_DAYS set, reports older than that are deleted (with their statements,
 * results, task and share link). Runs in every process that works jobs, once at start and then hourly; several
 * workers running it at once delete disjoint batches or nothing, so no coordination is needed.
 */

import type { ServiceContext } from '../services/context.ts';
import { purgeReportsCreatedBefore } from '../services/reportDeletion.ts';

export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/** Deletes the reports past retention. Returns how many (0 when no retention is configured). */
export async function purgeExpiredReports(ctx: ServiceContext, now = new Date()): Promise<number> {
  const days = ctx.config.reportRetentionDays;
  if (days === null) return 0;
  return purgeReportsCreatedBefore(ctx, new Date(now.getTime() - days * 86_400_000));
}
