/**
 * The owner's controls over a report's share link (console): make it public or private, set or clear an
 * expiry, rotate the token (the old link stops working at once).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { type IReport, Report } from '../db/entities/report.entity.ts';
import { ConflictError, NotFoundError, ValidationError } from '../errors.ts';
import { isUuid, newShareToken } from '../lib/ids.ts';
import { forgetReports } from './readCache.ts';

async function ownedReport(em: EntityManager, accountId: string, reportId: string): Promise<IReport> {
  const report = isUuid(reportId) ? await em.findOne(Report, { id: reportId, account: accountId }) : null;
  if (!report) throw new NotFoundError('report', reportId);
  if (report.status !== 'success' || !report.shareToken) {
    throw new ConflictError(
      'report_not_ready',
      `Report ${reportId} has no share link until it has succeeded.`,
    );
  }
  return report;
}

export interface ShareChanges {
  isPublic?: boolean;
  /** A future time, or null to clear the expiry; undefined leaves it as it is. */
  expiresAt?: Date | null;
}

export async function updateShareSettings(
  em: EntityManager,
  accountId: string,
  reportId: string,
  changes: ShareChanges,
): Promise<IReport> {
  const report = await ownedReport(em, accountId, reportId);
  if (changes.expiresAt && changes.expiresAt.getTime() <= Date.now()) {
    throw new ValidationError([
      { path: 'expiresAt', message: 'must be in the future (or null for no expiry)' },
    ]);
  }
  if (changes.isPublic !== undefined) report.shareIsPublic = changes.isPublic;
  if (changes.expiresAt !== undefined) report.shareExpiresAt = changes.expiresAt;
  report.updatedAt = new Date();
  await em.flush();
  forgetReports([report.id]);
  return report;
}

/** A new token, as random as the first. */
export async function rotateShareToken(
  em: EntityManager,
  accountId: string,
  reportId: string,
): Promise<IReport> {
  const report = await ownedReport(em, accountId, reportId);
  report.shareToken = newShareToken();
  report.updatedAt = new Date();
  await em.flush();
  forgetReports([report.id]);
  return report;
}
