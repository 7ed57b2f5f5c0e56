/**
 * Every analysis item of every fixture, as the share endpoint presents it, through the share page's chart
 * registry: the right kind of chart per item, one value per year, nothing that is not a number.
 */
import { describe, expect, it } from 'vitest';
import { presentSharedItem } from '../../server/presenters/sharePresenter.ts';
import type { SharedAnalysisItem } from '../../web/src/api/types.ts';
import { echarts } from '../../web/src/charts/echarts.ts';
import { printPicture } from '../../web/src/charts/printPicture.ts';
import { CHART_SPECS, chartForItem, shortName } from '../../web/src/charts/registry.ts';
import { ANALYSIS_SLUGS, assembleReportItems, computeAnalysis } from '../../worker/engine/registry.ts';
import { FIXTURES, loadFixture, toReport } from '../helpers/engineFixtures.ts';

// biome-ignore lint/suspicious/noExplicitAny: options are inspected structurally
type Loose = any;

function sharedItems(name: (typeof FIXTURES)[number]): SharedAnalysisItem[] {
  const outputs = assembleReportItems(computeAnalysis(toReport(loadFixture(name)), ANALYSIS_SLUGS));
  return outputs.map(
    (output) =>
      JSON.parse(
        JSON.stringify(
          presentSharedItem({
            slug: output.slug,
            spResult: output.sp_result,
            riskItems: output.risk_items,
            aiContent: null,
            cachedAt: new Date(),
          } as Parameters<typeof presentSharedItem>[0]),
        ),
      ) as SharedAnalysisItem,
  );
}

const isNumberOrGap = (value: unknown) =>
  value === null || value === '-' || (typeof value === 'number' && Number.isFinite(value));

function values(data: Loose[]): unknown[] {
  return data.map((d) => (d !== null && typeof d === 'object' ? d.value : d));
}

describe.each(FIXTURES)('charts of %s', (name) => {
  const items = sharedItems(name);
  const bySlug = new Map(items.map((item) => [item.slug, item]));

  it('names a chart only for slugs the engine has', () => {
    for (const slug of Object.keys(CHART_SPECS)) expect(bySlug.has(slug), slug).toBe(true);
  });

  it('draws numbers only, one per year on trend charts', () => {
    for (const item of items) {
      const chart = chartForItem(item);
      if (!chart) continue;
      const option = chart.option as Loose;
      expect(chart.height, item.slug).toBeGreaterThan(100);
      expect(chart.caption, item.slug).toMatch(/[\u4e00-\u9fff]/);
      for (const series of option.series) {
        for (const value of values(series.data))
          expect(isNumberOrGap(value), `${item.slug}: ${value}`).toBe(true);
        if (series.type === 'line' || (series.type === 'bar' && option.xAxis?.type === 'category')) {
          expect(series.data, item.slug).toHaveLength(option.xAxis.data.length);
        }
      }
    }
  });

  it("draws each chart's print picture as well-formed SVG at paper size, every year and legend entry in it", () => {
    // Text is escaped by ECharts but attribute values are not: a double quote in one (the font list's
    // "PingFang SC") made every picture an image the browser could not decode, and the charts blank on paper.
    const tag = /^<\/?[\w:-]+(\s+[\w:-]+(="[^"<>]*")?)*\s*\/?>$/;
    for (const item of items) {
      const chart = chartForItem(item);
      if (!chart) continue;
      const url = printPicture(echarts, chart.option);
      expect(url.startsWith('data:image/svg+xml;charset=utf-8,'), item.slug).toBe(true);
      const svg = decodeURIComponent(url.slice(url.indexOf(',') + 1));
      expect(svg, item.slug).toMatch(/^<svg width="300" height="165" [^>]*viewBox="0 0 300 165"/);
      const markup = svg.replace(/<style[^>]*>[\s\S]*?<\/style>/g, '');
      for (const open of markup.match(/<[^>]*>/g) ?? []) expect(open, item.slug).toMatch(tag);
      const option = chart.option as Loose;
      const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };
      const texts = [...markup.matchAll(/>([^<]+)</g)].map((m) =>
        m[1]!.trim().replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) => entities[name]!),
      );
      if (option.xAxis?.type === 'category')
        for (const year of option.xAxis.data) expect(texts, `${item.slug} ${year}`).toContain(String(year));
      if (option.legend?.show)
        for (const series of option.series)
          expect(texts, `${item.slug} ${series.name}`).toContain(series.name);
    }
  });

  it('gives each kind of item the chart that reads best', () => {
    const kind = (slug: string) => {
      const option = chartForItem(bySlug.get(slug)!)?.option as Loose;
      return option?.series.map((s: Loose) => s.type).join('+');
    };
    expect(kind('financial_benchmarks')).toMatch(/^line(\+line)*$/);
    expect(kind('reporting_period_profit')).toBe('bar+bar+bar');
    expect(kind('reporting_period_expense')).toMatch(/^bar(\+bar)+$/);
    expect(kind('overview_total_asset_structure')).toBe('pie');
    expect(kind('detailed_total_asset_structure')).toBe('pie');
    expect(kind('total_assets_change_rate')).toBe('bar');
    expect(chartForItem(bySlug.get('enterprise_profile')!)).toBeNull();
    expect(chartForItem(bySlug.get('income_statement')!)).toBeNull();
  });

  it('draws the profit waterfall down to net profit, ending where the statements end', () => {
    const item = bySlug.get('reporting_period_profit')!;
    const option = chartForItem(item)!.option as Loose;
    expect(option.yAxis.data).toEqual([
      '营业收入',
      '营业成本',
      '毛利润',
      '费用及其他损益',
      '营业利润',
      '营业外收支',
      '利润总额',
      '所得税费用',
      '净利润',
    ]);
    // The last bar (net profit, a total) spans from zero to the reported net profit.
    const last = option.yAxis.data.length - 1;
    const up = values(option.series[1].data)[last];
    const down = values(option.series[2].data)[last];
    const netProfit = item.sp_result.net_profit as number;
    expect(netProfit >= 0 ? up : down).toBeCloseTo(netProfit, 2);
  });
});

it('draws nothing where every value is missing (a small enterprise has no cash flow statement or EPS)', () => {
  const bySlug = new Map(sharedItems('small_enterprise-2y-no-cash-flow').map((item) => [item.slug, item]));
  for (const slug of [
    'operating_activities',
    'investing_activities',
    'financing_activities',
    'eps_fluctuations',
  ]) {
    expect(chartForItem(bySlug.get(slug)!), slug).toBeNull();
  }
  expect(chartForItem(bySlug.get('operational_efficiency')!)).not.toBeNull();
});

it('shortens bar names by what the caption already says', () => {
  expect(shortName('销售费用变动率')).toBe('销售费用');
  expect(shortName('税金及附加对营业利润的影响')).toBe('税金及附加');
  expect(shortName('总资产报酬率得分')).toBe('总资产报酬率');
  expect(shortName('变动率')).toBe('变动率');
});
