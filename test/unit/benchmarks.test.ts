/**
 * Benchmark matching and judgement without a database: GB/T 4754-2017 codes, the NBS 2017 size classes, the
 * fallbacks (大类 → 门类 → all, size → all, closest data year), CSV validation, the verdict's band selection and
 * industry_benchmark's risk rule on the real filings.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type SubmissionInput, validateSubmission } from '../../schema/submission.ts';
import { BUILTIN_SETS } from '../../server/benchmarks/builtinSets.ts';
import { readBenchmarkCsv } from '../../server/benchmarks/csv.ts';
import { GBT4754_DIVISIONS, GBT4754_SECTIONS, parseIndustryCode } from '../../server/benchmarks/gbt4754.ts';
import { matchBenchmark, resolveIndustry } from '../../server/benchmarks/match.ts';
import { classifySize } from '../../server/benchmarks/sizeClass.ts';
import type { BenchmarkSet, SetRow } from '../../server/benchmarks/types.ts';
import { ValidationError } from '../../server/errors.ts';
import { computeItems, withCoreRiskInsight } from '../../worker/computed.ts';
import type { MatchedBenchmark } from '../../worker/engine/benchmark.ts';
import { ANALYSIS_SLUGS } from '../../worker/engine/registry.ts';
import { parseUtf8Json } from '../../worker/jsonBytes.ts';
import { normaliseSubmission } from '../../worker/normalise.ts';
import type { NormalisedReport } from '../../worker/types.ts';

const HEADER =
  'industry_code,size_class,indicator,excellent,good,average,low,poor,p10,p25,p50,p75,p90,n,mean';

function set(id: string, rows: Partial<SetRow>[], meta: Partial<BenchmarkSet> = {}): BenchmarkSet {
  return {
    id,
    name: id,
    source: 'test',
    edition: '1',
    data_year: 2023,
    licence: null,
    builtin: false,
    loaded_at: null,
    retired_at: null,
    ...meta,
    rows: rows.map((r, i) => ({
      line: i + 2,
      industry_code: 'all',
      size_class: 'all',
      indicator: 'long_term_liability.debt_to_asset_ratio',
      bands: null,
      quantiles: null,
      n: null,
      mean: null,
      note: null,
      ...r,
    })),
  };
}

const report = (info: NormalisedReport['enterpriseInfo'], revenueYuan = '500000000'): NormalisedReport => ({
  enterpriseName: 'x',
  standard: 'general_new',
  enterpriseInfo: info,
  years: [
    {
      year: 2024,
      sheets: {
        income: { revenue: { current: revenueYuan, previous: null } },
        balance: { total_assets: { current: '900000000', previous: null } },
      },
    },
  ],
});

describe('GB/T 4754-2017', () => {
  it('ships all 20 门类 and 97 大类', () => {
    expect(Object.keys(GBT4754_SECTIONS)).toHaveLength(20);
    expect(GBT4754_DIVISIONS.size).toBe(97);
    expect(GBT4754_DIVISIONS.get('65')).toMatchObject({ section: 'I', name: '软件和信息技术服务业' });
  });

  it('reads letters, 大类, 中类 and 小类 codes and refuses what the standard does not have', () => {
    expect(parseIndustryCode('38')?.canonical).toBe('C38');
    expect(parseIndustryCode('c3811')).toMatchObject({ level: 'group', canonical: 'C381', division: '38' });
    expect(parseIndustryCode('F')?.level).toBe('section');
    expect(parseIndustryCode('B38')).toBeNull();
    expect(parseIndustryCode('C99')).toBeNull();
    expect(parseIndustryCode('制造业')).toBeNull();
  });
});

describe('size class (统计上大中小微型企业划分办法 2017)', () => {
  const industry = parseIndustryCode('C36')!;
  it('needs every lower bound for 大/中/小, one miss drops a class', () => {
    expect(classifySize(industry, { X: 1200, Y: 50000 }).value).toBe('large');
    expect(classifySize(industry, { X: 1200, Y: 30000 }).value).toBe('medium');
    expect(classifySize(industry, { X: 10, Y: 30000 }).value).toBe('micro');
  });
  it('uses the industry’s own measures (建筑业: revenue and assets, no headcount)', () => {
    expect(classifySize(parseIndustryCode('E47')!, { Y: 90000, Z: 90000 }).value).toBe('large');
    expect(classifySize(parseIndustryCode('E47')!, { Y: 90000 }).value).toBeNull();
  });
  it('falls back to is_sme, else to all sizes, saying so', () => {
    const noHeadcount = matchBenchmark(
      report({ industry_division_code: 'C36', is_sme: 0 }),
      resolveIndustry({ industry_division_code: 'C36' }),
      [],
      null,
    );
    expect(noHeadcount.size_class.value).toBe('large');
    expect(noHeadcount.size_class.basis).toContain('is_sme = 0');
    const unknown = matchBenchmark(
      report({ industry_division_code: 'C36' }),
      resolveIndustry({ industry_division_code: 'C36' }),
      [],
      null,
    );
    expect(unknown.size_class).toMatchObject({ value: null });
    expect(unknown.size_class.basis).toContain('全部规模');
  });
});

describe('matching', () => {
  const sets = [
    set('A', [
      { industry_code: 'C36', size_class: 'large', mean: 1 },
      { industry_code: 'C36', size_class: 'all', mean: 2 },
      { industry_code: 'C', mean: 3 },
      { mean: 4 },
    ]),
  ];
  const match = (info: NormalisedReport['enterpriseInfo']) =>
    matchBenchmark(
      report({ employee_count: '1500', ...info }, '5000000000'),
      resolveIndustry(info),
      sets,
      null,
    );

  it('takes the 大类 and the size class when the set has them', () => {
    const f = match({ industry_division_code: 'C36' }).figures[
      'long_term_liability.debt_to_asset_ratio'
    ]![0]!;
    expect(f).toMatchObject({ level: 'division', size_class: 'large', mean: 1 });
  });
  it('falls back to 门类 and then to all industries', () => {
    expect(
      match({ industry_division_code: 'C37' }).figures['long_term_liability.debt_to_asset_ratio']![0],
    ).toMatchObject({ level: 'section', industry_code: 'C', mean: 3 });
    expect(
      match({ industry_division_code: 'F51' }).figures['long_term_liability.debt_to_asset_ratio']![0],
    ).toMatchObject({ level: 'all', mean: 4 });
    expect(match(null).industry.level).toBe('all');
  });
  it('resolves a division name of the shipped list, and warns of a malformed code without rejecting it', () => {
    expect(resolveIndustry({ industry_division: '汽车制造业' }).resolution).toMatchObject({
      code: 'C36',
      level: 'division',
    });
    const resolved = resolveIndustry({ industry_division_code: '3X', industry_sector_code: 'C' });
    expect(resolved.resolution.code).toBe('C');
    expect(resolved.warnings).toEqual([
      expect.objectContaining({
        code: 'industry_code_unknown',
        path: 'enterprise_info.industry_division_code',
      }),
    ]);
  });
  it('takes the edition whose data year is closest to the report’s', () => {
    const editions = [2019, 2023, 2026].map((year) =>
      set(`E${year}`, [{ mean: year }], { name: 'series', data_year: year, edition: String(year) }),
    );
    const figures = matchBenchmark(report(null), resolveIndustry(null), editions, null).figures[
      'long_term_liability.debt_to_asset_ratio'
    ]!;
    expect(figures).toHaveLength(1);
    expect(figures[0]).toMatchObject({ data_year: 2023, year_gap: 1 });
  });
  it('ships only sourced NBS figures, at 门类 level for B, C and D', () => {
    const nbs = BUILTIN_SETS.filter((s) => s.id.startsWith('builtin-nbs'));
    expect(nbs.map((s) => s.data_year)).toEqual([2021, 2022, 2023]);
    for (const row of nbs.flatMap((s) => s.rows)) {
      expect(['B', 'C', 'D']).toContain(row.industry_code);
      expect(row.note).toMatch(/S\d/);
    }
  });
});

describe('benchmark CSV', () => {
  it('reads bands, quantiles with n and means', async () => {
    const rows = await readBenchmarkCsv(
      [
        HEADER,
        'C38,all,long_term_liability.debt_to_asset_ratio,40,50,60,68,75,,,,,,,',
        '38,large,profitability.roe,,,,,,1,2,3,4,5,12,',
        'all,micro,revenue_cost_alignment.cost_to_revenue_ratio,,,,,,,,,,,,82.3',
      ].join('\r\n'),
    );
    expect(rows.map((r) => [r.line, r.industry_code, r.size_class])).toEqual([
      [2, 'C38', 'all'],
      [3, 'C38', 'large'],
      [4, 'all', 'micro'],
    ]);
    expect(rows[1]!.quantiles).toEqual({ p10: 1, p25: 2, p50: 3, p75: 4, p90: 5 });
  });

  const problems = async (text: string) => {
    try {
      await readBenchmarkCsv(text);
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).errors!.map((e) => `${e.path}: ${e.message}`);
    }
    throw new Error('expected the file to be refused');
  };
  it('names the line and the reason of every broken row', async () => {
    const found = await problems(
      [
        HEADER,
        'C38,all,long_term_liability.debt_to_asset_ratio,40,50,,68,75,,,,,,,',
        'C38,all,profitability.roe,,,,,,5,4,3,2,1,9,',
        'C38,all,profitability.roe,,,,,,,,,,,,abc',
        'C38,all,profitability.roe,,,,,,,,,,,,',
        'C38,all,long_term_liability.debt_to_asset_ratio,40,50,60,68,75,,,,,,,',
        'C38,all,long_term_liability.debt_to_asset_ratio,40,50,60,68,75,,,,,,,',
      ].join('\n'),
    );
    expect(found).toEqual([
      'line 2.average: excellent, good, average, low, poor are filled together: average missing',
      'line 3.p10: quantiles out of order (5, 4, 3, 2, 1): p10 ≤ p25 ≤ p50 ≤ p75 ≤ p90',
      'line 4.mean: not a number: "abc"',
      'line 5.excellent: the row has no figures: fill the five bands, or p10–p90 with n, or mean',
      'line 7: repeats line 6 (C38, all, long_term_liability.debt_to_asset_ratio)',
    ]);
  });
  it('refuses a header without the documented columns, a ragged line and an empty file', async () => {
    expect(await problems('industry_code,size_class,indicator,mean\nC38,all,profitability.roe,1')).toEqual([
      'line 1: the header lacks excellent, good, average, low, poor, p10, p25, p50, p75, p90, n',
    ]);
    expect((await problems(`${HEADER}\nC38,all`))[0]).toMatch(/^line 2: not readable as CSV/);
    expect(await problems(HEADER)).toEqual(['file: no rows: the file has a header and no data line']);
  });
});

describe('industry_benchmark and the verdict on a real filing', () => {
  const raw = JSON.parse(
    readFileSync(new URL('../fixtures/real/byd-2016-2019.json', import.meta.url), 'utf8'),
  );
  const validation = validateSubmission(raw);
  if (!validation.ok) throw new Error('the BYD filing no longer validates');
  const byd = normaliseSubmission(validation.value as SubmissionInput).report;
  byd.enterpriseInfo = { ...byd.enterpriseInfo, industry_division_code: 'C36' };
  const computed = computeItems(JSON.stringify(byd), ANALYSIS_SLUGS);
  const run = (benchmark: MatchedBenchmark) => {
    const items = withCoreRiskInsight(computed, benchmark);
    const parse = (slug: string) => {
      const found = items.find((i) => i.slug === slug)!;
      // biome-ignore lint/suspicious/noExplicitAny: the test reads into the documents' nested keys.
      return { sp: parseUtf8Json<any>(found.spResultUtf8), risks: found.risk_items };
    };
    return { core: parse('core_risk_insight').sp, bench: parse('industry_benchmark') };
  };
  const industry = resolveIndustry(byd.enterpriseInfo);
  const builtIn = run(matchBenchmark(byd, industry, BUILTIN_SETS, null));

  it('changes the verdict when a set covers the division, naming it per factor', () => {
    const bands = set('C36 set', [{ industry_code: 'C36', bands: [45, 55, 62, 70, 78] }]);
    const withSet = run(matchBenchmark(byd, industry, [bands, ...BUILTIN_SETS], null));
    expect(withSet.core.verdict.score).toBeLessThan(builtIn.core.verdict.score);
    expect(
      withSet.core.verdict.benchmark.find((b: { key: string }) => b.key === 'debt_to_asset_ratio'),
    ).toMatchObject({ set_id: 'C36 set', level: 'division' });
    expect(builtIn.core.verdict.benchmark.every((b: { level: string }) => b.level === 'all')).toBe(true);
  });

  it('raises a risk only beyond an industry 较差 value by a material margin', () => {
    // BYD's 2019 debt ratio is 68%: 较差 at 66 misses by 2 of a 6-point band (material); at 67.9 by 0.1 (not).
    const material = run(
      matchBenchmark(
        byd,
        industry,
        [set('M', [{ industry_code: 'C36', bands: [40, 48, 54, 60, 66] }])],
        null,
      ),
    );
    expect(material.bench.risks).toEqual([
      expect.objectContaining({ code: 'industry_benchmark.worst_band', level: 'warning' }),
    ]);
    expect(material.bench.risks[0]!.message).toContain('2019年资产负债率为68%');
    const marginal = run(
      matchBenchmark(
        byd,
        industry,
        [set('N', [{ industry_code: 'C36', bands: [40, 48, 54, 60, 67.9] }])],
        null,
      ),
    );
    expect(marginal.bench.risks).toEqual([]);
    // The all-industry table never raises one: the verdict already scores against it.
    const allIndustry = run(
      matchBenchmark(byd, industry, [set('O', [{ bands: [40, 48, 54, 60, 66] }])], null),
    );
    expect(allIndustry.bench.risks).toEqual([]);
  });
});
