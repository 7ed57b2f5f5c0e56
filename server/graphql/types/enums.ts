/**
 * Enumerations shared by several types. Their values are REST's strings to the letter (lower case), so a
 * REST body or response value is a valid GraphQL value unchanged.
 */

import { ACCOUNTING_STANDARDS, RISK_LEVELS, SHEET_TYPES } from '../../../worker/types.ts';
import { AI_SOURCES } from '../../ai/types.ts';
import { REPORT_STATUSES } from '../../db/entities/report.entity.ts';
import { TASK_STATUSES, TASK_STEPS } from '../../db/entities/task.entity.ts';
import { builder } from '../builder.ts';

export const ReportStatusEnum = builder.enumType('ReportStatus', {
  description:
    '`pending` while the analysis runs; then `success` (analysis readable, share present) or `failed`.',
  values: REPORT_STATUSES,
});

export const TaskStatusEnum = builder.enumType('TaskStatus', {
  description: 'The background job: `processing`, then `success` or `failed` together with its report.',
  values: TASK_STATUSES,
});

export const TaskStepEnum = builder.enumType('TaskStep', {
  description:
    'Where the job is: queued → compute → ai → assemble → done. The store step is done with the ' +
    "attempt's claim, in one statement: STORE stays a valid value and is no longer seen.",
  values: TASK_STEPS,
});

export const AccountingStandardEnum = builder.enumType('AccountingStandard', {
  description:
    '`small_enterprise` (小企业会计准则), `general_new` (一般企业, new format), `general_old` (一般企业, old format).',
  values: ACCOUNTING_STANDARDS,
});

export const SheetTypeEnum = builder.enumType('SheetType', {
  description: '`income` and `balance` are required every year; `cash_flow` is optional.',
  values: SHEET_TYPES,
});

export const RiskLevelEnum = builder.enumType('RiskLevel', {
  description: 'Severity of a risk item: info < warning < danger.',
  values: RISK_LEVELS,
});

export const RiskSourceEnum = builder.enumType('RiskSource', {
  description:
    '`rule`: raised by the engine’s rules; `model`: proposed by the AI step’s model (code `ai.<slug>`).',
  values: ['rule', 'model'] as const,
});

export const AiSourceEnum = builder.enumType('AiSource', {
  description: 'Who wrote an interpretation: the configured `model`, or the deterministic `builtin` writer.',
  values: AI_SOURCES,
});
