/**
 * Spreadsheets → the body of POST /reports/financial, with a report of how every row was read (the mapping).
 * Pure apart from reading the files: nothing is stored here; the import service submits the body, or not.
 */
import { Decimal } from 'decimal.js';
import { validateSubmission } from '../../schema/submission.ts';
import { formLines } from '../../worker/catalogue/lineItems.ts';
import { isNegligible } from '../../worker/engine/modules/checks/shared.ts';
import { ARITHMETIC_CHECKS, evaluateCheck } from '../../worker/engine/modules/checks/statementArithmetic.ts';
import {
  ACCOUNTING_STANDARDS,
  type AccountingStandard,
  SHEET_TYPES,
  type SheetType,
} from '../../worker/types.ts';
import type { FieldProblem } from '../errors.ts';
import { readAmount } from './amounts.ts';
import { ENTERPRISE_SHEET_NAME, readEnterpriseRows } from './enterpriseSheet.ts';
import { ImportFileError } from './importErrors.ts';
import { matchRows, type RowMatch, standardVotes } from './matchLines.ts';
import { decodeCsv, type Grid, readUploadedFile, type UploadedFile } from './readFiles.ts';
import { type Block, cellText, readLayout, type SheetLayout, type Slot } from './sheetLayout.ts';

export interface ImportOverrides {
  accountingStandard?: AccountingStandard;
  enterpriseName?: string;
  year?: number;
}

export interface MappedAmount {
  year: number | null;
  slot: Slot;
  column: string;
  value: string | null;
  raw: string | null;
  error?: string;
}

export interface MappedRow {
  row: number;
  label: string;
  line_no: number | null;
  amounts: MappedAmount[];
  status: 'matched' | 'subtotal_mismatch' | 'unknown' | 'ambiguous' | 'heading' | 'error';
  item_name: string | null;
  name_zh: string | null;
  matched_by: 'name' | 'alias' | 'line_no' | 'fallback' | null;
  reason: string | null;
  candidates?: string[];
}

export interface MappedColumn {
  column: string;
  header: string;
  slot: Slot;
  year: number | null;
  use: string;
}

export interface MappedSheet {
  file: string;
  sheet: string;
  statement: SheetType | null;
  statement_reason: string;
  standard_hint: AccountingStandard | null;
  period_year: number | null;
  period_year_source: string;
  columns: MappedColumn[];
  rows: MappedRow[];
}

export interface Reconciliation {
  sheet_type: SheetType;
  item_name: string;
  year: number;
  prior_column: string;
  previous_year_current: string;
  difference: string;
}

/** Two sheets giving one year's line different current amounts (e.g. a workbook per year and a 5-year one). */
export interface Conflict {
  sheet_type: SheetType;
  item_name: string;
  year: number;
  values: [string, string];
  message: string;
}

export interface SubtotalMismatch {
  sheet_type: SheetType;
  year: number;
  item_name: string;
  formula: string;
  reported: string;
  computed: string;
  difference: string;
}

export interface ImportMapping {
  accounting_standard: {
    value: AccountingStandard;
    source: 'override' | 'form_code' | 'lines' | 'default';
    reason: string;
  };
  enterprise_name: { value: string | null; source: 'override' | 'enterprise_sheet' | 'title' | 'none' };
  years: number[];
  files: { file: string; encoding: string | null }[];
  sheets: MappedSheet[];
  skipped_sheets: { file: string; sheet: string; reason: string }[];
  reconciliation: Reconciliation[];
  conflicts: Conflict[];
  subtotal_mismatches: SubtotalMismatch[];
  summary: {
    rows: number;
    matched: number;
    subtotal_mismatch: number;
    unknown: number;
    ambiguous: number;
    heading: number;
    error: number;
  };
  /** The submission checked as POST /reports/financial would: ok, or the field problems to fix first. */
  validation: { ok: boolean; errors: FieldProblem[] };
}

export interface ImportResult {
  submission: Record<string, unknown>;
  mapping: ImportMapping;
}

const FOOTER = /负责人|制表人|复核人|审核人|填表人|编制日期|报出日期/u;

const columnName = (index: number): string => {
  let name = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26))
    name = String.fromCharCode(65 + ((n - 1) % 26)) + name;
  return name;
};

interface ParsedSheet {
  grid: Grid;
  layout: SheetLayout;
}

function decideStandard(
  sheets: ParsedSheet[],
  overrides: ImportOverrides,
): ImportMapping['accounting_standard'] {
  if (overrides.accountingStandard)
    return {
      value: overrides.accountingStandard,
      source: 'override',
      reason: 'accounting_standard was given',
    };
  const small = sheets.find((s) => s.layout.formStandard === 'small_enterprise');
  if (small)
    return {
      value: 'small_enterprise',
      source: 'form_code',
      reason: `“${small.grid.sheet}” is a 会小企 form`,
    };
  const votes = { small_enterprise: 0, general_new: 0, general_old: 0 } as Record<AccountingStandard, number>;
  for (const { grid, layout } of sheets) {
    if (!layout.sheetType) continue;
    const labels = grid.rows
      .slice(layout.firstDataRow)
      .flatMap((row) => layout.blocks.map((b) => cellText(row[b.labelColumn])));
    const sheetVotes = standardVotes(layout.sheetType, labels);
    for (const standard of ACCOUNTING_STANDARDS) votes[standard] += sheetVotes[standard];
  }
  const [best, count] = (Object.entries(votes) as [AccountingStandard, number][]).sort(
    (a, b) => b[1] - a[1],
  )[0]!;
  if (count === 0)
    return {
      value: 'general_new',
      source: 'default',
      reason: 'no row names a line only one standard has; general_new assumed',
    };
  return {
    value: best,
    source: 'lines',
    reason: `${count} rows name lines only the ${best} format has (${Object.entries(votes)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ')})`,
  };
}

/** 行次 → key of the form, when the sheet's 行次 agree with the form's on the rows matched by name. */
function lineNoMap(
  sheet: SheetType,
  standard: AccountingStandard,
  rows: { lineNo: number | null }[],
  matches: RowMatch[],
) {
  const byKey = new Map(formLines(sheet, standard).map((line) => [line.def.key, line.lineNo]));
  let compared = 0;
  let agreed = 0;
  matches.forEach((match, index) => {
    const lineNo = rows[index]!.lineNo;
    if (match.status !== 'matched' || lineNo === null) return;
    compared += 1;
    if (byKey.get(match.key) === lineNo) agreed += 1;
  });
  if (compared < 5 || agreed / compared < 0.9) return null;
  return new Map(formLines(sheet, standard).map((line) => [line.lineNo, line.def.key]));
}

/** sheet type → year → key → slot → value. */
type Collected = Map<
  SheetType,
  Map<number, Map<string, { current?: string; prior?: string; priorExplicit: boolean }>>
>;

function mapSheet(
  parsed: ParsedSheet,
  standard: AccountingStandard,
  overrides: ImportOverrides,
  collected: Collected,
  priorColumnYears: Set<string>,
  rowOf: Map<string, MappedRow>,
  conflicts: Conflict[],
): MappedSheet {
  const { grid, layout } = parsed;
  const sheetType = layout.sheetType!;
  const periodYear = overrides.year ?? layout.periodYear;
  const periodSource = overrides.year ? 'year was given' : layout.periodYearSource;
  const columns: MappedColumn[] = [];
  const resolved = new Map<Block, { column: number; year: number | null; slot: Slot; header: string }[]>();
  for (const block of layout.blocks) {
    const list = block.amounts.map((amount) => {
      // A role header (期末余额 / 上期金额) takes the period year; a dated header (2023年12月31日) is its own year.
      let year =
        amount.year ?? (periodYear === null ? null : amount.slot === 'prior' ? periodYear - 1 : periodYear);
      let slot = amount.slot;
      if (amount.year !== null && amount.slot === 'prior') slot = 'current';
      if (amount.year !== null && amount.slot === 'prior' && periodYear === null) year = amount.year;
      return { column: amount.column, year, slot, header: amount.header };
    });
    resolved.set(block, list);
    for (const column of list) {
      const use =
        column.slot === 'month'
          ? 'ignored: a month’s amount is not the prior year’s (last_year_amount comes from the previous year’s 本年累计金额 when the file has it)'
          : column.year === null
            ? 'ignored: no year found (send `year`)'
            : column.slot === 'prior'
              ? `${column.year + 1}: ${sheetType === 'balance' ? 'beginning_balance' : 'last_year_amount'}`
              : `${column.year}: ${sheetType === 'balance' ? 'ending_balance' : 'current_year_amount'}`;
      columns.push({
        column: columnName(column.column),
        header: column.header,
        slot: column.slot,
        year: column.year,
        use,
      });
    }
  }
  if (columns.every((c) => c.year === null))
    throw new ImportFileError(
      'import_year_missing',
      `${grid.file}, sheet “${grid.sheet}”: no year in the title, headers, sheet name or file name; send the field \`year\`.`,
      { file: grid.file, sheet: grid.sheet },
    );

  const rows: MappedRow[] = [];
  for (const block of layout.blocks) {
    const amountColumns = resolved.get(block)!;
    const inputs: { row: number; label: string; lineNo: number | null; amounts: MappedAmount[] }[] = [];
    for (let r = layout.firstDataRow; r < grid.rows.length; r++) {
      const cells = grid.rows[r]!;
      const label = cellText(cells[block.labelColumn]).replace(/\s+/gu, ' ').trim();
      const amounts = amountColumns.map((column): MappedAmount => {
        const read = readAmount(cells[column.column]);
        return {
          year: column.year,
          slot: column.slot,
          column: columnName(column.column),
          value: read.value,
          raw: read.raw,
          ...(read.error ? { error: read.error } : {}),
        };
      });
      if (label === '') continue;
      // The signature line under a statement (单位负责人：… 会计机构负责人：…) ends it.
      if (FOOTER.test(label)) break;
      const lineNoText =
        block.lineNoColumn === null ? '' : cellText(cells[block.lineNoColumn]).normalize('NFKC').trim();
      const lineNo = /^\d{1,3}$/u.test(lineNoText) ? Number(lineNoText) : null;
      inputs.push({ row: r + 1, label, lineNo, amounts });
    }
    const rowInputs = inputs.map((i) => ({
      label: i.label,
      lineNo: i.lineNo,
      hasAmounts: i.amounts.some((a) => a.raw !== null),
    }));
    let matches = matchRows(sheetType, standard, rowInputs, null);
    const byLineNo = lineNoMap(sheetType, standard, rowInputs, matches);
    if (byLineNo) matches = matchRows(sheetType, standard, rowInputs, byLineNo);

    inputs.forEach((input, index) => {
      const match = matches[index]!;
      const errors = input.amounts.filter((a) => a.error && a.slot !== 'month');
      const row: MappedRow = {
        row: input.row,
        label: input.label,
        line_no: input.lineNo,
        amounts: input.amounts,
        status: match.status,
        item_name: match.status === 'matched' ? match.key : null,
        name_zh: match.status === 'matched' ? match.nameZh : null,
        matched_by: match.status === 'matched' ? match.via : null,
        reason: match.status === 'matched' ? null : match.reason,
        ...(match.status === 'ambiguous' ? { candidates: match.candidates } : {}),
      };
      if (match.status === 'matched' && errors.length > 0) {
        row.status = 'error';
        row.reason = errors.map((e) => `${e.column}${input.row}: ${e.error}`).join('; ');
      }
      rows.push(row);
      if (row.status !== 'matched' || match.status !== 'matched') return;
      for (const amount of input.amounts) {
        if (amount.value === null || amount.year === null || amount.slot === 'month') continue;
        const targetYear = amount.slot === 'prior' ? amount.year + 1 : amount.year;
        const byYear = collected.get(sheetType)!;
        const byKey = byYear.get(targetYear) ?? new Map();
        byYear.set(targetYear, byKey);
        const entry = byKey.get(match.key) ?? { priorExplicit: false };
        if (amount.slot === 'prior') {
          entry.prior = amount.value;
          entry.priorExplicit = true;
        } else {
          if (entry.current !== undefined && !new Decimal(entry.current).equals(amount.value))
            conflicts.push({
              sheet_type: sheetType,
              item_name: match.key,
              year: targetYear,
              values: [entry.current, amount.value],
              message: `${grid.file} › ${grid.sheet} row ${input.row} gives ${amount.value}; another sheet gave ${entry.current} (the last one read is used)`,
            });
          entry.current = amount.value;
          rowOf.set(`${sheetType}:${targetYear}:${match.key}`, row);
        }
        byKey.set(match.key, entry);
      }
    });
    for (const column of amountColumns)
      if (column.slot === 'prior' && column.year !== null)
        priorColumnYears.add(`${sheetType}:${column.year + 1}`);
  }
  return {
    file: grid.file,
    sheet: grid.sheet,
    statement: sheetType,
    statement_reason: layout.sheetTypeReason,
    standard_hint: layout.formStandard,
    period_year: periodYear,
    period_year_source: periodSource,
    columns,
    rows,
  };
}

/** The body's two amount fields of each sheet: current, prior. */
export const AMOUNT_FIELDS: Record<SheetType, [string, string]> = {
  income: ['current_year_amount', 'last_year_amount'],
  balance: ['ending_balance', 'beginning_balance'],
  cash_flow: ['current_year_amount', 'last_year_amount'],
};

/** Reads every file and builds the submission body and its mapping report. Throws ImportFileError. */
export async function importStatements(
  files: readonly UploadedFile[],
  overrides: ImportOverrides = {},
): Promise<ImportResult> {
  if (files.length === 0)
    throw new ImportFileError(
      'import_no_files',
      'Send one or more .xlsx or .csv files as parts named `files`.',
    );
  const parsed: ParsedSheet[] = [];
  const skipped: ImportMapping['skipped_sheets'] = [];
  const fileInfo: ImportMapping['files'] = [];
  let enterpriseSheet: ReturnType<typeof readEnterpriseRows> | null = null;
  for (const file of files) {
    const grids = await readUploadedFile(file);
    fileInfo.push({
      file: file.name,
      encoding: file.name.toLowerCase().endsWith('.csv') ? decodeCsv(file.data).encoding : null,
    });
    for (const grid of grids) {
      if (grid.sheet.trim() === ENTERPRISE_SHEET_NAME) {
        enterpriseSheet = readEnterpriseRows(
          grid.rows.map((row) => [cellText(row[0]), cellText(row[1]) || null] as const),
        );
        skipped.push({
          file: grid.file,
          sheet: grid.sheet,
          reason: 'enterprise information (enterprise_name, enterprise_info)',
        });
        continue;
      }
      const layout = readLayout(grid);
      if (!layout?.sheetType) {
        skipped.push({
          file: grid.file,
          sheet: grid.sheet,
          reason: layout
            ? layout.sheetTypeReason
            : 'no header row with amount columns (期末余额, 本期金额, a year …)',
        });
        continue;
      }
      parsed.push({ grid, layout });
    }
  }
  if (parsed.length === 0)
    throw new ImportFileError(
      'import_no_statements',
      `No sheet of ${files.map((f) => f.name).join(', ')} is a balance sheet, income statement or cash flow statement with amount columns.`,
      { file: files[0]!.name },
    );

  const standard = decideStandard(parsed, overrides);
  const collected: Collected = new Map(SHEET_TYPES.map((s) => [s, new Map()]));
  const priorColumnYears = new Set<string>();
  const rowOf = new Map<string, MappedRow>();
  const conflicts: Conflict[] = [];
  const sheets = parsed.map((p) =>
    mapSheet(p, standard.value, overrides, collected, priorColumnYears, rowOf, conflicts),
  );

  // Years: every year with a current amount. Prior amounts: the sheet's own prior column; else, where the
  // file has no prior column for that year (one column per year, or 本月金额), the previous year's current.
  const reconciliation: Reconciliation[] = [];
  const yearSet = new Set<number>();
  for (const sheet of SHEET_TYPES)
    for (const [year, byKey] of collected.get(sheet)!)
      if ([...byKey.values()].some((e) => e.current !== undefined)) yearSet.add(year);
  const years = [...yearSet].sort((a, b) => a - b);
  for (const sheet of SHEET_TYPES) {
    const byYear = collected.get(sheet)!;
    for (const year of years) {
      const byKey = byYear.get(year);
      const previous = byYear.get(year - 1);
      if (!byKey) continue;
      for (const [key, entry] of byKey) {
        const before = previous?.get(key)?.current;
        if (before === undefined) continue;
        if (entry.prior === undefined && !priorColumnYears.has(`${sheet}:${year}`)) entry.prior = before;
        else if (entry.prior !== undefined && !new Decimal(entry.prior).equals(before))
          reconciliation.push({
            sheet_type: sheet,
            item_name: key,
            year,
            prior_column: entry.prior,
            previous_year_current: before,
            difference: new Decimal(entry.prior).minus(before).toString(),
          });
      }
    }
  }

  const subtotalMismatches: SubtotalMismatch[] = [];
  const yearsData = years.map((year) => {
    const sheetsOfYear = SHEET_TYPES.flatMap((sheet) => {
      const byKey = collected.get(sheet)!.get(year);
      if (!byKey) return [];
      const [currentField, priorField] = AMOUNT_FIELDS[sheet];
      const order = new Map(formLines(sheet, standard.value).map((l, i) => [l.def.key, i]));
      const items = [...byKey.entries()]
        .filter(([, e]) => e.current !== undefined)
        .sort(([a], [b]) => (order.get(a) ?? 999) - (order.get(b) ?? 999))
        .map(([key, e]) => ({
          item_name: key,
          [currentField]: e.current!,
          ...(e.prior !== undefined ? { [priorField]: e.prior } : {}),
        }));
      if (items.length === 0) return [];
      const value = (key: string) => {
        const v = byKey.get(key)?.current;
        return v === undefined ? null : new Decimal(v);
      };
      for (const check of ARITHMETIC_CHECKS.filter((c) => c.sheet === sheet)) {
        const result = evaluateCheck(value, standard.value, check);
        if (!result) continue;
        const difference = result.reported.minus(result.computed);
        // The engine's tolerance (whole-yuan transcription), and a gap lines absent from the file could explain.
        if (isNegligible(difference, result.summed + 1, '元') || difference.abs().lessThan(result.summed + 1))
          continue;
        if (result.missing.length > 0 && (check.direction === 'signed' || difference.greaterThan(0)))
          continue;
        const row = rowOf.get(`${sheet}:${year}:${check.target}`);
        if (row) {
          row.status = 'subtotal_mismatch';
          row.reason = `${year}: ${check.formula} gives ${result.computed.toString()}, the row says ${result.reported.toString()}`;
        }
        subtotalMismatches.push({
          sheet_type: sheet,
          year,
          item_name: check.target,
          formula: check.formula,
          reported: result.reported.toString(),
          computed: result.computed.toString(),
          difference: difference.toString(),
        });
      }
      return [{ sheet_type: sheet, items }];
    });
    return { year, sheets: sheetsOfYear };
  });

  const enterpriseName = overrides.enterpriseName
    ? { value: overrides.enterpriseName, source: 'override' as const }
    : enterpriseSheet?.enterpriseName
      ? { value: enterpriseSheet.enterpriseName, source: 'enterprise_sheet' as const }
      : (() => {
          const fromTitle = parsed.find((p) => p.layout.enterpriseName)?.layout.enterpriseName;
          return fromTitle
            ? { value: fromTitle, source: 'title' as const }
            : { value: null, source: 'none' as const };
        })();

  const submission: Record<string, unknown> = {
    ...(enterpriseName.value ? { enterprise_name: enterpriseName.value } : {}),
    accounting_standard: standard.value,
    year_start: years[0] ?? null,
    year_end: years.at(-1) ?? null,
    years_data: yearsData,
    ...(enterpriseSheet && Object.keys(enterpriseSheet.info).length > 0
      ? { enterprise_info: enterpriseSheet.info }
      : {}),
    ai_auto_analysis: enterpriseSheet?.aiAutoAnalysis ?? 0,
  };
  const validation = validateSubmission(submission);

  // Counted: rows with at least one amount (a template's empty rows and section headings are not lines read).
  const summary = {
    rows: 0,
    matched: 0,
    subtotal_mismatch: 0,
    unknown: 0,
    ambiguous: 0,
    heading: 0,
    error: 0,
  };
  for (const sheet of sheets)
    for (const row of sheet.rows) {
      if (!row.amounts.some((a) => a.raw !== null)) continue;
      summary.rows += 1;
      summary[row.status] += 1;
    }
  return {
    submission,
    mapping: {
      accounting_standard: standard,
      enterprise_name: enterpriseName,
      years,
      files: fileInfo,
      sheets,
      skipped_sheets: skipped,
      reconciliation,
      conflicts,
      subtotal_mismatches: subtotalMismatches,
      summary,
      validation: validation.ok ? { ok: true, errors: [] } : { ok: false, errors: validation.errors },
    },
  };
}
