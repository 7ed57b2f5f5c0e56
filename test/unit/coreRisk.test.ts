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
import type { AnalysisOutput, RiskItem, RiskLevel } from '../../worker/types.ts';
import { loadFixture, toReport } from '../helpers/engineFixtures.ts';

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

  it('empty input: zero counts, empty groups, no released year, no risk items', () => {
    expect(buildCoreRiskInsight([], labelOf)).toEqual({
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
      },
      risk_items: [],
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
