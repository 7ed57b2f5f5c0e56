/**
 * Listing a principal's reports, newest first, a page at a time. Pages are cut by an opaque keyset cursor
 * over (created_at, id) rather than an offset, so a report submitted while a client pages neither shifts
 * nor repeats rows, and a deep page costs what the first one does (index on account, mode, created_at).
 */
import type { FilterQuery } from '@mikro-orm/core';
import { type IReport, Report, type ReportStatus } from '../db/entities/report.entity.ts';
import { ValidationError } from '../errors.ts';
import { isUuid } from '../lib/ids.ts';
import type { Principal } from './apiKeys.ts';
import type { ServiceContext } from './context.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface ReportListQuery {
  /** Page size, 1–100. */
  first: number;
  /** The cursor of the last report of the previous page; absent for the first page. */
  after?: string | null;
  status?: ReportStatus | null;
  /** An enterprise id: only that enterprise's reports. */
  enterprise?: string | null;
  /** Only reports whose (enterprise) name contains this text, case-insensitive. */
  nameContains?: string | null;
  /** Only reports of the enterprise with exactly this name. */
  enterpriseName?: string | null;
  /** Only reports created at or after this time. */
  createdGte?: Date | null;
  /** Only reports created before this time. */
  createdLt?: Date | null;
}

export interface ReportPage {
  reports: Array<{ report: IReport; cursor: string }>;
  hasNextPage: boolean;
}

interface CursorPosition {
  createdAt: Date;
  id: string;
}

export function encodeReportCursor(report: Pick<IReport, 'createdAt' | 'id'>): string {
  return Buffer.from(`${report.createdAt.toISOString()}|${report.id}`).toString('base64url');
}

function decodeReportCursor(cursor: string): CursorPosition | undefined {
  const [at, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  if (rest.length > 0 || !at || !id || !isUuid(id)) return undefined;
  const createdAt = new Date(at);
  // Only what encodeReportCursor writes: a round trip through toISOString must give the same text.
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== at) return undefined;
  return { createdAt, id };
}

/**
 * One page of the reports the principal may see (its account, its mode), newest first.
 * Throws ValidationError (paths `first`, `after`) for a page size outside 1–100 or a cursor this function
 * did not make. An enterprise id that is not a UUID matches nothing, as an unknown one does.
 */
export async function listReports(
  ctx: ServiceContext,
  principal: Principal,
  query: ReportListQuery,
): Promise<ReportPage> {
  const { first, after, status, enterprise, enterpriseName, createdGte, createdLt } = query;
  const nameContains = query.nameContains?.trim() ?? '';
  if (nameContains.length > 200) {
    throw new ValidationError([{ path: 'filter.nameContains', message: 'must be at most 200 characters' }]);
  }
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE) {
    throw new ValidationError([{ path: 'first', message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` }]);
  }
  const position = after == null ? undefined : decodeReportCursor(after);
  if (after != null && !position) {
    throw new ValidationError([
      {
        path: 'after',
        message: 'is not a cursor of this list (use an endCursor or edge cursor it returned)',
      },
    ]);
  }
  if (enterprise != null && !isUuid(enterprise)) return { reports: [], hasNextPage: false };

  const where: FilterQuery<IReport> = { account: principal.accountId, mode: principal.mode };
  if (status) where.status = status;
  if (enterprise) where.enterprise = enterprise;
  // LIKE's wildcards in the text are matched literally. An exact name (REST's filter) wins over a fragment.
  if (nameContains) where.name = { $ilike: `%${nameContains.replace(/[\\%_]/g, '\\$&')}%` };
  if (enterpriseName != null) where.name = enterpriseName;
  if (createdGte || createdLt) {
    where.createdAt = {
      ...(createdGte ? { $gte: createdGte } : {}),
      ...(createdLt ? { $lt: createdLt } : {}),
    };
  }
  if (position) {
    // Created times are written from JS Dates (millisecond precision), so the cursor's time is exact.
    where.$or = [
      { createdAt: { $lt: position.createdAt } },
      { createdAt: position.createdAt, id: { $lt: position.id } },
    ];
  }
  // One row more than the page tells whether there is a next page without a count query.
  const rows = await ctx.db.orm.em.fork().find(Report, where, {
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    limit: first + 1,
  });
  const page = rows.slice(0, first);
  return {
    reports: page.map((report) => ({ report, cursor: encodeReportCursor(report) })),
    hasNextPage: rows.length > first,
  };
}

/**
 * The list's cursor at a report the principal may see (REST's `starting_after=<report id>`, Stripe's style):
 * the next page starts after it. ValidationError on `field` when no such report is visible.
 */
export async function cursorAfterReport(
  ctx: ServiceContext,
  principal: Principal,
  reportId: string,
  field = 'starting_after',
): Promise<string> {
  const report = isUuid(reportId)
    ? await ctx.db.orm.em
        .fork()
        .findOne(
          Report,
          { id: reportId, account: principal.accountId, mode: principal.mode },
          { fields: ['id', 'createdAt'] },
        )
    : null;
  if (!report) throw new ValidationError([{ path: field, message: 'is not the id of a report of this key' }]);
  return encodeReportCursor(report);
}
