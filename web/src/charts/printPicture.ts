/**
 * A chart's picture for paper: its option drawn at the print size (lib/printing.ts, PRINT_CHART) by ECharts'
 * server-side SVG rendering (`ssr: true`: no DOM, no canvas, nothing on the page), without animation, as an
 * SVG data URL for the chart's <img class="chart-picture">. Vector, so it is sharp on paper at any zoom.
 *
 * One SVG renderer serves every chart, one after another. Laying a chart out and writing its SVG are two
 * steps, so that the pictures made ahead of a print take two short idle tasks each (lib/printPictures.ts);
 * a print's event does both at once.
 */
import { PRINT_CHART } from '../lib/printing.ts';
import type { ChartOption } from './types.ts';

type ECharts = typeof import('./echarts.ts')['echarts'];

let renderer: ReturnType<ECharts['init']> | undefined;
/** The option the renderer holds now. */
let laidOut: ChartOption | undefined;

/** Step one: the chart laid out on the SVG renderer. */
export function layOutPicture(echarts: ECharts, option: ChartOption): void {
  renderer ??= echarts.init(null, undefined, {
    renderer: 'svg',
    ssr: true,
    width: PRINT_CHART.width,
    height: PRINT_CHART.height,
  });
  laidOut = undefined;
  renderer.setOption({ ...option, animation: false }, { notMerge: true });
  laidOut = option;
}

/** Step two (and one, unless the renderer holds this option already): the picture as an SVG data URL. */
export function printPicture(echarts: ECharts, option: ChartOption): string {
  if (laidOut !== option || !renderer) layOutPicture(echarts, option);
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(renderer!.renderToSVGString())}`;
}
