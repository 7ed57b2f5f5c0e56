/**
 * The share page's reading rules, without a browser: separate axes for series of different magnitude, pie
 * labels kept inside a phone-wide canvas, changes against the prior year ("n.m." where a rate means
 * nothing), and the core insight's verdict, real risks, data gaps and strengths (contract 1).
 */
import { describe, expect, it } from 'vitest';
import type { SharedAnalysisItem, SharedReport } from '../../web/src/api/types.ts';
import { buildPieOption } from '../../web/src/charts/pie.ts';
import { buildTrendOption, secondAxisSeries } from '../../web/src/charts/trend.ts';
import { formatChange } from '../../web/src/lib/format.ts';
import { changeOf, coreInsight, yearsOf } from '../../web/src/lib/report.ts';

// biome-ignore lint/suspicious/noExplicitAny: options are inspected structurally
type Loose = any;

describe('trend charts', () => {
  it('puts a series ten times smaller than the largest on a right-hand axis', () => {
    const series = [
      { name: '营业收入', type: 'line' as const, data: [48000, 52000] },
      { name: '营业外收入', type: 'line' as const, data: [112, 20] },
    ];
    expect([...secondAxisSeries(series)]).toEqual(['营业外收入']);
    const option = buildTrendOption({ categories: ['2023', '2024'], series, unit: '万元' }) as Loose;
    expect(option.yAxis).toHaveLength(2);
    expect(option.series.map((s: Loose) => [s.name, s.yAxisIndex])).toEqual([
      ['营业收入', 0],
      ['营业外收入（右轴）', 1],
    ]);
  });

  it('keeps series of one magnitude, and stacked series, on one axis', () => {
    const near = [
      { name: 'a', type: 'line' as const, data: [10, 12] },
      { name: 'b', type: 'line' as const, data: [3, 4] },
    ];
    expect(secondAxisSeries(near).size).toBe(0);
    const stacked = [
      { name: 'a', type: 'bar' as const, stack: 't', data: [1000, 1200] },
      { name: 'b', type: 'bar' as const, stack: 't', data: [3, 4] },
    ];
    expect(secondAxisSeries(stacked).size).toBe(0);
    expect(
      Array.isArray((buildTrendOption({ categories: ['1', '2'], series: near, unit: '%' }) as Loose).yAxis),
    ).toBe(false);
  });
});

describe('pie labels', () => {
  it('align to the canvas edges and wrap, so a phone never cuts a name', () => {
    const option = buildPieOption({
      items: [
        { name: '流动资产合计', value: 60 },
        { name: '非流动资产合计', value: 40 },
      ],
      unit: '万元',
    }) as Loose;
    const label = option.series[0].label;
    expect(label.alignTo).toBe('edge');
    expect(label.edgeDistance).toBeGreaterThan(0);
    expect(label.overflow).toBe('break');
  });
});

describe('change against the prior year', () => {
  it('is a rate for amounts, points for percentages, n.m. on a zero, tiny or other-signed base', () => {
    expect(formatChange(changeOf('operating_revenue', '万元', 110, 100))).toBe('+10.00%');
    expect(formatChange(changeOf('gross_margin', '%', 20, 22.5))).toBe('-2.50 个百分点');
    expect(formatChange(changeOf('current_ratio', '倍', 1.5, 1.2))).toBe('+0.30');
    expect(changeOf('net_profit', '万元', 50, -100)).toEqual({ value: null, as: '%', reason: 'sign_change' });
    expect(changeOf('net_profit', '万元', 50, 0)).toEqual({ value: null, as: '%', reason: 'zero_base' });
    // 34,687.72 % growth on a near-zero base is not a growth rate anyone should read.
    expect(formatChange(changeOf('investment_income', '万元', 3469.77, 10))).toBe('n.m.');
    expect(changeOf('revenue_change_rate', '%', 5, 3)).toBeNull();
    expect(formatChange(changeOf('operating_revenue', '万元', null, 3))).toBe('—');
  });
});

const item = (slug: string, extra: Partial<SharedAnalysisItem>): SharedAnalysisItem => ({
  slug,
  label: slug,
  section: 'income',
  kind: 'indicator',
  fields: [],
  sp_result: {},
  risk_items: [],
  ai_content: null,
  cached_at: null,
  ...extra,
});

const report = (items: SharedAnalysisItem[]): SharedReport =>
  ({ name: 'x', years: [2022, 2023, 2024], items, sections: [] }) as unknown as SharedReport;

describe('core insight', () => {
  const gap = { level: 'info' as const, code: 'eps_fluctuations.not_available', message: '未提交每股收益' };
  const strong = { level: 'info' as const, code: 'distress_signals.piotroski_f_high', message: 'F值9分' };
  const real = { level: 'danger' as const, code: 'income_statement.mismatch', message: '不一致' };

  it('reads the verdict, data gaps and strengths of contract 1, counting only real risks', () => {
    const insight = coreInsight(
      report([
        item('core_risk_insight', {
          section: 'core_risk',
          sp_result: {
            verdict: { grade: 'B', label: '较低风险', score: 78.5, drivers: [] },
            data_gaps: [{ code: gap.code, message: gap.message, disables: ['eps_fluctuations'] }],
            strengths: [{ slug: 'distress_signals', code: strong.code, message: strong.message }],
            top_risks: [{ slug: 'income_statement', label: '利润表', ...real }],
          },
        }),
        item('eps_fluctuations', { risk_items: [gap] }),
        item('distress_signals', { risk_items: [strong] }),
        item('income_statement', { risk_items: [real] }),
      ]),
    );
    expect(insight.verdict?.grade).toBe('B');
    expect(insight.counts).toMatchObject({ danger: 1, warning: 0, info: 0, total: 1 });
    expect(insight.dataGaps.map((g) => g.code)).toEqual([gap.code]);
    expect(insight.strengths.map((s) => s.code)).toEqual([strong.code]);
    expect(insight.topRisks.map((r) => r.code)).toEqual([real.code]);
  });

  it('takes *.not_available notes of an older report as data gaps, without a verdict', () => {
    const insight = coreInsight(
      report([
        item('core_risk_insight', { section: 'core_risk', sp_result: {} }),
        item('eps_fluctuations', { risk_items: [gap] }),
        item('income_statement', { risk_items: [real] }),
      ]),
    );
    expect(insight.verdict).toBeNull();
    expect(insight.dataGaps).toHaveLength(1);
    expect(insight.counts.total).toBe(1);
    expect(insight.topRisks.map((r) => r.code)).toEqual([real.code]);
  });

  it('lists every year of an item, oldest first', () => {
    const it1 = item('revenue', {
      sp_result: { released_year: 2024, series: [{ year: 2024 }, { year: 2022 }, { year: 2023 }] },
    });
    expect(yearsOf(it1)).toEqual([2022, 2023, 2024]);
  });
});
