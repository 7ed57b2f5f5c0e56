/**
 * Horizontal bars of one year's values, one bar per indicator: change rates, effects on profit, scores.
 * Horizontal so that long Chinese names stay readable on a phone; positive and negative bars differ in colour.
 */
import { formatWithUnit } from '../lib/format.ts';
import {
  axisLine,
  baseOption,
  COLORS,
  INSIDE_LABEL_SHARE,
  paddedExtent,
  splitLine,
  valueAxisLabel,
  valueFormatter,
} from './theme.ts';
import type { ChartOption, NamedValue } from './types.ts';

export interface HorizontalBarInput {
  items: NamedValue[];
  unit: string;
  /** Fixed axis maximum (e.g. 100 for scores). */
  max?: number;
}

/** Bars with a value (missing ones are left out: the table shows them as —). */
export function barRows(items: NamedValue[]): Array<{ name: string; value: number }> {
  return items.filter((item): item is { name: string; value: number } => item.value !== null);
}

export function horizontalBarHeight(count: number): number {
  return Math.max(120, count * 28 + 36);
}

/** Where a bar's value label goes: inside a long bar, beyond the tip of a short one (away from zero). */
export function labelPosition(
  value: number,
  values: number[],
): 'insideRight' | 'insideLeft' | 'right' | 'left' {
  const span = Math.max(0, ...values) - Math.min(0, ...values) || 1;
  const inside = Math.abs(value) / span >= INSIDE_LABEL_SHARE;
  if (value >= 0) return inside ? 'insideRight' : 'right';
  return inside ? 'insideLeft' : 'left';
}

export function buildHorizontalBarOption({ items, unit, max }: HorizontalBarInput): ChartOption {
  const rows = barRows(items);
  const values = rows.map((row) => row.value);
  return {
    ...baseOption(),
    tooltip: {
      trigger: 'axis',
      confine: true,
      axisPointer: { type: 'shadow' },
      valueFormatter: valueFormatter(unit),
    },
    grid: { left: 4, right: 12, top: 8, bottom: 4 },
    xAxis: {
      type: 'value',
      ...(max === undefined
        ? {
            min: (extent: { min: number; max: number }) => paddedExtent(extent.min, extent.max).min,
            max: (extent: { min: number; max: number }) => paddedExtent(extent.min, extent.max).max,
          }
        : { max, min: 0 }),
      axisLabel: valueAxisLabel(unit),
      splitLine,
    },
    yAxis: {
      type: 'category',
      inverse: true,
      data: rows.map((row) => row.name),
      axisLine,
      axisTick: { show: false },
      axisLabel: { color: COLORS.text, fontSize: 11, width: 96, overflow: 'truncate' },
    },
    series: [
      {
        type: 'bar',
        name: '',
        barMaxWidth: 16,
        data: rows.map((row) => {
          const position = labelPosition(row.value, values);
          return {
            value: row.value,
            itemStyle: { color: row.value >= 0 ? COLORS.positive : COLORS.negative },
            label: {
              show: true,
              position,
              fontSize: 11,
              color: position.startsWith('inside') ? '#fff' : COLORS.muted,
              formatter: () => formatWithUnit(row.value, unit),
            },
          };
        }),
      },
    ],
  };
}
