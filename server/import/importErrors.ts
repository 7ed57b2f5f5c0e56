/**
 * Problems of an uploaded file: each names the file (and the sheet, where one is at fault) and says what to do.
 * REST turns them into RFC 9457 problem documents, GraphQL into `extensions.code`, like every AppError.
 */
import { AppError } from '../errors.ts';

export type ImportErrorCode =
  | 'import_no_files'
  | 'import_too_many_files'
  | 'import_file_too_large'
  | 'import_unsupported_format'
  | 'import_macros_refused'
  | 'import_archive_too_large'
  | 'import_malformed_file'
  | 'import_no_statements'
  | 'import_year_missing';

/** Status, title, meaning and action of each code: the problem pages (GET /problems/{code}) show them. */
export const IMPORT_PROBLEM_DOCS: Record<
  ImportErrorCode,
  { status: number; title: string; meaning: string; action: string }
> = {
  import_no_files: {
    status: 422,
    title: 'No file to import',
    meaning: 'The multipart request carried no file part (field `files`).',
    action: 'Send one or more .xlsx or .csv files as multipart/form-data parts named `files`.',
  },
  import_too_many_files: {
    status: 413,
    title: 'Too many files',
    meaning: 'More than 10 files, or more than 10 text fields, in one import.',
    action: 'Import at most 10 files at a time (one workbook can hold every year).',
  },
  import_file_too_large: {
    status: 413,
    title: 'File too large',
    meaning: 'A file is larger than 5 MB; `detail` names it.',
    action: 'Remove pictures and unrelated sheets, or save the statements alone as .xlsx or .csv.',
  },
  import_unsupported_format: {
    status: 415,
    title: 'Unsupported file format',
    meaning: 'The file is not an .xlsx workbook or a .csv text file (e.g. .xls, .et, .ods, .pdf).',
    action: 'Save it as “Excel 工作簿 (*.xlsx)” or “CSV (逗号分隔)” and import that.',
  },
  import_macros_refused: {
    status: 415,
    title: 'Workbook with macros refused',
    meaning:
      'The file is a macro-enabled workbook (.xlsm, or an .xlsx holding a VBA project). Macros are never run or kept.',
    action: 'Save it as “Excel 工作簿 (*.xlsx)”, which drops the macros, and import that.',
  },
  import_archive_too_large: {
    status: 422,
    title: 'Workbook archive too large',
    meaning:
      'The .xlsx archive declares or inflates to more than 50 MB, or has more than 500 entries: checked before the workbook is parsed.',
    action: 'Save the statements alone in a new workbook.',
  },
  import_malformed_file: {
    status: 422,
    title: 'Malformed file',
    meaning:
      'The file could not be read: a damaged archive, invalid XML, or text that is not CSV. `errors[].path` names the file and sheet.',
    action: 'Open the file in Excel or WPS, save it again as .xlsx (or .csv), and import that.',
  },
  import_no_statements: {
    status: 422,
    title: 'No statement found',
    meaning:
      'No sheet of the files looks like a balance sheet, income statement or cash flow statement (no row matched a line name).',
    action:
      'Check that the files hold the statements with their Chinese line names, or start from the template.',
  },
  import_year_missing: {
    status: 422,
    title: 'Year not found',
    meaning:
      'A statement sheet has no year in its title, header, sheet name or file name (e.g. “2023年12月31日”, “2023年度”).',
    action: 'Send the form field `year`, or write the date in the sheet title.',
  },
};

export class ImportFileError extends AppError {
  readonly file: string | undefined;
  readonly sheet: string | undefined;

  constructor(code: ImportErrorCode, detail: string, where: { file?: string; sheet?: string } = {}) {
    const { status, title } = IMPORT_PROBLEM_DOCS[code];
    const path = [where.file, where.sheet].filter(Boolean).join(' › ');
    super(code, status, title, detail, path ? [{ path, message: detail }] : undefined);
    this.file = where.file;
    this.sheet = where.sheet;
  }
}

/** Every code an import can answer with (docs/import.md lists them; a test checks the list). */
export const IMPORT_ERROR_CODES = Object.keys(IMPORT_PROBLEM_DOCS) as ImportErrorCode[];
