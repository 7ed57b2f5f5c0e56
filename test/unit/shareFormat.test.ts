/**
 * The share page's display rule for amounts (web/src/lib/format.ts): 亿元 for large figures in cards and
 * sentences, thousands separators in risk texts, one minus sign; year columns newest first.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SharedAnalysisItem } from '../../web/src/api/types.ts';
import { chartForItem } from '../../web/src/charts/registry.ts';
import {
  formatAmount,
  formatChange,
  formatDateTime,
  formatFixed,
  formatNumbersInText,
  formatValue,
} from '../../web/src/lib/format.ts';
import { newestFirst } from '../../web/src/lib/report.ts';

describe('amounts a person reads', () => {
  it('gives an amount of 1 亿元 or more in 亿元, smaller ones in 万元', () => {
    expect(formatAmount(19_815_302.75, '万元')).toBe('1,981.53 亿元');
    expect(formatAmount(-12_540_071.53, '万元')).toBe('-1,254.01 亿元');
    expect(formatAmount(9_999.5, '万元')).toBe('9,999.50 万元');
    expect(formatAmount(1.25, '倍')).toBe('1.25 倍');
    expect(formatAmount(null, '万元')).toBe('—');
  });

  it('rewrites the numbers of a risk text: separators, 亿元, one minus sign; leaves years and codes alone', () => {
    expect(formatNumbersInText('2019年应收账款为12540071.53万元，较上年增长35.20%。')).toBe(
      '2019年应收账款为1,254.01 亿元，较上年增长35.20%。',
    );
    expect(formatNumbersInText('净利润为−3520.10万元')).toBe('净利润为-3,520.10 万元');
    expect(formatNumbersInText('员工人数123456，F1–F9 中 7 项通过，Z″ 为 1.2')).toBe(
      '员工人数123,456，F1–F9 中 7 项通过，Z″ 为 1.2',
    );
    expect(formatNumbersInText('每股收益为1.25元')).toBe('每股收益为1.25元');
    // Each number keeps its own decimals (none, one or two).
    expect(formatNumbersInText('增长3.5%，低于较差值−10%，存货周转12345.678次')).toBe(
      '增长3.5%，低于较差值-10%，存货周转12,345.68次',
    );
  });

  it('writes one minus sign (the hyphen-minus Intl uses) in changes', () => {
    expect(formatChange({ value: -2.5, as: 'pp' })).toBe('-2.50 个百分点');
    expect(formatChange({ value: -12, as: '%' })).toBe('-12.00%');
  });

  it('names the Altman models and zones in Chinese', () => {
    expect(formatValue('z_prime')).toBe('Z′（非上市制造业）');
    expect(formatValue('z_double_prime')).toBe('Z″（非制造业）');
    expect(formatValue('grey')).toBe('灰色区');
  });

  it('orders year columns newest first', () => {
    expect(newestFirst([2016, 2019, 2017, 2018])).toEqual([2019, 2018, 2017, 2016]);
  });
});

describe('资产负债规模 chart', () => {
  it('draws the totals as the two bars a year its caption promises when a filing has no subtotals', () => {
    const field = (key: string, label: string) => ({ key, label, unit: '万元' });
    const item = {
      slug: 'reporting_period_balance_sheet',
      label: '资产负债规模',
      section: 'enterprise_overview',
      kind: 'indicator',
      fields: [
        field('total_current_assets', '流动资产合计'),
        field('total_noncurrent_assets', '非流动资产合计'),
        field('total_assets', '资产总计'),
        field('total_current_liabilities', '流动负债合计'),
        field('total_noncurrent_liabilities', '非流动负债合计'),
        field('total_liabilities', '负债合计'),
        field('total_shareholders_equity', '所有者权益合计'),
      ],
      sp_result: {
        released_year: 2019,
        series: [2018, 2019].map((year) => ({
          year,
          total_current_assets: null,
          total_noncurrent_assets: null,
          total_assets: 100 * year,
          total_current_liabilities: null,
          total_noncurrent_liabilities: null,
          total_liabilities: 60 * year,
          total_shareholders_equity: 40 * year,
        })),
      },
      risk_items: [],
      ai_content: null,
    } as unknown as SharedAnalysisItem;
    const chart = chartForItem(item)!;
    expect(chart.caption).toContain('左柱为资产');
    const series = (chart.option.series as Array<{ name: string; stack: string }>).map((s) => [
      s.name,
      s.stack,
    ]);
    expect(series).toEqual([
      ['资产总计', 'assets'],
      ['负债合计', 'funding'],
      ['所有者权益合计', 'funding'],
    ]);
  });
});

describe('formatting without Intl, as Intl writes it', () => {
  const intl = (min: number, max: number) =>
    new Intl.NumberFormat('zh-CN', { minimumFractionDigits: min, maximumFractionDigits: max });
  const decimals = [
    [0, 0],
    [1, 1],
    [2, 2],
    [0, 2],
  ] as const;

  it('writes every number as zh-CN Intl.NumberFormat does (groups, rounding, minus, trailing zeros)', () => {
    const formatters = decimals.map(([min, max]) => ({ min, max, intl: intl(min, max) }));
    const numbers = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e16, max: 1e16 }),
      // Halves and near-halves at the rounding digit, where the rounding rule shows.
      fc.integer({ min: -10_000_000, max: 10_000_000 }).map((n) => n / 1000),
      fc.integer({ min: -100_000, max: 100_000 }).map((n) => n / 200),
      fc.constantFrom(0, -0, 0.005, -0.005, 1.005, 2.675, -2.675, 999.995, 1e20, -1e20, 1e21, 123456789.125),
    );
    fc.assert(
      fc.property(numbers, (value) => {
        for (const f of formatters) expect(formatFixed(value, f.min, f.max)).toBe(f.intl.format(value));
      }),
      { numRuns: 5000 },
    );
  });

  it('writes Beijing time as Intl with Asia/Shanghai does', () => {
    const beijing = new Intl.DateTimeFormat('zh-CN', {
      timeZone: 'Asia/Shanghai',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    const viaIntl = (date: Date) => {
      const parts = Object.fromEntries(beijing.formatToParts(date).map((part) => [part.type, part.value]));
      return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
    };
    // From 1992 (China has kept UTC+8 without daylight saving since 1991) to 2100.
    const dates = fc.date({
      min: new Date('1992-01-01T00:00:00Z'),
      max: new Date('2100-01-01T00:00:00Z'),
      noInvalidDate: true,
    });
    fc.assert(
      fc.property(dates, (date) => {
        expect(formatDateTime(date.toISOString())).toBe(viaIntl(date));
      }),
      { numRuns: 2000 },
    );
    expect(formatDateTime('2026-11-21T05:59:30Z')).toBe('2026-11-21 13:59');
    expect(formatDateTime('2026-12-31T16:00:00Z')).toBe('2027-01-01 00:00');
    expect(formatDateTime('not a date')).toBe('—');
  });
});
