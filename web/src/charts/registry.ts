/**
 * Which chart an analysis item gets, and the data it draws: trends as lines, structures as rings or stacked
 * bars, profit layers as a waterfall, change rates as bars. Pure: an item of the share API in, a ChartSpec
 * (or null when the item has no chart or nothing to draw) out.
 */
import type { SharedAnalysisItem } from '../api/types.ts';
import {
  fieldLabel,
  fieldUnit,
  listFields,
  numberOrNull,
  releasedYear,
  type SeriesEntry,
  seriesOf,
} from '../lib/report.ts';
import { barRows, buildHorizontalBarOption, horizontalBarHeight } from './bars.ts';
import { buildPieOption, pieSlices } from './pie.ts';
import { buildTrendOption } from './trend.ts';
import type { ChartSpec, NamedValue } from './types.ts';
import { buildWaterfallOption, type WaterfallStep, waterfallHeight } from './waterfall.ts';

type TrendSpec = {
  type: 'trend';
  series: Array<{
    key: string;
    as: 'line' | 'bar';
    stack?: string;
    name?: string;
    /** Drawn only when none of these keys has a value (a total standing in for its missing parts). */
    instead?: string[];
  }>;
  /** Appended to the caption. */
  note?: string;
};
/** The released year's values of some keys as horizontal bars. */
type LatestBarsSpec = { type: 'latest-bars'; keys: string[]; what: string; max?: number };
/** One value of each entry of a list (`items[].change_rate`) as horizontal bars. */
type ListBarsSpec = { type: 'list-bars'; list: string; value: string; what: string };
type PieSpec = { type: 'pie'; keys: string[] };
type ListPieSpec = { type: 'list-pie'; list: string; value: string };
type WaterfallSpec = { type: 'waterfall' };
type Spec = TrendSpec | LatestBarsSpec | ListBarsSpec | PieSpec | ListPieSpec | WaterfallSpec;

const lines = (...keys: string[]): TrendSpec => ({
  type: 'trend',
  series: keys.map((key) => ({ key, as: 'line' as const })),
});
const groupedBars = (...keys: string[]): TrendSpec => ({
  type: 'trend',
  series: keys.map((key) => ({ key, as: 'bar' as const })),
});
const stackedBars = (...keys: string[]): TrendSpec => ({
  type: 'trend',
  series: keys.map((key) => ({ key, as: 'bar' as const, stack: 'total' })),
});
const cashFlow: TrendSpec = {
  type: 'trend',
  series: [
    { key: 'cash_inflow', as: 'bar', name: '现金流入' },
    { key: 'cash_outflow', as: 'bar', name: '现金流出' },
    { key: 'net_cash_flow', as: 'line', name: '现金流量净额' },
  ],
};

/** The chart of each slug; items not listed here are read from their table alone. */
export const CHART_SPECS: Readonly<Record<string, Spec>> = {
  financial_benchmarks: lines(
    'total_assets',
    'total_liabilities',
    'total_shareholders_equity',
    'operating_revenue',
    'net_profit',
  ),
  financial_performance_overview: lines(
    'total_profit',
    'operating_profit',
    'investment_income',
    'net_increase_cash',
  ),
  reporting_period_profit: { type: 'waterfall' },
  reporting_period_expense: stackedBars(
    'sales_expenses',
    'administrative_expenses',
    'rd_expenses',
    'financial_expenses',
  ),
  reporting_period_balance_sheet: {
    type: 'trend',
    series: [
      { key: 'total_current_assets', as: 'bar', stack: 'assets' },
      { key: 'total_noncurrent_assets', as: 'bar', stack: 'assets' },
      // A filing without the subtotals (Gree's, BYD's) still gets both bars the caption promises: the totals.
      {
        key: 'total_assets',
        as: 'bar',
        stack: 'assets',
        instead: ['total_current_assets', 'total_noncurrent_assets'],
      },
      { key: 'total_current_liabilities', as: 'bar', stack: 'funding' },
      { key: 'total_noncurrent_liabilities', as: 'bar', stack: 'funding' },
      {
        key: 'total_liabilities',
        as: 'bar',
        stack: 'funding',
        instead: ['total_current_liabilities', 'total_noncurrent_liabilities'],
      },
      { key: 'total_shareholders_equity', as: 'bar', stack: 'funding' },
    ],
    note: '；每年左柱为资产，右柱为负债和所有者权益',
  },
  revenue: lines('operating_revenue', 'non_operating_revenue'),
  cost: lines('operating_cost', 'non_operating_expenses'),
  revenue_cost_alignment: groupedBars('revenue_change_rate', 'operating_cost_change_rate'),
  expense: {
    type: 'latest-bars',
    what: '变动率',
    keys: [
      'sales_expenses_change_rate',
      'administrative_expenses_change_rate',
      'rd_expenses_change_rate',
      'financial_expenses_change_rate',
      'total_period_expenses_change_rate',
      'revenue_change_rate',
    ],
  },
  key_income_items: {
    type: 'latest-bars',
    what: '变动率',
    keys: [
      'gross_profit_change_rate',
      'sales_expenses_change_rate',
      'administrative_expenses_change_rate',
      'rd_expenses_change_rate',
      'financial_expenses_change_rate',
      'income_tax_expense_change_rate',
      'operating_profit_change_rate',
      'net_profit_change_rate',
    ],
  },
  operating_profit: {
    type: 'latest-bars',
    what: '各项目对营业利润的影响',
    keys: [
      'taxes_and_dues_effect',
      'other_income_effect',
      'investment_income_effect',
      'fair_value_change_effect',
      'credit_impairment_effect',
      'asset_impairment_effect',
      'asset_disposal_gain_effect',
    ],
  },
  non_operating_income_analysis: lines('non_operating_income', 'non_operating_expenses', 'non_operating_net'),
  net_profit: lines('total_profit', 'income_tax_expense', 'net_profit'),
  growth_quality_analysis: groupedBars(
    'revenue_change_rate',
    'accounts_receivable_change_rate',
    'inventory_change_rate',
  ),
  other_comprehensive_income: lines('oci_net_of_tax', 'total_comprehensive_income'),
  gross_profit: stackedBars(
    'operating_profit_excl_investment',
    'investment_income',
    'non_operating_net',
    'other_profit_items',
  ),
  overview_total_asset_structure: {
    type: 'pie',
    keys: ['current_assets', 'noncurrent_assets', 'other_assets'],
  },
  detailed_total_asset_structure: { type: 'list-pie', list: 'items', value: 'amount' },
  total_assets_change_rate: { type: 'list-bars', list: 'items', value: 'change_rate', what: '增减率' },
  total_liabilities_change_rate: { type: 'list-bars', list: 'items', value: 'change_rate', what: '增减率' },
  liability_structure_overview: {
    type: 'pie',
    keys: ['current_liabilities', 'noncurrent_liabilities', 'other_liabilities'],
  },
  current_liabilities_structure: { type: 'list-pie', list: 'items', value: 'amount' },
  noncurrent_liabilities_structure: { type: 'list-pie', list: 'items', value: 'amount' },
  shareholder_equity_change_rate: {
    type: 'latest-bars',
    what: '增减率',
    keys: [
      'paid_in_capital_change_rate',
      'capital_reserve_change_rate',
      'surplus_reserve_change_rate',
      'retained_earnings_change_rate',
      'total_shareholders_equity_change_rate',
    ],
  },
  shareholder_equity_structure: stackedBars(
    'paid_in_capital',
    'capital_reserve',
    'surplus_reserve',
    'retained_earnings',
    'other_equity',
  ),
  operating_activities: cashFlow,
  investing_activities: cashFlow,
  financing_activities: cashFlow,
  operational_efficiency: lines(
    'total_asset_turnover',
    'receivable_turnover',
    'inventory_turnover',
    'payable_turnover',
  ),
  eps_fluctuations: lines('basic_eps', 'diluted_eps'),
  short_term_liability: lines('current_ratio', 'quick_ratio', 'cash_ratio'),
  long_term_liability: lines('debt_to_asset_ratio', 'debt_to_equity_ratio'),
  shareholder_equity: lines('equity_ratio', 'long_term_debt_to_equity_ratio', 'capital_preservation_ratio'),
  business_input_profitability: {
    type: 'latest-bars',
    what: '得分（满分100）',
    max: 100,
    keys: [
      'total_asset_return_score',
      'cost_expense_profit_margin_score',
      'earnings_cash_coverage_score',
      'overall_score',
    ],
  },
  profitability: lines('gross_margin', 'net_margin', 'roe', 'roa', 'cost_expense_profit_margin'),
  distress_signals: lines('altman_z_prime', 'altman_z_double_prime'),
  comparative: groupedBars('net_increase_cash', 'cash_change'),
};

/** Bar names without the suffix the caption already says (变动率, 对营业利润的影响, 得分). */
export function shortName(label: string): string {
  return label.replace(/(变动率|增长率|增减率|对营业利润的影响|得分)$/, '') || label;
}

const unitNote = (unit: string) => (unit && unit !== '个' ? `（单位：${unit}）` : '');

function trendKind(spec: TrendSpec): string {
  if (spec.series.some((s) => s.stack)) return '结构';
  return spec.series.every((s) => s.as === 'bar') ? '各年对比' : '趋势';
}

function trendChart(item: SharedAnalysisItem, spec: TrendSpec): ChartSpec | null {
  const series = seriesOf(item);
  if (series.length === 0) return null;
  const values = (entry: SeriesEntry, key: string) => numberOrNull(entry[key]);
  const hasData = (key: string) => series.some((entry) => values(entry, key) !== null);
  const drawn = spec.series
    .filter((s) => !s.instead?.some(hasData))
    .map((s) => ({
      name: s.name ?? fieldLabel(item, s.key),
      type: s.as,
      ...(s.stack ? { stack: s.stack } : {}),
      data: series.map((entry) => values(entry, s.key)),
    }))
    .filter((s) => s.data.some((value) => value !== null));
  if (drawn.length === 0) return null;
  const unit = fieldUnit(item, spec.series[0]!.key);
  const first = series[0]!.year;
  const last = series[series.length - 1]!.year;
  const span = first === last ? `${first}年` : `${first}—${last}年`;
  return {
    option: buildTrendOption({ categories: series.map((entry) => String(entry.year)), series: drawn, unit }),
    height: 260,
    caption: `${span}${trendKind(spec)}${unitNote(unit)}${spec.note ?? ''}`,
  };
}

function barsChart(items: NamedValue[], unit: string, caption: string, max?: number): ChartSpec | null {
  const rows = barRows(items);
  if (rows.length === 0) return null;
  return {
    option: buildHorizontalBarOption({ items, unit, ...(max === undefined ? {} : { max }) }),
    height: horizontalBarHeight(rows.length),
    caption,
  };
}

function pieChart(items: NamedValue[], unit: string, year: number | null): ChartSpec | null {
  const { slices, omitted } = pieSlices(items);
  if (slices.length === 0) return null;
  const note = omitted.length > 0 ? `；图中未含负值或空值项目：${omitted.join('、')}` : '';
  return {
    option: buildPieOption({ items, unit }),
    height: 280,
    caption: `${year === null ? '' : `${year}年末`}结构${unitNote(unit)}${note}`,
  };
}

function waterfallChart(item: SharedAnalysisItem): ChartSpec | null {
  const v = (key: string) => numberOrNull(item.sp_result[key]);
  const revenue = v('operating_revenue');
  const gross = v('gross_profit');
  if (revenue === null) return null;
  const candidates: Array<[string, number | null, boolean]> = [
    ['营业收入', revenue, true],
    ['营业成本', gross === null ? null : gross - revenue, false],
    ['毛利润', gross, true],
    ['费用及其他损益', v('gross_to_operating_profit'), false],
    ['营业利润', v('operating_profit'), true],
    ['营业外收支', v('operating_to_total_profit'), false],
    ['利润总额', v('total_profit'), true],
    ['所得税费用', v('total_to_net_profit'), false],
    ['净利润', v('net_profit'), true],
  ];
  // A missing layer breaks the chain: stop at the last step whose level is known.
  const steps: WaterfallStep[] = [];
  for (const [name, value, total] of candidates) {
    if (value === null) break;
    steps.push({ name, value: Math.round(value * 100) / 100, total });
  }
  const unit = fieldUnit(item, 'operating_revenue');
  const year = releasedYear(item);
  return {
    option: buildWaterfallOption(steps, unit),
    height: waterfallHeight(steps.length),
    caption: `${year ?? ''}年利润形成${unitNote(unit)}`,
  };
}

/** The chart for an item, or null when the item has none or has nothing to draw. */
export function chartForItem(item: SharedAnalysisItem): ChartSpec | null {
  const spec = CHART_SPECS[item.slug];
  if (!spec) return null;
  const year = releasedYear(item);
  switch (spec.type) {
    case 'trend':
      return trendChart(item, spec);
    case 'waterfall':
      return waterfallChart(item);
    case 'latest-bars': {
      const unit = fieldUnit(item, spec.keys[0]!);
      const items = spec.keys.map((key) => ({
        name: shortName(fieldLabel(item, key)),
        value: numberOrNull(item.sp_result[key]),
      }));
      return barsChart(items, unit, `${year ?? ''}年${spec.what}${unitNote(unit)}`, spec.max);
    }
    case 'list-bars': {
      const rows = item.sp_result[spec.list];
      if (!Array.isArray(rows)) return null;
      const unit = listFields(item, spec.list).find((f) => f.key === spec.value)?.unit ?? '';
      const items = (rows as Array<Record<string, unknown>>).map((row) => ({
        name: String(row.label ?? row.key ?? ''),
        value: numberOrNull(row[spec.value]),
      }));
      return barsChart(items, unit, `${year ?? ''}年末各项目${spec.what}${unitNote(unit)}`);
    }
    case 'pie': {
      const unit = fieldUnit(item, spec.keys[0]!);
      const items = spec.keys.map((key) => ({
        name: fieldLabel(item, key),
        value: numberOrNull(item.sp_result[key]),
      }));
      return pieChart(items, unit, year);
    }
    case 'list-pie': {
      const rows = item.sp_result[spec.list];
      if (!Array.isArray(rows)) return null;
      const unit = listFields(item, spec.list).find((f) => f.key === spec.value)?.unit ?? '';
      const items = (rows as Array<Record<string, unknown>>).map((row) => ({
        name: String(row.label ?? row.key ?? ''),
        value: numberOrNull(row[spec.value]),
      }));
      return pieChart(items, unit, year);
    }
  }
}
