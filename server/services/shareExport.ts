/**
 * The shared report as an Excel workbook (exceljs) that stands alone, without the page beside it:
 * - 概要: who (enterprise, years, standard), which report (id, version, generation and export time), the
 *   verdict (grade, label, score, coverage, data quality, drivers with their values), data gaps and strengths;
 * - 指标: every indicator of every item by year, newest year first (as on the page and in print), a value that is
 *   not meaningful written "n.m." with its reason as the cell's note, counts as whole numbers;
 * - 风险与提示: every risk, most severe first, then in the order of the report's modules.
 * Only Chinese labels: text codes (Altman zones and models, levels) are translated as on the page, risk codes
 * are not written. Read through the same share link as the page, so it opens exactly when the page does.
 */
import {
  formatDateTime,
  formatNumber,
  formatNumbersInText,
  formatValue,
  isWholeCount,
  LEVEL_LABELS,
  NOT_MEANINGFUL,
  nullReasonText,
  STANDARD_LABELS,
} from '../../web/src/lib/format.ts';
import { INDUSTRY_BENCHMARK_SLUG } from '../../worker/engine/industryBenchmark.ts';
import { addIndustryBenchmarkSheet } from '../benchmarks/exportSheet.ts';
import { loadExcel } from '../lib/excel.ts';
import { presentSharedReport } from '../presenters/sharePresenter.ts';
import type { ServiceContext } from './context.ts';
import { getSharedReport } from './sharing.ts';

type Row = Record<string, unknown>;

/** Excel cannot hold a formula-like text safely: a leading =, +, - or @ in a text cell is written quoted. */
function safeText(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/** A value as a cell: numbers stay numbers, text codes become their Chinese labels. */
function cellValue(value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean' || typeof value === 'string') return safeText(formatValue(value));
  return null;
}

const LEVEL_ORDER: Record<string, number> = { danger: 0, warning: 1, info: 2 };
const TWO_DECIMALS = '#,##0.00';
const WHOLE = '#,##0';

function stripTag(message: string): string {
  return formatNumbersInText(message.replace(/^【[^】]*】/, ''));
}

function nullReasonOf(holder: Row | undefined, key: string): string | null {
  const reasons = holder?.null_reasons as Row | undefined;
  const code = reasons?.[key];
  return typeof code === 'string' ? code : null;
}

interface Driver {
  label?: string;
  value?: number | null;
  unit?: string;
  effect?: number;
  reason?: string;
}

/** Data quality as the verdict gives it (a label, a grade, a score or a text), in words. */
const QUALITY_LABELS: Readonly<Record<string, string>> = {
  reliable: '数据一致',
  questionable: '数据有疑点',
  unreliable: '数据不一致',
};

/** verdict.data_quality in words: its level, then each cross-check issue (year and message). */
function describeQuality(quality: unknown): string {
  if (quality === null || typeof quality !== 'object') return '—';
  const q = quality as { level?: string; issues?: { year?: number | null; message?: string }[] };
  const level = (q.level && QUALITY_LABELS[q.level]) ?? '—';
  const issues = (q.issues ?? []).map((i) => formatNumbersInText(String(i.message ?? '')));
  return issues.length > 0 ? `${level}：${issues.join('；')}` : level;
}

export async function exportSharedReport(
  ctx: ServiceContext,
  token: string,
): Promise<{ name: string; body: Buffer }> {
  const shared = await getSharedReport(ctx, token);
  const report = presentSharedReport(shared);
  const workbook = new (await loadExcel()).Workbook();
  workbook.creator = '财务分析报告';
  const years = [...report.years].sort((a, b) => b - a);
  const catalogueReasons = report.null_reasons;
  const labelOf = (slug: string) => report.items.find((item) => item.slug === slug)?.label ?? slug;

  const core = (report.items.find((item) => item.section === 'core_risk')?.sp_result ?? {}) as Row;
  const verdict = (core.verdict ?? null) as (Row & { drivers?: Driver[] }) | null;
  const dataGaps = (Array.isArray(core.data_gaps) ? core.data_gaps : []) as Array<{
    message: string;
    disables?: string[];
  }>;
  const strengths = (Array.isArray(core.strengths) ? core.strengths : []) as Array<{
    slug: string;
    message: string;
  }>;

  const summary = workbook.addWorksheet('概要');
  summary.columns = [
    { header: '项目', key: 'k', width: 18 },
    { header: '内容', key: 'v', width: 90 },
  ];
  summary.getRow(1).font = { bold: true };
  const line = (k: string, v: string | number) =>
    summary.addRow({ k, v: typeof v === 'string' ? safeText(v) : v });
  line('企业名称', report.name);
  line('报表年度', `${report.year_start}—${report.year_end}年（${report.years.length}个年度）`);
  line('会计准则', STANDARD_LABELS[report.accounting_standard] ?? report.accounting_standard);
  line('报告编号', shared.report.id);
  line('报告版本', `第 ${report.version_no} 版`);
  line('报告生成时间', `${formatDateTime(report.completed_at)}（北京时间）`);
  line('导出时间', `${formatDateTime(new Date().toISOString())}（北京时间）`);
  if (verdict && typeof verdict.grade === 'string') {
    line('综合评级', `${verdict.grade} · ${String(verdict.label ?? '')}`);
    line('健康度得分', `${formatNumber(verdict.score)} / 100`);
    if (verdict.provisional === true) line('评级状态', String(verdict.status ?? '待定'));
    const coverage = verdict.coverage as
      | { weight_share?: number; missing?: { label?: string }[] }
      | undefined;
    line(
      '评分覆盖',
      typeof coverage?.weight_share === 'number'
        ? `${formatNumber(coverage.weight_share)}% 权重${
            coverage.missing?.length ? `（未计分：${coverage.missing.map((m) => m.label).join('、')}）` : ''
          }`
        : '—',
    );
    line('数据质量', describeQuality(verdict.data_quality));
    for (const [index, driver] of (verdict.drivers ?? []).entries()) {
      const value =
        typeof driver.value === 'number'
          ? `${formatNumber(driver.value, driver.unit)}${driver.unit ? ` ${driver.unit}` : ''}`
          : '—';
      const effect =
        typeof driver.effect === 'number'
          ? `，影响 ${driver.effect > 0 ? '+' : ''}${formatNumber(driver.effect)} 分`
          : '';
      const reason = driver.reason ? `（${driver.reason}）` : '';
      line(index === 0 ? '主要影响因素' : '', `${driver.label ?? ''}：${value}${effect}${reason}`);
    }
  } else {
    line('综合评级', '本报告未给出综合评级');
  }
  if (dataGaps.length === 0) line('数据缺口', '无');
  for (const [index, gap] of dataGaps.entries()) {
    const affected = (gap.disables ?? []).map(labelOf).join('、');
    line(
      index === 0 ? '数据缺口' : '',
      `${stripTag(gap.message)}${affected ? `（受影响：${affected}）` : ''}`,
    );
  }
  if (strengths.length === 0) line('优势', '无');
  for (const [index, strength] of strengths.entries()) {
    line(index === 0 ? '优势' : '', `${labelOf(strength.slug)}：${stripTag(strength.message)}`);
  }
  summary.getColumn('v').alignment = { wrapText: true, vertical: 'top' };

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
      const entries = years.map(
        (year) => series.find((e) => e.year === year) ?? (year === released ? sp : undefined),
      );
      // A categorical row (Altman zones, models) has no unit.
      const textual = entries.some((entry) => typeof entry?.[field.key] === 'string');
      const row = indicators.addRow({
        item: safeText(item.label),
        label: safeText(field.label),
        unit: textual ? '' : field.unit,
        formula: safeText(field.formula),
      });
      for (const [index, entry] of entries.entries()) {
        const cell = row.getCell(4 + index);
        const value = entry?.[field.key];
        const reason = value == null ? nullReasonOf(entry, field.key) : null;
        if (reason) {
          cell.value = NOT_MEANINGFUL;
          cell.note = `n.m.：${nullReasonText(reason, catalogueReasons)}`;
          cell.alignment = { horizontal: 'right' };
          continue;
        }
        cell.value = cellValue(value);
        if (typeof value === 'number') cell.numFmt = isWholeCount(value, field.unit) ? WHOLE : TWO_DECIMALS;
      }
    }
  }

  const risks = workbook.addWorksheet('风险与提示');
  risks.columns = [
    { header: '等级', key: 'level', width: 8 },
    { header: '分析项目', key: 'item', width: 22 },
    { header: '内容', key: 'message', width: 100 },
  ];
  risks.getRow(1).font = { bold: true };
  const listed = report.items
    .filter((item) => item.section !== 'core_risk')
    .flatMap((item, position) => item.risk_items.map((risk) => ({ risk, item, position })))
    .sort(
      (a, b) =>
        (LEVEL_ORDER[a.risk.level] ?? 3) - (LEVEL_ORDER[b.risk.level] ?? 3) || a.position - b.position,
    );
  for (const { risk, item } of listed) {
    risks.addRow({
      level: LEVEL_LABELS[risk.level as keyof typeof LEVEL_LABELS] ?? risk.level,
      item: safeText(item.label),
      message: safeText(stripTag(risk.message)),
    });
  }
  risks.getColumn('message').alignment = { wrapText: true, vertical: 'top' };

  addIndustryBenchmarkSheet(workbook, report.items);

  const body = Buffer.from(await workbook.xlsx.writeBuffer());
  return { name: `${report.name}-财务分析报告-${report.year_start}-${report.year_end}.xlsx`, body };
}
