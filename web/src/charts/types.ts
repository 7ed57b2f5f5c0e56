/** The ECharts option type of exactly the charts and components this app registers (see echarts.ts). */
import type { BarSeriesOption, LineSeriesOption, PieSeriesOption } from 'echarts/charts';
import type { GridComponentOption, LegendComponentOption, TooltipComponentOption } from 'echarts/components';
import type { ComposeOption } from 'echarts/core';

export type ChartOption = ComposeOption<
  | BarSeriesOption
  | LineSeriesOption
  | PieSeriesOption
  | GridComponentOption
  | LegendComponentOption
  | TooltipComponentOption
>;

/** A chart ready to draw: its option, the height it needs (px) and a caption saying what it shows. */
export interface ChartSpec {
  option: ChartOption;
  height: number;
  caption: string;
}

/** One named series of values, one value per category (year); null where the value is missing. */
export interface NamedSeries {
  name: string;
  data: Array<number | null>;
}

/** One named value (a bar or a pie slice). */
export interface NamedValue {
  name: string;
  value: number | null;
}
