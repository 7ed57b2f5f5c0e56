/**
 * 资产变动分析: each asset line's year-end balance against the prior period — the previous submitted year's
 * year-end balance, or for the first submitted year its own beginning balance — as amount change and rate.
 */
import type { RiskItem } from '../../../types.ts';
import { format2, num, round2, round2Wan } from '../../decimal.ts';
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
  shareOf,
  wanText,
} from './shared.ts';

const DETAIL_LINES = catalogueKeys('balance', ['current_assets', 'noncurrent_assets']);
const ASSET_LINES = catalogueKeys('balance', [
  'current_assets',
  'current_assets_total',
  'noncurrent_assets',
  'noncurrent_assets_total',
  'asset_total',
]);

/** A line is major when it exceeds this share (%) of total assets at the year end or at the prior period end. */
const MAJOR_SHARE = 10;

export const TOTAL_ASSETS_DECLINE_RULE: RiskRuleDoc = {
  code: 'total_assets_change_rate.total_assets_decline',
  tiers: [{ level: 'warning', threshold: 20 }],
  description: '资产总计较上年末下降超过20%。',
  message:
    '{year}年末资产总计为{amount}，较上年末的{previous}下降{decline}%，降幅超过{threshold}%，资产规模明显收缩，需关注资产处置、亏损或偿债导致的缩表。',
};

export const MAJOR_ASSET_CHANGE_RULE: RiskRuleDoc = {
  code: 'total_assets_change_rate.major_line_change',
  tiers: [{ level: 'info', threshold: 50 }],
  description: `年末或上年末占资产总计超过${MAJOR_SHARE}%的资产明细项目，较上年末增减超过50%（每个项目一条；上年末为零时无变动率，不提示）。`,
  message:
    '{year}年末{item}为{amount}，较上年末的{previous}{direction}{change}%，变动幅度超过{threshold}%（该项目占资产总计超过{major}%），需关注变动原因。',
};

function risks(year: number, rows: readonly ChangeRow[]): RiskItem[] {
  const items: RiskItem[] = [];
  const total = findRow(rows, 'total_assets');
  const decline = TOTAL_ASSETS_DECLINE_RULE.tiers[0]!;
  if (total?.amount && total.previous && total.rate?.lessThan(num(-decline.threshold))) {
    items.push(
      riskItem(TOTAL_ASSETS_DECLINE_RULE, decline.level, {
        year: String(year),
        amount: wanText(total.amount),
        previous: wanText(total.previous),
        decline: format2(total.rate.negated()),
        threshold: String(decline.threshold),
      }),
    );
  }
  const major = MAJOR_ASSET_CHANGE_RULE.tiers[0]!;
  for (const row of rows) {
    if (
      !DETAIL_LINES.includes(row.key) ||
      row.amount === null ||
      row.previous === null ||
      row.rate === null
    ) {
      continue;
    }
    if (!row.rate.abs().greaterThan(num(major.threshold))) continue;
    const isMajor = [
      shareOf(row.amount, total?.amount ?? null),
      shareOf(row.previous, total?.previous ?? null),
    ].some((s) => s?.greaterThan(num(MAJOR_SHARE)));
    if (!isMajor) continue;
    items.push(
      riskItem(MAJOR_ASSET_CHANGE_RULE, major.level, {
        year: String(year),
        item: row.label,
        amount: wanText(row.amount),
        previous: wanText(row.previous),
        direction: row.rate.isNegative() ? '下降' : '增长',
        change: format2(row.rate.abs()),
        threshold: String(major.threshold),
        major: String(MAJOR_SHARE),
      }),
    );
  }
  return items;
}

export const totalAssetsChangeRateModule: AnalysisModule = {
  slug: 'total_assets_change_rate',
  label: '资产变动分析',
  section: 'balance_sheet_analysis',
  description:
    '各资产项目（含流动资产合计、非流动资产合计、资产总计）年末余额较上年末的增减额与增减率；首个提交年度与其本年年初余额比较。',
  kind: 'indicator',
  fields: [
    {
      key: 'total_assets',
      label: '资产总计',
      unit: '万元',
      formula: '年末资产总计 ÷ 10000',
      inputs: ['balance.total_assets'],
    },
    {
      key: 'total_assets_change_amount',
      label: '资产总计增减额',
      unit: '万元',
      formula: '(年末资产总计 − 上年末资产总计) ÷ 10000',
      inputs: ['balance.total_assets'],
      note: '上年末取本年资产负债表的年初余额（重述后的比较数据，CAS 28）；未列示年初余额时取上一提交年度的年末余额。',
    },
    {
      key: 'total_assets_change_rate',
      label: '资产总计增长率',
      unit: '%',
      formula: '(年末资产总计 − 上年末资产总计) ÷ |上年末资产总计| × 100',
      inputs: ['balance.total_assets'],
      note: '上年末为零或缺失时为空。',
    },
    {
      key: 'items[].amount',
      label: '年末余额',
      unit: '万元',
      formula: '年末余额 ÷ 10000',
      inputs: refs('balance', ASSET_LINES),
      note: '列出任一提交年度出现过的资产行（按报表顺序，含合计行），各年列表一致；items 同时出现在最新年度与 series 每个年度中。',
    },
    {
      key: 'items[].previous_amount',
      label: '上年末余额',
      unit: '万元',
      formula: '本年年初余额（未列示时：上一提交年度年末余额） ÷ 10000',
      inputs: refs('balance', ASSET_LINES),
    },
    {
      key: 'items[].change_amount',
      label: '增减额',
      unit: '万元',
      formula: '(年末余额 − 上年末余额) ÷ 10000',
      inputs: refs('balance', ASSET_LINES),
    },
    {
      key: 'items[].change_rate',
      label: '增减率',
      unit: '%',
      formula: '(年末余额 − 上年末余额) ÷ |上年末余额| × 100',
      inputs: refs('balance', ASSET_LINES),
      note: '上年末为零或任一余额缺失时为空。',
    },
  ],
  riskRules: [TOTAL_ASSETS_DECLINE_RULE, MAJOR_ASSET_CHANGE_RULE],
  compute(ctx) {
    const byYear = changeRowsByYear(ctx, 'balance', ASSET_LINES);
    const sp_result = seriesLayout(ctx, (year) => {
      const rows = byYear.get(year)!;
      const total = findRow(rows, 'total_assets');
      return {
        total_assets: round2Wan(ctx.line(year, 'balance', 'total_assets')),
        total_assets_change_amount: round2Wan(total?.change ?? null),
        total_assets_change_rate: round2(total?.rate ?? null),
        ...nullReasons({ total_assets_change_rate: total?.reason }),
        items: rows.map(roundChangeRow),
      };
    });
    return { sp_result, risk_items: risks(ctx.latestYear, byYear.get(ctx.latestYear)!) };
  },
};
