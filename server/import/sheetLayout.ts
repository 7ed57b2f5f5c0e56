/**
 * Reads the layout of one grid: what statement it is (title, form code or the lines it lists), where its header
 * row is, which columns hold labels, 行次 and amounts, and which year and column (current or prior) each
 * amount column is — from headers such as 期末余额 / 年初余额, 本期金额 / 上期金额, 本年累计金额 / 本月金额,
 * "2023年12月31日", "2023年度", and from the title, the sheet name or the file name.
 */
import { STATEMENT_FORMS } from '../../worker/catalogue/lineItems.ts';
import type { AccountingStandard, SheetType } from '../../worker/types.ts';
import { normaliseLabel, sheetTypeVotes } from './matchLines.ts';
import type { Cell, Grid } from './readFiles.ts';

export type Slot = 'current' | 'prior' | 'month';

export interface AmountColumn {
  column: number;
  header: string;
  slot: Slot;
  /** The year the header names; null when it names a role only (期末余额), the sheet's period year applies. */
  year: number | null;
}

export interface Block {
  labelColumn: number;
  lineNoColumn: number | null;
  amounts: AmountColumn[];
}

export interface SheetLayout {
  sheetType: SheetType | null;
  sheetTypeReason: string;
  /** From the form code (会小企0N表 → small_enterprise); null when the sheet does not say. */
  formStandard: AccountingStandard | null;
  headerRow: number;
  /** First data row (after a second header row, when there is one). */
  firstDataRow: number;
  blocks: Block[];
  periodYear: number | null;
  periodYearSource: string;
  enterpriseName: string | null;
}

export function cellText(cell: Cell | undefined): string {
  if (!cell) return '';
  if (cell.kind === 'text') return cell.text;
  if (cell.kind === 'number') return String(cell.value);
  return '';
}

const LABEL_HEADERS = new Set(
  [
    '项目',
    '资产',
    '负债和所有者权益',
    '负债及所有者权益',
    '负债和股东权益',
    '负债及股东权益',
    '科目',
    '报表项目',
    '项目名称',
  ].map(normaliseLabel),
);

function compact(text: string): string {
  return text.normalize('NFKC').replace(/[\s\u3000]+/gu, '');
}

/** A year a header or title names: 2023年12月31日, 2023年度, 2023年, 2023-12-31, 2023. */
export function yearIn(text: string): number | null {
  const t = compact(text);
  const match = /((?:19|20)\d{2})(?:年|[-/.]\d{1,2}[-/.]\d{1,2}|$)/u.exec(t);
  return match ? Number(match[1]) : null;
}

type HeaderKind =
  | { kind: 'label' }
  | { kind: 'line_no' }
  | { kind: 'amount'; slot: Slot; year: number | null }
  | null;

export function classifyHeader(text: string): HeaderKind {
  const t = compact(text);
  if (t === '') return null;
  if (LABEL_HEADERS.has(normaliseLabel(t))) return { kind: 'label' };
  if (/^(行次|行号|栏次|行)$/u.test(t)) return { kind: 'line_no' };
  const year = yearIn(t);
  if (/本月/u.test(t)) return { kind: 'amount', slot: 'month', year };
  if (/(年初|期初|上期|上年|去年|同期)/u.test(t)) return { kind: 'amount', slot: 'prior', year };
  if (/(期末|本期|本年|今年|当期|金额|余额)/u.test(t)) return { kind: 'amount', slot: 'current', year };
  if (year !== null && t.length <= 16) return { kind: 'amount', slot: 'current', year };
  return null;
}

const TITLES: readonly [RegExp, SheetType][] = [
  [/资产负债表|会(?:小)?企01表/u, 'balance'],
  [/利润表|损益表|会(?:小)?企02表/u, 'income'],
  [/现金流量表|会(?:小)?企03表/u, 'cash_flow'],
];

const NAME_PATTERN = /(?:编制单位|单位名称|企业名称|纳税人名称)[:：]\s*([^\s:：]{2,80})/u;

function periodYear(titleTexts: string[], grid: Grid): { year: number | null; source: string } {
  for (const text of titleTexts) {
    if (/[年月日度]|\d{4}-\d{1,2}-\d{1,2}/u.test(text)) {
      const year = yearIn(text.replace(NAME_PATTERN, ''));
      if (year !== null) return { year, source: `title “${compact(text).slice(0, 40)}”` };
    }
  }
  const fromSheet = yearIn(grid.sheet);
  if (fromSheet !== null) return { year: fromSheet, source: `sheet name “${grid.sheet}”` };
  const fromFile = /((?:19|20)\d{2})/u.exec(grid.file);
  if (fromFile) return { year: Number(fromFile[1]), source: `file name “${grid.file}”` };
  return { year: null, source: 'none found' };
}

/** The layout of `grid`; `sheetType` null when it is no statement (a notes sheet). */
export function readLayout(grid: Grid): SheetLayout | null {
  const scan = Math.min(grid.rows.length, 25);
  let headerRow = -1;
  let kinds: HeaderKind[] = [];
  for (let r = 0; r < scan; r++) {
    const rowKinds = grid.rows[r]!.map((cell) => classifyHeader(cellText(cell)));
    const amounts = rowKinds.filter((k) => k?.kind === 'amount').length;
    const labels = rowKinds.filter((k) => k?.kind === 'label').length;
    if (amounts >= 1 && (labels >= 1 || amounts >= 2)) {
      headerRow = r;
      kinds = rowKinds;
      break;
    }
  }
  if (headerRow < 0) return null;

  // A second header row under the first (a year merged over 期末余额 | 年初余额) refines the columns.
  let firstDataRow = headerRow + 1;
  const next = grid.rows[headerRow + 1];
  if (next) {
    const nextKinds = next.map((cell) => classifyHeader(cellText(cell)));
    if (
      nextKinds.some((k) => k?.kind === 'amount' && k.slot !== 'current') ||
      nextKinds.filter((k) => k?.kind === 'amount').length >= 2
    ) {
      firstDataRow += 1;
      let carriedYear: number | null = null;
      kinds = kinds.map((kind, column) => {
        const below = nextKinds[column];
        if (kind?.kind === 'amount' && kind.year !== null) carriedYear = kind.year;
        if (below?.kind === 'amount')
          return { ...below, year: below.year ?? (kind?.kind === 'amount' ? kind.year : carriedYear) };
        return kind;
      });
      for (let c = 0; c < next.length; c++) if (kinds[c] === null && nextKinds[c]) kinds[c] = nextKinds[c]!;
    }
  }

  const blocks: Block[] = [];
  const headerTexts = grid.rows[headerRow]!.map(cellText);
  kinds.forEach((kind, column) => {
    if (!kind) return;
    if (kind.kind === 'label') blocks.push({ labelColumn: column, lineNoColumn: null, amounts: [] });
    else {
      if (blocks.length === 0) blocks.push({ labelColumn: 0, lineNoColumn: null, amounts: [] });
      const block = blocks.at(-1)!;
      if (kind.kind === 'line_no') block.lineNoColumn ??= column;
      else
        block.amounts.push({
          column,
          header: compact(headerTexts[column] ?? '') || compact(cellText(next?.[column])),
          slot: kind.slot,
          year: kind.year,
        });
    }
  });
  const usable = blocks.filter((b) => b.amounts.length > 0);
  if (usable.length === 0) return null;

  const titleTexts = grid.rows
    .slice(0, headerRow)
    .flatMap((row) => row.map(cellText).filter((t) => t.trim() !== ''));
  const titleJoined = compact(`${grid.sheet} ${titleTexts.join(' ')}`);
  let sheetType: SheetType | null = null;
  let sheetTypeReason = '';
  for (const [pattern, type] of TITLES) {
    const found = pattern.exec(titleJoined);
    if (found) {
      sheetType = type;
      sheetTypeReason = `title or sheet name says “${found[0]}”`;
      break;
    }
  }
  const labels = grid.rows
    .slice(firstDataRow)
    .flatMap((row) => usable.map((b) => cellText(row[b.labelColumn])));
  if (!sheetType) {
    const votes = sheetTypeVotes(labels);
    const best = (Object.entries(votes) as [SheetType, number][]).sort((a, b) => b[1] - a[1])[0]!;
    if (best[1] >= 3) {
      sheetType = best[0];
      sheetTypeReason = `${best[1]} rows name ${STATEMENT_FORMS[best[0]].title} lines (no title says which statement)`;
    } else sheetTypeReason = 'no title names a statement and fewer than 3 rows name statement lines';
  }
  const formStandard = /会小企0[123]表/u.test(titleJoined) ? 'small_enterprise' : null;
  const period = periodYear(titleTexts, grid);
  const nameMatch = NAME_PATTERN.exec(titleTexts.join('  '));
  return {
    sheetType,
    sheetTypeReason,
    formStandard,
    headerRow,
    firstDataRow,
    blocks: usable,
    periodYear: period.year,
    periodYearSource: period.source,
    enterpriseName: nameMatch?.[1] ?? null,
  };
}
