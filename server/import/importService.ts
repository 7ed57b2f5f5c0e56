/**
 * The import use case, shared by REST (POST /api/v1/developer/imports) and GraphQL (importStatements): read the
 * files into a submission and its mapping; with `submit`, hand the submission to the same service call as
 * POST /reports/financial. Nothing is stored unless it is submitted.
 */
import { ACCOUNTING_STANDARDS, type AccountingStandard } from '../../worker/types.ts';
import { type FieldProblem, ValidationError } from '../errors.ts';
import type { Principal } from '../services/apiKeys.ts';
import type { ServiceContext } from '../services/context.ts';
import { type IdempotentSubmission, submitReportIdempotently } from '../services/idempotency.ts';
import { type ImportOverrides, type ImportResult, importStatements } from './importStatements.ts';
import type { UploadedFile } from './readFiles.ts';

export interface RawOverrides {
  accounting_standard?: string | null;
  enterprise_name?: string | null;
  year?: string | number | null;
}

/** The optional overrides, checked like body fields (422 naming the field). */
export function parseOverrides(raw: RawOverrides): ImportOverrides {
  const problems: FieldProblem[] = [];
  const overrides: ImportOverrides = {};
  const standard = raw.accounting_standard?.trim();
  if (standard) {
    if ((ACCOUNTING_STANDARDS as readonly string[]).includes(standard))
      overrides.accountingStandard = standard as AccountingStandard;
    else
      problems.push({
        path: 'accounting_standard',
        message: `must be one of ${ACCOUNTING_STANDARDS.join(', ')}`,
      });
  }
  const name = raw.enterprise_name?.trim();
  if (name) {
    if (name.length > 200)
      problems.push({ path: 'enterprise_name', message: 'must be at most 200 characters' });
    else overrides.enterpriseName = name;
  }
  if (raw.year !== undefined && raw.year !== null && String(raw.year).trim() !== '') {
    const year = Number(raw.year);
    if (!Number.isInteger(year) || year < 1900 || year > 2100)
      problems.push({ path: 'year', message: 'must be a year from 1900 to 2100' });
    else overrides.year = year;
  }
  if (problems.length > 0) throw new ValidationError(problems);
  return overrides;
}

export interface ImportOutcome extends ImportResult {
  submitted: IdempotentSubmission | null;
}

export async function importReport(
  services: ServiceContext,
  principal: Principal,
  files: readonly UploadedFile[],
  overrides: ImportOverrides,
  submit: { idempotencyKey?: string } | null,
): Promise<ImportOutcome> {
  const result = await importStatements(files, overrides);
  if (!submit) return { ...result, submitted: null };
  const submitted = await submitReportIdempotently(
    services,
    principal,
    submit.idempotencyKey,
    result.submission,
  );
  return { ...result, submitted };
}
