/**
 * 资产负债表数据核对: each year's beginning balances against the previous submitted year's ending balances.
 *
 * A line is compared only when both figures exist (the beginning column was sent and the previous year has the
 * line); lines present in one year only are not counted. Amounts must agree exactly (to the fen): a carried-over
 * balance has no legitimate rounding difference.
 */
import type { RiskItem } from '../../types.ts';
import type { ReportContext } from '../context.ts';
import { format2, type Num, pct, round2Wan, toWan } from '../decimal.ts';
import { fillTemplate } from '../indicator.ts';
import { balanceLineLabel, sortBalanceKeys } from '../lineLabels.ts';
import type { AnalysisModule, RiskRuleDoc } from '../module.ts';
import {
  isNegligible,
  RESTATEMENT_TIERS,
  restatementCause,
  restatementLevel,
  shareText,
} from './checks/shared.ts';

/**
 * A restated opening balance (CAS 28 追溯调整), graded by its share of the previous year's ending total assets
 * (RESTATEMENT_TIERS): info below 1%, warning from 1%, danger from 5%; without a positive total-assets figure
 * it is a warning. Differences below 1 yuan (or 0.00 万元) are not mismatches. Growth rates use the restated
 * opening balance (ReportContext.priorPeriod).
 */
export const OPENING_MISMATCH_RULE: RiskRuleDoc = {
  code: 'balance_sheet.opening_mismatch',
  tiers: RESTATEMENT_TIERS,
  description:
    '本年资产负债表某行年初余额与上年年末余额不一致（期初数重述）；差额绝对值低于上年末资产总计的1%为提示，1%及以上为警告，5%及以上为危险；差额不足1元或折合不足0.005万元的不计。消息给出两个金额与可能原因（资产总计同时重述为追溯调整，否则为重分类）；变动率按本年报表的年初余额（重述后基数）计算。',
  message:
    '{year}年资产负债表“{item}”年初余额为{beginning}万元，与{prior_year}年年末余额{previous_ending}万元不一致，差额{difference}万元{share}；可能原因：{cause}。变动率按重述后的年初余额计算。',
};

export interface OpeningMismatch {
  year: number;
  item: string;
  item_label: string;
  beginning_balance: number | null;
  previous_ending_balance: number | null;
  difference: number | null;
}

export const balanceSheetCheckModule: AnalysisModule = {
  slug: 'balance_sheet',
  label: '资产负债表数据核对',
  section: 'data_check',
  description: '核对本年资产负债表年初余额与上年资产负债表年末余额是否一致。',
  kind: 'check',
  fields: [
    {
      key: 'checked_year_pairs',
      label: '核对的相邻年度数',
      unit: '个',
      formula: '两年均提交资产负债表的相邻年度对数',
      inputs: ['balance.*'],
    },
    {
      key: 'checked_pairs',
      label: '核对的余额组数',
      unit: '个',
      formula: '本年年初余额与上年年末余额均存在的（年度，项目）组数',
      inputs: ['balance.*'],
    },
    {
      key: 'mismatch_count',
      label: '不一致组数',
      unit: '个',
      formula: '年初余额 ≠ 上年年末余额的组数',
      inputs: ['balance.*'],
    },
    {
      key: 'mismatches[].beginning_balance',
      label: '本年年初余额',
      unit: '万元',
      formula: '本年资产负债表年初余额 ÷ 10000',
      inputs: ['balance.*'],
    },
    {
      key: 'mismatches[].previous_ending_balance',
      label: '上年年末余额',
      unit: '万元',
      formula: '上年资产负债表年末余额 ÷ 10000',
      inputs: ['balance.*'],
    },
    {
      key: 'mismatches[].difference',
      label: '差额',
      unit: '万元',
      formula: '(本年年初余额 − 上年年末余额) ÷ 10000',
      inputs: ['balance.*'],
    },
  ],
  riskRules: [OPENING_MISMATCH_RULE],
  compute: checkOpeningBalances,
};

function checkOpeningBalances(ctx: ReportContext) {
  const mismatches: OpeningMismatch[] = [];
  const risk_items: RiskItem[] = [];
  let checkedYearPairs = 0;
  let checkedPairs = 0;

  for (const year of ctx.years) {
    const priorYear = ctx.previousYear(year);
    if (priorYear === null || !ctx.hasSheet(year, 'balance') || !ctx.hasSheet(priorYear, 'balance')) continue;
    checkedYearPairs += 1;
    const priorTotalAssets = ctx.line(priorYear, 'balance', 'total_assets');

    for (const key of sortBalanceKeys(ctx.keys(year, 'balance'))) {
      const beginning = ctx.prior(year, 'balance', key);
      const previousEnding = ctx.line(priorYear, 'balance', key);
      if (beginning === null || previousEnding === null) continue;
      checkedPairs += 1;
      // The context shares one Decimal between columns of identical text: equal without comparing digits.
      if (beginning === previousEnding) continue;
      const difference = beginning.minus(previousEnding);
      if (isNegligible(difference, 1)) continue;
      const share = materiality(difference, priorTotalAssets);
      const label = balanceLineLabel(key);
      mismatches.push({
        year,
        item: key,
        item_label: label,
        beginning_balance: round2Wan(beginning),
        previous_ending_balance: round2Wan(previousEnding),
        difference: round2Wan(difference),
      });
      risk_items.push({
        level: restatementLevel(share),
        code: OPENING_MISMATCH_RULE.code,
        message: fillTemplate(OPENING_MISMATCH_RULE.message, {
          year: String(year),
          item: label,
          prior_year: String(priorYear),
          beginning: format2(toWan(beginning)!),
          previous_ending: format2(toWan(previousEnding)!),
          difference: format2(toWan(difference)!),
          share: shareText(share, `${priorYear}年末资产总计`),
          cause: restatementCause(totalRestated(ctx, year, priorYear)),
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
      summary: summarise(checkedYearPairs, checkedPairs, mismatches.length),
      mismatches,
    },
    risk_items,
  };
}

/** Whether the year's opening total assets differ (beyond tolerance) from the previous year's ending figure. */
function totalRestated(ctx: ReportContext, year: number, priorYear: number): boolean | null {
  const opening = ctx.prior(year, 'balance', 'total_assets');
  const closing = ctx.line(priorYear, 'balance', 'total_assets');
  if (opening === null || closing === null) return null;
  return !isNegligible(opening.minus(closing), 1);
}

/** |difference| as a percentage of total assets; null without a positive total. */
function materiality(difference: Num, totalAssets: Num): Num {
  if (difference === null || totalAssets === null || totalAssets.lessThanOrEqualTo(0)) return null;
  return pct(difference.abs(), totalAssets);
}

function summarise(yearPairs: number, pairs: number, mismatchCount: number): string {
  if (pairs === 0) return '没有可核对的相邻年度资产负债表（需至少两个连续年度且提供年初余额）。';
  const scope = `共核对${yearPairs}组相邻年度、${pairs}项年初余额与上年年末余额`;
  return mismatchCount === 0 ? `${scope}，全部一致。` : `${scope}，发现${mismatchCount}项不一致。`;
}
