/**
 * The industry benchmark a report is computed against: plain data, matched by the server (server/benchmarks/)
 * from the loaded benchmark sets and the account's peers, and handed to the engine with the statements. The
 * engine never reads a database: it only reads this.
 */

/** How specific a benchmark figure's industry is: GB/T 4754-2017 中类, 大类, 门类, or all industries. */
export type IndustryLevel = 'group' | 'division' | 'section' | 'all';

export const INDUSTRY_LEVEL_LABELS: Readonly<Record<IndustryLevel, string>> = {
  group: '中类',
  division: '大类',
  section: '门类',
  all: '全行业',
};

/** Size classes of 统计上大中小微型企业划分办法（2017）, and `all` for a figure over every size. */
export const SIZE_CLASSES = ['all', 'large', 'medium', 'small', 'micro'] as const;
export type SizeClass = (typeof SIZE_CLASSES)[number];

export const SIZE_CLASS_LABELS: Readonly<Record<SizeClass, string>> = {
  all: '全部规模',
  large: '大型',
  medium: '中型',
  small: '小型',
  micro: '微型',
};

/** The five standard values, best first: 优秀, 良好, 平均, 较低, 较差. */
export type Bands = readonly [number, number, number, number, number];
export const BAND_LABELS = ['优秀', '良好', '平均', '较低', '较差'] as const;

export interface Quantiles {
  p10: number;
  p25: number;
  p50: number;
  p75: number;
  p90: number;
}

/** One benchmark figure for one indicator, from one set, at the most specific industry and size that set has. */
export interface BenchmarkFigure {
  set_id: string;
  set_name: string;
  source: string;
  edition: string;
  /** The year the figures describe; null when the publisher does not state it. */
  data_year: number | null;
  /** |report year − data year|; null when data_year is. */
  year_gap: number | null;
  /** `C38`, `C`, … or `all`. */
  industry_code: string;
  industry_name: string;
  level: IndustryLevel;
  size_class: SizeClass;
  bands: Bands | null;
  quantiles: Quantiles | null;
  n: number | null;
  mean: number | null;
  /** Where this figure comes from when it is narrower than the set's source (e.g. one NBS release). */
  note: string | null;
}

/** The account's own peers for one indicator: the same industry and year, other enterprises only. */
export interface PeerDistribution {
  industry_code: string;
  year: number;
  /** Peers with a value. */
  n: number;
  /** Below this n the distribution is withheld (BENCHMARK_PEER_MIN). */
  minimum: number;
  /** Null while n < minimum. */
  quantiles: Quantiles | null;
}

export interface IndustryResolution {
  /** The most specific code resolved (`C38`, `C`), null when none. */
  code: string | null;
  name: string | null;
  level: IndustryLevel;
  /** Which enterprise_info field it came from, in words. */
  basis: string;
}

export interface MatchedBenchmark {
  industry: IndustryResolution;
  size_class: { value: SizeClass | null; basis: string };
  /** The report's latest year: benchmark data years are compared with it. */
  report_year: number;
  /** `<slug>.<key>` → one figure per set that covers it, most specific first (see server/benchmarks/match.ts). */
  figures: Record<string, BenchmarkFigure[]>;
  /** `<slug>.<key>` → the peers' distribution; null when the industry is unknown. */
  peers: Record<string, PeerDistribution> | null;
}

/** What the verdict scored one factor against. */
export interface FactorBenchmark {
  slug: string;
  key: string;
  set_id: string | null;
  set_name: string;
  edition: string | null;
  data_year: number | null;
  industry_code: string;
  level: IndustryLevel;
}

/**
 * The bands the verdict scores a factor with: those of the first loaded figure with bands for an industry (大类,
 * 中类 or 门类 — never an all-industry one) that covers the factor, else the all-industry defaults. Pure.
 */
export function selectBands(
  factor: { slug: string; key: string },
  defaults: { bands: Bands; name: string },
  benchmark: MatchedBenchmark | null | undefined,
): { bands: Bands; benchmark: FactorBenchmark } {
  const figure = benchmark?.figures[`${factor.slug}.${factor.key}`]?.find(
    (f) => f.bands !== null && f.level !== 'all',
  );
  if (!figure?.bands)
    return {
      bands: defaults.bands,
      benchmark: {
        slug: factor.slug,
        key: factor.key,
        set_id: null,
        set_name: defaults.name,
        edition: null,
        data_year: null,
        industry_code: 'all',
        level: 'all',
      },
    };
  return {
    bands: figure.bands,
    benchmark: {
      slug: factor.slug,
      key: factor.key,
      set_id: figure.set_id,
      set_name: figure.set_name,
      edition: figure.edition,
      data_year: figure.data_year,
      industry_code: figure.industry_code,
      level: figure.level,
    },
  };
}
