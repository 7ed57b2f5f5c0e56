/**
 * 负债变动分析: each liability line's year-end balance against the prior period — the previous submitted year's
 * year-end balance, or for the first submitted year its own beginning balance — as amount change and rate.
 */

import type { RiskItem } from '../../../types.ts';
import type { ReportContext } from '../../context.ts';
import { format2, num, round2, round2Wan } from '../../decimal.ts';
import { isMaterialLine, materialityNote } from '../../materiality.ts';
import type { AnalysisModule, RiskRuleDoc } from '../../module.ts';
import {
  type ChangeRow,
  catalogueKeys,
  changeRowsByYear,
  findRow,
  nullReasons,
  refs,
  riskItem,
  roundChangeRow,
  seriesLayout,
  wanText,
} from './shared.ts';

const LIABILITY_LINES = catalogueKeys('balance', [
  'current_liabilities',
  'current_liabilities_total',
  'noncurrent_liabilities',
  'noncurrent_liabilities_total',
  'liability_total',
]);

/** Assets growing less than this (%) while liabilities grow past the rule's threshold. */
const ASSET_GROWTH_CEILING = 10;

export const LIABILITIES_OUTPACE_ASSETS_RULE: RiskRuleDoc = {
  code: 'total_liabilities_change_rate.liabilities_outpace_assets',
  tiers: [{ level: 'warning', threshold: 30 }],
  description: `负债合计较上年末增长超过30%，而资产总计增长低于${ASSET_GROWTH_CEILING}%。`,
  message:
    '{year}年末负债合计为{amount}，较上年末增长{liability_rate}%，超过{threshold}%，而资产总计增长率仅为{asset_rate}%（低于{ceiling}%），新增负债未形成相应资产，需关注举债用途与偿债压力。',
};

export const SHORT_TERM_BORROWINGS_SURGE_RULE: RiskRuleDoc = {
  code: 'total_liabilities_change_rate.short_term_borrowings_surge',
  tiers: [{ level: 'warning', threshold: 50 }],
  description: `短期借款较上年末增长超过50%（上年末为零时无增长率，不提示）${materialityNote('balance')}。`,
  message:
    '{year}年末短期借款为{amount}，较上年末的{previous}增长{rate}%，增幅超过{threshold}%，短期偿债与续贷压力上升。',
};

const assetsRate = (ctx: ReportContext, year: number) => ctx.lineChangeRate(year, 'balance', 'total_assets');

function risks(ctx: ReportContext, year: number, rows: readonly ChangeRow[]): RiskItem[] {
  const items: RiskItem[] = [];
  const liabilities = findRow(rows, 'total_liabilities');
  const assetRate = assetsRate(ctx, year);
  const outpace = LIABILITIES_OUTPACE_ASSETS_RULE.tiers[0]!;
  if (
    liabilities?.amount &&
    liabilities.rate?.greaterThan(num(outpace.threshold)) &&
    assetRate?.lessThan(num(ASSET_GROWTH_CEILING))
  ) {
    items.push(
      riskItem(LIABILITIES_OUTPACE_ASSETS_RULE, outpace.level, {
        year: String(year),
        amount: wanText(liabilities.amount),
        liability_rate: format2(liabilities.rate),
        asset_rate: format2(assetRate),
        threshold: String(outpace.threshold),
        ceiling: String(ASSET_GROWTH_CEILING),
      }),
    );
  }
  const borrowings = findRow(rows, 'short_term_borrowings');
  const surge = SHORT_TERM_BORROWINGS_SURGE_RULE.tiers[0]!;
  if (
    borrowings?.amount &&
    borrowings.previous &&
    borrowings.rate?.greaterThan(num(surge.threshold)) &&
    isMaterialLine(ctx, year, 'balance', 'short_term_borrowings')
  ) {
    items.push(
      riskItem(SHORT_TERM_BORROWINGS_SURGE_RULE, surge.level, {
        year: String(year),
        amount: wanText(borrowings.amount),
        previous: wanText(borrowings.previous),
        rate: format2(borrowings.rate),
        threshold: String(surge.threshold),
      }),
    );
  }
  return items;
}

const PRIOR_NOTE =
  '上年末取本年资产负债表的年初余额（重述后的比较数据，CAS 28）；未列示年初余额时取上一提交年度的年末余额。';

export const totalLiabilitiesChangeRateModule: AnalysisModule = {
  slug: 'total_liabilities_change_rate',
  label: '负债变动分析',
  section: 'balance_sheet_analysis',
  description:
    '各负债项目（含流动负债合计、非流动负债合计、负债合计）年末余额较上年末的增减额与增减率；首个提交年度与其本年年初余额比较。',
  kind: 'indicator',
  fields: [
    {
      key: 'total_liabilities',
      label: '负债合计',
      unit: '万元',
      formula: '年末负债合计 ÷ 10000',
      inputs: ['balance.total_liabilities'],
    },
    {
      key: 'total_liabilities_change_amount',
      label: '负债合计增减额',
      unit: '万元',
      formula: '(年末负债合计 − 上年末负债合计) ÷ 10000',
      inputs: ['balance.total_liabilities'],
      note: PRIOR_NOTE,
    },
    {
      key: 'total_liabilities_change_rate',
      label: '负债合计增长率',
      unit: '%',
      formula: '(年末负债合计 − 上年末负债合计) ÷ |上年末负债合计| × 100',
      inputs: ['balance.total_liabilities'],
      note: `上年末为零或缺失时为空。${PRIOR_NOTE}`,
    },
    {
      key: 'total_assets_change_rate',
      label: '资产总计增长率',
      unit: '%',
      formula: '(年末资产总计 − 上年末资产总计) ÷ |上年末资产总计| × 100',
      inputs: ['balance.total_assets'],
      note: `与负债增长对照。${PRIOR_NOTE}`,
    },
    {
      key: 'short_term_borrowings_change_rate',
      label: '短期借款增长率',
      unit: '%',
      formula: '(年末短期借款 − 上年末短期借款) ÷ |上年末短期借款| × 100',
      inputs: ['balance.short_term_borrowings'],
      note: `上年末为零或缺失时为空。${PRIOR_NOTE}`,
    },
    {
      key: 'items[].amount',
      label: '年末余额',
      unit: '万元',
      formula: '年末余额 ÷ 10000',
      inputs: refs('balance', LIABILITY_LINES),
      note: '列出任一提交年度出现过的负债行（按报表顺序，含合计行），各年列表一致；items 同时出现在最新年度与 series 每个年度中。',
    },
    {
      key: 'items[].previous_amount',
      label: '上年末余额',
      unit: '万元',
      formula: '本年年初余额（未列示时：上一提交年度年末余额） ÷ 10000',
      inputs: refs('balance', LIABILITY_LINES),
    },
    {
      key: 'items[].change_amount',
      label: '增减额',
      unit: '万元',
      formula: '(年末余额 − 上年末余额) ÷ 10000',
      inputs: refs('balance', LIABILITY_LINES),
    },
    {
      key: 'items[].change_rate',
      label: '增减率',
      unit: '%',
      formula: '(年末余额 − 上年末余额) ÷ |上年末余额| × 100',
      inputs: refs('balance', LIABILITY_LINES),
      note: '上年末为零或任一余额缺失时为空。',
    },
  ],
  riskRules: [LIABILITIES_OUTPACE_ASSETS_RULE, SHORT_TERM_BORROWINGS_SURGE_RULE],
  compute(ctx) {
    const byYear = changeRowsByYear(ctx, 'balance', LIABILITY_LINES);
    const sp_result = seriesLayout(ctx, (year) => {
      const rows = byYear.get(year)!;
      const total = findRow(rows, 'total_liabilities');
      const borrowings = findRow(rows, 'short_term_borrowings');
      return {
        total_liabilities: round2Wan(ctx.line(year, 'balance', 'total_liabilities')),
        total_liabilities_change_amount: round2Wan(total?.change ?? null),
        total_liabilities_change_rate: round2(total?.rate ?? null),
        total_assets_change_rate: round2(assetsRate(ctx, year)),
        short_term_borrowings_change_rate: round2(borrowings?.rate ?? null),
        ...nullReasons({
          total_liabilities_change_rate: total?.reason,
          total_assets_change_rate: ctx.lineChangeReason(year, 'balance', 'total_assets'),
          short_term_borrowings_change_rate: borrowings?.reason,
        }),
        items: rows.map(roundChangeRow),
      };
    });
    return { sp_result, risk_items: risks(ctx, ctx.latestYear, byYear.get(ctx.latestYear)!) };
  },
};
