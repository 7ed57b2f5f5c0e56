/**
 * Report: REST's report record (presentReport) in camelCase, plus the queries `report(id)` and `reports`
 * (a Relay connection, newest first). Its enterprise, task and analysis are added by their own files.
 */

import { rateLimitsOf } from '../../lib/rateLimits.ts';
import { spendBudget } from '../../middlewares/rateLimit.ts';
import { presentReport } from '../../presenters/reportPresenter.ts';
import { deleteReport } from '../../services/reportDeletion.ts';
import { DEFAULT_PAGE_SIZE, listReports, MAX_PAGE_SIZE } from '../../services/reportList.ts';
import { getReport } from '../../services/reports.ts';
import { builder } from '../builder.ts';
import { listSize } from '../limits.ts';
import { AccountingStandardEnum, ReportStatusEnum } from './enums.ts';

export type PresentedReport = ReturnType<typeof presentReport>;
type PresentedShare = NonNullable<PresentedReport['share']>;
type PresentedWarning = PresentedReport['validation_warnings'][number];
type PresentedAiUsage = NonNullable<PresentedReport['ai_usage']>;

export const AiUsageRef = builder.objectRef<PresentedAiUsage>('AiUsage').implement({
  description: 'Model use of a report’s AI interpretation, over the job and every on-demand run.',
  fields: (t) => ({
    model: t.exposeString('model', {
      nullable: true,
      description: 'null when only the built-in writer ran.',
    }),
    runs: t.exposeInt('runs'),
    calls: t.exposeInt('calls', { description: 'Requests sent to the model, retries included.' }),
    promptTokens: t.exposeInt('prompt_tokens'),
    completionTokens: t.exposeInt('completion_tokens'),
    totalTokens: t.exposeInt('total_tokens'),
    fallbacks: t.exposeInt('fallbacks', {
      description: 'Interpretations the built-in writer wrote instead of the model.',
    }),
    modelItems: t.exposeInt('model_items'),
    builtinItems: t.exposeInt('builtin_items'),
    fallbackReasons: t.field({
      type: 'JSON',
      nullable: true,
      description:
        '`fallbacks` by reason, as REST’s `fallback_reasons`: model_unavailable (circuit breaker open), budget_exhausted (daily token budget), invalid_output, timeout, rate_limited, server_error, connection, rejected, aborted. null on usage recorded before it existed.',
      resolve: (usage) => usage.fallback_reasons ?? null,
    }),
    updatedAt: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

export const ValidationWarningRef = builder.objectRef<PresentedWarning>('ValidationWarning').implement({
  description:
    'A non-blocking problem of a submission (cash_flow_missing, unrecognised_item, item_not_in_standard).',
  fields: (t) => ({
    code: t.exposeString('code'),
    path: t.exposeString('path', { description: "The field, in the submission's own terms." }),
    message: t.exposeString('message'),
  }),
});

export const ShareRef = builder.objectRef<PresentedShare>('Share').implement({
  description: 'The public link of a successful report: opens the web report without an API key.',
  fields: (t) => ({
    isPublic: t.exposeBoolean('is_public'),
    shareToken: t.exposeString('share_token'),
    shareUrl: t.exposeString('share_url', {
      description: '`/shared/reports/<shareToken>`: prefix with the app URL.',
    }),
    webUrl: t.exposeString('web_url', { description: 'The absolute link (APP_URL + shareUrl).' }),
    shareExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'null: the link does not expire.',
      resolve: (share) => share.share_expires_at,
    }),
  }),
});

export const ReportRef = builder.objectRef<PresentedReport>('Report').implement({
  description: 'One analysis report: one submission of one enterprise (GET /reports/{report_id} in REST).',
  fields: (t) => ({
    id: t.exposeID('report_id', { description: 'The report id (same as reportId), for client caches.' }),
    reportId: t.exposeID('report_id'),
    name: t.exposeString('name', { description: 'The enterprise name as submitted (匿名企业 when none).' }),
    status: t.expose('status', { type: ReportStatusEnum }),
    errorMessage: t.exposeString('error_message', {
      nullable: true,
      description: 'Why the analysis failed; null unless status is failed.',
    }),
    enterpriseId: t.exposeID('enterprise_id'),
    versionNo: t.exposeInt('version_no', {
      description: "1 for an enterprise's first report, +1 for each later submission for it.",
    }),
    accountingStandard: t.expose('accounting_standard', { type: AccountingStandardEnum }),
    yearStart: t.exposeInt('year_start'),
    yearEnd: t.exposeInt('year_end'),
    aiAutoAnalysis: t.exposeInt('ai_auto_analysis', {
      description: '1 when AI interpretation was asked for, else 0.',
    }),
    validationWarnings: t.expose('validation_warnings', { type: [ValidationWarningRef] }),
    createdAt: t.field({ type: 'DateTime', resolve: (report) => report.created_at! }),
    completedAt: t.field({ type: 'DateTime', nullable: true, resolve: (report) => report.completed_at }),
    share: t.expose('share', {
      type: ShareRef,
      nullable: true,
      description: 'The public link; null unless status is success.',
    }),
    aiUsage: t.expose('ai_usage', {
      type: AiUsageRef,
      nullable: true,
      description: 'Model use of the AI step; null until it has run.',
    }),
  }),
});

builder.queryField('report', (t) =>
  t.field({
    type: ReportRef,
    nullable: true,
    description:
      'A report visible to the caller; NOT_FOUND for an unknown id or one of another account or mode.',
    args: { id: t.arg.id({ required: true, description: 'The report id (report_id of the submission).' }) },
    resolve: async (_root, { id }, ctx) =>
      presentReport(await getReport(ctx.services, ctx.principal, String(id)), ctx.services.config.appUrl),
  }),
);

builder.mutationField('deleteReport', (t) =>
  t.id({
    description:
      'Deletes a report and all that belongs to it (statements, analysis results, task, share link); returns ' +
      'its id. NOT_FOUND for an unknown id or one of another account or mode. With an API key or a console ' +
      'session. The same as REST `DELETE /api/v1/developer/reports/{id}`.',
    args: { reportId: t.arg.id({ required: true }) },
    resolve: async (_root, { reportId }, ctx) => {
      // A write, like REST DELETE: it spends the submissions budget.
      await spendBudget(rateLimitsOf(ctx.services), 'submissions', ctx.principal);
      return deleteReport(ctx.services, ctx.principal, String(reportId));
    },
  }),
);

const ReportFilterInput = builder.inputType('ReportFilter', {
  fields: (t) => ({
    status: t.field({ type: ReportStatusEnum }),
    enterprise: t.id({ description: 'An enterprise id (Report.enterpriseId): only its reports.' }),
    nameContains: t.string({
      description:
        'Only reports whose enterprise name contains this text (case-insensitive, ≤ 200 characters).',
    }),
  }),
});

const ReportConnectionRef = builder.connectionObject(
  { type: ReportRef, name: 'ReportConnection' },
  { name: 'ReportEdge' },
);

builder.queryField('reports', (t) =>
  t.field({
    type: ReportConnectionRef,
    description:
      "The caller's reports (its account and mode), newest first, a page at a time: pass a page's " +
      '`pageInfo.endCursor` as `after` for the next one.',
    extensions: listSize({
      slicingArgument: 'first',
      defaultSize: DEFAULT_PAGE_SIZE,
      maxSize: MAX_PAGE_SIZE,
    }),
    args: {
      first: t.arg.int({
        required: true,
        defaultValue: DEFAULT_PAGE_SIZE,
        description: `Page size, 1–${MAX_PAGE_SIZE}.`,
      }),
      after: t.arg.string({
        description: 'The cursor after which the page starts; omit for the first page.',
      }),
      filter: t.arg({ type: ReportFilterInput }),
    },
    resolve: async (_root, { first, after, filter }, ctx) => {
      const page = await listReports(ctx.services, ctx.principal, {
        first,
        after,
        status: filter?.status,
        enterprise: filter?.enterprise == null ? null : String(filter.enterprise),
        nameContains: filter?.nameContains,
      });
      const edges = page.reports.map(({ report, cursor }) => ({
        cursor,
        node: presentReport(report, ctx.services.config.appUrl),
      }));
      return {
        edges,
        pageInfo: {
          hasNextPage: page.hasNextPage,
          // Forward pagination only; the Relay spec allows false here.
          hasPreviousPage: false,
          startCursor: edges[0]?.cursor ?? null,
          endCursor: edges.at(-1)?.cursor ?? null,
        },
      };
    },
  }),
);
