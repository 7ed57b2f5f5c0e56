/**
 * ECharts, modular: only the charts, components and renderers this app draws with are registered, so the
 * bundle carries nothing else: the canvas renderer for the charts on screen, the SVG one for their print
 * pictures (rendered to a string without a DOM, printPicture.ts). Chart options come from the pure builders
 * next to this file.
 */
import { BarChart, LineChart, PieChart } from 'echarts/charts';
import { GridComponent, LegendPlainComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { LabelLayout } from 'echarts/features';
import { CanvasRenderer, SVGRenderer } from 'echarts/renderers';

echarts.use([
  LineChart,
  BarChart,
  PieChart,
  GridComponent,
  LegendPlainComponent,
  TooltipComponent,
  LabelLayout,
  CanvasRenderer,
  SVGRenderer,
]);

export { echarts };
