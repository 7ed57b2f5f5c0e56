/** Colours, fonts and the parts every chart shares (pure data). */
import { formatAxis, formatWithUnit } from '../lib/format.ts';
import type { ChartOption } from './types.ts';

/** Sober, print-safe series colours: navy, amber, teal, violet, slate blue, olive, brick, grey. */
export const PALETTE = [
  '#1f5f99',
  '#e39b3b',
  '#2a9d8f',
  '#8e6bb8',
  '#6c8ebf',
  '#a39b3a',
  '#b5534d',
  '#6b7785',
];

export const COLORS = {
  total: '#1f5f99',
  increase: '#2a9d8f',
  decrease: '#d9822b',
  positive: '#1f5f99',
  negative: '#d9822b',
  text: '#1f2933',
  muted: '#616e7c',
  axis: '#cbd2d9',
  split: '#eef1f4',
};

/**
 * Quoted with single quotes: ECharts' SVG rendering (the print pictures, printPicture.ts) writes the font into
 * a double-quoted style attribute without escaping it, and a double quote there made the SVG unreadable.
 */
export const FONT_FAMILY =
  "-apple-system, BlinkMacSystemFont, 'PingFang SC', 'Hiragino Sans GB', 'Microsoft YaHei', 'Noto Sans CJK SC', 'Source Han Sans SC', 'WenQuanYi Micro Hei', 'Helvetica Neue', Arial, sans-serif";

/** What every chart starts from: palette, fonts, a short animation, tooltips kept inside the chart. */
export function baseOption(): ChartOption {
  return {
    color: PALETTE,
    animationDuration: 400,
    textStyle: { fontFamily: FONT_FAMILY, color: COLORS.text },
    tooltip: { confine: true, textStyle: { fontSize: 12 } },
  };
}

const LEGEND_FONT = 12;
const LEGEND_MARK = 14 + 5;
const LEGEND_GAP = 12;
const LEGEND_ROW = 22;
/** The narrowest chart we lay out for: a 375 px phone minus page and card padding. */
const NARROWEST_CHART = 300;

/** A plain legend, wrapping onto more rows when the names do not fit on one. */
export function legend(show: boolean): ChartOption['legend'] {
  return {
    show,
    type: 'plain',
    top: 0,
    left: 0,
    right: 0,
    itemWidth: 14,
    itemHeight: 8,
    itemGap: LEGEND_GAP,
    textStyle: { fontSize: LEGEND_FONT, color: COLORS.muted },
  };
}

/**
 * Rows a wrapping legend takes on the narrowest chart (CJK characters ≈ one font size wide, others half),
 * so the plot can start below it.
 */
export function legendRows(names: string[]): number {
  let rows = 1;
  let width = 0;
  for (const name of names) {
    const text = [...name].reduce(
      (sum, c) => sum + (c.charCodeAt(0) > 0x2e80 ? LEGEND_FONT : LEGEND_FONT / 2),
      0,
    );
    const item = LEGEND_MARK + text;
    if (width > 0 && width + LEGEND_GAP + item > NARROWEST_CHART) {
      rows++;
      width = item;
    } else {
      width += (width > 0 ? LEGEND_GAP : 0) + item;
    }
  }
  return rows;
}

export function legendHeight(names: string[]): number {
  return names.length > 1 ? legendRows(names) * LEGEND_ROW + 8 : 0;
}

const NICE = [1, 1.2, 1.5, 1.6, 2, 2.5, 3, 4, 5, 6, 8, 10];

/** The first round number (1, 1.2, 1.5 … 8 × 10^k) at or beyond |value|, away from zero. */
export function niceBound(value: number): number {
  if (value === 0) return 0;
  const magnitude = 10 ** Math.floor(Math.log10(Math.abs(value)));
  const step = NICE.find((m) => m * magnitude >= Math.abs(value) - 1e-9 * magnitude)! * magnitude;
  return Math.sign(value) * Number(step.toPrecision(12));
}

/** Bars at least this share of the axis span carry their label inside; shorter ones just beyond their tip. */
export const INSIDE_LABEL_SHARE = 0.4;

/**
 * Axis ends for bars labelled at their tips: room beyond the longest bar on each side that has bars, so a
 * label never runs into the category names or off the chart.
 */
export function paddedExtent(min: number, max: number, room = 0.35) {
  const low = Math.min(min, 0);
  const high = Math.max(max, 0);
  const span = high - low || Math.abs(high) || 1;
  return {
    min: low < 0 ? niceBound(low - span * room) : 0,
    max: high > 0 ? niceBound(high + span * room) : 0,
  };
}

export function valueAxisLabel(unit: string) {
  return {
    color: COLORS.muted,
    fontSize: 11,
    hideOverlap: true,
    formatter: (value: number) => (unit === '%' ? `${formatAxis(value)}%` : formatAxis(value)),
  };
}

export const splitLine = { lineStyle: { color: COLORS.split } };
export const axisLine = { lineStyle: { color: COLORS.axis } };

export function valueFormatter(unit: string) {
  return (value: unknown) => formatWithUnit(typeof value === 'number' ? value : null, unit);
}
