/**
 * The mutation `submitFinancialReport`: POST /reports/financial over GraphQL.
 *
 * Its input has exactly the REST body's fields, snake_case included, so that one JSON body serves both
 * transports and the same yup schema (submissionSchema, through the validation plugin) reports the same
 * problems at the same paths. GraphQL's type system checks what it can express first (types, required
 * fields, enum values); everything else — year ranges and coverage, amount format, duplicates, sheet rules,
 * 0/1 flags — is yup's, as VALIDATION_FAILED with `extensions.errors` [{ path, message }].
 */
import { submissionSchema } from '../../../schema/submission.ts';
import { NotFoundError } from '../../errors.ts';
import { rateLimitsOf } from '../../lib/rateLimits.ts';
import { spendBudget } from '../../middlewares/rateLimit.ts';
import { presentReport, presentSubmission, presentTask } from '../../presenters/reportPresenter.ts';
import { submitReportIdempotently } from '../../services/idempotency.ts';
import { builder } from '../builder.ts';
import { AccountingStandardEnum, ReportStatusEnum, SheetTypeEnum } from './enums.ts';
import { ReportRef, ValidationWarningRef } from './report.ts';
import { TaskRef } from './task.ts';

const LineItemInput = builder.inputType('LineItemInput', {
  description:
    'A statement line. income and cash_flow lines: current_year_amount (required), last_year_amount; balance ' +
    'lines: ending_balance (required), beginning_balance. Amounts are decimal strings in yuan ("-1234.56").',
  fields: (t) => ({
    item_name: t.string({ required: true }),
    current_year_amount: t.string(),
    last_year_amount: t.string(),
    ending_balance: t.string(),
    beginning_balance: t.string(),
  }),
});

const SheetInput = builder.inputType('SheetInput', {
  fields: (t) => ({
    sheet_type: t.field({ type: SheetTypeEnum, required: true }),
    items: t.field({ type: [LineItemInput], required: true, description: 'At most 300; item_name unique.' }),
  }),
});

const YearDataInput = builder.inputType('YearDataInput', {
  fields: (t) => ({
    year: t.int({ required: true }),
    sheets: t.field({
      type: [SheetInput],
      required: true,
      description: 'income and balance, optionally cash_flow.',
    }),
  }),
});

const EnterpriseInfoInput = builder.inputType('EnterpriseInfoInput', {
  fields: (t) => ({
    province: t.string(),
    city: t.string(),
    area: t.string(),
    industry_sector_code: t.string(),
    industry_sector: t.string(),
    industry_division_code: t.string(),
    industry_division: t.string(),
    employee_count: t.string(),
    taxpayer_qualification: t.string(),
    is_vat_taxpayer: t.int({ description: '1: general VAT taxpayer, 0: not.' }),
    enterprise_type: t.string(),
    is_sme: t.int({ description: '1: small or micro enterprise, 0: not.' }),
  }),
});

const SubmitFinancialReportInput = builder.inputType('SubmitFinancialReportInput', {
  description: 'Exactly the body of POST /api/v1/developer/reports/financial (see docs/api-behaviour.md).',
  validate: submissionSchema,
  fields: (t) => ({
    enterprise_name: t.string({ description: 'At most 200 characters; absent or blank → 匿名企业.' }),
    accounting_standard: t.field({ type: AccountingStandardEnum, required: true }),
    year_start: t.int({ required: true }),
    year_end: t.int({ required: true, description: 'Greater than year_start; at most 30 years.' }),
    years_data: t.field({
      type: [YearDataInput],
      required: true,
      description: 'Every year from year_start to year_end exactly once, in any order.',
    }),
    enterprise_info: t.field({ type: EnterpriseInfoInput }),
    ai_auto_analysis: t.int({ description: '1: write the AI interpretation; 0 (default): do not.' }),
  }),
});

export type Receipt = ReturnType<typeof presentSubmission> & { replayed?: boolean };

export const SubmissionPayloadRef = builder.objectRef<Receipt>('SubmitFinancialReportPayload').implement({
  description: 'The 202 body of REST: the report is pending and its analysis is running.',
  fields: (t) => ({
    reportId: t.exposeID('report_id'),
    taskId: t.exposeID('task_id'),
    enterpriseId: t.exposeID('enterprise_id'),
    versionNo: t.exposeInt('version_no'),
    status: t.expose('status', { type: ReportStatusEnum }),
    shareUrl: t.string({
      nullable: true,
      description: 'Always null: a report is shared once it succeeds.',
      resolve: () => null,
    }),
    validationWarnings: t.expose('validation_warnings', { type: [ValidationWarningRef] }),
    message: t.exposeString('message'),
    replayed: t.boolean({
      description:
        'True when this is the stored answer of an earlier submission with the same idempotencyKey and input ' +
        "(REST's Idempotent-Replayed: true); no new report was made.",
      resolve: (receipt) => receipt.replayed === true,
    }),
    report: t.field({
      type: ReportRef,
      description: 'The new report: poll its status (or `report(id)`) until success or failed.',
      resolve: async (receipt, _args, ctx) => {
        const report = await ctx.loaders.report.load(receipt.report_id);
        if (!report) throw new NotFoundError('report', receipt.report_id);
        return presentReport(report, ctx.services.config.appUrl);
      },
    }),
    task: t.field({
      type: TaskRef,
      resolve: async (receipt, _args, ctx) => {
        const task = await ctx.loaders.taskOfReport.load(receipt.report_id);
        if (!task) throw new NotFoundError('task', receipt.task_id);
        return presentTask(task);
      },
    }),
  }),
});

builder.mutationField('submitFinancialReport', (t) =>
  t.field({
    type: SubmissionPayloadRef,
    description:
      'Submits statements for analysis. Validation problems come back as one VALIDATION_FAILED error whose ' +
      "`extensions.errors` lists every problem with REST's path; nothing is written then.",
    args: {
      input: t.arg({ type: SubmitFinancialReportInput, required: true }),
      idempotencyKey: t.arg.string({
        description:
          "REST's Idempotency-Key: the same key with the same input within 24 hours returns the first answer " +
          '(replayed: true) instead of a second report; with another input → IDEMPOTENCY_KEY_REUSED; while the ' +
          'first is still being recorded → IDEMPOTENCY_KEY_IN_USE. Scoped to the account and mode.',
      }),
    },
    resolve: async (_root, { input, idempotencyKey }, ctx) => {
      await spendBudget(rateLimitsOf(ctx.services), 'submissions', ctx.principal);
      const { receipt, replayed } = await submitReportIdempotently(
        ctx.services,
        ctx.principal,
        idempotencyKey ?? undefined,
        input,
      );
      return { ...presentSubmission(receipt), replayed };
    },
  }),
);
