/** 核心风险洞察: aggregation of every module's risk items, on crafted outputs. */
import { describe, expect, it } from 'vitest';
import { createContext } from '../../worker/engine/context.ts';
import {
  buildCoreRiskInsight,
  CORE_RISK_FIELDS,
  CORE_RISK_SLUG,
  CORE_RISK_TOP_N,
} from '../../worker/engine/coreRisk.ts';
import { CHECK_MODULES, SIGNAL_MODULES } from '../../worker/engine/modules/checks/index.ts';
import { ANALYSIS_SLUGS, assembleReportItems, computeAnalysis } from '../../worker/engine/registry.ts';
import { buildVerdict, SCORECARD_FACTORS } from '../../worker/engine/verdict.ts';
import type { AnalysisOutput, RiskItem, RiskLevel } from '../../worker/types.ts';
import { loadFixture, makeReport, toReport, type YearInput } from '../helpers/engineFixtures.ts';

const LABELS: Record<string, string> = {
  revenue: '营业收入分析',
  short_term_liability: '短期偿债能力分析',
  balance_sheet: '资产负债表数据核对',
  comparative: '报表勾稽核对',
};
const labelOf = (slug: string) => LABELS[slug] ?? `标签:${slug}`;

const item = (level: RiskLevel, code: string, message = `${code} 的说明`): RiskItem => ({
  level,
  code,
  message,
});
const output = (slug: string, risk_items: RiskItem[], released_year: unknown = 2024): AnalysisOutput => ({
  slug,
  sp_result: { released_year },
  risk_items,
});

describe('buildCoreRiskInsight', () => {
  const outputs: AnalysisOutput[] = [
    output('revenue', [item('info', 'revenue.a'), item('warning', 'revenue.b')]),
    output('short_term_liability', []),
    output('balance_sheet', [item('danger', 'balance_sheet.a'), item('info', 'balance_sheet.b')]),
    output('comparative', [item('warning', 'comparative.a'), item('danger', 'comparative.b')]),
  ];

  it('groups by module in the given order, with counts per level overall and per module', () => {
    const { slug, sp_result } = buildCoreRiskInsight(outputs, labelOf);
    expect(slug).toBe(CORE_RISK_SLUG);
    expect(sp_result).toMatchObject({
      released_year: 2024,
      total_count: 6,
      danger_count: 2,
      warning_count: 2,
      info_count: 2,
      highest_level: 'danger',
    });
    expect(sp_result.modules).toEqual([
      {
        slug: 'revenue',
        label: '营业收入分析',
        total_count: 2,
        danger_count: 0,
        warning_count: 1,
        info_count: 1,
        risk_items: outputs[0]!.risk_items,
      },
      {
        slug: 'short_term_liability',
        label: '短期偿债能力分析',
        total_count: 0,
        danger_count: 0,
        warning_count: 0,
        info_count: 0,
        risk_items: [],
      },
      {
        slug: 'balance_sheet',
        label: '资产负债表数据核对',
        total_count: 2,
        danger_count: 1,
        warning_count: 0,
        info_count: 1,
        risk_items: outputs[2]!.risk_items,
      },
      {
        slug: 'comparative',
        label: '报表勾稽核对',
        total_count: 2,
        danger_count: 1,
        warning_count: 1,
        info_count: 0,
        risk_items: outputs[3]!.risk_items,
      },
    ]);
  });

  it('orders top risks danger → warning → info, ties in module order then the module’s own order', () => {
    const { sp_result, risk_items } = buildCoreRiskInsight(outputs, labelOf);
    const top = sp_result.top_risks as { slug: string; code: string; level: string; label: string }[];
    expect(top.map((t) => t.code)).toEqual([
      'balance_sheet.a',
      'comparative.b',
      'revenue.b',
      'comparative.a',
      'revenue.a',
      'balance_sheet.b',
    ]);
    expect(top[0]).toEqual({
      slug: 'balance_sheet',
      label: '资产负债表数据核对',
      level: 'danger',
      code: 'balance_sheet.a',
      message: 'balance_sheet.a 的说明',
    });
    // Its own risk items are the top risks, prefixed with the module label, keeping the rule's code.
    expect(risk_items[0]).toEqual({
      level: 'danger',
      code: 'balance_sheet.a',
      message: '【资产负债表数据核对】balance_sheet.a 的说明',
    });
    expect(risk_items.map((i) => i.code)).toEqual(top.map((t) => t.code));
  });

  it(`keeps at most ${CORE_RISK_TOP_N} top risks, the most severe ones`, () => {
    const many = [
      output(
        'revenue',
        Array.from({ length: 8 }, (_, i) => item('info', `revenue.i${i}`)),
      ),
      output(
        'comparative',
        Array.from({ length: 6 }, (_, i) => item(i % 2 === 0 ? 'warning' : 'danger', `comparative.x${i}`)),
      ),
    ];
    const { sp_result, risk_items } = buildCoreRiskInsight(many, labelOf);
    const top = sp_result.top_risks as { code: string; level: string }[];
    expect(sp_result.total_count).toBe(14);
    expect(top).toHaveLength(10);
    expect(risk_items).toHaveLength(10);
    expect(top.map((t) => t.code)).toEqual([
      'comparative.x1',
      'comparative.x3',
      'comparative.x5',
      'comparative.x0',
      'comparative.x2',
      'comparative.x4',
      'revenue.i0',
      'revenue.i1',
      'revenue.i2',
      'revenue.i3',
    ]);
  });

  it('empty input: zero counts, empty groups, no released year, no risk items; every factor is a data gap and the verdict is provisional', () => {
    const core = buildCoreRiskInsight([], labelOf);
    expect(core).toMatchObject({
      slug: 'core_risk_insight',
      sp_result: {
        released_year: null,
        total_count: 0,
        danger_count: 0,
        warning_count: 0,
        info_count: 0,
        highest_level: null,
        modules: [],
        top_risks: [],
        strengths: [],
      },
      risk_items: [],
    });
    const gaps = core.sp_result.data_gaps as { code: string; message: string; disables: string[] }[];
    expect(gaps.map((g) => g.code)).toEqual(SCORECARD_FACTORS.map((f) => `scorecard.${f.key}`));
    expect(gaps.find((g) => g.code === 'scorecard.quick_ratio')).toEqual({
      code: 'scorecard.quick_ratio',
      message: '评分卡因子“速动比率”（权重9）未计分：提交流动资产合计、存货、流动负债合计。',
      disables: ['core_risk_insight'],
    });
    expect(core.sp_result.verdict).toMatchObject({
      provisional: true,
      status: '数据不足，评级仅供参考',
      coverage: { weight_share: 0, threshold: 60 },
      data_quality: { level: 'reliable', issues: [] },
      history: [],
    });
  });

  it('modules without risks: zero counts, highest level null, released year from the first output that has one', () => {
    const { sp_result, risk_items } = buildCoreRiskInsight(
      [output('revenue', [], null), output('comparative', [], 2019)],
      labelOf,
    );
    expect(sp_result).toMatchObject({
      released_year: 2019,
      total_count: 0,
      highest_level: null,
      top_risks: [],
    });
    expect((sp_result.modules as unknown[]).length).toBe(2);
    expect(risk_items).toEqual([]);
  });

  it('ignores a previous core-risk output, fills a missing code, and leaves its input untouched', () => {
    const input = [
      output('revenue', [{ level: 'warning', message: '没有代码的风险' }]),
      output(CORE_RISK_SLUG, [item('danger', 'revenue.x')]),
    ];
    const before = structuredClone(input);
    const { sp_result, risk_items } = buildCoreRiskInsight(input, labelOf);
    expect(sp_result).toMatchObject({ total_count: 1, danger_count: 0, highest_level: 'warning' });
    expect((sp_result.modules as { slug: string }[]).map((m) => m.slug)).toEqual(['revenue']);
    expect((sp_result.top_risks as { code: unknown }[])[0]?.code).toBeNull();
    expect(risk_items).toEqual([
      { level: 'warning', code: 'revenue.unspecified', message: '【营业收入分析】没有代码的风险' },
    ]);
    expect(input).toEqual(before);
  });

  it('aggregates real module outputs into plain JSON (the inconsistent fixture)', () => {
    const ctx = createContext(toReport(loadFixture('general_new-4y-inconsistent')));
    const outs = [...CHECK_MODULES, ...SIGNAL_MODULES].map((m) => ({ slug: m.slug, ...m.compute(ctx) }));
    const labels = new Map([...CHECK_MODULES, ...SIGNAL_MODULES].map((m) => [m.slug, m.label]));
    const core = buildCoreRiskInsight(outs, (slug) => labels.get(slug)!);
    expect(core.sp_result).toMatchObject({ released_year: 2024, danger_count: 1 });
    expect(core.risk_items[0]).toMatchObject({
      level: 'danger',
      code: 'income_statement.prior_column_mismatch',
      message: expect.stringMatching(/^【利润表数据核对】2024年利润表“营业收入”上年金额为12250\.05万元/),
    });
    expect(JSON.parse(JSON.stringify(core))).toEqual(core);
  });
});

describe('CORE_RISK_FIELDS', () => {
  it('documents every top-level count key with a Chinese label', () => {
    const keys = CORE_RISK_FIELDS.map((f) => f.key);
    for (const key of ['total_count', 'danger_count', 'warning_count', 'info_count', 'highest_level']) {
      expect(keys).toContain(key);
    }
    for (const field of CORE_RISK_FIELDS) {
      expect(field.label).toMatch(/[\u4e00-\u9fff]/);
      expect(field.formula.length).toBeGreaterThan(0);
    }
  });
});

// ————————————————————————————————————————————————————————————————————————————————————————————————
// risks, data notes and strengths apart; the verdict

const w = (wan: number) => (wan * 10_000).toFixed(2);

/** A full report through the engine: every item, core_risk_insight first. */
const fullReport = (years: Record<number, YearInput>, info: Record<string, string> | null = null) =>
  assembleReportItems(computeAnalysis(makeReport(years, { info }), ANALYSIS_SLUGS));

/** A sound two-year company: modest leverage, good returns, cash backing, no inconsistencies. */
function soundYears(scale = 1): Record<number, YearInput> {
  const y = (k: number) => w(k * scale);
  const year = (ta: number, tl: number, rev: number, np: number, prior: [number, number, number]) => ({
    income: {
      revenue: [y(rev), y(prior[0])],
      operating_cost: [y(rev * 0.6), y(prior[0] * 0.6)],
      interest_expense: [y(5), y(5)],
      total_profit: [y(np * 1.25), y(prior[1] * 1.25)],
      net_profit: [y(np), y(prior[1])],
    } as Record<string, [string, string]>,
    balance: {
      total_current_assets: [y(ta * 0.6), y(prior[2] * 0.6)],
      inventory: [y(ta * 0.1), y(prior[2] * 0.1)],
      total_current_liabilities: [y(tl * 0.8), y(tl * 0.8)],
      total_assets: [y(ta), y(prior[2])],
      total_liabilities: [y(tl), y(tl)],
      total_shareholders_equity: [y(ta - tl), y(prior[2] - tl)],
      retained_earnings: [y((ta - tl) * 0.5), y((prior[2] - tl) * 0.5)],
    } as Record<string, [string, string]>,
    cash_flow: { net_cf_operating: [y(np * 1.6), y(prior[1] * 1.6)] } as Record<string, [string, string]>,
  });
  return {
    2023: year(1000, 400, 1000, 100, [900, 90, 950]),
    2024: year(1100, 400, 1150, 120, [1000, 100, 1000]),
  };
}

describe('risks, data gaps and strengths apart', () => {
  it('a missing cash flow statement is one data gap naming what it disables, never a risk or a count', () => {
    const years = soundYears();
    for (const y of Object.values(years)) delete y.cash_flow;
    const [core, ...items] = fullReport(years);
    const sp = core!.sp_result;
    const codes = items.flatMap((i) => i.risk_items.map((r) => r.code));
    expect(codes.filter((c) => /not_submitted|cash_flow_missing|not_available/.test(c ?? ''))).toEqual([]);
    expect(sp.total_count).toBe(items.reduce((n, i) => n + i.risk_items.length, 0));
    const gaps = sp.data_gaps as { code: string; message: string; disables: string[] }[];
    const cash = gaps.find((g) => g.code === 'cash_flow_statement')!;
    expect(cash.message).toContain('未提交现金流量表');
    expect(cash.disables).toEqual(
      expect.arrayContaining([
        'operating_activities',
        'investing_activities',
        'financing_activities',
        'cash_flow',
        'comparative',
      ]),
    );
    expect(gaps.filter((g) => g.code === 'cash_flow_statement')).toHaveLength(1);
  });

  it('a high F-score and an Altman safe zone are strengths, not risks', () => {
    const [core, ...items] = assembleReportItems(
      computeAnalysis(toReport(loadFixture('general_old-5y-ai')), ANALYSIS_SLUGS),
    );
    const codes = items.flatMap((i) => i.risk_items.map((r) => r.code));
    expect(codes).not.toContain('distress_signals.piotroski_f_high');
    expect(codes).not.toContain('distress_signals.altman_safe');
    const strengths = core!.sp_result.strengths as { slug: string; code: string; message: string }[];
    expect(strengths.map((s) => s.code)).toEqual([
      'distress_signals.altman_safe',
      'distress_signals.piotroski_f_high',
    ]);
    expect(strengths[1]).toMatchObject({
      slug: 'distress_signals',
      message: expect.stringContaining('Piotroski F值为9分'),
    });
    expect(core!.sp_result.info_count).toBe(0);
  });
});

describe('verdict', () => {
  it('every scorecard weight adds up to 100 and every factor names an output key', () => {
    expect(SCORECARD_FACTORS.reduce((s, f) => s + f.weight, 0)).toBe(100);
  });

  it('a sound company: grade A, score = 50 + Σ effects, 3–5 drivers by |effect|', () => {
    const [core] = fullReport(soundYears(), { industry_sector_code: 'C' });
    const verdict = core!.sp_result.verdict as {
      grade: string;
      label: string;
      score: number;
      drivers: { slug: string; key: string; label: string; value: number | null; effect: number }[];
    };
    const scorecard = core!.sp_result.scorecard as { effect: number; score: number | null }[];
    expect(verdict.grade).toBe('A');
    expect(verdict.label).toBe('低风险');
    expect(verdict.score).toBeGreaterThanOrEqual(75);
    expect(verdict.score).toBeCloseTo(50 + scorecard.reduce((s, e) => s + e.effect, 0), 1);
    expect(verdict.drivers.length).toBeGreaterThanOrEqual(3);
    expect(verdict.drivers.length).toBeLessThanOrEqual(5);
    const effects = verdict.drivers.map((d) => Math.abs(d.effect));
    expect(effects).toEqual([...effects].sort((a, b) => b - a));
    for (const d of verdict.drivers) expect(d.label).toMatch(/[\u4e00-\u9fff]/);
    expect(verdict.drivers.find((d) => d.key === 'debt_to_asset_ratio')).toMatchObject({
      slug: 'long_term_liability',
      value: 36.36,
    });
  });

  it('a distressed company: loss, heavy debt, cash outflow → grade E, drivers negative', () => {
    const years = soundYears();
    const y24 = years[2024]!;
    y24.income!.net_profit = [w(-150), w(100)];
    y24.income!.total_profit = [w(-150), w(125)];
    y24.balance!.total_liabilities = [w(1050), w(400)];
    y24.balance!.total_current_liabilities = [w(900), w(320)];
    y24.balance!.total_shareholders_equity = [w(50), w(600)];
    y24.balance!.retained_earnings = [w(-300), w(300)];
    y24.cash_flow!.net_cf_operating = [w(-200), w(160)];
    const [core] = fullReport(years, { industry_sector_code: 'C' });
    const verdict = core!.sp_result.verdict as {
      grade: string;
      label: string;
      score: number;
      drivers: { effect: number }[];
    };
    expect(verdict.grade).toBe('E');
    expect(verdict.label).toBe('高风险');
    expect(verdict.score).toBeLessThan(30);
    for (const d of verdict.drivers.slice(0, 3)) expect(d.effect).toBeLessThan(0);
  });

  it('a broken filing changes data_quality and makes the verdict provisional, never the score', () => {
    const years = soundYears();
    // 2024 opens with 100万元 more inventory than 2023 closed with: ≥ 5% of total assets → danger.
    years[2024]!.balance!.inventory = [w(110), w(100 + 100)];
    const clean = fullReport(soundYears())[0]!.sp_result;
    const broken = fullReport(years)[0]!.sp_result;
    const cleanVerdict = clean.verdict as Record<string, unknown>;
    const brokenVerdict = broken.verdict as Record<string, unknown>;
    expect(cleanVerdict).toMatchObject({
      provisional: false,
      status: null,
      data_quality: { level: 'reliable', issues: [] },
    });
    expect(brokenVerdict).toMatchObject({
      grade: cleanVerdict.grade,
      score: cleanVerdict.score,
      provisional: true,
      status: '数据存疑，评级待核实',
      data_quality: {
        level: 'unreliable',
        issues: [
          { slug: 'balance_sheet', code: 'balance_sheet.opening_mismatch', year: 2024, level: 'danger' },
        ],
      },
    });
    const reasons = brokenVerdict.provisional_reasons as { code: string; message: string }[];
    expect(reasons[0]!.code).toBe('data_quality');
    expect(reasons[0]!.message).toMatch(/^数据存疑，评级待核实：2024年.*存货/);
    // No scorecard row scores consistency: the two scorecards are the same row for row.
    expect(broken.scorecard).toEqual(clean.scorecard);
    expect((clean.scorecard as { key: string }[]).map((e) => e.key)).not.toContain('data_check_level');
  });

  it('coverage: the weight share scored and the factors left out with the lines that enable them', () => {
    const years = soundYears();
    for (const y of Object.values(years)) {
      delete y.balance!.total_current_assets;
      delete y.balance!.total_current_liabilities;
    }
    const verdict = fullReport(years)[0]!.sp_result.verdict as {
      coverage: { weight_share: number; missing: { key: string; requires: string }[] };
      provisional: boolean;
    };
    expect(verdict.coverage.missing.map((m) => m.key)).toEqual(
      expect.arrayContaining(['quick_ratio', 'cash_flow_liability_ratio', 'altman_headline_score']),
    );
    expect(verdict.coverage.missing.find((m) => m.key === 'quick_ratio')!.requires).toContain('流动资产合计');
    const scored = SCORECARD_FACTORS.filter((f) => !verdict.coverage.missing.some((m) => m.key === f.key));
    expect(verdict.coverage.weight_share).toBe(scored.reduce((s, f) => s + f.weight, 0));
    expect(verdict.provisional).toBe(verdict.coverage.weight_share < 60);
  });

  it('drivers carry value, unit and a one-line reason naming the band passed', () => {
    const [core] = fullReport(soundYears(), { industry_sector_code: 'C' });
    const drivers = (core!.sp_result.verdict as { drivers: Record<string, unknown>[] }).drivers;
    const debt = drivers.find((d) => d.key === 'debt_to_asset_ratio');
    // 400 / 1100 = 36.36 % ≤ 优秀值 48 %: score 100, effect = 13/Σweights × 50.
    expect(debt).toMatchObject({ value: 36.36, unit: '%' });
    expect(debt!.reason).toBe(`资产负债率36.36%，不高于优秀值48%：+${(debt!.effect as number).toFixed(2)}分`);
    for (const d of drivers) expect(d.reason).toMatch(/：[+-]?\d+\.\d{2}分$/);
  });

  it('history: a grade for each year that has its prior year; a fall of two grades is a risk of that year', () => {
    const years: Record<number, YearInput> = { 2022: soundYears()[2023]!, ...soundYears() };
    years[2022] = structuredClone(soundYears()[2023]!);
    const y24 = years[2024]!;
    y24.income!.net_profit = [w(-150), w(120)];
    y24.income!.total_profit = [w(-150), w(150)];
    y24.balance!.total_liabilities = [w(1050), w(400)];
    y24.balance!.total_shareholders_equity = [w(50), w(700)];
    y24.cash_flow!.net_cf_operating = [w(-200), w(192)];
    const [core, ...items] = fullReport(years);
    const verdict = core!.sp_result.verdict as {
      history: { year: number; grade: string; score: number }[];
      score: number;
    };
    expect(verdict.history.map((h) => h.year)).toEqual([2023, 2024]);
    expect(verdict.history.at(-1)!.score).toBe(verdict.score);
    expect(verdict.history[0]!.grade).toBe('A');
    expect(verdict.history[1]!.grade).toBe('E');
    // The verdict's own risk (A → E), beside its history.
    const { risks } = buildVerdict(items);
    expect((core!.sp_result.verdict as { history_risks: unknown[] }).history_risks).toEqual(risks);
    expect(risks).toEqual([
      {
        level: 'warning',
        code: 'core_risk_insight.grade_fall',
        message: `2024年评级由2023年的A级（${verdict.history[0]!.score}分）降至E级（${verdict.history[1]!.score}分），下降4级，财务状况明显恶化。`,
      },
    ]);
  });
});
