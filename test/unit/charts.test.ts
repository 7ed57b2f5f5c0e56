/**
 * The share page's chart option builders and formatting, without a browser: pure functions from numbers to
 * ECharts options.
 */
import { describe, expect, it } from 'vitest';
import { barRows, buildHorizontalBarOption, labelPosition } from '../../web/src/charts/bars.ts';
import { buildPieOption, pieSlices } from '../../web/src/charts/pie.ts';
import { legendRows, niceBound, paddedExtent } from '../../web/src/charts/theme.ts';
import { buildTrendOption } from '../../web/src/charts/trend.ts';
import { buildWaterfallOption, waterfallBars, waterfallStacks } from '../../web/src/charts/waterfall.ts';
import { formatDateTime, formatNumber, formatValue, formatWithUnit } from '../../web/src/lib/format.ts';

// biome-ignore lint/suspicious/noExplicitAny: options are inspected structurally
type Loose = any;

describe('formatting', () => {
  it('writes numbers with thousands separators and two decimals, missing ones as —', () => {
    expect(formatNumber(1234567.891)).toBe('1,234,567.89');
    expect(formatNumber(-2208.2)).toBe('-2,208.20');
    expect(formatNumber(0)).toBe('0.00');
    expect(formatNumber(null)).toBe('—');
    expect(formatNumber(undefined)).toBe('—');
    expect(formatNumber(Number.NaN)).toBe('—');
    expect(formatNumber(12, '个')).toBe('12');
  });

  it('attaches units the way a Chinese report writes them', () => {
    expect(formatWithUnit(23.356, '%')).toBe('23.36%');
    expect(formatWithUnit(11715.65, '万元')).toBe('11,715.65 万元');
    expect(formatWithUnit(1.5, '倍')).toBe('1.50 倍');
    expect(formatWithUnit(null, '%')).toBe('—');
  });

  it('translates coded text values and flags', () => {
    expect(formatValue('distress')).toBe('困境区');
    expect(formatValue('z_double_prime')).toBe('Z″（非制造业）');
    expect(formatValue(true)).toBe('是');
    expect(formatValue('')).toBe('—');
    expect(formatValue({})).toBe('—');
  });

  it('shows times in Beijing time', () => {
    expect(formatDateTime('2026-11-21T05:59:06.567Z')).toBe('2026-11-21 13:59');
    expect(formatDateTime(null)).toBe('—');
  });
});

describe('trend charts', () => {
  it('draws lines per series over the years, with missing values as gaps', () => {
    const option: Loose = buildTrendOption({
      categories: ['2022', '2023', '2024'],
      series: [
        { name: '营业收入', type: 'line', data: [100, null, 120] },
        { name: '净利润', type: 'line', data: [10, 12, 9] },
      ],
      unit: '万元',
    });
    expect(option.xAxis.data).toEqual(['2022', '2023', '2024']);
    expect(option.series.map((s: Loose) => s.type)).toEqual(['line', 'line']);
    expect(option.series[0].data).toEqual([100, null, 120]);
    expect(option.series[0].connectNulls).toBe(false);
    expect(option.legend.show).toBe(true);
    expect(option.tooltip.valueFormatter(1234.5)).toBe('1,234.50 万元');
  });

  it('stacks bars that share a stack name and leaves room for a wrapping legend', () => {
    const names = ['流动资产合计', '非流动资产合计', '流动负债合计', '非流动负债合计', '所有者权益合计'];
    const option: Loose = buildTrendOption({
      categories: ['2023', '2024'],
      series: names.map((name, i) => ({
        name,
        type: 'bar',
        stack: i < 2 ? 'assets' : 'funding',
        data: [1, 2],
      })),
      unit: '万元',
    });
    expect(option.series.map((s: Loose) => s.stack)).toEqual([
      'assets',
      'assets',
      'funding',
      'funding',
      'funding',
    ]);
    expect(option.xAxis.boundaryGap).toBe(true);
    expect(legendRows(names)).toBeGreaterThan(1);
    expect(option.grid.top).toBeGreaterThanOrEqual(legendRows(names) * 22);
  });
});

describe('horizontal bars (change rates, effects, scores)', () => {
  it('leaves out missing values, colours by sign and puts labels where they fit', () => {
    const items = [
      { name: '货币资金', value: 45.75 },
      { name: '存货', value: -7.32 },
      { name: '研发费用', value: null },
    ];
    expect(barRows(items).map((r) => r.name)).toEqual(['货币资金', '存货']);
    const option: Loose = buildHorizontalBarOption({ items, unit: '%' });
    expect(option.yAxis.data).toEqual(['货币资金', '存货']);
    const [up, down] = option.series[0].data;
    expect(up.itemStyle.color).not.toBe(down.itemStyle.color);
    expect(up.label.position).toBe('insideRight');
    expect(down.label.position).toBe('left');
    expect(down.label.formatter()).toBe('-7.32%');
    // Room beyond the bars on both sides, at round numbers.
    expect(option.xAxis.min({ min: -7.32, max: 45.75 })).toBeLessThan(-7.32 - 10);
    expect(option.xAxis.max({ min: -7.32, max: 45.75 })).toBeGreaterThan(45.75);
  });

  it('fixes the axis at 0–100 for scores', () => {
    const option: Loose = buildHorizontalBarOption({
      items: [{ name: '综合评分', value: 62.5 }],
      unit: '%',
      max: 100,
    });
    expect([option.xAxis.min, option.xAxis.max]).toEqual([0, 100]);
  });

  it('labels short bars beyond their tip, away from zero', () => {
    expect(labelPosition(5, [5, 50])).toBe('right');
    expect(labelPosition(-5, [-5, 50])).toBe('left');
    expect(labelPosition(-40, [-40, 10])).toBe('insideLeft');
  });

  it('rounds axis ends away from zero', () => {
    expect(niceBound(15230)).toBe(16000);
    expect(niceBound(-23.1)).toBe(-25);
    expect(niceBound(0)).toBe(0);
    expect(paddedExtent(0, 100)).toEqual({ min: 0, max: 150 });
    expect(paddedExtent(-10, 0)).toEqual({ min: -15, max: 0 });
  });
});

describe('structure rings', () => {
  it('shows positive parts, largest first, folding the tail into 其他', () => {
    const items = Array.from({ length: 10 }, (_, i) => ({ name: `项目${i}`, value: (i + 1) * 10 }));
    const { slices, omitted } = pieSlices(
      [...items, { name: '差额', value: -5 }, { name: '空', value: null }],
      8,
    );
    expect(slices).toHaveLength(8);
    expect(slices[0]).toEqual({ name: '项目9', value: 100 });
    expect(slices[7]).toEqual({ name: '其他', value: 10 + 20 + 30 });
    expect(omitted).toEqual(['差额', '空']);
    const option: Loose = buildPieOption({ items, unit: '万元' });
    expect(option.series[0].type).toBe('pie');
    expect(option.tooltip.formatter({ name: '<b>货币资金</b>', value: 5701.63, percent: 32.55 })).toBe(
      '&#60;b&#62;货币资金&#60;/b&#62;<br/>5,701.63 万元（32.55%）',
    );
  });
});

describe('profit waterfall', () => {
  const steps = [
    { name: '营业收入', value: 11715.65, total: true },
    { name: '营业成本', value: -6967.56, total: false },
    { name: '毛利润', value: 4748.09, total: true },
    { name: '费用及其他损益', value: -2208.21, total: false },
    { name: '营业利润', value: 2539.88, total: true },
  ];

  it('floats each adjustment from the level the previous step left', () => {
    const bars = waterfallBars(steps);
    expect(bars.map((b) => b.kind)).toEqual(['total', 'decrease', 'total', 'decrease', 'total']);
    expect(bars[1]).toMatchObject({ low: 4748.09, high: 11715.65 });
    expect(bars[3]!.low).toBeCloseTo(2539.88, 2);
    expect(bars[3]!.high).toBeCloseTo(4748.09, 2);
    const stacks = waterfallStacks(bars);
    expect(stacks[1]).toEqual({ base: 4748.09, up: 6967.56, down: null });
  });

  it('draws losses and steps across zero with the same stack', () => {
    const bars = waterfallBars([
      { name: '营业收入', value: 1000, total: true },
      { name: '成本', value: -1300, total: false },
      { name: '毛利润', value: -300, total: true },
      { name: '其他', value: -200, total: false },
      { name: '净利润', value: -500, total: true },
    ]);
    const stacks = waterfallStacks(bars);
    expect(stacks[1]).toEqual({ base: null, up: 1000, down: -300 }); // 1000 → −300 crosses zero
    expect(stacks[2]).toEqual({ base: 0, up: null, down: -300 });
    expect(stacks[3]).toEqual({ base: -300, up: null, down: -200 });
    expect(stacks[4]).toEqual({ base: 0, up: null, down: -500 });
  });

  it('is three stacked bar series with one label per step', () => {
    const option: Loose = buildWaterfallOption(steps, '万元');
    expect(option.series).toHaveLength(3);
    expect(new Set(option.series.map((s: Loose) => s.stack))).toEqual(new Set(['waterfall']));
    expect(option.series[0].itemStyle.color).toBe('transparent');
    const labels = option.series
      .slice(1)
      .flatMap((s: Loose) =>
        s.data.filter((d: Loose) => d.label?.show).map((d: Loose) => d.label.formatter()),
      );
    expect(labels).toEqual(['11,715.65', '-6,967.56', '4,748.09', '-2,208.21', '2,539.88']);
    expect(option.tooltip.formatter([{ dataIndex: 1 }])).toBe('营业成本：-6,967.56 万元');

    expect(option.yAxis.data).toEqual(steps.map((s) => s.name));
  });

  it('escapes the step names in its tooltip (ECharts renders it as HTML)', () => {
    const option: Loose = buildWaterfallOption(
      [{ name: '<img src=x onerror="alert(1)">&', value: 5, total: true }],
      '元',
    );
    const tooltip: string = option.tooltip.formatter([{ dataIndex: 0 }]);
    expect(tooltip).not.toContain('<');
    expect(tooltip).toBe('&#60;img src=x onerror=&#34;alert(1)&#34;&#62;&#38;：5.00 元');
  });
});
