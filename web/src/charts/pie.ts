/** Structure of one year as a ring: the largest parts, the rest folded into 其他. */

import { formatWithUnit } from '../lib/format.ts';
import { escapeHtml } from './html.ts';
import { baseOption, COLORS } from './theme.ts';
import type { ChartOption, NamedValue } from './types.ts';

export interface PieInput {
  items: NamedValue[];
  unit: string;
  /** At most this many slices; the smallest parts beyond it become one 其他 slice. */
  maxSlices?: number;
}

export interface PieSlices {
  slices: Array<{ name: string; value: number }>;
  /** Parts left out because a ring cannot show them (zero, negative or missing). */
  omitted: string[];
}

/** The slices a ring shows: positive parts, largest first, the tail folded into 其他. */
export function pieSlices(items: NamedValue[], maxSlices = 8): PieSlices {
  const positive = items
    .filter((item): item is { name: string; value: number } => item.value !== null && item.value > 0)
    .sort((a, b) => b.value - a.value);
  const omitted = items.filter((item) => item.value === null || item.value < 0).map((item) => item.name);
  if (positive.length <= maxSlices) return { slices: positive, omitted };
  const head = positive.slice(0, maxSlices - 1);
  const rest = positive.slice(maxSlices - 1).reduce((sum, item) => sum + item.value, 0);
  return { slices: [...head, { name: '其他', value: Math.round(rest * 100) / 100 }], omitted };
}

export function buildPieOption({ items, unit, maxSlices = 8 }: PieInput): ChartOption {
  const { slices } = pieSlices(items, maxSlices);
  return {
    ...baseOption(),
    tooltip: {
      trigger: 'item',
      confine: true,
      formatter: (params: unknown) => {
        const p = params as { name: string; value: number; percent: number };
        return `${escapeHtml(p.name)}<br/>${formatWithUnit(p.value, unit)}（${p.percent.toFixed(2)}%）`;
      },
    },
    series: [
      {
        type: 'pie',
        name: '',
        radius: ['32%', '54%'],
        center: ['50%', '52%'],
        avoidLabelOverlap: true,
        minShowLabelAngle: 3,
        data: slices,
        label: {
          formatter: '{b}\n{d}%',
          fontSize: 11,
          lineHeight: 15,
          color: COLORS.text,
          // Labels align to the chart's edges, inside it: on a 375 px phone a label is never cut at the
          // canvas edge (which made 非流动资产合计 read 流动资产合计); long names wrap instead.
          alignTo: 'edge',
          edgeDistance: 4,
          width: 76,
          overflow: 'break',
        },
        labelLine: { length: 8, length2: 0 },
        labelLayout: { hideOverlap: true },
        itemStyle: { borderColor: '#fff', borderWidth: 1 },
      },
    ],
  };
}
