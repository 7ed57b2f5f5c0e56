/**
 * 行业对标 (industry_benchmark, section 2): the enterprise's indicators against the benchmark matched for its
 * industry (benchmark.ts) — the loaded sets' figures and the account's own peers. Built from the other items'
 * results and the matched benchmark, like the core risk insight; pure.
 *
 * sp_result:
 * - released_year; industry { code, name, level, basis }; size_class { value, label, basis }; peer_minimum;
 * - rows: one per indicator (the scorecard's financial factors, then every other indicator a matched set
 *   covers): indicator (`<slug>.<key>`), label, unit, value, better (higher / lower / null), benchmarks (one per
 *   set: its figures, source, edition, data_year, year_gap, industry_code/name, level, fallback, size_class and
 *   the enterprise's position), peers ({ n, minimum, quantiles (null below the minimum), position });
 * - sets_used: the sets any row shows (id, name, edition, data year).
 * Risk items only where an indicator is beyond an industry-specific 较差 value or below the peers' / a set's P10
 * (on the worse side), by at least a quarter of the neighbouring band (MATERIAL_SHARE): in the worst band and
 * not by a rounding width.
 */
import type { AnalysisOutput, RiskItem } from '../types.ts';
import {
  BAND_LABELS,
  type Bands,
  type BenchmarkFigure,
  INDUSTRY_LEVEL_LABELS,
  type IndustryLevel,
  type MatchedBenchmark,
  type PeerDistribution,
  type Quantiles,
  SIZE_CLASS_LABELS,
} from './benchmark.ts';
import type { FieldDoc, RiskRuleDoc } from './module.ts';
import { SCORECARD_FACTORS } from './verdict.ts';

export const INDUSTRY_BENCHMARK_SLUG = 'industry_benchmark';
export const INDUSTRY_BENCHMARK_LABEL = '行业对标';

/** The share of the neighbouring band's width beyond the worst threshold that makes a shortfall material. */
export const MATERIAL_SHARE = 0.25;

type Better = 'higher' | 'lower';

/** The indicators the scorecard scores against bands (the peers' indicators too), in scorecard order. */
export const SCORED_INDICATORS: readonly { slug: string; key: string; better: Better }[] =
  SCORECARD_FACTORS.filter((f) => f.slug !== 'data_check' && f.slug !== 'distress_signals').map((f) => ({
    slug: f.slug,
    key: f.key,
    better: f.bands[0] > f.bands[4] ? 'higher' : 'lower',
  }));

/** Directions of other indicators the shipped sets cover (a loaded set's bands carry their own). */
const KNOWN_DIRECTIONS: Readonly<Record<string, Better>> = {
  'reporting_period_profit.total_profit_margin': 'higher',
  'revenue_cost_alignment.cost_to_revenue_ratio': 'lower',
};

/** The slugs whose figures industry_benchmark reads for a matched benchmark (the scored ones and any set's). */
export function benchmarkedSlugs(benchmark: MatchedBenchmark | null | undefined): Set<string> {
  const slugs = new Set(SCORED_INDICATORS.map((i) => i.slug));
  for (const indicator of Object.keys(benchmark?.figures ?? {})) slugs.add(indicator.split('.')[0]!);
  return slugs;
}

export interface Position {
  /** Where the value falls, in words (优秀值以上, P25–P50, 高于均值 …). */
  label: string;
  /** 0 (worst) – 100 (best) for the position bar; for an indicator of unknown direction, 0 = lowest value. */
  bar: number | null;
  /** Beyond the 较差 value or on the worse side of P10. */
  worst: boolean;
}

export interface BenchmarkRow {
  indicator: string;
  slug: string;
  key: string;
  label: string;
  unit: string;
  value: number | null;
  better: Better | null;
  benchmarks: Array<
    BenchmarkFigure & {
      level_label: string;
      fallback: string | null;
      kind: 'bands' | 'quantiles' | 'mean';
      position: Position | null;
    }
  >;
  peers: (PeerDistribution & { position: Position | null }) | null;
}

export const INDUSTRY_BENCHMARK_RULES: readonly RiskRuleDoc[] = [
  {
    code: 'industry_benchmark.worst_band',
    tiers: [{ level: 'warning', threshold: MATERIAL_SHARE }],
    description:
      '指标劣于行业（中类、大类或门类，不含全行业）基准集的较差值，且超出幅度不小于较低–较差档宽的四分之一。',
    message: '{year}年{label}为{value}，劣于{set}的较差值{threshold}，处于该行业最差档。',
  },
  {
    code: 'industry_benchmark.bottom_decile',
    tiers: [{ level: 'warning', threshold: MATERIAL_SHARE }],
    description:
      '指标处于行业分布（基准集的分位数，或本账户同行业同年度企业，样本数不少于最低样本数）较差一侧的10%以外，且超出幅度不小于P10–P25间距的四分之一。',
    message: '{year}年{label}为{value}，劣于{set}的P10（{threshold}），处于行业最差的十分之一。',
  },
];

const round = (v: number) => Math.round(v * 100) / 100;

/** 0–100 across five bands (100 at or beyond 优秀, 0 at or beyond 较差, linear between), either direction. */
function bandBar(value: number, bands: Bands): number {
  const falling = bands[0] > bands[4];
  const v = falling ? value : -value;
  const b = falling ? bands : (bands.map((x) => -x) as unknown as Bands);
  if (v >= b[0]) return 100;
  for (let i = 0; i < 4; i++) {
    if (v >= b[i + 1]!) return round(100 - 25 * (i + 1) + ((v - b[i + 1]!) / (b[i]! - b[i + 1]!)) * 25);
  }
  return 0;
}

function bandPosition(value: number, bands: Bands): Position {
  const falling = bands[0] > bands[4];
  const better = (a: number, b: number) => (falling ? a >= b : a <= b);
  let label = `${BAND_LABELS[4]}值以下`;
  if (better(value, bands[0])) label = `${BAND_LABELS[0]}值以上`;
  else
    for (let i = 1; i < 5; i++)
      if (better(value, bands[i]!)) {
        label = `${BAND_LABELS[i]}–${BAND_LABELS[i - 1]}`;
        break;
      }
  return { label, bar: bandBar(value, bands), worst: !better(value, bands[4]) };
}

const QUANTILE_STEPS = [
  ['p10', 10],
  ['p25', 25],
  ['p50', 50],
  ['p75', 75],
  ['p90', 90],
] as const;

/** Percentile of the value in the distribution (value order), interpolated between the quantiles. */
function percentileOf(value: number, q: Quantiles): number {
  if (value <= q.p10) return value < q.p10 ? 5 : 10;
  for (let i = 1; i < QUANTILE_STEPS.length; i++) {
    const [hiKey, hiPct] = QUANTILE_STEPS[i]!;
    const [loKey, loPct] = QUANTILE_STEPS[i - 1]!;
    if (value <= q[hiKey]) {
      const span = q[hiKey] - q[loKey];
      return round(span === 0 ? hiPct : loPct + ((value - q[loKey]) / span) * (hiPct - loPct));
    }
  }
  return 95;
}

function quantilePosition(value: number, q: Quantiles, better: Better | null): Position {
  const pct = percentileOf(value, q);
  const label =
    value < q.p10
      ? '低于P10'
      : value > q.p90
        ? '高于P90'
        : `约P${Math.round(pct)}（${QUANTILE_STEPS.find(([k]) => value <= q[k])?.[0].toUpperCase()}以内）`;
  const worst = better === 'higher' ? value < q.p10 : better === 'lower' ? value > q.p90 : false;
  return { label, bar: better === 'lower' ? round(100 - pct) : pct, worst };
}

function meanPosition(value: number, mean: number, unit: string): Position {
  const diff = round(value - mean);
  const gap = unit === '%' ? `${Math.abs(diff)}个百分点` : `${Math.abs(diff)}${unit}`;
  return {
    label: diff === 0 ? '等于均值' : `${diff > 0 ? '高于' : '低于'}均值${gap}`,
    bar: null,
    worst: false,
  };
}

/** How far the value is beyond the worst threshold, as a share of the neighbouring band; 0 when not beyond. */
function shortfall(value: number, worst: number, next: number): number {
  const width = Math.abs(next - worst);
  if (width === 0) return 0;
  const beyond = next > worst ? worst - value : value - worst;
  return beyond > 0 ? beyond / width : 0;
}

function fallbackOf(figure: BenchmarkFigure, benchmark: MatchedBenchmark): string | null {
  const parts: string[] = [];
  const wanted = benchmark.industry;
  if (figure.level !== wanted.level) {
    const from = wanted.code ? `${INDUSTRY_LEVEL_LABELS[wanted.level]}${wanted.code}` : '行业未知';
    parts.push(
      `${from}无此指标基准，采用${INDUSTRY_LEVEL_LABELS[figure.level]}${figure.level === 'all' ? '' : `${figure.industry_code}（${figure.industry_name}）`}`,
    );
  }
  const size = benchmark.size_class.value;
  if (size && figure.size_class !== size)
    parts.push(`无${SIZE_CLASS_LABELS[size]}企业分档，采用${SIZE_CLASS_LABELS[figure.size_class]}`);
  if (figure.year_gap)
    parts.push(`数据年度${figure.data_year}与报表年度${benchmark.report_year}相差${figure.year_gap}年`);
  return parts.length > 0 ? parts.join('；') : null;
}

function indicatorValue(sp: Record<string, unknown> | undefined, key: string): number | null {
  if (!sp) return null;
  // As the scorecard does: the parent-company ROE when one was submitted.
  const v = key === 'roe' && typeof sp.roe_parent === 'number' ? sp.roe_parent : sp[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

const describe = (figure: BenchmarkFigure) =>
  `${figure.set_name}（${figure.edition}${figure.data_year ? `，${figure.data_year}年数据` : ''}，${figure.industry_name}）`;

/**
 * The industry_benchmark item from the other items' outputs (their flat latest-year figures) and the matched
 * benchmark (absent → every row without figures and a note saying why).
 */
export function buildIndustryBenchmark(
  outputs: readonly AnalysisOutput[],
  benchmark: MatchedBenchmark | null | undefined,
  fieldOf: (slug: string, key: string) => FieldDoc | undefined,
): AnalysisOutput {
  const bySlug = new Map(outputs.map((o) => [o.slug, o.sp_result]));
  const year = outputs.map((o) => o.sp_result.released_year).find((y) => typeof y === 'number') ?? null;
  const indicators = new Map<string, Better | null>(
    SCORED_INDICATORS.map((i) => [`${i.slug}.${i.key}`, i.better]),
  );
  for (const indicator of Object.keys(benchmark?.figures ?? {}).sort())
    if (!indicators.has(indicator)) indicators.set(indicator, KNOWN_DIRECTIONS[indicator] ?? null);

  const risk_items: RiskItem[] = [];
  const used = new Map<
    string,
    { set_id: string; set_name: string; edition: string; data_year: number | null }
  >();
  const rows: BenchmarkRow[] = [];
  for (const [indicator, known] of indicators) {
    const [slug, key] = indicator.split('.') as [string, string];
    const field = fieldOf(slug, key);
    const value = indicatorValue(bySlug.get(slug), key);
    const figures = benchmark?.figures[indicator] ?? [];
    const banded = figures.find((f) => f.bands);
    const better = known ?? (banded?.bands ? (banded.bands[0] > banded.bands[4] ? 'higher' : 'lower') : null);
    const label = field?.label ?? indicator;
    const unit = field?.unit ?? '';
    const found: { risk: RiskItem | null } = { risk: null };
    const raise = (code: string, set: string, threshold: number, share: number) => {
      if (found.risk || share < MATERIAL_SHARE || value === null) return;
      const message = INDUSTRY_BENCHMARK_RULES.find((r) => r.code === code)!
        .message.replace('{year}', String(year))
        .replace('{label}', label)
        .replace('{value}', `${value}${unit}`)
        .replace('{set}', set)
        .replace('{threshold}', `${threshold}${unit}`);
      found.risk = { level: 'warning', code, message };
    };

    const benchmarks = figures.map((figure) => {
      used.set(figure.set_id, {
        set_id: figure.set_id,
        set_name: figure.set_name,
        edition: figure.edition,
        data_year: figure.data_year,
      });
      const kind: 'bands' | 'quantiles' | 'mean' = figure.bands
        ? 'bands'
        : figure.quantiles
          ? 'quantiles'
          : 'mean';
      let position: Position | null = null;
      if (value !== null) {
        if (figure.bands) position = bandPosition(value, figure.bands);
        else if (figure.quantiles) position = quantilePosition(value, figure.quantiles, better);
        else if (figure.mean !== null) position = meanPosition(value, figure.mean, unit);
      }
      if (position?.worst && value !== null && figure.level !== 'all') {
        if (figure.bands)
          raise(
            'industry_benchmark.worst_band',
            describe(figure),
            figure.bands[4],
            shortfall(value, figure.bands[4], figure.bands[3]),
          );
        else if (figure.quantiles) {
          const [edge, next] =
            better === 'higher'
              ? [figure.quantiles.p10, figure.quantiles.p25]
              : [figure.quantiles.p90, figure.quantiles.p75];
          raise('industry_benchmark.bottom_decile', describe(figure), edge, shortfall(value, edge, next));
        }
      }
      return {
        ...figure,
        level_label: INDUSTRY_LEVEL_LABELS[figure.level],
        fallback: benchmark ? fallbackOf(figure, benchmark) : null,
        kind,
        position,
      };
    });

    const peer = benchmark?.peers?.[indicator] ?? null;
    let peers: BenchmarkRow['peers'] = null;
    if (peer) {
      const position =
        value !== null && peer.quantiles ? quantilePosition(value, peer.quantiles, better) : null;
      if (position?.worst && value !== null && peer.quantiles) {
        const q = peer.quantiles;
        const [edge, next] = better === 'higher' ? [q.p10, q.p25] : [q.p90, q.p75];
        raise(
          'industry_benchmark.bottom_decile',
          `本账户同行业（${peer.industry_code}，${peer.year}年，${peer.n}家）企业`,
          edge,
          shortfall(value, edge, next),
        );
      }
      peers = { ...peer, position };
    }
    if (found.risk) risk_items.push(found.risk);
    rows.push({ indicator, slug, key, label, unit, value, better, benchmarks, peers });
  }

  const industry = benchmark?.industry ?? {
    code: null,
    name: null,
    level: 'all' as IndustryLevel,
    basis: '未匹配行业基准',
  };
  return {
    slug: INDUSTRY_BENCHMARK_SLUG,
    sp_result: {
      released_year: year,
      industry,
      size_class: benchmark
        ? {
            ...benchmark.size_class,
            label: benchmark.size_class.value ? SIZE_CLASS_LABELS[benchmark.size_class.value] : null,
          }
        : { value: null, label: null, basis: '未匹配行业基准' },
      peer_minimum: Object.values(benchmark?.peers ?? {})[0]?.minimum ?? null,
      rows,
      sets_used: [...used.values()],
    },
    risk_items,
  };
}

/** The catalogue's description of industry_benchmark's sp_result. */
export const INDUSTRY_BENCHMARK_FIELDS: readonly FieldDoc[] = [
  {
    key: 'industry',
    label: '所属行业',
    unit: '个',
    formula:
      'code、name、level（group 中类 / division 大类 / section 门类 / all 未知）与 basis（取自 enterprise_info 的哪一字段）；按 GB/T 4754-2017 解析',
    inputs: [],
  },
  {
    key: 'size_class',
    label: '企业规模',
    unit: '个',
    formula:
      'value（large/medium/small/micro，无法判断为空）、label 与 basis：按《统计上大中小微型企业划分办法（2017）》的行业标准，由从业人员、营业收入（及资产总额）判断；缺少时依 is_sme',
    inputs: ['income.revenue', 'balance.total_assets'],
  },
  {
    key: 'rows[].value',
    label: '企业指标值',
    unit: '个',
    formula:
      '评分卡各财务因子（及基准集覆盖的其他指标）在报告最新年度的取值，单位同该指标；每行含 indicator、label、unit、better（higher/lower/null）',
    inputs: [],
  },
  {
    key: 'rows[].benchmarks[]',
    label: '行业基准',
    unit: '个',
    formula:
      '每个覆盖该指标的基准集一条：set_id、set_name、source、edition、data_year、year_gap、industry_code、industry_name、level、size_class、fallback（退档说明）、kind（bands/quantiles/mean）及 bands、quantiles、n、mean、note；position = { label, bar（0最差–100最好）, worst }',
    inputs: [],
    note: '匹配：大类 → 门类 → 全行业，规模 → 全部规模，数据年度取与报表年度最近者；见 docs/benchmarks.md。',
  },
  {
    key: 'rows[].peers',
    label: '同业分布',
    unit: '个',
    formula:
      '本账户（同一模式）同行业、同年度其他企业最新一份成功报告的该指标分布：n、minimum、quantiles（P10/P25/P50/P75/P90，n 小于 minimum 时为空）、position；不列示任何单个企业',
    inputs: [],
  },
  {
    key: 'sets_used[]',
    label: '所用基准集',
    unit: '个',
    formula:
      '各行所列基准集：set_id、set_name、edition、data_year（报告生成时记录，之后加载的新版本不改变已生成的报告）',
    inputs: [],
  },
];
