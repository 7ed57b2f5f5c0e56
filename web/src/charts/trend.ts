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

export function buildTrendOption({ categories, series, unit }: TrendInput): ChartOption {
  const hasBars = series.some((s) => s.type === 'bar');
  return {
    ...baseOption(),
    legend: legend(series.length > 1),
    tooltip: {
      trigger: 'axis',
      confine: true,
      axisPointer: { type: hasBars ? 'shadow' : 'line' },
      valueFormatter: valueFormatter(unit),
    },
    grid: { left: 4, right: 12, top: legendHeight(series.map((s) => s.name)) + 12, bottom: 4 },
    xAxis: {
      type: 'category',
      data: categories,
      boundaryGap: hasBars,
      axisLine,
      axisTick: { show: false },
      axisLabel: { color: COLORS.muted, fontSize: 11 },
    },
    yAxis: { type: 'value', axisLabel: valueAxisLabel(unit), splitLine },
    series: series.map((s) =>
      s.type === 'line'
        ? {
            type: 'line' as const,
            name: s.name,
            data: s.data,
            symbol: 'circle',
            symbolSize: 6,
            connectNulls: false,
            lineStyle: { width: 2 },
          }
        : {
            type: 'bar' as const,
            name: s.name,
            data: s.data,
            ...(s.stack ? { stack: s.stack } : {}),
            barMaxWidth: 26,
            emphasis: { focus: 'series' as const },
          },
    ),
  };
}
