/** Multi-year charts: lines for trends, bars (grouped or stacked) for amounts and rates per year. */
import {
  axisLine,
  baseOption,
  COLORS,
  legend,
  legendHeight,
  splitLine,
  valueAxisLabel,
  valueFormatter,
} from './theme.ts';
import type { ChartOption, NamedSeries } from './types.ts';

export interface TrendSeries extends NamedSeries {
  type: 'line' | 'bar';
  /** Bars with the same stack name are stacked (positive up, negative down). */
  stack?: string;
}

export interface TrendInput {
  /** One category per year, e.g. `2023`. */
  categories: string[];
  series: TrendSeries[];
  /** The unit every series shares: 万元, %, 倍, 次… */
  unit: string;
}

/** Series whose largest value is less than a tenth of the largest series' go on a second axis. */
const MAGNITUDE_GAP = 10;

const peak = (s: NamedSeries) => Math.max(0, ...s.data.map((v) => (v === null ? 0 : Math.abs(v))));

/**
 * Which series go on the right-hand axis: those an order of magnitude smaller than the largest (so they do
 * not draw as flat lines at zero). Stacked series stay together on the left axis.
 */
export function secondAxisSeries(series: TrendSeries[]): Set<string> {
  if (series.some((s) => s.stack)) return new Set();
  const largest = Math.max(0, ...series.map(peak));
  if (largest === 0) return new Set();
  const small = series.filter((s) => peak(s) > 0 && peak(s) * MAGNITUDE_GAP < largest);
  return small.length > 0 && small.length < series.length ? new Set(small.map((s) => s.name)) : new Set();
}

export function buildTrendOption({ categories, series, unit }: TrendInput): ChartOption {
  const hasBars = series.some((s) => s.type === 'bar');
  const right = secondAxisSeries(series);
  const name = (s: TrendSeries) => (right.has(s.name) ? `${s.name}（右轴）` : s.name);
  return {
    ...baseOption(),
    legend: legend(series.length > 1),
    tooltip: {
      trigger: 'axis',
      confine: true,
      axisPointer: { type: hasBars ? 'shadow' : 'line' },
      valueFormatter: valueFormatter(unit),
    },
    grid: { left: 4, right: right.size > 0 ? 4 : 12, top: legendHeight(series.map(name)) + 12, bottom: 4 },
    xAxis: {
      type: 'category',
      data: categories,
      boundaryGap: hasBars,
      axisLine,
      axisTick: { show: false },
      axisLabel: { color: COLORS.muted, fontSize: 11 },
    },
    yAxis:
      right.size > 0
        ? [
            { type: 'value', axisLabel: valueAxisLabel(unit), splitLine },
            { type: 'value', axisLabel: valueAxisLabel(unit), splitLine: { show: false } },
          ]
        : { type: 'value', axisLabel: valueAxisLabel(unit), splitLine },
    series: series.map((s) =>
      s.type === 'line'
        ? {
            type: 'line' as const,
            name: name(s),
            yAxisIndex: right.has(s.name) ? 1 : 0,
            data: s.data,
            symbol: 'circle',
            symbolSize: 6,
            connectNulls: false,
            lineStyle: { width: 2 },
          }
        : {
            type: 'bar' as const,
            name: name(s),
            yAxisIndex: right.has(s.name) ? 1 : 0,
            data: s.data,
            ...(s.stack ? { stack: s.stack } : {}),
            barMaxWidth: 26,
            emphasis: { focus: 'series' as const },
          },
    ),
  };
}
