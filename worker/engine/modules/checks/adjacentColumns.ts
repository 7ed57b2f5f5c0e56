/**
 * The adjacent-year column check behind income_statement and cash_flow: each year's prior-period column
 * (`last_year_amount`) against the previous submitted year's current column (`current_year_amount`), line by
 * line, exactly to the fen. Laid out like balance_sheet (balanceSheetCheck.ts), with the same levels.
 *
 * A line is compared only when both figures exist (the prior column was sent and the previous year has the
 * line). A restated comparative is legitimate under CAS 28 (追溯调整 for a 会计政策变更 or 差错更正): it is graded by
 * materiality (RESTATEMENT_TIERS, share of the previous year's revenue: info below 1%, warning from 1%, danger
 * from 5%), names the likely cause, and growth rates use the restated figure. Differences below 1 yuan (or 0.00
 * in the unit shown) are not mismatches.
 */
import type { Decimal } from 'decimal.js';
import { findLineItem } from '../../../catalogue/lineItems.ts';
import type { RiskItem, SheetType } from '../../../types.ts';
import type { ReportContext } from '../../context.ts';
import { format2, type Num, round2, toWan } from '../../decimal.ts';
import { fillTemplate } from '../../indicator.ts';
import type { FieldDoc, ModuleResult, RiskRuleDoc, Unit } from '../../module.ts';
import {
  isNegligible,
  lineName,
  materialityShare,
  restatementCause,
  restatementLevel,
  shareText,
  sortStatementKeys,
} from './shared.ts';

/** The line whose restatement makes a restatement retrospective rather than a reclassification. */
const TOTAL_LINE: Readonly<Record<'income' | 'cash_flow', string>> = {
  income: 'net_profit',
  cash_flow: 'net_increase_cash',
};

function totalRestated(
  ctx: ReportContext,
  sheet: 'income' | 'cash_flow',
  year: number,
  priorYear: number,
): boolean | null {
  const comparative = ctx.prior(year, sheet, TOTAL_LINE[sheet]);
  const own = ctx.line(priorYear, sheet, TOTAL_LINE[sheet]);
  if (comparative === null || own === null) return null;
  return !isNegligible(comparative.minus(own), 1);
}

/** Unit of a mismatch entry: amounts in 万元, except per-share lines (基本/稀释每股收益), kept in 元 per share. */
export type MismatchUnit = Extract<Unit, '万元' | '元'>;

export interface ColumnMismatch {
  year: number;
  item: string;
  item_label: string;
  unit: MismatchUnit;
  last_year_amount: number | null;
  previous_current_year_amount: number | null;
  difference: number | null;
}

export interface AdjacentColumnCheckDef {
  sheet: Extract<SheetType, 'income' | 'cash_flow'>;
  rule: RiskRuleDoc;
  /** Rule raised once when no year has the sheet (cash flow is optional); null when the sheet is required. */
  notSubmittedRule: RiskRuleDoc | null;
}

/** Field docs shared by both modules; `sheetText` is 利润表 or 现金流量表. */
export function adjacentColumnFields(sheetText: string, sheet: SheetType): FieldDoc[] {
  const inputs = [`${sheet}.*` as const];
  return [
    {
      key: 'checked_year_pairs',
      label: '核对的相邻年度数',
      unit: '个',
      formula: `两年均提交${sheetText}的相邻年度对数`,
      inputs,
      note: sheet === 'cash_flow' ? '任何年度均未提交现金流量表时为空。' : undefined,
    },
    {
      key: 'checked_pairs',
      label: '核对的金额组数',
      unit: '个',
      formula: '本年“上年金额”与上年“本年金额”均存在的（年度，项目）组数',
      inputs,
    },
    {
      key: 'mismatch_count',
      label: '不一致组数',
      unit: '个',
      formula: '本年“上年金额” ≠ 上年“本年金额”的组数（精确到分）',
      inputs,
    },
    {
      key: 'mismatches[].last_year_amount',
      label: '本年报表上年金额',
      unit: '万元',
      formula: `本年${sheetText}“上年金额”栏 ÷ 10000`,
      inputs,
      note: '每股收益行不折算，以元/股列示（mismatches[].unit 为“元”）。',
    },
    {
      key: 'mismatches[].previous_current_year_amount',
      label: '上年报表本年金额',
      unit: '万元',
      formula: `上年${sheetText}“本年金额”栏 ÷ 10000`,
      inputs,
    },
    {
      key: 'mismatches[].difference',
      label: '差额',
      unit: '万元',
      formula: '(本年报表上年金额 − 上年报表本年金额) ÷ 10000',
      inputs,
    },
  ];
}

export function checkAdjacentColumns(ctx: ReportContext, def: AdjacentColumnCheckDef): ModuleResult {
  const { sheet, rule } = def;
  const sheetText = sheet === 'income' ? '利润表' : '现金流量表';
  if (def.notSubmittedRule && !ctx.years.some((y) => ctx.hasSheet(y, sheet))) {
    return {
      sp_result: {
        released_year: ctx.latestYear,
        checked_year_pairs: null,
        checked_pairs: null,
        mismatch_count: null,
        consistent: null,
        summary: `未提交${sheetText}，无法核对相邻年度数据。`,
        mismatches: [],
      },
      risk_items: [{ level: 'info', code: def.notSubmittedRule.code, message: def.notSubmittedRule.message }],
    };
  }

  const mismatches: ColumnMismatch[] = [];
  const risk_items: RiskItem[] = [];
  let checkedYearPairs = 0;
  let checkedPairs = 0;

  for (const year of ctx.years) {
    const priorYear = ctx.previousYear(year);
    if (priorYear === null || !ctx.hasSheet(year, sheet) || !ctx.hasSheet(priorYear, sheet)) continue;
    checkedYearPairs += 1;
    // Flows are judged against the revenue of the year the figures should have been carried from.
    const priorRevenue = ctx.line(priorYear, 'income', 'revenue');

    for (const key of sortStatementKeys(sheet, ctx.keys(year, sheet))) {
      const lastYear = ctx.prior(year, sheet, key);
      const previousCurrent = ctx.line(priorYear, sheet, key);
      if (lastYear === null || previousCurrent === null) continue;
      checkedPairs += 1;
      // The context shares one Decimal between columns of identical text: equal without comparing digits.
      if (lastYear === previousCurrent) continue;
      const difference = lastYear.minus(previousCurrent);
      const perShare = findLineItem(sheet, key)?.group === 'eps';
      if (isNegligible(difference, 1, perShare ? '元' : '万元')) continue;
      const unit: MismatchUnit = perShare ? '元' : '万元';
      const shown = (v: Decimal): Num => (perShare ? v : toWan(v));
      const label = lineName(sheet, key);
      mismatches.push({
        year,
        item: key,
        item_label: label,
        unit,
        last_year_amount: round2(shown(lastYear)),
        previous_current_year_amount: round2(shown(previousCurrent)),
        difference: round2(shown(difference)),
      });
      // A per-share figure has no revenue base: it stays a warning.
      const share = perShare ? null : materialityShare(difference, priorRevenue);
      risk_items.push({
        // A per-share figure has no base: a restated EPS is information (it follows the restated profit).
        level: perShare ? 'info' : restatementLevel(share),
        code: rule.code,
        message: fillTemplate(rule.message, {
          year: String(year),
          item: label,
          prior_year: String(priorYear),
          last_year: format2(shown(lastYear)!),
          previous_current: format2(shown(previousCurrent)!),
          difference: format2(shown(difference)!),
          unit: perShare ? '元/股' : '万元',
          share: shareText(share, `${priorYear}年营业收入`),
          cause: restatementCause(totalRestated(ctx, sheet, year, priorYear)),
        }),
      });
    }
  }

  return {
    sp_result: {
      released_year: ctx.latestYear,
      checked_year_pairs: checkedYearPairs,
      checked_pairs: checkedPairs,
      mismatch_count: mismatches.length,
      consistent: checkedPairs === 0 ? null : mismatches.length === 0,
      summary: summarise(sheetText, checkedYearPairs, checkedPairs, mismatches.length),
      mismatches,
    },
    risk_items,
  };
}

function summarise(sheetText: string, yearPairs: number, pairs: number, mismatchCount: number): string {
  if (pairs === 0) return `没有可核对的相邻年度${sheetText}（需至少两个连续年度且提供上年金额）。`;
  const scope = `共核对${yearPairs}组相邻年度、${pairs}项本年报表上年金额与上年报表本年金额`;
  return mismatchCount === 0 ? `${scope}，全部一致。` : `${scope}，发现${mismatchCount}项不一致。`;
}
