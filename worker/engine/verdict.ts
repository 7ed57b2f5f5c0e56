/**
 * The verdict of core_risk_insight: one deterministic scorecard over the other items' results, giving a grade
 * A–E (A = lowest risk), its Chinese label, a score 0–100 (100 = healthiest) and the factors that moved it most —
 * and, beside the grade and never inside it, whether the figures can be relied on (data_quality), how much of
 * the scorecard could be scored (coverage), the grade of every year that has its prior year (history), and
 * whether the verdict is provisional. docs/verdict.md is the model card.
 *
 * Method (a simplified 功效系数法, the same banding as business_input_profitability's overall score):
 * - each factor's value is banded against five standard values 优秀/良好/平均/较低/较差 → 100/75/50/25/0, linear
 *   in between, 100 at or above 优秀, 0 at or below 较差 (for a factor where lower is better the bands fall);
 * - the score is the weighted mean of the factor scores over the factors that have a value (weights renormalised);
 * - each factor's effect is its weight share × (its score − 50): the points it moved the score away from the
 *   平均值 level 50, so score = 50 + Σ effects (before the Beneish deduction);
 * - a Beneish M-score above −1.78 deducts BENEISH_DEDUCTION points (an effect of its own); the score is clamped
 *   to 0–100.
 * The cross-checks do not score: consistency is not creditworthiness. A danger-level break makes the verdict
 * provisional (数据存疑，评级待核实); so does coverage below MIN_COVERAGE_PCT of the weights.
 * Every factor's bands come from a named band set (BAND_SETS: source, edition, year); `selectBands` is the one
 * place that picks them, so industry sets can take precedence where they cover the factor.
 */
import type { AnalysisOutput, RiskItem, RiskLevel } from '../types.ts';
import {
  type FactorBenchmark,
  type MatchedBenchmark,
  selectBands as selectIndustryFigure,
} from './benchmark.ts';
import { Dec, type Num, num, round2 } from './decimal.ts';
import { bandScore } from './modules/balance/businessInputProfitability.ts';

export type Grade = 'A' | 'B' | 'C' | 'D' | 'E';

export interface Driver {
  slug: string;
  key: string;
  label: string;
  value: number | null;
  unit: string;
  effect: number;
  /** One line a reader can check: "净资产收益率（归母）24.52%，高于良好值7.1%：+6.9分". */
  reason: string;
}

export interface DataQualityIssue {
  slug: string;
  code: string;
  year: number | null;
  level: RiskLevel;
  message: string;
}

export type DataQualityLevel = 'reliable' | 'questionable' | 'unreliable';

export interface DataQuality {
  level: DataQualityLevel;
  issues: DataQualityIssue[];
}

export interface MissingFactor {
  slug: string;
  key: string;
  label: string;
  weight: number;
  /** The lines that would enable it, e.g. "提交流动资产合计、存货、流动负债合计". */
  requires: string;
}

export interface Coverage {
  /** Share of the scorecard weight that was scored, % (2 decimals). */
  weight_share: number;
  /** Below this share the verdict is provisional. */
  threshold: number;
  missing: MissingFactor[];
}

export interface HistoryEntry {
  year: number;
  grade: Grade;
  label: string;
  score: number;
  weight_share: number;
}

export interface ProvisionalReason {
  code: 'data_quality' | 'coverage';
  message: string;
}

export interface BandSetRef {
  id: string;
  source: string;
  edition: string;
  year: number | null;
}

export interface Verdict {
  grade: Grade;
  label: string;
  score: number;
  /** True when the grade cannot be defended as it stands (see provisional_reasons). */
  provisional: boolean;
  /** "数据存疑，评级待核实" / "数据不足，评级仅供参考"; null when not provisional. */
  status: string | null;
  provisional_reasons: ProvisionalReason[];
  drivers: Driver[];
  data_quality: DataQuality;
  coverage: Coverage;
  history: HistoryEntry[];
  /**
   * The verdict's own rules over `history` (a sharp fall in grade): part of the verdict, shown beside the history,
   * not counted among the modules' risks.
   */
  history_risks: RiskItem[];
  /** The band sets the scored factors were judged against. */
  band_sets: BandSetRef[];
  /** What each banded financial factor was judged against: an industry benchmark set (and level), or the all-industry table. */
  benchmark: FactorBenchmark[];
}

export interface ScorecardEntry {
  slug: string;
  key: string;
  label: string;
  dimension: string;
  weight: number;
  value: number | null;
  unit: string;
  score: number | null;
  effect: number;
  band_set: string;
}

export type Bands = readonly [number, number, number, number, number];

/** A published set of standard values: where it comes from, which edition, which year. */
export interface BandSet extends BandSetRef {
  note: string;
}

export const BAND_SETS = {
  sasac_all_industry_pre2006: {
    id: 'sasac_all_industry_pre2006',
    source:
      '国务院国资委统计评价局《企业绩效评价标准值》全国国有企业·全行业（第三方转录：bhygbaby.com/paper/422851168.html “15个行业财务指标标准值”；max.book118.com/html/2025/0214/7030023004010035.shtm 同数）',
    edition: '原《企业效绩评价》指标体系版式（2006年以前，含“财务效益状况”），具体版本未载明',
    year: null,
    note: '非官方发布的机器可读文本；全行业、非分行业；年份不明。行业对标标准值覆盖该因子时优先使用行业值。',
  },
  altman_zones: {
    id: 'altman_zones',
    source:
      'Altman (1968) Z、Altman (1983) Z′、Altman & Hotchkiss (2006) Z″ 的困境区/安全区临界值（/work/shared/reference/risk_scores.md）',
    edition: '原文临界值；较低 = 困境区下限，良好 = 安全区下限，平均取中点，优秀/较差向外延伸半个灰色区',
    year: 2006,
    note: '区间由本服务按临界值推出，非原文给出的五档。',
  },
  service_growth_floor: {
    id: 'service_growth_floor',
    source:
      '国资委全行业标准值（sasac_all_industry_pre2006）的营业增长率优秀/良好/平均值；较低0%、较差−10%为本服务设定',
    edition: '同 sasac_all_industry_pre2006；原表较低值、较差值缺失',
    year: null,
    note: '较低与较差两档为本服务的判断，不是标准值。',
  },
} as const satisfies Record<string, BandSet>;

export type BandSetId = keyof typeof BAND_SETS;

export interface ScorecardFactor {
  readonly dimension: string;
  readonly slug: string;
  readonly key: string;
  readonly label: string;
  readonly unit: string;
  readonly weight: number;
  /** 优秀, 良好, 平均, 较低, 较差 (falling for higher-is-better, rising for lower-is-better). */
  readonly bands: Bands;
  readonly bandSet: BandSetId;
  readonly source: string;
  /** What to submit to have it scored. */
  readonly requires: string;
}

const SASAC_NOTE = '国资委全行业标准值';

/** The factors, by dimension; weights add up to 100. */
export const SCORECARD_FACTORS: readonly ScorecardFactor[] = [
  {
    dimension: '偿债能力',
    slug: 'long_term_liability',
    key: 'debt_to_asset_ratio',
    label: '资产负债率',
    unit: '%',
    weight: 13,
    bands: [48, 58.9, 68.7, 86.4, 96.6],
    bandSet: 'sasac_all_industry_pre2006',
    source: SASAC_NOTE,
    requires: '提交资产总计、负债合计',
  },
  {
    dimension: '偿债能力',
    slug: 'long_term_liability',
    key: 'interest_coverage',
    label: '利息保障倍数',
    unit: '倍',
    weight: 9,
    bands: [3.3, 2.7, 1.8, 0.4, -2],
    bandSet: 'sasac_all_industry_pre2006',
    source: `${SASAC_NOTE}（已获利息倍数）`,
    requires: '提交利润总额与利息费用（财务费用中的利息费用）',
  },
  {
    dimension: '流动性',
    slug: 'short_term_liability',
    key: 'quick_ratio',
    label: '速动比率',
    unit: '倍',
    weight: 9,
    bands: [1.251, 1.032, 0.745, 0.475, 0.271],
    bandSet: 'sasac_all_industry_pre2006',
    source: `${SASAC_NOTE}，原表以%列示`,
    requires: '提交流动资产合计、存货、流动负债合计',
  },
  {
    dimension: '流动性',
    slug: 'short_term_liability',
    key: 'cash_flow_liability_ratio',
    label: '现金流动负债比率',
    unit: '%',
    weight: 8,
    bands: [17.8, 12.4, 6.9, 0.1, -8],
    bandSet: 'sasac_all_industry_pre2006',
    source: SASAC_NOTE,
    requires: '提交经营活动产生的现金流量净额、流动负债合计',
  },
  {
    dimension: '盈利能力',
    slug: 'profitability',
    key: 'roe',
    label: '净资产收益率',
    unit: '%',
    weight: 11,
    bands: [10.6, 7.1, 3.9, 0.9, -5.3],
    bandSet: 'sasac_all_industry_pre2006',
    source: `${SASAC_NOTE}；提交归母数据时取 roe_parent`,
    requires: '提交净利润、所有者权益合计',
  },
  {
    dimension: '盈利能力',
    slug: 'business_input_profitability',
    key: 'total_asset_return',
    label: '总资产报酬率',
    unit: '%',
    weight: 11,
    bands: [7.7, 5.9, 3.4, 1.1, -3.3],
    bandSet: 'sasac_all_industry_pre2006',
    source: SASAC_NOTE,
    requires: '提交利润总额、利息费用、资产总计（含上年）',
  },
  {
    dimension: '现金质量',
    slug: 'comparative',
    key: 'ocf_to_net_profit',
    label: '盈余现金保障倍数',
    unit: '倍',
    weight: 13,
    bands: [8.1, 5.2, 1.5, 0.4, -3.8],
    bandSet: 'sasac_all_industry_pre2006',
    source: `${SASAC_NOTE}；净利润不为正时为空、不计分（亏损由盈利能力计分）`,
    requires: '提交现金流量表（经营活动产生的现金流量净额）；净利润为正',
  },
  {
    dimension: '成长性',
    slug: 'growth_quality_analysis',
    key: 'revenue_change_rate',
    label: '营业收入增长率',
    unit: '%',
    weight: 6,
    bands: [22.4, 15.2, 9.7, 0, -10],
    bandSet: 'service_growth_floor',
    source: `${SASAC_NOTE}的优秀/良好/平均值；原表较低值、较差值缺失，本服务取0与−10`,
    requires: '提交本年与上年营业收入',
  },
  {
    dimension: '成长性',
    slug: 'shareholder_equity',
    key: 'capital_preservation_ratio',
    label: '资本保值增值率',
    unit: '%',
    weight: 6,
    bands: [109.1, 106.9, 103.1, 100.4, 94.7],
    bandSet: 'sasac_all_industry_pre2006',
    source: `${SASAC_NOTE}；权益加回对所有者的分配与回购、扣除吸收投资（客观增减因素）`,
    requires: '提交本年与年初所有者权益合计',
  },
  {
    dimension: '财务困境评分',
    slug: 'distress_signals',
    key: 'altman_headline_score',
    label: 'Altman主模型分值',
    unit: '',
    weight: 14,
    // Replaced per model by ALTMAN_BANDS.
    bands: [3.735, 2.9, 2.065, 1.23, 0.395],
    bandSet: 'altman_zones',
    source:
      'Altman Z′/Z″/Z 区间临界值：较低 = 困境区下限，良好 = 安全区下限，平均取中点，优秀/较差向外延伸半个灰色区',
    requires:
      '提交流动资产合计、流动负债合计、未分配利润、利润总额、利息费用、所有者权益合计、负债合计、资产总计、营业收入',
  },
];

/** The Altman bands per headline model (see SCORECARD_FACTORS). */
export const ALTMAN_BANDS: Readonly<Record<string, Bands>> = {
  z_prime: [3.735, 2.9, 2.065, 1.23, 0.395],
  z_double_prime: [3.35, 2.6, 1.85, 1.1, 0.35],
  z: [3.58, 2.99, 2.4, 1.81, 1.22],
};

export const BENEISH_DEDUCTION = 5;
export const BENEISH_THRESHOLD = -1.78;
/** Below this share of the scorecard weight (factors with a value) the verdict is provisional for lack of data. */
export const MIN_COVERAGE_PCT = 60;
/** A fall of at least this many grades from one year to the next is a risk of its own. */
export const SHARP_GRADE_FALL = 2;

export const PROVISIONAL_DATA = '数据存疑，评级待核实';
export const PROVISIONAL_COVERAGE = '数据不足，评级仅供参考';

/** Minimum score of each grade, best first. */
export const GRADES: readonly { grade: Grade; label: string; min: number }[] = [
  { grade: 'A', label: '低风险', min: 75 },
  { grade: 'B', label: '较低风险', min: 60 },
  { grade: 'C', label: '中等风险', min: 45 },
  { grade: 'D', label: '较高风险', min: 30 },
  { grade: 'E', label: '高风险', min: 0 },
];

/** The rules whose risks are data cross-check breaks: they make data_quality, never the score. */
export const DATA_CHECK_CODES: readonly string[] = [
  'balance_sheet.opening_mismatch',
  'income_statement.prior_column_mismatch',
  'cash_flow.prior_column_mismatch',
  'comparative.cash_carry_mismatch',
  'statement_arithmetic.subtotal_mismatch',
];

const MAX_DRIVERS = 5;
const MIN_DRIVERS = 3;

/** Industry band sets by factor key (benchmarking: server/benchmarks), when the report's division has them. */
export type IndustryBands = Readonly<Record<string, { bands: Bands; set: BandSetRef }>>;

/** The name of the all-industry table the factors' own bands come from (the built-in set of server/benchmarks). */
export const ALL_INDUSTRY_BANDS_NAME =
  '国资委企业绩效评价标准值·全国国有企业·全行业（第三方转录，版本年份未注明）';

/**
 * The industry bands of a report's matched benchmark, by factor key: a loaded set's five standard values where it
 * covers the enterprise's industry (中类, 大类 or 门类) and the factor (benchmark.ts decides which figure), and
 * what each financial factor was judged against. The Altman factor keeps its published zones.
 */
export function industryBandsOf(benchmark: MatchedBenchmark | null | undefined): {
  bands: IndustryBands | null;
  used: FactorBenchmark[];
} {
  const bands: Record<string, { bands: Bands; set: BandSetRef }> = {};
  const used: FactorBenchmark[] = [];
  for (const factor of SCORECARD_FACTORS) {
    if (factor.slug === 'distress_signals') continue;
    const picked = selectIndustryFigure(
      factor,
      { bands: factor.bands, name: ALL_INDUSTRY_BANDS_NAME },
      benchmark,
    );
    used.push(picked.benchmark);
    const ref = picked.benchmark;
    if (ref.set_id !== null)
      bands[factor.key] = {
        bands: picked.bands,
        set: { id: ref.set_id, source: ref.set_name, edition: ref.edition ?? '', year: ref.data_year },
      };
  }
  return { bands: Object.keys(bands).length > 0 ? bands : null, used };
}

/**
 * The bands a factor is judged against: the industry set where it covers the factor, else the factor's own set
 * (for Altman, the bands of the headline model). Pure; the one place bands are chosen.
 */
export function selectBands(
  factor: ScorecardFactor,
  altmanModel: string | null,
  industry?: IndustryBands | null,
): { bands: Bands; set: BandSetRef } {
  const fromIndustry = industry?.[factor.key];
  if (fromIndustry) return fromIndustry;
  const bands =
    factor.slug === 'distress_signals'
      ? (altmanModel && ALTMAN_BANDS[altmanModel]) || factor.bands
      : factor.bands;
  const { id, source, edition, year } = BAND_SETS[factor.bandSet];
  return { bands, set: { id, source, edition, year } };
}

/** bandScore for either direction of the bands. */
function scoreOf(value: number, bands: Bands): Num {
  const falling = bands[0] > bands[4];
  // A computed value, not a constant: num() would keep it (its map is for the rules' thresholds).
  const v = new Dec(value);
  return falling ? bandScore(v, bands) : bandScore(v.negated(), bands.map((b) => -b) as unknown as Bands);
}

/** The figures one year is scored on: factor key → value, and the Altman model and Beneish M of that year. */
interface YearFigures {
  values: Map<ScorecardFactor, number | null>;
  altmanModel: string | null;
  beneishM: number | null;
}

const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

function factorValue(factor: ScorecardFactor, row: Record<string, unknown> | undefined): number | null {
  if (!row) return null;
  if (factor.key === 'roe' && finite(row.roe_parent) !== null) return row.roe_parent as number;
  return finite(row[factor.key]);
}

function figuresOf(rowOf: (slug: string) => Record<string, unknown> | undefined): YearFigures {
  const distress = rowOf('distress_signals');
  return {
    values: new Map(SCORECARD_FACTORS.map((f) => [f, factorValue(f, rowOf(f.slug))])),
    altmanModel: typeof distress?.altman_headline_model === 'string' ? distress.altman_headline_model : null,
    beneishM: finite(distress?.beneish_m),
  };
}

interface Scored {
  score: number;
  grade: (typeof GRADES)[number];
  weightShare: number;
  rows: {
    factor: ScorecardFactor;
    value: number | null;
    score: Num;
    effect: Num;
    bands: Bands;
    set: BandSetRef;
  }[];
  beneish: number | null;
}

function scoreYear(figures: YearFigures, industry?: IndustryBands | null): Scored {
  const rows = SCORECARD_FACTORS.map((factor) => {
    const value = figures.values.get(factor) ?? null;
    const { bands, set } = selectBands(factor, figures.altmanModel, industry);
    return {
      factor,
      value,
      bands,
      set,
      score: value === null ? null : scoreOf(value, bands),
      effect: null as Num,
    };
  });
  const scored = rows.filter((r) => r.score !== null);
  const weight = scored.reduce((s, r) => s + r.factor.weight, 0);
  let score = num(50);
  for (const r of scored) {
    r.effect = r.score!.minus(50).times(r.factor.weight).dividedBy(weight);
    score = score.plus(r.effect);
  }
  const beneish = figures.beneishM !== null && figures.beneishM > BENEISH_THRESHOLD ? figures.beneishM : null;
  if (beneish !== null) score = score.minus(BENEISH_DEDUCTION);
  if (score.lessThan(0)) score = num(0);
  if (score.greaterThan(100)) score = num(100);
  const final = round2(score)!;
  const totalWeight = SCORECARD_FACTORS.reduce((s, f) => s + f.weight, 0);
  return {
    score: final,
    grade: GRADES.find((g) => final >= g.min) ?? GRADES.at(-1)!,
    weightShare: round2(num(weight).times(100).dividedBy(totalWeight))!,
    rows,
    beneish,
  };
}

const fmt = (value: number, unit: string) => `${value}${unit === '%' ? '%' : unit === '倍' ? '倍' : ''}`;
const BAND_NAMES = ['优秀值', '良好值', '平均值', '较低值', '较差值'] as const;

/** "净资产收益率（归母）24.52%，高于优秀值10.6%：+6.90分" — the band the value passed, and its effect. */
function driverReason(label: string, value: number, unit: string, bands: Bands, effect: number): string {
  const falling = bands[0] > bands[4];
  const better = (a: number, b: number) => (falling ? a >= b : a <= b);
  const i = bands.findIndex((b) => better(value, b));
  const against =
    i === -1
      ? `${falling ? '低于' : '高于'}较差值${fmt(bands[4], unit)}`
      : `${falling ? '不低于' : '不高于'}${BAND_NAMES[i]}${fmt(bands[i]!, unit)}`;
  const sign = effect > 0 ? '+' : '';
  return `${label}${fmt(value, unit)}，${against}：${sign}${effect.toFixed(2)}分`;
}

function yearOfMessage(message: string): number | null {
  const m = /(\d{4})年/.exec(message);
  return m ? Number(m[1]) : null;
}

/** Data quality from the cross-check risks: never part of the score. */
export function dataQualityOf(outputs: readonly AnalysisOutput[]): DataQuality {
  const issues: DataQualityIssue[] = [];
  for (const o of outputs)
    for (const item of o.risk_items)
      if (item.code && DATA_CHECK_CODES.includes(item.code))
        issues.push({
          slug: o.slug,
          code: item.code,
          year: yearOfMessage(item.message),
          level: item.level,
          message: item.message,
        });
  // Most severe first (stable within a level).
  const rank: Record<RiskLevel, number> = { danger: 2, warning: 1, info: 0 };
  issues.sort((a, b) => rank[b.level] - rank[a.level]);
  const level: DataQualityLevel = issues.some((i) => i.level === 'danger')
    ? 'unreliable'
    : issues.some((i) => i.level === 'warning')
      ? 'questionable'
      : 'reliable';
  return { level, issues };
}

/** The slugs and series keys the verdict reads of each item (computed.ts keeps them in the core view). */
export const VERDICT_INPUTS: Readonly<Record<string, readonly string[]>> = (() => {
  const keys: Record<string, string[]> = {
    distress_signals: ['altman_headline_model', 'beneish_m'],
    profitability: ['roe_parent'],
  };
  for (const f of SCORECARD_FACTORS) {
    keys[f.slug] ??= [];
    keys[f.slug]!.push(f.key);
  }
  return keys;
})();

/** The verdict and the full scorecard, from the other items' outputs. */
export function buildVerdict(
  outputs: readonly AnalysisOutput[],
  options: { benchmark?: MatchedBenchmark | null } = {},
): { verdict: Verdict; scorecard: ScorecardEntry[]; risks: RiskItem[] } {
  const bySlug = new Map(outputs.map((o) => [o.slug, o.sp_result]));
  const industry = industryBandsOf(options.benchmark);
  const latest = scoreYear(
    figuresOf((slug) => bySlug.get(slug)),
    industry.bands,
  );

  const scorecard: ScorecardEntry[] = latest.rows.map((r) => ({
    slug: r.factor.slug,
    key: r.factor.key,
    label: r.factor.label,
    dimension: r.factor.dimension,
    weight: r.factor.weight,
    value: r.value,
    unit: r.factor.unit,
    score: round2(r.score),
    effect: round2(r.effect) ?? 0,
    band_set: r.set.id,
  }));

  const drivers: Driver[] = latest.rows
    .filter((r) => r.value !== null && r.score !== null)
    .map((r) => {
      const effect = round2(r.effect) ?? 0;
      const label =
        r.factor.key === 'roe' && finite(bySlug.get('profitability')?.roe_parent) !== null
          ? `${r.factor.label}（归母）`
          : r.factor.label;
      return {
        slug: r.factor.slug,
        key: r.factor.key,
        label,
        value: r.value,
        unit: r.factor.unit,
        effect,
        reason: driverReason(label, r.value!, r.factor.unit, r.bands, effect),
      };
    });
  if (latest.beneish !== null) {
    drivers.push({
      slug: 'distress_signals',
      key: 'beneish_m',
      label: 'Beneish M值（盈余操纵信号）',
      value: latest.beneish,
      unit: '',
      effect: -BENEISH_DEDUCTION,
      reason: `Beneish M值${latest.beneish}，高于${BENEISH_THRESHOLD}（盈余操纵信号）：-${BENEISH_DEDUCTION.toFixed(2)}分`,
    });
  }
  // Largest |effect| first; ties keep the scorecard order (Array.prototype.sort is stable).
  drivers.sort((a, b) => Math.abs(b.effect) - Math.abs(a.effect));
  const moved = drivers.filter((d) => d.effect !== 0).length;
  const shown = drivers.slice(0, Math.min(MAX_DRIVERS, Math.max(MIN_DRIVERS, moved)));

  const coverage: Coverage = {
    weight_share: latest.weightShare,
    threshold: MIN_COVERAGE_PCT,
    missing: latest.rows
      .filter((r) => r.score === null)
      .map((r) => ({
        slug: r.factor.slug,
        key: r.factor.key,
        label: r.factor.label,
        weight: r.factor.weight,
        requires: r.factor.requires,
      })),
  };
  const data_quality = dataQualityOf(outputs);

  const provisional_reasons: ProvisionalReason[] = [];
  if (data_quality.level === 'unreliable') {
    const first = data_quality.issues[0]!;
    provisional_reasons.push({ code: 'data_quality', message: `${PROVISIONAL_DATA}：${first.message}` });
  }
  if (latest.weightShare < MIN_COVERAGE_PCT) {
    provisional_reasons.push({
      code: 'coverage',
      message: `${PROVISIONAL_COVERAGE}：评分卡仅${latest.weightShare}%的权重有值（低于${MIN_COVERAGE_PCT}%），未计分：${coverage.missing.map((m) => m.label).join('、')}。`,
    });
  }

  const { history, risks } = historyOf(outputs, industry.bands);
  const band_sets = [
    ...new Map(latest.rows.filter((r) => r.score !== null).map((r) => [r.set.id, r.set])).values(),
  ];
  return {
    verdict: {
      grade: latest.grade.grade,
      label: latest.grade.label,
      score: latest.score,
      provisional: provisional_reasons.length > 0,
      status:
        provisional_reasons[0]?.code === 'data_quality'
          ? PROVISIONAL_DATA
          : provisional_reasons.length > 0
            ? PROVISIONAL_COVERAGE
            : null,
      provisional_reasons,
      drivers: shown,
      data_quality,
      coverage,
      history,
      history_risks: risks,
      band_sets,
      benchmark: industry.used,
    },
    scorecard,
    risks,
  };
}

/**
 * The grade of every year that has its prior year (growth and preservation need it), from the items' series,
 * and the sharp-fall rule over it.
 */
function historyOf(
  outputs: readonly AnalysisOutput[],
  industry?: IndustryBands | null,
): { history: HistoryEntry[]; risks: RiskItem[] } {
  const seriesBySlug = new Map(
    outputs.map((o) => [
      o.slug,
      new Map(
        ((o.sp_result.series as Record<string, unknown>[] | undefined) ?? []).map((r) => [
          r.year as number,
          r,
        ]),
      ),
    ]),
  );
  const years = [...new Set([...seriesBySlug.values()].flatMap((m) => [...m.keys()]))].sort((a, b) => a - b);
  const history: HistoryEntry[] = [];
  for (const year of years) {
    if (!years.includes(year - 1)) continue;
    const scored = scoreYear(
      figuresOf((slug) => seriesBySlug.get(slug)?.get(year)),
      industry,
    );
    if (scored.weightShare === 0) continue;
    history.push({
      year,
      grade: scored.grade.grade,
      label: scored.grade.label,
      score: scored.score,
      weight_share: scored.weightShare,
    });
  }
  const risks: RiskItem[] = [];
  const order = GRADES.map((g) => g.grade);
  for (let i = 1; i < history.length; i += 1) {
    const before = history[i - 1]!;
    const after = history[i]!;
    if (after.year !== before.year + 1) continue;
    const fall = order.indexOf(after.grade) - order.indexOf(before.grade);
    if (fall >= SHARP_GRADE_FALL)
      risks.push({
        level: 'warning',
        code: GRADE_FALL_RULE.code,
        message: `${after.year}年评级由${before.year}年的${before.grade}级（${before.score}分）降至${after.grade}级（${after.score}分），下降${fall}级，财务状况明显恶化。`,
      });
  }
  return { history, risks };
}

export const GRADE_FALL_RULE = {
  code: 'core_risk_insight.grade_fall',
  tiers: [{ level: 'warning' as const, threshold: SHARP_GRADE_FALL }],
  description: `相邻两年的评级下降${SHARP_GRADE_FALL}级或以上（如B→D）：财务状况明显恶化。`,
  message: '{year}年评级由{prior_year}年的{prior_grade}级降至{grade}级，下降{fall}级，财务状况明显恶化。',
};
