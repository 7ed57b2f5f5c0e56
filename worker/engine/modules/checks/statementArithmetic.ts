/**
 * 报表内部勾稽: each statement's own arithmetic, per submitted year, on the current column (ending balance /
 * current-year amount). The prior columns are not re-added here: they are compared line by line with the
 * previous year's statements by balance_sheet, income_statement and cash_flow.
 *
 * An equation is checked when its subtotal and every subtotal it is built from are present and at least one of
 * its terms is; an absent detail line counts as 0. A difference below one yuan per line of the equation (the
 * subtotal and its submitted terms), or one that rounds to 0.00 万元, is not a mismatch (whole-yuan transcription);
 * where every amount of the year's statement is a whole multiple of 万元 (千元, 百元, 十元) — a filing published in
 * 万元 — the allowance is half that unit per line, the most its rounding can add up to.
 * The balance identity is checked once (against 负债和所有者权益总计 when submitted).
 *
 * Detail lines of a catalogue group (e.g. all current-asset lines of the report's standard) are often not all
 * submitted (the spec asks only for the main lines), so a difference may simply be lines left out. Hence:
 * - a difference that unsubmitted lines of the group could explain is `info` (statement_arithmetic.subtotal_gap),
 *   listing those lines. For groups whose lines cannot be negative (asset, liability, cash in/out lines) only a
 *   shortfall (subtotal > submitted details) can be explained that way; for signed groups (equity with 库存股,
 *   the profit chain, net cash flows) any difference can;
 * - every other difference is a real arithmetic error (statement_arithmetic.subtotal_mismatch): danger when
 *   |difference| ≥ 1% of that year's total assets (balance sheet) or revenue (income and cash flow statements),
 *   otherwise warning.
 */
import type { Decimal } from 'decimal.js';
import { findLineItem, type LineItemGroup, lineItemsFor } from '../../../catalogue/lineItems.ts';
import type { AccountingStandard, RiskItem, SheetType } from '../../../types.ts';
import type { ReportContext } from '../../context.ts';
import { num, round2Wan } from '../../decimal.ts';
import { fillTemplate } from '../../indicator.ts';
import type { AnalysisModule, FieldDoc, ModuleResult, RiskRuleDoc } from '../../module.ts';
import {
  isNegligible,
  lineName,
  MATERIALITY_TIERS,
  materialityLevel,
  materialityShare,
  roundingUnit,
  SHEET_LABELS,
  shareText,
  wanText,
} from './shared.ts';

type Term =
  | { readonly key: string; readonly sign: 1 | -1 }
  | { readonly group: LineItemGroup; readonly sign: 1 | -1 };

export interface ArithmeticCheck {
  readonly sheet: SheetType;
  /** The subtotal line checked. */
  readonly target: string;
  /** Single lines (`key`, required) and catalogue groups (`group`, lines optional; `deduction` lines negated). */
  readonly terms: readonly Term[];
  /** Whether every detail line of the groups is non-negative (so left-out lines can only explain a shortfall). */
  readonly direction: 'nonnegative' | 'signed';
  /** Chinese formula, read as “按{formula}计算”. */
  readonly formula: string;
  /** The check is skipped when any of these lines is present (the fallback for statements without subtotals). */
  readonly onlyWithout?: readonly string[];
}

const key = (k: string, sign: 1 | -1 = 1): Term => ({ key: k, sign });
const group = (g: LineItemGroup, sign: 1 | -1 = 1): Term => ({ group: g, sign });

/** Cash-flow activity checks: in total, out total, net = in − out (or the detail lines when no totals). */
function activityChecks(
  name: string,
  inGroup: LineItemGroup,
  inTotal: string,
  outGroup: LineItemGroup,
  outTotal: string,
  net: string,
): ArithmeticCheck[] {
  return [
    {
      sheet: 'cash_flow',
      target: inTotal,
      terms: [group(inGroup)],
      direction: 'nonnegative',
      formula: `${name}现金流入各项目之和`,
    },
    {
      sheet: 'cash_flow',
      target: outTotal,
      terms: [group(outGroup)],
      direction: 'nonnegative',
      formula: `${name}现金流出各项目之和`,
    },
    {
      sheet: 'cash_flow',
      target: net,
      terms: [key(inTotal), key(outTotal, -1)],
      direction: 'signed',
      formula: `${name}现金流入小计 − ${name}现金流出小计`,
    },
    {
      sheet: 'cash_flow',
      target: net,
      terms: [group(inGroup), group(outGroup, -1)],
      direction: 'signed',
      formula: `${name}现金流入各项目之和 − ${name}现金流出各项目之和`,
      onlyWithout: [inTotal, outTotal],
    },
  ];
}

/** The equations, in statement order. */
export const ARITHMETIC_CHECKS: readonly ArithmeticCheck[] = [
  {
    sheet: 'balance',
    target: 'total_current_assets',
    terms: [group('current_assets')],
    direction: 'nonnegative',
    formula: '流动资产各项目之和',
  },
  {
    sheet: 'balance',
    target: 'total_noncurrent_assets',
    terms: [group('noncurrent_assets')],
    direction: 'nonnegative',
    formula: '非流动资产各项目之和',
  },
  {
    sheet: 'balance',
    target: 'total_assets',
    terms: [key('total_current_assets'), key('total_noncurrent_assets')],
    direction: 'signed',
    formula: '流动资产合计 + 非流动资产合计',
  },
  {
    sheet: 'balance',
    target: 'total_current_liabilities',
    terms: [group('current_liabilities')],
    direction: 'nonnegative',
    formula: '流动负债各项目之和',
  },
  {
    sheet: 'balance',
    target: 'total_noncurrent_liabilities',
    terms: [group('noncurrent_liabilities')],
    direction: 'nonnegative',
    formula: '非流动负债各项目之和',
  },
  {
    sheet: 'balance',
    target: 'total_liabilities',
    terms: [key('total_current_liabilities'), key('total_noncurrent_liabilities')],
    direction: 'signed',
    formula: '流动负债合计 + 非流动负债合计',
  },
  {
    sheet: 'balance',
    target: 'total_shareholders_equity',
    terms: [group('equity')],
    direction: 'signed',
    formula: '所有者权益各项目之和（减库存股）',
  },
  {
    sheet: 'balance',
    target: 'total_liabilities_and_equity',
    terms: [key('total_liabilities'), key('total_shareholders_equity')],
    direction: 'signed',
    formula: '负债合计 + 所有者权益合计',
  },
  // The balance identity, once: against 负债和所有者权益总计 when it is submitted (its own sum is checked above),
  // otherwise against 负债合计 + 所有者权益合计 — never both, so one broken identity is one item.
  {
    sheet: 'balance',
    target: 'total_assets',
    terms: [key('total_liabilities_and_equity')],
    direction: 'signed',
    formula: '负债和所有者权益总计（资产 = 负债 + 所有者权益）',
  },
  {
    sheet: 'balance',
    target: 'total_assets',
    terms: [key('total_liabilities'), key('total_shareholders_equity')],
    direction: 'signed',
    formula: '负债合计 + 所有者权益合计（资产 = 负债 + 所有者权益）',
    onlyWithout: ['total_liabilities_and_equity'],
  },
  {
    sheet: 'income',
    target: 'operating_profit',
    terms: [group('revenue'), group('cost'), group('expense'), group('other_gains')],
    direction: 'signed',
    formula:
      '营业收入 − 营业成本 − 税金及附加 − 销售费用 − 管理费用 − 研发费用 − 财务费用 + 其他收益 + 投资收益 + 净敞口套期收益 + 公允价值变动收益 + 信用减值损失 + 资产减值损失 + 资产处置收益',
  },
  {
    sheet: 'income',
    target: 'total_profit',
    terms: [key('operating_profit'), group('non_operating')],
    direction: 'signed',
    formula: '营业利润 + 营业外收入 − 营业外支出',
  },
  {
    sheet: 'income',
    target: 'net_profit',
    terms: [key('total_profit'), group('tax')],
    direction: 'signed',
    formula: '利润总额 − 所得税费用',
  },
  ...activityChecks(
    '经营活动',
    'operating_in',
    'op_cash_in_total',
    'operating_out',
    'op_cash_out_total',
    'net_cf_operating',
  ),
  ...activityChecks(
    '投资活动',
    'investing_in',
    'invest_cash_in_total',
    'investing_out',
    'invest_cash_out_total',
    'net_cf_investing',
  ),
  ...activityChecks(
    '筹资活动',
    'financing_in',
    'finance_cash_in_total',
    'financing_out',
    'finance_cash_out_total',
    'net_cf_financing',
  ),
  {
    sheet: 'cash_flow',
    target: 'net_increase_cash',
    terms: [key('net_cf_operating'), key('net_cf_investing'), key('net_cf_financing'), group('fx_effect')],
    direction: 'signed',
    formula: '经营、投资、筹资活动现金流量净额之和 + 汇率变动对现金的影响',
  },
  {
    sheet: 'cash_flow',
    target: 'cash_ending',
    terms: [key('cash_beginning'), key('net_increase_cash')],
    direction: 'signed',
    formula: '期初现金及现金等价物余额 + 现金及现金等价物净增加额',
  },
];

export const SUBTOTAL_MISMATCH_RULE: RiskRuleDoc = {
  code: 'statement_arithmetic.subtotal_mismatch',
  tiers: MATERIALITY_TIERS,
  description:
    '报表合计/小计项目与其组成项目计算结果不一致，且无法由未提交的明细项目解释；差额绝对值达到当年资产总计（资产负债表）或营业收入（利润表、现金流量表）的1%及以上为危险，其余为警告。',
  message:
    '{year}年{sheet}“{item}”为{reported}万元，按{formula}计算为{computed}万元，差额{difference}万元{share}。',
};

export const SUBTOTAL_GAP_RULE: RiskRuleDoc = {
  code: 'statement_arithmetic.subtotal_gap',
  tiers: [{ level: 'info', threshold: 0 }],
  description:
    '合计/小计项目与已提交明细项目的计算结果不一致，但差额可能由未提交的明细项目构成（资产、负债、现金流入流出明细不为负，只解释合计大于明细之和的情形）。数据提示，不计入风险。',
  role: 'data_gap',
  gap: 'detail_lines',
  message:
    '{year}年{sheet}“{item}”为{reported}万元，已提交项目按{formula}计算为{computed}万元，差额{difference}万元；未提交的项目（{lines}）可能构成该差额，请核实。',
};

export interface ArithmeticMismatch {
  year: number;
  sheet: SheetType;
  sheet_label: string;
  item: string;
  item_label: string;
  formula: string;
  reported: number | null;
  computed: number | null;
  difference: number | null;
  /** Chinese names of the group lines not submitted that may explain the difference; empty for an error. */
  unsubmitted_lines: string[];
}

const FIELDS: readonly FieldDoc[] = [
  {
    key: 'checked_years',
    label: '核对的年度数',
    unit: '个',
    formula: '至少核对了一组勾稽关系的年度数',
    inputs: ['balance.*', 'income.*', 'cash_flow.*'],
  },
  {
    key: 'checked_pairs',
    label: '核对的勾稽关系数',
    unit: '个',
    formula: '（年度，勾稽关系）组数；合计项目及其所依据的小计均存在时核对',
    inputs: ['balance.*', 'income.*', 'cash_flow.*'],
  },
  {
    key: 'mismatch_count',
    label: '不一致组数',
    unit: '个',
    formula:
      '报表列示金额 ≠ 按组成项目计算金额的组数（差额低于每个参与计算的项目1元、或折合不足0.005万元的不计），含可能由未提交明细解释的差额',
    inputs: ['balance.*', 'income.*', 'cash_flow.*'],
  },
  {
    key: 'mismatches[].reported',
    label: '报表列示金额',
    unit: '万元',
    formula: '合计/小计项目本期金额 ÷ 10000',
    inputs: ['balance.*', 'income.*', 'cash_flow.*'],
  },
  {
    key: 'mismatches[].computed',
    label: '按组成项目计算金额',
    unit: '万元',
    formula: '按 mismatches[].formula 由已提交的组成项目计算 ÷ 10000（未提交的明细项目按零计）',
    inputs: ['balance.*', 'income.*', 'cash_flow.*'],
  },
  {
    key: 'mismatches[].difference',
    label: '差额',
    unit: '万元',
    formula: '(报表列示金额 − 按组成项目计算金额) ÷ 10000',
    inputs: ['balance.*', 'income.*', 'cash_flow.*'],
  },
];

export const statementArithmeticModule: AnalysisModule = {
  slug: 'statement_arithmetic',
  label: '报表内部勾稽',
  section: 'data_check',
  description:
    '核对各年度资产负债表、利润表、现金流量表内部的合计与小计：流动/非流动资产与负债合计、所有者权益合计、资产负债表平衡，营业利润、利润总额、净利润的计算，以及现金流入流出小计、现金流量净额与现金净增加额。',
  kind: 'check',
  fields: FIELDS,
  riskRules: [SUBTOTAL_MISMATCH_RULE, SUBTOTAL_GAP_RULE],
  compute: checkStatementArithmetic,
};

/** One line of a check's sum: a single line (required) or a line of a catalogue group (optional). */
interface SumLine {
  readonly key: string;
  readonly sign: 1 | -1;
  readonly required: boolean;
}

/** Each check's sum lines per standard: catalogue data, the same for every report, so expanded once. */
const SUM_LINES = new Map<AccountingStandard, Map<ArithmeticCheck, readonly SumLine[]>>();

/** The lines a check adds up, in order: its single lines and its groups' catalogue lines for the standard. */
function sumLines(check: ArithmeticCheck, standard: AccountingStandard): readonly SumLine[] {
  let byCheck = SUM_LINES.get(standard);
  if (!byCheck) {
    byCheck = new Map();
    SUM_LINES.set(standard, byCheck);
  }
  let lines = byCheck.get(check);
  if (!lines) {
    lines = check.terms.flatMap((term): SumLine[] =>
      'key' in term
        ? [{ key: term.key, sign: term.sign, required: true }]
        : lineItemsFor(check.sheet, standard)
            .filter((def) => def.group === term.group)
            .map((def) => ({
              key: def.key,
              sign: def.sign === 'deduction' ? (-term.sign as 1 | -1) : term.sign,
              required: false,
            })),
    );
    byCheck.set(check, lines);
  }
  return lines;
}

export interface Evaluation {
  reported: Decimal;
  computed: Decimal;
  /** Lines added up (submitted ones). */
  summed: number;
  /** Group lines not submitted. */
  missing: string[];
}

/**
 * Evaluates one equation over the lines `value` gives (one sheet of one year); null when it cannot be checked.
 * Exported for the spreadsheet import, which reports the same mismatches on the rows it read.
 */
export function evaluateCheck(
  value: (key: string) => Decimal | null,
  standard: AccountingStandard,
  check: ArithmeticCheck,
): Evaluation | null {
  if (check.onlyWithout?.some((k) => value(k) !== null)) return null;
  const reported = value(check.target);
  if (reported === null) return null;

  let computed = num(0);
  let anyTerm = false;
  let summed = 0;
  const missing: string[] = [];
  for (const line of sumLines(check, standard)) {
    const v = value(line.key);
    if (v === null) {
      if (line.required) return null;
      missing.push(line.key);
      continue;
    }
    anyTerm = true;
    summed += 1;
    // ± v: adding or subtracting the amount itself is exactly adding v × (±1) (an amount has at most 24 digits,
    // well within the precision).
    computed = line.sign === 1 ? computed.plus(v) : computed.minus(v);
  }
  return anyTerm ? { reported, computed, summed, missing } : null;
}

/** At most this many unsubmitted line names in a message; the full list is in sp_result. */
const MAX_LINES_IN_MESSAGE = 6;

const SEVERITY: Readonly<Record<RiskItem['level'], number>> = { danger: 2, warning: 1, info: 0 };

function checkStatementArithmetic(ctx: ReportContext): ModuleResult {
  const mismatches: ArithmeticMismatch[] = [];
  /** The level each mismatch raised, by row: the table lists the most severe first (a break before a gap). */
  const levels = new Map<ArithmeticMismatch, RiskItem['level']>();
  const risk_items: RiskItem[] = [];
  let checkedYears = 0;
  let checkedPairs = 0;

  for (const year of ctx.years) {
    let checkedThisYear = 0;
    // A statement published in whole 万元 (and entered in yuan) is off by up to 5,000 yuan a line.
    const rounding = new Map(
      (['balance', 'income', 'cash_flow'] as const).map((sheet) => [
        sheet,
        roundingUnit(
          ctx
            .keys(year, sheet)
            .filter((k) => findLineItem(sheet, k)?.group !== 'eps') // 元/股, not amounts
            .map((k) => ctx.line(year, sheet, k)),
        ),
      ]),
    );
    for (const check of ARITHMETIC_CHECKS) {
      const result = evaluateCheck((k) => ctx.line(year, check.sheet, k), ctx.report.standard, check);
      if (result === null) continue;
      checkedThisYear += 1;
      const { reported, computed, summed, missing } = result;
      const difference = reported.minus(computed);
      // Rounding: below 1 yuan (or half the statement's rounding unit) per summed line, or 0.00 万元, is no mismatch.
      if (isNegligible(difference, summed + 1, '万元', rounding.get(check.sheet) ?? 1)) continue;

      // Left-out non-negative lines would only add to the computed sum: they can explain a shortfall only.
      const explainable = missing.length > 0 && (check.direction === 'signed' || difference.greaterThan(0));
      const missingNames = explainable ? missing.map((k) => lineName(check.sheet, k)) : [];
      const sheetLabel = SHEET_LABELS[check.sheet];
      const itemLabel = lineName(check.sheet, check.target);
      mismatches.push({
        year,
        sheet: check.sheet,
        sheet_label: sheetLabel,
        item: check.target,
        item_label: itemLabel,
        formula: check.formula,
        reported: round2Wan(reported),
        computed: round2Wan(computed),
        difference: round2Wan(difference),
        unsubmitted_lines: missingNames,
      });

      const vars = {
        year: String(year),
        sheet: sheetLabel,
        item: itemLabel,
        formula: check.formula,
        reported: wanText(reported),
        computed: wanText(computed),
        difference: wanText(difference),
      };
      if (explainable) {
        const shown = missingNames.slice(0, MAX_LINES_IN_MESSAGE).join('、');
        const more = missingNames.length > MAX_LINES_IN_MESSAGE ? `等${missingNames.length}项` : '';
        levels.set(mismatches.at(-1)!, 'info');
        risk_items.push({
          level: 'info',
          code: SUBTOTAL_GAP_RULE.code,
          message: fillTemplate(SUBTOTAL_GAP_RULE.message, { ...vars, lines: `${shown}${more}` }),
        });
        continue;
      }
      const base =
        check.sheet === 'balance'
          ? ctx.line(year, 'balance', 'total_assets')
          : ctx.line(year, 'income', 'revenue');
      const share = materialityShare(difference, base);
      levels.set(mismatches.at(-1)!, materialityLevel(share));
      risk_items.push({
        level: materialityLevel(share),
        code: SUBTOTAL_MISMATCH_RULE.code,
        message: fillTemplate(SUBTOTAL_MISMATCH_RULE.message, {
          ...vars,
          share: shareText(share, check.sheet === 'balance' ? `${year}年末资产总计` : `${year}年营业收入`),
        }),
      });
    }
    checkedPairs += checkedThisYear;
    if (checkedThisYear > 0) checkedYears += 1;
  }

  // Most severe first, stable within a level (year, then statement order): a danger-level break is the first row
  // a reader sees, never folded behind the explained gaps.
  const rank = (m: ArithmeticMismatch) => SEVERITY[levels.get(m) ?? 'info'];
  mismatches.sort((a, b) => rank(b) - rank(a));
  risk_items.sort((a, b) => SEVERITY[b.level] - SEVERITY[a.level]);
  return {
    sp_result: {
      released_year: ctx.latestYear,
      checked_years: checkedYears,
      checked_pairs: checkedPairs,
      mismatch_count: mismatches.length,
      consistent: checkedPairs === 0 ? null : mismatches.length === 0,
      summary: summarise(checkedYears, checkedPairs, mismatches),
      mismatches,
    },
    risk_items,
  };
}

function summarise(years: number, pairs: number, mismatches: readonly ArithmeticMismatch[]): string {
  if (pairs === 0) return '没有可核对的报表内部勾稽关系（缺少合计或小计项目）。';
  const scope = `共核对${years}个年度、${pairs}组报表内部勾稽关系`;
  if (mismatches.length === 0) return `${scope}，全部一致。`;
  const gaps = mismatches.filter((m) => m.unsubmitted_lines.length > 0).length;
  const gapText = gaps > 0 ? `，其中${gaps}组可能由未提交的明细项目构成` : '';
  return `${scope}，发现${mismatches.length}组不一致${gapText}。`;
}
