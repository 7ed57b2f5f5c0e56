/**
 * ECharts, loaded once and warmed up before the first real chart. The first chart a page draws is far slower
 * than the next ones: on a phone's CPU (4× throttled in `npm run bench:web`) its first `setOption` alone took
 * 250–360 ms, most of it the engine's code running for the first time. Loading here evaluates the chunk in one
 * task, then draws throwaway charts of each kind this app uses (trend lines and bars with a legend, a ring,
 * horizontal bars) on a detached element, one step per task, so every real chart is drawn warm in one short
 * task; then lays out and writes a small chart as SVG, the first run of the print pictures' code
 * (printPicture.ts). The share page starts this when the browser is idle after its first screen; the first chart that
 * scrolls into view awaits the same promise.
 */

import { yieldToMain } from '../lib/yieldToMain.ts';
import { buildHorizontalBarOption } from './bars.ts';
import { buildPieOption } from './pie.ts';
import { layOutPicture, printPicture } from './printPicture.ts';
import { buildTrendOption } from './trend.ts';
import type { ChartOption } from './types.ts';

type ECharts = typeof import('./echarts.ts')['echarts'];

/**
 * Small options, each adding a little to the one before (an empty chart, axes, an empty series, a bare line,
 * a styled one, a legend, bars, a ring without and with labels, horizontal bars), mostly built by the app's own
 * builders, so the warm-up runs the same code paths as real
 * charts without any one step running much code for the first time.
 */
function warmUpOptions(): ChartOption[] {
  const categories = ['2023', '2024'];
  const lines = buildTrendOption({
    categories,
    unit: '%',
    series: [
      { name: '甲', type: 'line', data: [1, 2] },
      { name: '乙', type: 'line', data: [0.01, 0.02] },
    ],
  });
  return [
    { animation: false },
    { animation: false, grid: lines.grid, xAxis: lines.xAxis, yAxis: lines.yAxis },
    // The first series runs the whole data pipeline for the first time: an empty one, then a bare line.
    {
      animation: false,
      grid: lines.grid,
      xAxis: lines.xAxis,
      yAxis: lines.yAxis,
      series: [{ type: 'line' }],
    },
    {
      animation: false,
      grid: lines.grid,
      xAxis: lines.xAxis,
      yAxis: lines.yAxis,
      series: [{ type: 'line', data: [1, 2], showSymbol: false }],
    },
    buildTrendOption({ categories, unit: '%', series: [{ name: '甲', type: 'line', data: [1, 2] }] }),
    lines,
    buildTrendOption({
      categories,
      unit: '万元',
      series: [{ name: '丙', type: 'bar', stack: 's', data: [3, -1] }],
    }),
    { animation: false, series: [{ type: 'pie', data: [{ name: '丁', value: 2 }], label: { show: false } }] },
    buildPieOption({ unit: '万元', items: [{ name: '丁', value: 2 }] }),
    buildPieOption({
      unit: '万元',
      items: [
        { name: '丁', value: 2 },
        { name: '戊', value: 1 },
      ],
    }),
    buildHorizontalBarOption({
      unit: '%',
      items: [
        { name: '己', value: 5 },
        { name: '庚', value: -2 },
      ],
    }),
  ];
}

async function warmUp(echarts: ECharts): Promise<void> {
  await yieldToMain(); // the chunk's evaluation is a task of its own
  const element = document.createElement('div');
  const chart = echarts.init(element, undefined, { renderer: 'canvas', width: 320, height: 240 });
  try {
    for (const option of warmUpOptions()) {
      await yieldToMain();
      chart.setOption(option, { notMerge: true });
    }
  } finally {
    chart.dispose();
  }
  // The print pictures' SVG rendering (printPicture.ts) runs its own code for the first time on a small chart:
  // its layout, then its SVG, each a task of its own.
  const small = warmUpOptions()[5]!;
  await yieldToMain();
  layOutPicture(echarts, small);
  await yieldToMain();
  printPicture(echarts, small);
}

let loading: Promise<ECharts> | undefined;
let evaluated: ECharts | undefined;
let markReady: () => void = () => {};
/** Settles once the chart code is loaded and warmed up: from then on printing draws every chart at once. */
export const chartsReady = new Promise<void>((resolve) => {
  markReady = resolve;
});

/**
 * ECharts at once if its code is already evaluated (warmed up or not), else undefined: printing draws every
 * chart synchronously, before the browser lays the page out for paper.
 */
export function loadedCharts(): ECharts | undefined {
  return evaluated;
}

/** ECharts, evaluated and warmed up (once per page; later calls share the promise). */
export function loadCharts(): Promise<ECharts> {
  loading ??= (async () => {
    // ECharts' core (with zrender) and then its charts and components: two chunks, evaluated in two tasks.
    await import('echarts/core');
    await yieldToMain();
    const { echarts } = await import('./echarts.ts');
    evaluated = echarts;
    try {
      await warmUp(echarts);
    } catch {
      // A warm-up that fails costs only speed: the real charts draw all the same.
    }
    await yieldToMain();
    markReady();
    return echarts;
  })();
  loading.catch(() => {
    loading = undefined; // a failed chunk download is retried by the next chart
  });
  return loading;
}

/** Starts loading (and warming up) the chart code when the browser is idle. */
export function preloadCharts(): void {
  const start = () => void loadCharts().catch(() => {});
  if (typeof requestIdleCallback === 'function') requestIdleCallback(start, { timeout: 3000 });
  else setTimeout(start, 500);
}
