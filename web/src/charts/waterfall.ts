/**
 * A horizontal waterfall of profit layers: totals stand on zero, each adjustment floats from the level the
 * previous step left. Built from three stacked bar series (an invisible base, a rising and a falling part),
 * which ECharts stacks per sign — so steps that cross zero or lie below it (losses) draw correctly too.
 */
import { formatNumber, formatWithUnit } from '../lib/format.ts';
import { escapeHtml } from './html.ts';
import {
  axisLine,
  baseOption,
  COLORS,
  INSIDE_LABEL_SHARE,
  paddedExtent,
  splitLine,
  valueAxisLabel,
} from './theme.ts';
import type { ChartOption } from './types.ts';

export interface WaterfallStep {
  name: string;
  value: number;
  /** A total (drawn from zero) rather than an adjustment (drawn from the previous level). */
  total: boolean;
}

export interface WaterfallBar {
  name: string;
  value: number;
  kind: 'total' | 'increase' | 'decrease';
  /** The span the bar covers. */
  low: number;
  high: number;
}

const round = (value: number) => Math.round(value * 100) / 100;

/** Where each step's bar starts and ends (amounts have two decimals: so do the levels). */
export function waterfallBars(steps: WaterfallStep[]): WaterfallBar[] {
  let level = 0;
  return steps.map((step) => {
    const start = step.total ? 0 : level;
    const end = step.total ? step.value : round(level + step.value);
    level = end;
    const kind = step.total ? 'total' : step.value >= 0 ? 'increase' : 'decrease';
    return {
      name: step.name,
      value: step.value,
      kind,
      low: Math.min(start, end),
      high: Math.max(start, end),
    };
  });
}

/** The three stacked series' values per bar: `-` where a series draws nothing. */
export function waterfallStacks(bars: WaterfallBar[]) {
  return bars.map((bar) => {
    if (bar.low >= 0) return { base: round(bar.low), up: round(bar.high - bar.low), down: null };
    if (bar.high <= 0) return { base: round(bar.high), up: null, down: round(bar.low - bar.high) };
    return { base: null, up: round(bar.high), down: round(bar.low) };
  });
}

export function waterfallHeight(count: number): number {
  return count * 32 + 40;
}

export function buildWaterfallOption(steps: WaterfallStep[], unit: string): ChartOption {
  const bars = waterfallBars(steps);
  const stacks = waterfallStacks(bars);
  const span = Math.max(0, ...bars.map((b) => b.high)) - Math.min(0, ...bars.map((b) => b.low)) || 1;
  const text = (bar: WaterfallBar) =>
    bar.kind === 'total' ? formatNumber(bar.value) : `${bar.value >= 0 ? '+' : ''}${formatNumber(bar.value)}`;
  /** A bar's part in the rising or falling series, labelled when it is the part that carries the label. */
  const part = (index: number, owner: 'up' | 'down') => {
    const stack = stacks[index]!;
    const bar = bars[index]!;
    const value = stack[owner];
    if (value === null) return { value: '-' as const };
    const labelled = (stack.up !== null ? 'up' : 'down') === owner;
    const inside = (bar.high - bar.low) / span >= INSIDE_LABEL_SHARE;
    type Position = 'insideRight' | 'right' | 'insideLeft' | 'left';
    const position: Position =
      owner === 'up' ? (inside ? 'insideRight' : 'right') : inside ? 'insideLeft' : 'left';
    return {
      value,
      itemStyle: { color: COLORS[bar.kind] },
      label: {
        show: labelled,
        position,
        fontSize: 11,
        color: inside ? '#fff' : COLORS.muted,
        formatter: () => text(bar),
      },
    };
  };
  return {
    ...baseOption(),
    tooltip: {
      trigger: 'axis',
      confine: true,
      axisPointer: { type: 'shadow' },
      formatter: (params: unknown) => {
        const first = (params as Array<{ dataIndex: number }>)[0];
        const bar = first ? bars[first.dataIndex] : undefined;
        if (!bar) return '';
        const sign = bar.kind === 'total' || bar.value < 0 ? '' : '+';
        return `${escapeHtml(bar.name)}：${sign}${formatWithUnit(bar.value, unit)}`;
      },
    },
    grid: { left: 4, right: 12, top: 8, bottom: 4 },
    xAxis: {
      type: 'value',
      min: (extent: { min: number; max: number }) => paddedExtent(extent.min, extent.max).min,
      max: (extent: { min: number; max: number }) => paddedExtent(extent.min, extent.max).max,
      axisLabel: valueAxisLabel(unit),
      splitLine,
    },
    yAxis: {
      type: 'category',
      inverse: true,
      data: bars.map((bar) => bar.name),
      axisLine,
      axisTick: { show: false },
      axisLabel: { color: COLORS.text, fontSize: 11 },
    },
    series: [
      {
        type: 'bar',
        name: 'base',
        stack: 'waterfall',
        silent: true,
        itemStyle: { color: 'transparent' },
        emphasis: { disabled: true },
        data: stacks.map((s) => s.base ?? '-'),
      },
      {
        type: 'bar',
        name: 'up',
        stack: 'waterfall',
        barMaxWidth: 18,
        data: stacks.map((_, i) => part(i, 'up')),
      },
      {
        type: 'bar',
        name: 'down',
        stack: 'waterfall',
        barMaxWidth: 18,
        data: stacks.map((_, i) => part(i, 'down')),
      },
    ],
  };
}
