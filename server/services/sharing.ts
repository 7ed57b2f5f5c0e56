/**
 * The public share link: a finished report read by its share token, with no key. Only a report that
 * succeeded, is public and has not expired can be read; anything else is "not found" (a revoked or expired
 * link must not be told apart from a wrong one).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { AnalysisResult, type IAnalysisResult } from '../db/entities/analysisResult.entity.ts';
import { type IReport, Report } from '../db/entities/report.entity.ts';
import { NotFoundError } from '../errors.ts';
import type { ServiceContext } from './context.ts';

/** Share tokens are 32 random bytes in base64url (43 characters); anything else names no report. */
const SHARE_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export class SharedReportNotFoundError extends NotFoundError {
  constructor(token: string) {
    super('shared report', token);
    this.message = 'No shared report has this link: it may be mistyped, made private or expired.';
  }
}

export interface SharedReport {
  report: IReport;
  items: IAnalysisResult[];
}

/** The report behind a share token, if the link may be opened now; else SharedReportNotFoundError. */
export async function findSharedReport(
  ctx: ServiceContext,
  token: string,
  em: EntityManager = ctx.db.orm.em.fork(),
): Promise<IReport> {
  if (!SHARE_TOKEN.test(token)) throw new SharedReportNotFoundError(token);
  const report = await em.findOne(Report, {
    shareToken: token,
    status: 'success',
    shareIsPublic: true,
    $or: [{ shareExpiresAt: null }, { shareExpiresAt: { $gt: new Date() } }],
  });
  if (!report) throw new SharedReportNotFoundError(token);
  return report;
}

/** A shared report with every analysis item, in catalogue order. */
export async function getSharedReport(ctx: ServiceContext, token: string): Promise<SharedReport> {
  const em = ctx.db.orm.em.fork();
  const report = await findSharedReport(ctx, token, em);
  const items = await em.find(AnalysisResult, { report: report.id }, { orderBy: { position: 'asc' } });
  return { report, items };
}
