/**
 * Real filings: three submission bodies transcribed from published A-share annual reports (test/fixtures/real,
 * sources per line in test/fixtures/README.md), run through the real validator, normaliser and engine.
 *
 * 1. Every ratio a vendor publishes with the engine's definition matches within ±0.01. The expected values are the
 *    vendor's published figures (cited per row), never the engine's own output.
 * 2. A consistent filing raises no `danger` and no rounding (subtotal tolerance) or restatement `warning`.
 * 3. A copy with one line changed in one year is caught by a risk whose message names the year, the line and both
 *    figures (in 万元 as the engine prints them; the expected texts are computed here with exact rationals).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateSubmission } from '../../schema/submission.ts';
import { ANALYSIS_SLUGS, assembleReportItems, computeAnalysis } from '../../worker/engine/registry.ts';
import { normaliseSubmission } from '../../worker/normalise.ts';
import type { AnalysisOutput, RiskItem } from '../../worker/types.ts';
import {
  type Q,
  q,
  qdiv,
  qpct,
  qsub,
  qwan,
  type R,
  type Raw,
  type RawSubmission,
  r2text,
  rawAccess,
} from '../helpers/engineFixtures.ts';

const REAL = ['gree-2016-2019', 'byd-2016-2019', 'moutai-2022-2024'] as const;
type RealName = (typeof REAL)[number];

interface Item {
  item_name: string;
  current_year_amount?: string;
  last_year_amount?: string;
  ending_balance?: string;
  beginning_balance?: string;
}
interface Body {
  enterprise_name: string;
  years_data: { year: number; sheets: { sheet_type: string; items: Item[] }[] }[];
  [key: string]: unknown;
}

function loadReal(name: RealName): Body {
  return JSON.parse(readFileSync(new URL(`../fixtures/real/${name}.json`, import.meta.url), 'utf8')) as Body;
}

function analyse(body: Body): { items: AnalysisOutput[]; warnings: unknown[] } {
  const validation = validateSubmission(body);
  if (!validation.ok) throw new Error(`invalid body: ${JSON.stringify(validation)}`);
  const { report, warnings } = normaliseSubmission(validation.value);
  return { items: assembleReportItems(computeAnalysis(report, ANALYSIS_SLUGS)), warnings };
}

/** Risk items of every analysis item (the core risk insight only repeats them). */
function risks(items: readonly AnalysisOutput[]): RiskItem[] {
  return items.filter((i) => i.slug !== 'core_risk_insight').flatMap((i) => i.risk_items);
}

function seriesValue(items: readonly AnalysisOutput[], slug: string, year: number, key: string): unknown {
  const item = items.find((i) => i.slug === slug);
  const series = (item?.sp_result.series ?? []) as Array<Record<string, unknown>>;
  return series.find((entry) => entry.year === year)?.[key];
}

/** A vendor-published ratio and the engine metric with the same definition (mapping table in the README). */
interface VendorRatio {
  year: number;
  slug: string;
  key: string;
  vendor: number;
  /** Where the figure is published. */
  source: string;
}

const ETNET = (code: string, snapshot: string) =>
  `etnet 经济通 quote_ci_ratio.php?code=${code} (${snapshot} snapshot)`;
const ETNET_GREE = ETNET('000651', '2020/09–2016/12');
const ETNET_MOUTAI = ETNET('600519', '2025/06–2021/12');
const HANSPUB_BYD = 'hanspub.org _129-2310390_4 (比亚迪 vs 长城/上汽 ratio table, 资产负债率 2018–2022)';

/** One vendor series: `slug.key` per year as published by `source`. */
function published(source: string, slug: string, key: string, byYear: Record<number, number>): VendorRatio[] {
  return Object.entries(byYear).map(([year, vendor]) => ({ year: Number(year), slug, key, vendor, source }));
}

/** Totals-based ratios the engine computes today. */
const VENDOR_RATIOS: Record<RealName, VendorRatio[]> = {
  'gree-2016-2019': [
    ...published(ETNET_GREE, 'profitability', 'gross_margin', {
      2016: 32.702,
      2017: 32.858,
      2018: 30.228,
      2019: 27.582,
    }),
    ...published(ETNET_GREE, 'long_term_liability', 'debt_to_asset_ratio', {
      2017: 68.903,
      2018: 63.096,
      2019: 60.403,
    }),
  ],
  'byd-2016-2019': published(HANSPUB_BYD, 'long_term_liability', 'debt_to_asset_ratio', {
    2018: 68.81,
    2019: 68.0,
  }),
  'moutai-2022-2024': [
    ...published(ETNET_MOUTAI, 'profitability', 'gross_margin', { 2022: 91.867, 2023: 91.965, 2024: 91.931 }),
    ...published(ETNET_MOUTAI, 'short_term_liability', 'current_ratio', { 2023: 4.624, 2024: 4.454 }),
    ...published(ETNET_MOUTAI, 'short_term_liability', 'quick_ratio', { 2023: 3.67, 2024: 3.493 }),
    ...published(ETNET_MOUTAI, 'long_term_liability', 'debt_to_asset_ratio', { 2023: 17.984, 2024: 19.045 }),
  ],
};

/**
 * The vendors' ROE and ROA are on the parent-attributable basis (归母净利润 ÷ 平均归母权益, 归母净利润 ÷ 平均总资产;
 * checked in the README). The engine gives them as `roe_parent` / `roa_parent` in `profitability` (issue 12);
 * `roe` / `roa` stay on the totals and are not comparable with these figures.
 */
const VENDOR_PARENT_RETURNS: Record<RealName, VendorRatio[]> = {
  'gree-2016-2019': [
    ...published(ETNET_GREE, 'profitability', 'roe_parent', { 2018: 33.392, 2019: 24.515 }),
    ...published(ETNET_GREE, 'profitability', 'roa_parent', { 2017: 11.275, 2018: 11.24, 2019: 9.246 }),
  ],
  'byd-2016-2019': [],
  'moutai-2022-2024': [
    ...published(ETNET_MOUTAI, 'profitability', 'roe_parent', { 2023: 36.178, 2024: 38.428 }),
    ...published(ETNET_MOUTAI, 'profitability', 'roa_parent', { 2023: 28.351, 2024: 30.168 }),
  ],
};

/**
 * Growth the company itself prints (近三年主要会计数据, "本期末比上年同期末增减"), computed on the later report's restated
 * comparative. Moutai's FY2023 report restated 2022 (企业会计准则解释第16号): 总资产 +7.15 % on 254,500,826,096.02, where
 * the FY2022 report's own 254,364,804,995.25 would give 7.21 %. Issue 12: growth uses the restated base.
 */
const COMPANY_PUBLISHED_GROWTH: Record<RealName, VendorRatio[]> = {
  'gree-2016-2019': [],
  'byd-2016-2019': [],
  'moutai-2022-2024': [
    ...published('贵州茅台 FY2023 年报 p.5', 'total_assets_change_rate', 'total_assets_change_rate', {
      2023: 7.15,
    }),
    ...published('贵州茅台 FY2024 年报 p.5', 'total_assets_change_rate', 'total_assets_change_rate', {
      2024: 9.62,
    }),
  ],
};

/** ±0.01, plus float slack for comparing a 2-decimal engine value with a 3-decimal vendor value. */
const TOLERANCE = 0.01 + 1e-9;

function expectVendorMatch(items: readonly AnalysisOutput[], ratio: VendorRatio): void {
  const value = seriesValue(items, ratio.slug, ratio.year, ratio.key);
  const label = `${ratio.slug}.${ratio.key} ${ratio.year} (vendor ${ratio.vendor}, ${ratio.source})`;
  expect(typeof value, label).toBe('number');
  expect(Math.abs((value as number) - ratio.vendor), label).toBeLessThanOrEqual(TOLERANCE);
}

/**
 * The vendor's definition of each compared key, on the fixture's own figures with exact rationals: that the
 * transcription reproduces the vendor's figure shows the definitions (and the data) are the same, independently of
 * the engine.
 */
const DEFINITIONS: Record<string, (raw: Raw, year: number) => R> = {
  gross_margin: (raw, y) =>
    qpct(qsub(raw.inc(y, 'revenue'), raw.inc(y, 'operating_cost')), raw.inc(y, 'revenue')),
  debt_to_asset_ratio: (raw, y) => qpct(raw.end(y, 'total_liabilities'), raw.end(y, 'total_assets')),
  current_ratio: (raw, y) =>
    qdiv(raw.end(y, 'total_current_assets'), raw.end(y, 'total_current_liabilities')),
  quick_ratio: (raw, y) =>
    qdiv(
      qsub(raw.end(y, 'total_current_assets'), raw.end(y, 'inventory')),
      raw.end(y, 'total_current_liabilities'),
    ),
  roe_parent: (raw, y) =>
    qpct(raw.inc(y, 'net_profit_attributable_to_parent'), raw.avg(y, 'equity_attributable_to_parent')),
  roa_parent: (raw, y) => qpct(raw.inc(y, 'net_profit_attributable_to_parent'), raw.avg(y, 'total_assets')),
  total_assets_change_rate: (raw, y) =>
    qpct(qsub(raw.end(y, 'total_assets'), raw.begin(y, 'total_assets')), raw.begin(y, 'total_assets')),
};

const toNumber = (value: Q) => Number(value.n) / Number(value.d);

/** Codes of the restatement checks (prior column / opening balance differs from the previous year's own figure). */
const RESTATEMENT_CODES = new Set([
  'balance_sheet.opening_mismatch',
  'income_statement.prior_column_mismatch',
  'cash_flow.prior_column_mismatch',
]);
const isRestatementCode = (code: string | undefined) =>
  code !== undefined && (RESTATEMENT_CODES.has(code) || code.includes('restat'));
/** A subtotal differing from its terms: on a consistent filing only rounding of the transcription can cause it. */
const ROUNDING_CODE = 'statement_arithmetic.subtotal_mismatch';

const ANALYSED = Object.fromEntries(REAL.map((name) => [name, analyse(loadReal(name))])) as Record<
  RealName,
  ReturnType<typeof analyse>
>;

describe.each(REAL)('real filing %s', (name) => {
  const { items, warnings } = ANALYSED[name];

  it('is a valid general_new submission whose every line is in the catalogue', () => {
    expect(warnings).toEqual([]);
    const body = loadReal(name);
    const years = body.years_data.map((y) => y.year);
    expect(years.length).toBeGreaterThanOrEqual(3);
    expect(years).toEqual(years.map((_, k) => years[0]! + k));
    for (const y of body.years_data) {
      expect(y.sheets.map((s) => s.sheet_type).sort()).toEqual(['balance', 'cash_flow', 'income']);
      const keys = y.sheets.flatMap((s) => s.items.map((i) => i.item_name));
      expect(keys).toContain('net_profit_attributable_to_parent');
      expect(keys).toContain('equity_attributable_to_parent');
    }
  });

  it('reproduces every compared vendor ratio from its own figures by the vendor definition (no engine)', () => {
    const raw = rawAccess(loadReal(name) as unknown as RawSubmission);
    for (const ratio of [
      ...VENDOR_RATIOS[name],
      ...VENDOR_PARENT_RETURNS[name],
      ...COMPANY_PUBLISHED_GROWTH[name],
    ]) {
      const value = DEFINITIONS[ratio.key]!(raw, ratio.year);
      const label = `${ratio.key} ${ratio.year} (vendor ${ratio.vendor})`;
      expect(value, label).not.toBeNull();
      expect(Math.abs(toNumber(value!) - ratio.vendor), label).toBeLessThanOrEqual(TOLERANCE);
    }
  });

  it('matches every vendor-published ratio with the same definition within ±0.01', () => {
    for (const ratio of VENDOR_RATIOS[name]) expectVendorMatch(items, ratio);
  });

  it('raises no danger and no rounding or restatement warning on the consistent filing', () => {
    const all = risks(items);
    const dangers = all.filter((r) => r.level === 'danger').map((r) => `${r.code}: ${r.message}`);
    const falseWarnings = all
      .filter((r) => r.level === 'warning' && (r.code === ROUNDING_CODE || isRestatementCode(r.code)))
      .map((r) => `${r.code}: ${r.message}`);
    expect({ dangers, falseWarnings }).toEqual({ dangers: [], falseWarnings: [] });
  });
});

describe.each(REAL.filter((name) => COMPANY_PUBLISHED_GROWTH[name].length > 0))(
  'real filing %s, growth on the restated base',
  (name) => {
    it("matches the growth rates the company prints (later report's comparative as base) within ±0.01", () => {
      for (const ratio of COMPANY_PUBLISHED_GROWTH[name]) expectVendorMatch(ANALYSED[name].items, ratio);
    });
  },
);

describe.each(REAL.filter((name) => VENDOR_PARENT_RETURNS[name].length > 0))(
  'real filing %s, parent-attributable returns',
  (name) => {
    it('matches the vendor ROE / ROA within ±0.01 as roe_parent / roa_parent', () => {
      for (const ratio of VENDOR_PARENT_RETURNS[name]) expectVendorMatch(ANALYSED[name].items, ratio);
    });
  },
);

/** One line of one year changed; the risk must name the year, the line and both figures. */
interface Break {
  name: RealName;
  year: number;
  sheet: 'income' | 'balance' | 'cash_flow';
  key: string;
  lineZh: string;
  /** The changed amount. */
  broken: string;
  /** The figure the broken one is compared with (the identity's other side, or the adjacent column). */
  other: string;
}

const BREAKS: Break[] = [
  // 2018 资产总计 raised by 25 亿 (≈1 % of it): 资产 ≠ 负债 + 所有者权益 (158,519,445,549 + 92,714,711,727).
  {
    name: 'gree-2016-2019',
    year: 2018,
    sheet: 'balance',
    key: 'total_assets',
    lineZh: '资产总计',
    broken: '253734157276',
    other: '251234157276',
  },
  // 2017 净利润 raised by 10 亿 (thousands of yuan as BYD prints them): 净利润 ≠ 利润总额 − 所得税费用.
  {
    name: 'byd-2016-2019',
    year: 2017,
    sheet: 'income',
    key: 'net_profit',
    lineZh: '净利润',
    broken: '5916936000',
    other: '4916936000',
  },
  // 2023 经营活动产生的现金流量净额 raised by 10 亿: ≠ 流入小计 − 流出小计 (168,256,168,955.95 − 101,662,921,234.86).
  {
    name: 'moutai-2022-2024',
    year: 2023,
    sheet: 'cash_flow',
    key: 'net_cf_operating',
    lineZh: '经营活动产生的现金流量净额',
    broken: '67593247721.09',
    other: '66593247721.09',
  },
];

/** The ways a message may print an amount: 万元 to 2 decimals (today's format), or yuan with or without separators. */
function figureForms(amount: string): string[] {
  const [int, frac] = amount.split('.');
  const grouped = int!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const yuan = frac === undefined ? [amount, grouped, `${grouped}.00`] : [amount, `${grouped}.${frac}`];
  return [`${r2text(qwan(q(amount))!)}万元`, ...yuan.map((text) => `${text}元`)];
}
const mentions = (message: string, amount: string) =>
  figureForms(amount).some((form) => message.includes(form));

function brokenCopy(b: Break): Body {
  const body = loadReal(b.name);
  const item = body.years_data
    .find((y) => y.year === b.year)
    ?.sheets.find((s) => s.sheet_type === b.sheet)
    ?.items.find((i) => i.item_name === b.key);
  if (!item) throw new Error(`${b.name} has no ${b.sheet}.${b.key} in ${b.year}`);
  const field = b.sheet === 'balance' ? 'ending_balance' : 'current_year_amount';
  expect(item[field]).toBe(b.other);
  item[field] = b.broken;
  return body;
}

describe.each(BREAKS)('broken copy of $name: $year $lineZh', (b) => {
  const naming = (r: RiskItem) =>
    r.message.includes(`${b.year}年`) &&
    r.message.includes(b.lineZh) &&
    mentions(r.message, b.broken) &&
    mentions(r.message, b.other);

  it('is caught by a risk naming the year, the line and both figures', () => {
    const caught = risks(analyse(brokenCopy(b)).items).filter(
      (r) => (r.level === 'warning' || r.level === 'danger') && naming(r),
    );
    expect(caught.map((r) => r.message)).not.toEqual([]);
  });

  it('is not raised on the consistent filing', () => {
    expect(risks(ANALYSED[b.name].items).filter(naming)).toEqual([]);
  });
});
