/**
 * Matching (docs/benchmarks.md "Matching"), pure: the enterprise's industry from enterprise_info, its size class
 * by the NBS 2017 thresholds, and for each indicator the most specific figure of each set — 中类 → 大类 → 门类 →
 * all industries, the exact size class → all sizes, and among the editions of one set (same name) the data year
 * closest to the report's.
 */
import type {
  BenchmarkFigure,
  IndustryLevel,
  IndustryResolution,
  MatchedBenchmark,
  PeerDistribution,
  SizeClass,
} from '../../worker/engine/benchmark.ts';
import type { ValidationWarning } from '../../worker/normalise.ts';
import type { EnterpriseInfo, NormalisedReport } from '../../worker/types.ts';
import {
  divisionByName,
  industryName,
  type ParsedIndustryCode,
  parseIndustryCode,
  sectionByName,
} from './gbt4754.ts';
import { classifySize } from './sizeClass.ts';
import type { BenchmarkSet, SetRow } from './types.ts';

export interface ResolvedIndustry {
  code: ParsedIndustryCode | null;
  resolution: IndustryResolution;
  warnings: ValidationWarning[];
}

const UNKNOWN: IndustryResolution = {
  code: null,
  name: null,
  level: 'all',
  basis: '未提供可识别的行业（代码或 GB/T 4754-2017 名称）',
};

/**
 * The enterprise's industry: industry_division_code, else industry_sector_code, else a 大类 or 门类 name of the
 * GB/T 4754-2017 list. A code that is present and malformed or unknown gives a warning (never a rejection).
 */
export function resolveIndustry(info: EnterpriseInfo | null | undefined): ResolvedIndustry {
  const warnings: ValidationWarning[] = [];
  const fromCode = (field: 'industry_division_code' | 'industry_sector_code') => {
    const raw = info?.[field]?.trim();
    if (!raw) return null;
    const code = parseIndustryCode(raw);
    if (!code)
      warnings.push({
        code: 'industry_code_unknown',
        path: `enterprise_info.${field}`,
        message: `"${raw}" is not a GB/T 4754-2017 code (a 门类 letter such as C, a 大类 such as C38 or 38): industry benchmarking falls back to coarser levels`,
      });
    return code;
  };
  const division = fromCode('industry_division_code');
  const sector = fromCode('industry_sector_code');
  const describe = (code: ParsedIndustryCode, basis: string): ResolvedIndustry => ({
    code,
    resolution: { code: code.canonical, name: industryName(code), level: code.level, basis },
    warnings,
  });
  if (division)
    return describe(division, `enterprise_info.industry_division_code（${info?.industry_division_code}）`);
  if (sector)
    return describe(sector, `enterprise_info.industry_sector_code（${info?.industry_sector_code}）`);
  const byName = info?.industry_division ? divisionByName(info.industry_division) : null;
  if (byName)
    return describe(
      parseIndustryCode(`${byName.section}${byName.code}`)!,
      `enterprise_info.industry_division（${byName.name}）`,
    );
  const section = info?.industry_sector ? sectionByName(info.industry_sector) : null;
  if (section)
    return describe(
      parseIndustryCode(section)!,
      `enterprise_info.industry_sector（${info?.industry_sector}）`,
    );
  return { code: null, resolution: UNKNOWN, warnings };
}

/** The codes a figure may be found at for this industry, most specific first, `all` last. */
export function industryChain(code: ParsedIndustryCode | null): { code: string; level: IndustryLevel }[] {
  const chain: { code: string; level: IndustryLevel }[] = [];
  if (code?.group) chain.push({ code: `${code.section}${code.group}`, level: 'group' });
  if (code?.division) chain.push({ code: `${code.section}${code.division}`, level: 'division' });
  if (code) chain.push({ code: code.section, level: 'section' });
  chain.push({ code: 'all', level: 'all' });
  return chain;
}

/** 万元 from a yuan decimal string (null when absent). */
const wan = (amount: string | undefined) => (amount === undefined ? null : Number(amount) / 10000);

/** The size class by the 2017 thresholds of the industry, else from is_sme, else unknown; with its basis. */
export function sizeClassOf(
  report: Pick<NormalisedReport, 'enterpriseInfo' | 'years'>,
  code: ParsedIndustryCode | null,
): { value: SizeClass | null; basis: string } {
  const latest = report.years.at(-1);
  const employees = report.enterpriseInfo?.employee_count?.trim();
  const X = employees && /^\d+(\.\d+)?$/.test(employees) ? Number(employees) : null;
  let reason = '行业未知，无法按行业标准判断';
  if (code) {
    const byRule = classifySize(code, {
      X,
      Y: wan(latest?.sheets.income?.revenue?.current),
      Z: wan(latest?.sheets.balance?.total_assets?.current),
    });
    if (byRule.value) return byRule;
    reason = byRule.basis;
  }
  const sme = report.enterpriseInfo?.is_sme;
  if (sme === 0) return { value: 'large', basis: `${reason}；依 is_sme = 0（非中小微企业）取大型` };
  if (sme === 1)
    return { value: null, basis: `${reason}；is_sme = 1（中小微企业）未指明档位，采用全部规模的基准` };
  return { value: null, basis: `${reason}；采用全部规模的基准` };
}

const LEVEL_RANK: Readonly<Record<IndustryLevel, number>> = { group: 0, division: 1, section: 2, all: 3 };

function figureOf(set: BenchmarkSet, row: SetRow, level: IndustryLevel, reportYear: number): BenchmarkFigure {
  const parsed = row.industry_code === 'all' ? null : parseIndustryCode(row.industry_code);
  return {
    set_id: set.id,
    set_name: set.name,
    source: set.source,
    edition: set.edition,
    data_year: set.data_year,
    year_gap: set.data_year === null ? null : Math.abs(reportYear - set.data_year),
    industry_code: row.industry_code,
    industry_name: row.industry_label ?? (parsed ? industryName(parsed) : '全行业'),
    level,
    size_class: row.size_class,
    bands: row.bands,
    quantiles: row.quantiles,
    n: row.n,
    mean: row.mean,
    note: row.note,
  };
}

/** The best row of one set for one indicator: most specific industry, then the exact size class over `all`. */
function bestRow(
  set: BenchmarkSet,
  rows: readonly SetRow[],
  chain: readonly { code: string; level: IndustryLevel }[],
  size: SizeClass | null,
  reportYear: number,
): BenchmarkFigure | null {
  for (const link of chain) {
    const atLevel = rows.filter((r) => r.industry_code === link.code);
    const row =
      atLevel.find((r) => size !== null && r.size_class === size) ??
      atLevel.find((r) => r.size_class === 'all');
    if (row) return figureOf(set, row, link.level, reportYear);
  }
  return null;
}

/** Closest data year first (a set without one last), the later year on a tie. */
const byYear = (a: BenchmarkFigure, b: BenchmarkFigure) =>
  (a.year_gap ?? Number.POSITIVE_INFINITY) - (b.year_gap ?? Number.POSITIVE_INFINITY) ||
  (b.data_year ?? 0) - (a.data_year ?? 0);

/**
 * The matched benchmark of a report. `sets` come loaded first, built-in last (setsForIndustry); per indicator the
 * figures are ordered most specific industry first, a loaded set before a built-in one at the same level.
 */
export function matchBenchmark(
  report: Pick<NormalisedReport, 'enterpriseInfo' | 'years'>,
  industry: ResolvedIndustry,
  sets: readonly BenchmarkSet[],
  peers: Record<string, PeerDistribution> | null,
): MatchedBenchmark {
  const reportYear = report.years.at(-1)?.year ?? 0;
  const size = sizeClassOf(report, industry.code);
  const chain = industryChain(industry.code);
  // indicator → set name → the figure of the edition closest in year.
  const chosen = new Map<string, Map<string, BenchmarkFigure>>();
  for (const set of sets) {
    const byIndicator = Map.groupBy(set.rows, (r) => r.indicator);
    for (const [indicator, rows] of byIndicator) {
      const figure = bestRow(set, rows, chain, size.value, reportYear);
      if (!figure) continue;
      const editions = chosen.get(indicator) ?? new Map<string, BenchmarkFigure>();
      chosen.set(indicator, editions);
      const current = editions.get(set.name);
      if (
        !current ||
        LEVEL_RANK[figure.level] < LEVEL_RANK[current.level] ||
        (figure.level === current.level && byYear(figure, current) < 0)
      )
        editions.set(set.name, figure);
    }
  }
  const figures: Record<string, BenchmarkFigure[]> = {};
  for (const [indicator, editions] of [...chosen].sort(([a], [b]) => a.localeCompare(b)))
    figures[indicator] = [...editions.values()].sort((a, b) => LEVEL_RANK[a.level] - LEVEL_RANK[b.level]);
  return { industry: industry.resolution, size_class: size, report_year: reportYear, figures, peers };
}
