/**
 * The verdict of core_risk_insight: one deterministic scorecard over the other items' results, giving a grade
 * A–E (A = lowest risk), its Chinese label, a score 0–100 (100 = healthiest) and the factors that moved it most.
 *
 * Method (a simplified 功效系数法, the same banding as business_input_profitability's overall score):
 * - each factor's value is banded against five standard values 优秀/良好/平均/较低/较差 → 100/75/50/25/0, linear
 *   in between, 100 at or above 优秀, 0 at or below 较差 (for a factor where lower is better the bands fall);
 * - the score is the weighted mean of the factor scores over the factors that have a value (weights renormalised);
 * - each factor's effect is its weight share × (its score − 50): the points it moved the score away from the
 *   平均值 level 50, so score = 50 + Σ effects (before the Beneish deduction);
 * - a Beneish M-score above −1.78 deducts BENEISH_DEDUCTION points (an effect of its own); the score is clamped
 *   to 0–100.
 * Standard values: 国资委 企业绩效评价标准值, 全国国有企业·全行业 (third-party transcription, edition year not stated;
 * /work/shared/reference/cn_performance_eval_formulas.md §3b) wherever that table has the indicator; the bands of
 * the Altman scores are the published zone cut-offs (distress cut-off = 较低, safe cut-off = 良好, 平均 halfway,
 * 优秀/较差 half a grey zone beyond); the data cross-checks are scored by the worst mismatch found.
 */
import type { AnalysisOutput, RiskLevel } from '../types.ts';
import { type FactorBenchmark, type MatchedBenchmark, selectBands } from './benchmark.ts';
import { type Num, num, round2 } from './decimal.ts';
import { bandScore } from './modules/balance/businessInputProfitability.ts';

export type Grade = 'A' | 'B' | 'C' | 'D' | 'E';

export interface Driver {
  slug: string;
  key: string;
  label: string;
  value: number | null;
  effect: number;
}

export interface Verdict {
  grade: Grade;
  label: string;
  score: number;
  drivers: Driver[];
  /** What each scored factor was banded against: an industry benchmark set, or the all-industry table. */
  benchmark: FactorBenchmark[];
}

export interface ScorecardEntry {
  slug: string;
  key: string;
  label: string;
  dimension: string;
  weight: number;
  value: number | null;
  score: number | null;
  effect: number;
}

type Bands = readonly [number, number, number, number, number];

/** The name of the all-industry table the factors' own bands come from (the built-in set of server/benchmarks). */
export const ALL_INDUSTRY_BANDS_NAME =
  '国资委企业绩效评价标准值·全国国有企业·全行业（第三方转录，版本年份未注明）';

export interface ScorecardFactor {
  readonly dimension: string;
  readonly slug: string;
  readonly key: string;
  readonly label: string;
  readonly weight: number;
  /** 优秀, 良好, 平均, 较低, 较差 (falling for higher-is-better, rising for lower-is-better). */
  readonly bands: Bands;
  readonly source: string;
}

const SASAC = '国资委全行业标准值（§3b）';

/** The factors, by dimension; weights add up to 100. */
export const SCORECARD_FACTORS: readonly ScorecardFactor[] = [
  {
    dimension: '偿债能力',
    slug: 'long_term_liability',
    key: 'debt_to_asset_ratio',
    label: '资产负债率',
    weight: 12,
    bands: [48, 58.9, 68.7, 86.4, 96.6],
    source: SASAC,
  },
  {
    dimension: '偿债能力',
    slug: 'long_term_liability',
    key: 'interest_coverage',
    label: '利息保障倍数',
    weight: 8,
    bands: [3.3, 2.7, 1.8, 0.4, -2],
    source: `${SASAC}（已获利息倍数）`,
  },
  {
    dimension: '流动性',
    slug: 'short_term_liability',
    key: 'quick_ratio',
    label: '速动比率',
    weight: 8,
    bands: [1.251, 1.032, 0.745, 0.475, 0.271],
    source: `${SASAC}，原表以%列示`,
  },
  {
    dimension: '流动性',
    slug: 'short_term_liability',
    key: 'cash_flow_liability_ratio',
    label: '现金流动负债比率',
    weight: 7,
    bands: [17.8, 12.4, 6.9, 0.1, -8],
    source: SASAC,
  },
  {
    dimension: '盈利能力',
    slug: 'profitability',
    key: 'roe',
    label: '净资产收益率',
    weight: 10,
    bands: [10.6, 7.1, 3.9, 0.9, -5.3],
    source: `${SASAC}；提交归母数据时取 roe_parent`,
  },
  {
    dimension: '盈利能力',
    slug: 'business_input_profitability',
    key: 'total_asset_return',
    label: '总资产报酬率',
    weight: 10,
    bands: [7.7, 5.9, 3.4, 1.1, -3.3],
    source: SASAC,
  },
  {
    dimension: '现金质量',
    slug: 'comparative',
    key: 'ocf_to_net_profit',
    label: '盈余现金保障倍数',
    weight: 12,
    bands: [8.1, 5.2, 1.5, 0.4, -3.8],
    source: `${SASAC}；净利润不为正时为空、不计分（亏损由盈利能力计分）`,
  },
  {
    dimension: '成长性',
    slug: 'growth_quality_analysis',
    key: 'revenue_change_rate',
    label: '营业收入增长率',
    weight: 5,
    bands: [22.4, 15.2, 9.7, 0, -10],
    source: `${SASAC}的优秀/良好/平均值；原表较低值、较差值缺失，本服务取0与−10`,
  },
  {
    dimension: '成长性',
    slug: 'shareholder_equity',
    key: 'capital_preservation_ratio',
    label: '资本保值增值率',
    weight: 5,
    bands: [109.1, 106.9, 103.1, 100.4, 94.7],
    source: SASAC,
  },
  {
    dimension: '财务困境评分',
    slug: 'distress_signals',
    key: 'altman_headline_score',
    label: 'Altman主模型分值',
    weight: 13,
    // Replaced per model by ALTMAN_BANDS.
    bands: [3.735, 2.9, 2.065, 1.23, 0.395],
    source:
      'Altman Z′/Z″/Z 区间临界值：较低 = 困境区下限，良好 = 安全区下限，平均取中点，优秀/较差向外延伸半个灰色区',
  },
  {
    dimension: '数据核对',
    slug: 'data_check',
    key: 'data_check_level',
    label: '报表数据核对',
    weight: 10,
    // 0 = no mismatch, 1 = warning-level mismatches only, 2 = a danger-level mismatch (lower is better).
    bands: [0, 0.5, 1, 1.5, 2],
    source:
      '数据核对类风险中的最高等级：无不一致100分，仅警告级50分，有危险级0分；评分卡与 drivers 中该因子的 slug 为最严重不一致所在的核对项（无不一致时为 balance_sheet）',
  },
];

/** The Altman bands per headline model (see SCORECARD_FACTORS). */
export const ALTMAN_BANDS: Readonly<Record<string, Bands>> = {
  z_prime: [3.735, 2.9, 2.065, 1.23, 0.395],
  z_double_prime: [3.35, 2.6, 1.85, 1.1, 0.35],
  z: [3.58, 2.99, 2.4, 1.81, 1.22],
};

export const BENEISH_DEDUCTION = 5;
/** The highest score with a danger-level cross-check mismatch: the top of grade C. */
export const DANGER_CHECK_CAP = 59.99;
export const BENEISH_THRESHOLD = -1.78;

/** Minimum score of each grade, best first. */
export const GRADES: readonly { grade: Grade; label: string; min: number }[] = [
  { grade: 'A', label: '低风险', min: 75 },
  { grade: 'B', label: '较低风险', min: 60 },
  { grade: 'C', label: '中等风险', min: 45 },
  { grade: 'D', label: '较高风险', min: 30 },
  { grade: 'E', label: '高风险', min: 0 },
];

/** The slugs whose mismatch risks are the data cross-checks (the income/cash ratio rules of comparative excluded). */
export const DATA_CHECK_CODES: readonly string[] = [
  'balance_sheet.opening_mismatch',
  'income_statement.prior_column_mismatch',
  'cash_flow.prior_column_mismatch',
  'comparative.cash_carry_mismatch',
  'statement_arithmetic.subtotal_mismatch',
];

const MAX_DRIVERS = 5;
const MIN_DRIVERS = 3;

function factorValue(
  factor: ScorecardFactor,
  bySlug: ReadonlyMap<string, Record<string, unknown>>,
  worstCheck: RiskLevel | null,
): number | null {
  if (factor.slug === 'data_check') {
    // Only when the cross-checks ran (the balance sheet check is always part of a full report).
    if (!bySlug.has('balance_sheet')) return null;
    return worstCheck === 'danger' ? 2 : worstCheck === 'warning' ? 1 : 0;
  }
  const sp = bySlug.get(factor.slug);
  if (!sp) return null;
  if (factor.key === 'roe' && typeof sp.roe_parent === 'number') return sp.roe_parent;
  const v = sp[factor.key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function bandsOf(factor: ScorecardFactor, bySlug: ReadonlyMap<string, Record<string, unknown>>): Bands {
  if (factor.slug !== 'distress_signals') return factor.bands;
  const model = bySlug.get('distress_signals')?.altman_headline_model;
  return (typeof model === 'string' && ALTMAN_BANDS[model]) || factor.bands;
}

/** A factor's bands: an industry set's where one covers it (benchmark.ts selectBands), else bandsOf. */
function industryBandsOf(
  factor: ScorecardFactor,
  bySlug: ReadonlyMap<string, Record<string, unknown>>,
  benchmark: MatchedBenchmark | null | undefined,
): { bands: Bands; benchmark: FactorBenchmark | null } {
  if (factor.slug === 'distress_signals' || factor.slug === 'data_check')
    return { bands: bandsOf(factor, bySlug), benchmark: null };
  return selectBands(factor, { bands: factor.bands, name: ALL_INDUSTRY_BANDS_NAME }, benchmark);
}

/** bandScore for either direction of the bands. */
function scoreOf(value: number, bands: Bands): Num {
  const falling = bands[0] > bands[4];
  const v = num(value);
  return falling ? bandScore(v, bands) : bandScore(v.negated(), bands.map((b) => -b) as unknown as Bands);
}

/** Below this share of the weights (financial factors with a value) the score is flagged as incomplete. */
export const MIN_WEIGHT_SHARE = 50;

/** The verdict and the full scorecard, from the other items' outputs. */
export function buildVerdict(
  outputs: readonly AnalysisOutput[],
  benchmark?: MatchedBenchmark | null,
): {
  verdict: Verdict;
  scorecard: ScorecardEntry[];
  /** Whether the financial factors with a value carry less than MIN_WEIGHT_SHARE of the weights. */
  incomplete: boolean;
} {
  const bySlug = new Map(outputs.map((o) => [o.slug, o.sp_result]));
  let worstCheck: RiskLevel | null = null;
  // The check item behind the data-check factor: where the worst mismatch is (an item a reader can open).
  let checkSlug = 'balance_sheet';
  for (const o of outputs) {
    for (const item of o.risk_items) {
      if (!item.code || !DATA_CHECK_CODES.includes(item.code)) continue;
      if (item.level === 'danger' && worstCheck !== 'danger') {
        worstCheck = 'danger';
        checkSlug = o.slug;
      } else if (item.level === 'warning' && worstCheck === null) {
        worstCheck = 'warning';
        checkSlug = o.slug;
      }
    }
  }

  const rows = SCORECARD_FACTORS.map((factor) => {
    const value = factorValue(factor, bySlug, worstCheck);
    const banded = industryBandsOf(factor, bySlug, benchmark);
    const score = value === null ? null : scoreOf(value, banded.bands);
    return { factor, value, score, benchmark: banded.benchmark };
  });
  const available = rows.filter((r) => r.score !== null);
  const totalWeight = available.reduce((s, r) => s + r.factor.weight, 0);
  const financialWeight = available
    .filter((r) => r.factor.slug !== 'data_check')
    .reduce((s, r) => s + r.factor.weight, 0);
  const effects = new Map<ScorecardFactor, Num>();
  let score = num(50);
  for (const r of available) {
    const effect = r.score!.minus(50).times(r.factor.weight).dividedBy(totalWeight);
    effects.set(r.factor, effect);
    score = score.plus(effect);
  }

  // Figures that do not reconcile (a danger-level cross-check mismatch) cannot support a better grade than C: the
  // score is capped at DANGER_CHECK_CAP, the points cut counted in the data-check factor's effect.
  const checkRow = rows.find((r) => r.factor.slug === 'data_check')!;
  if (worstCheck === 'danger' && score.greaterThan(DANGER_CHECK_CAP)) {
    const cut = score.minus(DANGER_CHECK_CAP);
    effects.set(checkRow.factor, (effects.get(checkRow.factor) ?? num(0)).minus(cut));
    score = num(DANGER_CHECK_CAP);
  }

  const scorecard: ScorecardEntry[] = rows.map((r) => ({
    slug: r.factor.slug === 'data_check' ? checkSlug : r.factor.slug,
    key: r.factor.key,
    label: r.factor.label,
    dimension: r.factor.dimension,
    weight: r.factor.weight,
    value: r.value,
    score: round2(r.score),
    effect: round2(effects.get(r.factor) ?? null) ?? 0,
  }));

  const drivers: Driver[] = scorecard
    .filter((e) => e.score !== null)
    .map((e) => ({ slug: e.slug, key: e.key, label: e.label, value: e.value, effect: e.effect }));

  const m = bySlug.get('distress_signals')?.beneish_m;
  if (typeof m === 'number' && m > BENEISH_THRESHOLD) {
    score = score.minus(BENEISH_DEDUCTION);
    drivers.push({
      slug: 'distress_signals',
      key: 'beneish_m',
      label: 'Beneish M值（盈余操纵信号）',
      value: m,
      effect: -BENEISH_DEDUCTION,
    });
  }
  if (score.lessThan(0)) score = num(0);
  if (score.greaterThan(100)) score = num(100);

  // Largest |effect| first; ties keep the scorecard order (Array.prototype.sort is stable).
  drivers.sort((a, b) => Math.abs(b.effect) - Math.abs(a.effect));
  const moved = drivers.filter((d) => d.effect !== 0).length;
  const shown = drivers.slice(0, Math.min(MAX_DRIVERS, Math.max(MIN_DRIVERS, moved)));

  const final = round2(score)!;
  const grade = GRADES.find((g) => final >= g.min) ?? GRADES.at(-1)!;
  return {
    verdict: {
      grade: grade.grade,
      label: grade.label,
      score: final,
      drivers: shown,
      benchmark: rows.flatMap((r) => (r.benchmark ? [r.benchmark] : [])),
    },
    scorecard,
    incomplete: financialWeight < MIN_WEIGHT_SHARE,
  };
}
