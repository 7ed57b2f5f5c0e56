/**
 * The verdict on real filings (test/fixtures/real) and the backtest harness (test/backtest): data quality beside
 * the score, coverage, history, no runaway growth rate, and the ranking metrics.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateSubmission } from '../../schema/submission.ts';
import { ANALYSIS_SLUGS, assembleReportItems, computeAnalysis } from '../../worker/engine/registry.ts';
import { normaliseSubmission } from '../../worker/normalise.ts';
import type { AnalysisOutput } from '../../worker/types.ts';
import { auc, formatBacktest, ks, misranked, runBacktest, scoreBody } from '../backtest/backtest.ts';
import { makeReport } from '../helpers/engineFixtures.ts';

type Body = {
  years_data: { year: number; sheets: { sheet_type: string; items: Record<string, string>[] }[] }[];
  [key: string]: unknown;
};

const BACKTEST_DIR = fileURLToPath(new URL('../fixtures/backtest/', import.meta.url));

const load = (path: string): Body =>
  JSON.parse(readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8')) as Body;

function analyse(body: unknown): AnalysisOutput[] {
  const validation = validateSubmission(body);
  if (!validation.ok) throw new Error('invalid body');
  return assembleReportItems(computeAnalysis(normaliseSubmission(validation.value).report, ANALYSIS_SLUGS));
}

/** BYD FY2016–19 with the transcription error the issue found: 2018 net_increase_cash = the closing cash. */
function bydWithError(): Body {
  const body = structuredClone(load('real/byd-2016-2019.json'));
  const cashFlow = body.years_data
    .find((y) => y.year === 2018)!
    .sheets.find((s) => s.sheet_type === 'cash_flow')!;
  cashFlow.items.push({ item_name: 'net_increase_cash', current_year_amount: '11151057000' });
  return body;
}

describe('verdict on real filings', () => {
  it('one transcription error changes data_quality and makes the verdict provisional, never the score', () => {
    const clean = scoreBody(load('real/byd-2016-2019.json'));
    const broken = scoreBody(bydWithError());
    expect(clean).toMatchObject({ data_quality: 'reliable', provisional: false });
    expect(broken).toMatchObject({ data_quality: 'unreliable', provisional: true });
    expect(broken.score).toBe(clean.score);
    expect(broken.grade).toBe(clean.grade);
    const core = analyse(bydWithError())[0]!;
    const verdict = core.sp_result.verdict as {
      status: string;
      data_quality: { issues: { slug: string; code: string; year: number; level: string }[] };
    };
    expect(verdict.status).toBe('数据存疑，评级待核实');
    // The wrong net increase breaks the cash flow statement's own arithmetic in 2018.
    expect(verdict.data_quality.issues[0]).toMatchObject({
      slug: 'statement_arithmetic',
      code: 'statement_arithmetic.subtotal_mismatch',
      year: 2018,
      level: 'danger',
    });
  });

  it('on a distressed filing too: a mistyped subtotal moves data_quality only, and correcting it moves it back', () => {
    // 鞍钢 FY2013–14 as transcribed is reliable; a typing slip in the 2014 operating cash inflow subtotal (one digit
    // more: 65,234,000,000 → 652,340,000,000) breaks the statement's arithmetic but no scorecard input.
    const clean = load('real/angang-2013-2014.json');
    const broken = structuredClone(clean);
    const inflow = broken.years_data
      .find((y) => y.year === 2014)!
      .sheets.find((s) => s.sheet_type === 'cash_flow')!
      .items.find((i) => i.item_name === 'op_cash_in_total')!;
    expect(inflow.current_year_amount).toBe('65234000000');
    inflow.current_year_amount = '652340000000';
    const before = scoreBody(clean);
    const after = scoreBody(broken);
    expect(before.data_quality).toBe('reliable');
    expect(after.data_quality).toBe('unreliable');
    expect(after.score).toBe(before.score);
    expect(after.grade).toBe(before.grade);
    inflow.current_year_amount = '65234000000';
    expect(scoreBody(broken)).toEqual(before);
  });

  it('coverage names the missing subtotals, and they are data gaps (Gree: no current subtotals transcribed)', () => {
    const core = analyse(load('real/gree-2016-2019.json'))[0]!;
    const verdict = core.sp_result.verdict as {
      coverage: { weight_share: number; missing: { key: string; requires: string }[] };
    };
    expect(verdict.coverage.weight_share).toBe(60);
    expect(verdict.coverage.missing.map((m) => m.key)).toEqual([
      'interest_coverage',
      'quick_ratio',
      'cash_flow_liability_ratio',
      'altman_headline_score',
    ]);
    const gaps = (core.sp_result.data_gaps as { code: string; message: string }[]).map((g) => g.code);
    expect(gaps).toEqual(
      expect.arrayContaining(['scorecard.quick_ratio', 'scorecard.altman_headline_score']),
    );
  });

  it('history grades every year that has its prior year; the latest equals the headline', () => {
    const core = analyse(load('real/gree-2016-2019.json'))[0]!;
    const verdict = core.sp_result.verdict as { score: number; history: { year: number; score: number }[] };
    expect(verdict.history.map((h) => h.year)).toEqual([2017, 2018, 2019]);
    expect(verdict.history.at(-1)!.score).toBe(verdict.score);
  });

  it('term deposits of cash-rich filings are information, not a warning (CAS 31)', () => {
    for (const name of ['gree-2016-2019', 'moutai-2022-2024']) {
      const items = analyse(load(`real/${name}.json`)).slice(1);
      const cash = items
        .flatMap((i) => i.risk_items)
        .filter((r) => r.code === 'comparative.non_equivalent_cash_high');
      for (const r of cash) expect(r.level, name).toBe('info');
    }
  });

  it('no growth rate beyond the materiality rule: no five-digit percentage in any item, key or year', () => {
    const bodies = [
      'real/gree-2016-2019.json',
      'real/byd-2016-2019.json',
      'real/moutai-2022-2024.json',
      'general_new-3y.json',
      'general_old-5y-ai.json',
      'general_new-4y-inconsistent.json',
    ];
    const rates: [string, string, number][] = [];
    const walk = (slug: string, value: unknown, key = '') => {
      if (Array.isArray(value)) for (const v of value) walk(slug, v, key);
      else if (value && typeof value === 'object')
        for (const [k, v] of Object.entries(value)) walk(slug, v, k);
      else if (typeof value === 'number' && /change_rate|growth_rate/.test(key))
        rates.push([slug, key, value]);
    };
    for (const b of bodies) for (const item of analyse(load(b))) walk(item.slug, item.sp_result);
    expect(rates.length).toBeGreaterThan(100);
    expect(rates.filter(([, , v]) => Math.abs(v) >= 10_000)).toEqual([]);
  });

  it('a tiny investing net flow in the prior year gives n.m., not −26,518 %', () => {
    // Prior net investing −100 yuan on revenue 10 million (0.001 %), now −26.4 million.
    const report = makeReport({
      2023: { income: { revenue: '10000000.00' }, cash_flow: { net_cf_investing: '-100.00' } },
      2024: { income: { revenue: '12000000.00' }, cash_flow: { net_cf_investing: '-26418160.00' } },
    });
    const [item] = computeAnalysis(report, ['investing_activities']);
    expect(item!.sp_result).toMatchObject({
      net_cash_flow_change_rate: null,
      null_reasons: { net_cash_flow_change_rate: 'tiny_base' },
    });
  });
});

describe('every year judged', () => {
  it('negative equity in a middle year is a danger of that year; a debt ratio above 100 % is not raised again', () => {
    const report = makeReport({
      2022: {
        balance: {
          total_assets: '1000000.00',
          total_liabilities: '600000.00',
          total_shareholders_equity: '400000.00',
        },
      },
      2023: {
        balance: {
          total_assets: '900000.00',
          total_liabilities: '950000.00',
          total_shareholders_equity: '-50000.00',
        },
      },
      2024: {
        balance: {
          total_assets: '1000000.00',
          total_liabilities: '650000.00',
          total_shareholders_equity: '350000.00',
        },
      },
    });
    const [item] = computeAnalysis(report, ['long_term_liability']);
    expect(item!.risk_items).toEqual([
      {
        level: 'danger',
        code: 'long_term_liability.negative_equity',
        message: '2023年末所有者权益合计为-5.00万元，为负数，企业已资不抵债。',
      },
    ]);
  });
});

describe('backtest harness', () => {
  it('AUC and KS: 1 when every healthy filing scores above every distressed one, 0.5/0 when mixed evenly', () => {
    const separated = [
      { label: 'healthy' as const, score: 80 },
      { label: 'healthy' as const, score: 70 },
      { label: 'distressed' as const, score: 40 },
      { label: 'distressed' as const, score: 30 },
    ];
    expect(auc(separated)).toBe(1);
    expect(ks(separated)).toBe(1);
    const mixed = [
      { label: 'healthy' as const, score: 50 },
      { label: 'distressed' as const, score: 50 },
    ];
    expect(auc(mixed)).toBe(0.5);
    expect(ks(mixed)).toBe(0);
    expect(auc(separated.slice(0, 2))).toBeNull();
  });

  it('scores every labelled filing of the folder with grade, score, coverage and data quality', () => {
    const rows = runBacktest(BACKTEST_DIR);
    expect(rows.map((r) => r.name).sort()).toEqual([
      'angang-2013-2014',
      'byd-2016-2019',
      'cscec-2014-2016',
      'datang-2013-2015',
      'gree-2016-2019',
      'huaneng-2006-2007',
      'huaxiaxingfu-2017-2019',
      'kangmei-2014-2016',
      'moutai-2022-2024',
      'yunnanbaiyao-2014-2016',
    ]);
    expect(
      rows
        .filter((r) => r.label === 'distressed')
        .map((r) => r.name)
        .sort(),
    ).toEqual([
      'angang-2013-2014',
      'datang-2013-2015',
      'huaneng-2006-2007',
      'huaxiaxingfu-2017-2019',
      'kangmei-2014-2016',
    ]);
    // Data quality is a property of the transcription, not of the label. 康美, 华夏幸福, 华能 and 中国建筑 print
    // 发行债券收到的现金, which their bodies leave out: an unsubmitted line of the group explains their financing
    // inflow subtotal (a data gap, not a break). 大唐's figures are whole 万元, so subtotals 1万元 off are rounding.
    // 中国建筑's financing outflow subtotal exceeds its submitted lines by up to 24.8亿元 (0.26 % of revenue) with
    // no line left to explain it: questionable.
    const quality = Object.fromEntries(rows.map((r) => [r.name, r.data_quality]));
    expect(quality).toEqual({
      'angang-2013-2014': 'reliable',
      'byd-2016-2019': 'reliable',
      'cscec-2014-2016': 'questionable',
      'datang-2013-2015': 'reliable',
      'gree-2016-2019': 'reliable',
      'huaneng-2006-2007': 'reliable',
      'huaxiaxingfu-2017-2019': 'reliable',
      'kangmei-2014-2016': 'reliable',
      'moutai-2022-2024': 'reliable',
      'yunnanbaiyao-2014-2016': 'reliable',
    });
    for (const r of rows) expect(r.coverage).toBeGreaterThan(0);
    expect(rows.map((r) => r.score)).toEqual([...rows.map((r) => r.score)].sort((a, b) => b - a));
    expect(formatBacktest(rows)).toContain('| 1 | moutai-2022-2024 |');
  });

  it('misranked: the pairs where a distressed filing scores at or above a healthy one', () => {
    const rows = [
      { name: 'h1', label: 'healthy' as const, score: 80 },
      { name: 'h2', label: 'healthy' as const, score: 50 },
      { name: 'd1', label: 'distressed' as const, score: 60 },
      { name: 'd2', label: 'distressed' as const, score: 40 },
    ];
    expect(misranked(rows)).toEqual([{ distressed: 'd1', healthy: 'h2' }]);
    expect(misranked(rows.filter((r) => r.name !== 'd1'))).toEqual([]);
    expect(misranked([...rows, { name: 'd3', label: 'distressed' as const, score: 80 }])).toContainEqual({
      distressed: 'd3',
      healthy: 'h1',
    });
  });

  // The issue's evidence criterion — every distressed filing below every healthy one — does NOT hold on the real
  // folder today: 康美药业's FY2014–16 statements as published (cash later found fabricated) score A 75.07, above
  // Gree, 中国建筑 and BYD, and 华能国际's FY2006–07 (loss in 2008 from a fuel-cost shock) B 67.03, above 中国建筑 and
  // BYD (docs/verdict.md, "Evidence"). It stays open in the issue rather than being asserted false here or met by
  // tuning the model to these filings. What the suite holds the model to meanwhile: the ranking does not get worse
  // than it is on this folder (AUC 0.80, KS 0.60, the misranked pairs only those two filings').
  it('ranks the real folder no worse than today: AUC ≥ 0.80, KS ≥ 0.60, misranking confined to 康美 and 华能', () => {
    const rows = runBacktest(BACKTEST_DIR);
    expect(auc(rows)).toBeGreaterThanOrEqual(0.8);
    expect(ks(rows)).toBeGreaterThanOrEqual(0.6);
    const offenders = new Set(misranked(rows).map((pair) => pair.distressed));
    expect([...offenders].every((name) => /^(kangmei|huaneng)-/.test(name))).toBe(true);
  });
});
