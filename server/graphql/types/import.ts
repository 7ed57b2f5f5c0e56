/**
 * The mutation `importStatements`: POST /api/v1/developer/imports over GraphQL, files sent by the GraphQL
 * multipart request spec (graphql-yoga hands them over as WHATWG `File`s). Same service, same limits, same
 * `submissions` budget; `submission` and `mapping` are REST's JSON, and with `submit: true` the submission goes
 * through the same call as submitFinancialReport.
 */
import { ImportFileError } from '../../import/importErrors.ts';
import { importReport, parseOverrides } from '../../import/importService.ts';
import { IMPORT_LIMITS } from '../../import/limits.ts';
import type { UploadedFile } from '../../import/readFiles.ts';
import { rateLimitsOf } from '../../lib/rateLimits.ts';
import { spendBudget } from '../../middlewares/rateLimit.ts';
import { presentSubmission } from '../../presenters/reportPresenter.ts';
import { builder } from '../builder.ts';
import { AccountingStandardEnum } from './enums.ts';
import { type Receipt, SubmissionPayloadRef } from './submission.ts';

builder.scalarType('File', {
  description: 'A file part of a GraphQL multipart request (input only).',
  serialize: () => {
    throw new Error('File is an input type');
  },
});

interface ImportPayload {
  submission: unknown;
  mapping: unknown;
  submitted: Receipt | null;
}

const ImportPayloadRef = builder.objectRef<ImportPayload>('ImportStatementsPayload').implement({
  description:
    'What POST /api/v1/developer/imports answers: the body it would submit, and how each row was read.',
  fields: (t) => ({
    submission: t.field({
      type: 'JSON',
      description:
        'Exactly the body of POST /api/v1/developer/reports/financial (submitFinancialReport input).',
      resolve: (p) => p.submission,
    }),
    mapping: t.field({
      type: 'JSON',
      description:
        'Per sheet and year, every row: label, 行次, amounts, item_name or why not (docs/import.md).',
      resolve: (p) => p.mapping,
    }),
    submitted: t.field({
      type: SubmissionPayloadRef,
      nullable: true,
      description: 'With submit: true, the new report (REST 202 body); null otherwise.',
      resolve: (p) => p.submitted,
    }),
  }),
});

async function uploaded(files: readonly File[]): Promise<UploadedFile[]> {
  if (files.length > IMPORT_LIMITS.maxFiles)
    throw new ImportFileError(
      'import_too_many_files',
      `At most ${IMPORT_LIMITS.maxFiles} files can be imported at once.`,
    );
  for (const file of files)
    if (file.size > IMPORT_LIMITS.maxFileBytes)
      throw new ImportFileError(
        'import_file_too_large',
        `${file.name} is larger than ${IMPORT_LIMITS.maxFileBytes / 1024 / 1024} MB, the limit per file.`,
        { file: file.name },
      );
  return Promise.all(
    files.map(async (file) => ({ name: file.name || 'upload', data: Buffer.from(await file.arrayBuffer()) })),
  );
}

builder.mutationField('importStatements', (t) =>
  t.field({
    type: ImportPayloadRef,
    description:
      'Reads .xlsx/.csv statements into a submission (see docs/import.md). Nothing is stored unless submit is true. ' +
      'File problems are errors with the REST codes in upper case (IMPORT_MACROS_REFUSED, IMPORT_MALFORMED_FILE …).',
    args: {
      files: t.arg({ type: ['File'], required: true }),
      accountingStandard: t.arg({ type: AccountingStandardEnum }),
      enterpriseName: t.arg.string(),
      year: t.arg.int(),
      submit: t.arg.boolean({ description: 'Submit the result (as submitFinancialReport) when true.' }),
      idempotencyKey: t.arg.string({
        description: "With submit: as submitFinancialReport's idempotencyKey.",
      }),
    },
    resolve: async (_root, args, ctx) => {
      await spendBudget(rateLimitsOf(ctx.services), 'submissions', ctx.principal);
      const overrides = parseOverrides({
        accounting_standard: args.accountingStandard ?? null,
        enterprise_name: args.enterpriseName ?? null,
        year: args.year ?? null,
      });
      const outcome = await importReport(
        ctx.services,
        ctx.principal,
        await uploaded(args.files),
        overrides,
        args.submit ? { idempotencyKey: args.idempotencyKey ?? undefined } : null,
      );
      return {
        submission: outcome.submission,
        mapping: outcome.mapping,
        submitted: outcome.submitted
          ? { ...presentSubmission(outcome.submitted.receipt), replayed: outcome.submitted.replayed }
          : null,
      };
    },
  }),
);
