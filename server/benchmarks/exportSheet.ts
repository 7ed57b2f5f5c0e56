/**
 * The 行业对标 sheet of the Excel export (server/services/shareExport.ts): one row per indicator and benchmark
 * (set or the account's peers), every figure with its source, edition, data year, level and fallback.
 */
import type ExcelJS from 'exceljs';
import { SIZE_CLASS_LABELS } from '../../worker/engine/benchmark.ts';
import { type BenchmarkRow, INDUSTRY_BENCHMARK_SLUG } from '../../worker/engine/industryBenchmark.ts';

/** A text cell as Excel cannot run it (a leading =, +, - or @ is quoted). */
const text = (value: string | null | undefined) =>
  value === null || value === undefined ? null : /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;

/** Adds the sheet when the report has an industry_benchmark item (older reports do not). */
export function addIndustryBenchmarkSheet(
  workbook: ExcelJS.Workbook,
  items: readonly { slug: string; sp_result: unknown }[],
): void {
  const item = items.find((i) => i.slug === INDUSTRY_BENCHMARK_SLUG);
  if (!item) return;
  const sp = item.sp_result as {
    rows?: BenchmarkRow[];
    industry?: { code: string | null; name: string | null };
  };
  const sheet = workbook.addWorksheet('行业对标', { views: [{ state: 'frozen', xSplit: 1, ySplit: 1 }] });
  sheet.columns = [
    { header: '指标', key: 'label', width: 18 },
    { header: '单位', key: 'unit', width: 6 },
    { header: '企业值', key: 'value', width: 12 },
    { header: '基准', key: 'set', width: 40 },
    { header: '版本', key: 'edition', width: 14 },
    { header: '数据年度', key: 'data_year', width: 10 },
    { header: '行业', key: 'industry', width: 28 },
    { header: '层级', key: 'level', width: 8 },
    { header: '规模', key: 'size', width: 8 },
    ...['优秀', '良好', '平均', '较低', '较差', 'P10', 'P25', 'P50', 'P75', 'P90'].map((h) => ({
      header: h,
      key: h,
      width: 10,
    })),
    { header: '样本数', key: 'n', width: 8 },
    { header: '均值', key: 'mean', width: 10 },
    { header: '位置', key: 'position', width: 18 },
    { header: '退档说明', key: 'fallback', width: 50 },
    { header: '来源', key: 'source', width: 60 },
  ];
  sheet.getRow(1).font = { bold: true };
  const quantileCells = (q: { p10: number; p25: number; p50: number; p75: number; p90: number } | null) =>
    q ? { P10: q.p10, P25: q.p25, P50: q.p50, P75: q.p75, P90: q.p90 } : {};
  for (const row of sp.rows ?? []) {
    const base = { label: text(row.label), unit: row.unit, value: row.value };
    for (const f of row.benchmarks) {
      sheet.addRow({
        ...base,
        set: text(f.set_name),
        edition: text(f.edition),
        data_year: f.data_year,
        industry: text(f.level === 'all' ? '全行业' : `${f.industry_code} ${f.industry_name}`),
        level: f.level_label,
        // The size class in words (全部规模, 中型 …), never its code (all, medium …).
        size: SIZE_CLASS_LABELS[f.size_class] ?? f.size_class,
        ...(f.bands
          ? { 优秀: f.bands[0], 良好: f.bands[1], 平均: f.bands[2], 较低: f.bands[3], 较差: f.bands[4] }
          : {}),
        ...quantileCells(f.quantiles),
        n: f.n,
        mean: f.mean,
        position: text(f.position?.label),
        fallback: text(f.fallback),
        source: text(f.note ? `${f.source}；${f.note}` : f.source),
      });
    }
    if (row.peers?.quantiles)
      sheet.addRow({
        ...base,
        set: '本账户同业企业',
        data_year: row.peers.year,
        industry: row.peers.industry_code,
        ...quantileCells(row.peers.quantiles),
        n: row.peers.n,
        position: text(row.peers.position?.label),
        source: '本账户同行业、同年度其他企业最新一份成功报告（不列示个别企业）',
      });
  }
}
