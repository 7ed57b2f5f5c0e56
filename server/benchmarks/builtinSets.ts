/**
 * The benchmark sets shipped with the service (docs/benchmarks.md "Shipped sets"). Nothing here is estimated:
 * - the NBS 规模以上工业企业 averages: only figures of the verified public data (docs/benchmarks.md#nbs-sources) whose check_status is confirmed by
 *   two or more sources, or that arithmetic on such figures reproduces; each row names its sources;
 * - the all-industry band table the verdict has always used (verdict.ts SCORECARD_FACTORS), labelled with what it
 *   is: a third-party transcription of 国资委 企业绩效评价标准值, 全国国有企业·全行业, edition year not stated.
 */
import { ALL_INDUSTRY_BANDS_NAME, SCORECARD_FACTORS } from '../../worker/engine/verdict.ts';
import type { BenchmarkSet, SetRow } from './types.ts';

const NBS_NAME = '国家统计局 规模以上工业企业主要财务指标';
const NBS_SCOPE =
  '规模以上工业企业平均（按营业收入加权）；采矿业、制造业、电力热力燃气及水生产和供应业（B、C、D）合计';
const NBS_LICENCE = '国家统计局公开发布的统计数据（经转载页面核对），注明来源使用';

const PROFIT_MARGIN = 'reporting_period_profit.total_profit_margin';
const COST_RATIO = 'revenue_cost_alignment.cost_to_revenue_ratio';
const DEBT_RATIO = 'long_term_liability.debt_to_asset_ratio';

/** One NBS figure: the indicator, its value and where it comes from. */
interface NbsFigure {
  indicator: string;
  mean: number;
  note: string;
}

const NBS_FIGURES: Readonly<Record<number, readonly NbsFigure[]>> = {
  2021: [
    {
      indicator: PROFIT_MARGIN,
      mean: 6.81,
      note: '营业收入利润率 = 利润总额 ÷ 营业收入 = 87092.1亿元 ÷ 127.92万亿元；国家统计局公布6.81%（S11、S12、S13，三源一致）',
    },
    {
      indicator: COST_RATIO,
      mean: 83.74,
      note: '营业成本 ÷ 营业收入 = 107.12 ÷ 127.92万亿元（S11、S12）；国家统计局公布每百元营业收入中的成本83.74元（S11、S13）',
    },
    {
      indicator: DEBT_RATIO,
      mean: 56.1,
      note: '年末资产负债率，国家统计局公布56.1%（S11、S13，两源一致）',
    },
  ],
  2022: [
    {
      indicator: PROFIT_MARGIN,
      mean: 6.09,
      note: '利润总额84039亿元（S8）÷ 营业收入137.91万亿元（S10）= 6.09%，与 S8 公布的营业收入利润率6.09%一致（算术复核）',
    },
    {
      indicator: COST_RATIO,
      mean: 84.72,
      note: '国家统计局公布每百元营业收入中的成本84.72元（S8、S9，两源一致）',
    },
  ],
  2023: [
    {
      indicator: PROFIT_MARGIN,
      mean: 5.76,
      note: '营业收入利润率 = 76858.3亿元 ÷ 133.44万亿元；国家统计局公布5.76%（S1、S2、S3、S4）',
    },
    {
      indicator: COST_RATIO,
      mean: 84.76,
      note: '营业成本 ÷ 营业收入 = 113.1 ÷ 133.44万亿元（S1、S2、S3，三源一致），与公布的每百元营业收入中的成本84.76元一致',
    },
    {
      indicator: DEBT_RATIO,
      mean: 57.1,
      note: '年末负债合计 ÷ 资产总计 = 95.57 ÷ 167.36万亿元（S1、S3），国家统计局公布57.1%',
    },
  ],
};

/** Expanded to each of the three 门类 the totals cover, so a B, C or D enterprise finds them at 门类 level. */
function nbsRows(figures: readonly NbsFigure[]): SetRow[] {
  return ['B', 'C', 'D'].flatMap((section, s) =>
    figures.map(
      (figure, i): SetRow => ({
        line: s * figures.length + i + 1,
        industry_code: section,
        size_class: 'all',
        indicator: figure.indicator,
        bands: null,
        quantiles: null,
        n: null,
        mean: figure.mean,
        note: `${NBS_SCOPE}。${figure.note}`,
        industry_label: '规模以上工业企业（B、C、D 门类合计）',
      }),
    ),
  );
}

const nbsSets: BenchmarkSet[] = Object.entries(NBS_FIGURES).map(([year, figures]) => ({
  id: `builtin-nbs-industry-${year}`,
  name: NBS_NAME,
  source:
    '国家统计局 规模以上工业企业利润年度发布及统计公报（经转载页面核对，页面清单 S1–S13 见服务文档 docs/benchmarks.md#nbs-sources）；口径：规模以上工业企业（年主营业务收入2000万元及以上）',
  edition: `${year}年度`,
  data_year: Number(year),
  licence: NBS_LICENCE,
  builtin: true,
  loaded_at: null,
  retired_at: null,
  rows: nbsRows(figures),
}));

const sasacSet: BenchmarkSet = {
  id: 'builtin-sasac-all-industry',
  name: ALL_INDUSTRY_BANDS_NAME,
  source:
    '国资委《企业绩效评价标准值》全国国有企业·全行业，旧版企业效绩评价格式（2006年以前），第三方转录：http://www.bhygbaby.com/paper/422851168.html（同见 max.book118.com/html/2025/0214/7030023004010035.shtm）；本服务评分卡的默认标准值',
  edition: '版本年份未注明',
  data_year: null,
  licence: '转录自公开网页，仅作参考',
  builtin: true,
  loaded_at: null,
  retired_at: null,
  rows: SCORECARD_FACTORS.filter((f) => f.slug !== 'data_check' && f.slug !== 'distress_signals').map(
    (f, i): SetRow => ({
      line: i + 1,
      industry_code: 'all',
      size_class: 'all',
      indicator: `${f.slug}.${f.key}`,
      bands: f.bands,
      quantiles: null,
      n: null,
      mean: null,
      note: f.source,
    }),
  ),
};

/** The shipped sets, never retired, listed before loaded ones. */
export const BUILTIN_SETS: readonly BenchmarkSet[] = [...nbsSets, sasacSet];
