/**
 * The shared report as an Excel workbook (exceljs): every indicator of every item by year (the years as
 * columns, oldest first, as on the page), then every risk, data gap and strength. Read through the same
 * share link as the page, so it opens exactly when the page does (public, not expired).
 */
import ExcelJS from 'exceljs';
import { INDUSTRY_BENCHMARK_SLUG } from '../../worker/engine/industryBenchmark.ts';
import { addIndustryBenchmarkSheet } from '../benchmarks/exportSheet.ts';
import { presentSharedReport } from '../presenters/sharePresenter.ts';
import type { ServiceContext } from './context.ts';
import { getSharedReport } from './sharing.ts';

type Row = Record<string, unknown>;

/** Excel cannot hold a formula-like text safely: a leading =, +, - or @ in a text cell is written quoted. */
function safeText(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

function cellValue(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value ? '是' : '否';
  if (typeof value === 'string') return safeText(value);
  return null;
}

export async function exportSharedReport(
  ctx: ServiceContext,
  token: string,
): Promise<{ name: string; body: Buffer }> {
  const report = presentSharedReport(await getSharedReport(ctx, token));
  const workbook = new ExcelJS.Workbook();
  workbook.creator = '财务分析报告';
  const years = report.years;

  const indicators = workbook.addWorksheet('指标', { views: [{ state: 'frozen', xSplit: 3, ySplit: 1 }] });
  indicators.columns = [
    { header: '分析项目', key: 'item', width: 22 },
    { header: '指标', key: 'label', width: 28 },
    { header: '单位', key: 'unit', width: 10 },
    ...years.map((year) => ({ header: `${year}年`, key: String(year), width: 16 })),
    { header: '公式', key: 'formula', width: 60 },
  ];
  indicators.getRow(1).font = { bold: true };
  for (const item of report.items) {
    // industry_benchmark has a sheet of its own (addIndustryBenchmarkSheet).
    if (item.section === 'core_risk' || item.slug === INDUSTRY_BENCHMARK_SLUG) continue;
    const sp = item.sp_result as Row;
    const series = Array.isArray(sp.series) ? (sp.series as Row[]) : [];
    const released = typeof sp.released_year === 'number' ? sp.released_year : null;
    for (const field of item.fields) {
      if (field.key.includes('[]')) continue;
      const row: Row = {
        item: safeText(item.label),
        label: safeText(field.label),
        unit: field.unit,
        formula: safeText(field.formula),
      };
      for (const year of years) {
        const entry = series.find((e) => e.year === year) ?? (year === released ? sp : undefined);
        row[String(year)] = cellValue(entry?.[field.key]);
      }
      indicators.addRow(row);
    }
  }
  for (let column = 4; column < 4 + years.length; column++) indicators.getColumn(column).numFmt = '#,##0.00';

  const risks = workbook.addWorksheet('风险与提示');
  risks.columns = [
    { header: '分析项目', key: 'item', width: 22 },
    { header: '等级', key: 'level', width: 8 },
    { header: '代码', key: 'code', width: 36 },
    { header: '内容', key: 'message', width: 100 },
  ];
  risks.getRow(1).font = { bold: true };
  const levels: Record<string, string> = { danger: '危险', warning: '警告', info: '提示' };
  for (const item of report.items) {
    if (item.section === 'core_risk') continue;
    for (const risk of item.risk_items) {
      risks.addRow({
        item: safeText(item.label),
        level: levels[risk.level] ?? risk.level,
        code: risk.code,
        message: safeText(risk.message),
      });
    }
  }

  addIndustryBenchmarkSheet(workbook, report.items);

  const body = Buffer.from(await workbook.xlsx.writeBuffer());
  return { name: `${report.name}-财务分析报告-${report.year_start}-${report.year_end}.xlsx`, body };
}
