/**
 * The only code that decides which report, task and analysis fields leave the server, and in what shape.
 * Field names are the spec's (snake_case); times are ISO 8601 UTC ending in `Z`.
 */
import { analysisLabel } from '../../worker/engine/registry.ts';
import type { IAnalysisResult } from '../db/entities/analysisResult.entity.ts';
import type { IEnterprise } from '../db/entities/enterprise.entity.ts';
import type { IReport } from '../db/entities/report.entity.ts';
import type { ITask } from '../db/entities/task.entity.ts';
import type { SubmissionReceipt } from '../services/reports.ts';

export function iso(date: Date | null | undefined): string | null {
  return date ? date.toISOString() : null;
}

export function sharePath(token: string): string {
  return `/shared/reports/${token}`;
}

/** The REST path of a report and of a task (Location and Operation-Location of the 202, links in bodies). */
export function reportPath(reportId: string): string {
  return `/api/v1/developer/reports/${reportId}`;
}
export function taskPath(taskId: string): string {
  return `/api/v1/developer/tasks/${taskId}`;
}

export function presentSubmission(receipt: SubmissionReceipt) {
  return {
    report_id: receipt.reportId,
    task_id: receipt.taskId,
    enterprise_id: receipt.enterpriseId,
    version_no: receipt.versionNo,
    status: receipt.status,
    share_url: null,
    validation_warnings: receipt.warnings,
    message:
      `Report accepted: analysis is running in the background. Poll GET /api/v1/developer/reports/${receipt.reportId} ` +
      'until status is success or failed.',
  };
}

export function presentShare(report: IReport, appUrl: string) {
  if (report.status !== 'success' || !report.shareToken) return null;
  const path = sharePath(report.shareToken);
  return {
    is_public: report.shareIsPublic,
    share_token: report.shareToken,
    share_url: path,
    web_url: `${appUrl}${path}`,
    share_expires_at: iso(report.shareExpiresAt),
  };
}

export function presentReport(report: IReport, appUrl: string) {
  return {
    report_id: report.id,
    name: report.name,
    status: report.status,
    error_message: report.status === 'failed' ? (report.errorMessage ?? 'The analysis failed.') : null,
    enterprise_id: report.enterprise.id,
    version_no: report.versionNo,
    accounting_standard: report.accountingStandard,
    year_start: report.yearStart,
    year_end: report.yearEnd,
    ai_auto_analysis: report.aiAutoAnalysis ? 1 : 0,
    validation_warnings: report.validationWarnings,
    created_at: iso(report.createdAt),
    completed_at: iso(report.completedAt),
    share: presentShare(report, appUrl),
    // Model token use and fallbacks of the AI step (job and on-demand runs); null until one has run.
    ai_usage: report.aiUsage ?? null,
  };
}

/** An enterprise as its reports name it; `info` is the enterprise_info of its latest submission that had one. */
export function presentEnterprise(enterprise: IEnterprise) {
  return {
    enterprise_id: enterprise.id,
    name: enterprise.name,
    info: enterprise.info ?? null,
    report_count: enterprise.reportCount,
    created_at: iso(enterprise.createdAt),
    updated_at: iso(enterprise.updatedAt),
  };
}

export function presentTask(task: ITask) {
  return {
    task_id: task.id,
    report_id: task.report.id,
    // AIP-151: an operation says whether it is over, and where its result is.
    done: task.status !== 'processing',
    report_url: reportPath(task.report.id),
    status: task.status,
    step: task.step,
    attempts: task.attempts,
    error_message: task.status === 'failed' ? (task.errorMessage ?? 'The analysis failed.') : null,
    created_at: iso(task.createdAt),
    started_at: iso(task.startedAt),
    finished_at: iso(task.finishedAt),
  };
}

export function presentAnalysisItem(item: IAnalysisResult) {
  return {
    slug: item.slug,
    label: analysisLabel(item.slug),
    sp_result: item.spResult,
    risk_items: item.riskItems.map((risk) => ({
      level: risk.level,
      message: risk.message,
      code: risk.code ?? null,
      // `model`: proposed by the AI step's model (code ai.<slug>); `rule`: raised by the engine's rules.
      source: risk.source ?? 'rule',
    })),
    ai_content: item.aiContent,
    ai_source: item.aiContent ? (item.aiSource ?? null) : null,
    cached_at: iso(item.cachedAt),
  };
}

export function presentAnalysisList(reportId: string, items: IAnalysisResult[]) {
  return { report_id: reportId, total: items.length, items: items.map(presentAnalysisItem) };
}
