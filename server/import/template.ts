/**
 * The import templates: GET /api/v1/developer/templates/{standard}.xlsx. One workbook per standard with the
 * official layout of its three statements (会企01–03表 or 会小企01–03表): the balance sheet two-sided
 * (资产 | 负债和所有者权益), every row with its 行次, two amount columns, section headings, and a 企业信息 sheet.
 * `body` fills it from a submission (one set of statements per year) — the round-trip tests use that, and a
 * client can use it to hand a submission back to an accountant.
 */
import { Decimal } from 'decimal.js';
import type ExcelJS from 'exceljs';
import { type FormLine, formLines, STATEMENT_FORMS } from '../../worker/catalogue/lineItems.ts';
import type { AccountingStandard, SheetType } from '../../worker/types.ts';
import { loadExcel } from '../lib/excel.ts';
import { ENTERPRISE_FIELDS, ENTERPRISE_SHEET_NAME } from './enterpriseSheet.ts';
import { AMOUNT_FIELDS } from './importStatements.ts';

interface BodyItem {
  item_name: string;
  [field: string]: string;
}
export interface TemplateBody {
  enterprise_name?: string;
  accounting_standard: AccountingStandard;
  years_data: { year: number; sheets: { sheet_type: SheetType; items: BodyItem[] }[] }[];
  enterprise_info?: Record<string, string | number | null> | null;
  ai_auto_analysis?: number;
}

const HEADINGS: Partial<Record<string, string>> = {
  current_assets: '流动资产：',
  noncurrent_assets: '非流动资产：',
  current_liabilities: '流动负债：',
  noncurrent_liabilities: '非流动负债：',
  equity: '所有者权益（或股东权益）：',
  operating_in: '一、经营活动产生的现金流量：',
  investing_in: '二、投资活动产生的现金流量：',
  financing_in: '三、筹资活动产生的现金流量：',
};

const NUMBERED: Partial<Record<string, string>> = {
  revenue: '一、',
  operating_profit: '二、',
  total_profit: '三、',
  net_profit: '四、',
  oci_net_of_tax: '五、',
  total_comprehensive_income: '六、',
  fx_effect_on_cash: '四、',
  net_increase_cash: '五、',
  cash_ending: '六、',
};

const COLUMNS: Record<SheetType, Record<'general' | 'small', [string, string]>> = {
  balance: { general: ['期末余额', '年初余额'], small: ['期末余额', '年初余额'] },
  // 会小企02/03表 print 本年累计金额 | 本月金额; the template asks for the prior year instead (the API needs it).
  income: { general: ['本期金额', '上期金额'], small: ['本年累计金额', '上年金额'] },
  cash_flow: { general: ['本期金额', '上期金额'], small: ['本年累计金额', '上年金额'] },
};

/** The label printed for a line: 一、营业收入, 减：营业成本, 其中：利息费用, 加：期初现金及现金等价物余额. */
function printedLabel(line: FormLine, previous: FormLine | undefined): string {
  const { def } = line;
  if (def.group === 'breakdown') return `  其中：${def.nameZh}`;
  if (NUMBERED[def.key]) return `${NUMBERED[def.key]}${def.nameZh}`;
  if (def.key === 'cash_beginning') return `加：${def.nameZh}`;
  if (def.sign === 'deduction' && previous?.def.sign !== 'deduction') return `减：${def.nameZh}`;
  if (def.sign === 'signed' && previous?.def.sign !== 'signed') return `加：${def.nameZh}`;
  return def.nameZh;
}

type Row = { label: string; line?: FormLine };

function rowsOf(lines: readonly FormLine[]): Row[] {
  const rows: Row[] = [];
  lines.forEach((line, index) => {
    const previous = lines[index - 1];
    const heading = HEADINGS[line.def.group];
    if (heading && previous?.def.group !== line.def.group) rows.push({ label: heading });
    rows.push({ label: printedLabel(line, previous), line });
  });
  return rows;
}

function numberFormat(text: string): string {
  const decimals = /\.(\d+)$/.exec(text)?.[1]?.length ?? 0;
  return decimals === 0 ? '#,##0' : `#,##0.${'0'.repeat(decimals)}`;
}

function writeAmount(cell: ExcelJS.Cell, text: string | undefined): void {
  if (text === undefined) return;
  // A number beyond double precision would change in the file: such an amount is written as text (read back exactly).
  cell.value = new Decimal(Number(text)).equals(text) ? Number(text) : text;
  cell.numFmt = numberFormat(text);
}

function addStatement(
  workbook: ExcelJS.Workbook,
  sheet: SheetType,
  standard: AccountingStandard,
  year: number | null,
  enterpriseName: string | undefined,
  items: Map<string, BodyItem> | null,
): void {
  const form = STATEMENT_FORMS[sheet];
  const small = standard === 'small_enterprise';
  const ws = workbook.addWorksheet(year === null ? form.title : `${form.title} ${year}`);
  const [currentHeader, priorHeader] = COLUMNS[sheet][small ? 'small' : 'general'];
  const [currentField, priorField] = AMOUNT_FIELDS[sheet];
  const lines = formLines(sheet, standard);
  const twoSided = sheet === 'balance';
  const split = twoSided ? lines.findIndex((l) => l.def.group.endsWith('liabilities')) : lines.length;
  const sides = twoSided ? [rowsOf(lines.slice(0, split)), rowsOf(lines.slice(split))] : [rowsOf(lines)];
  const width = sides.length * 4;

  ws.mergeCells(1, 1, 1, width);
  ws.getCell(1, 1).value = form.title;
  ws.getCell(1, 1).font = { bold: true, size: 14 };
  ws.getCell(1, 1).alignment = { horizontal: 'center' };
  ws.getCell(2, width).value = small ? form.small : form.general;
  ws.getCell(2, width).alignment = { horizontal: 'right' };
  ws.getCell(3, 1).value = `编制单位：${enterpriseName ?? ''}`;
  const period = sheet === 'balance' ? `${year ?? '    '}年12月31日` : `${year ?? '    '}年度`;
  ws.getCell(3, Math.max(2, width / 2)).value = period;
  ws.getCell(3, width).value = '单位：元';
  const header = sides.flatMap((_, i) => [
    i === 0 ? (twoSided ? '资产' : '项目') : '负债和所有者权益（或股东权益）',
    '行次',
    currentHeader,
    priorHeader,
  ]);
  ws.getRow(4).values = header;
  ws.getRow(4).font = { bold: true };
  sides.forEach((rows, side) => {
    const base = side * 4 + 1;
    rows.forEach((row, index) => {
      const r = 5 + index;
      ws.getCell(r, base).value = row.label;
      if (!row.line) {
        ws.getCell(r, base).font = { bold: true };
        return;
      }
      ws.getCell(r, base + 1).value = row.line.lineNo;
      const item = items?.get(row.line.def.key);
      writeAmount(ws.getCell(r, base + 2), item?.[currentField]);
      writeAmount(ws.getCell(r, base + 3), item?.[priorField]);
    });
  });
  ws.columns.forEach((column, index) => {
    column.width = index % 4 === 0 ? 44 : index % 4 === 1 ? 6 : 20;
  });
  ws.views = [{ state: 'frozen', ySplit: 4 }];
}

function addEnterpriseSheet(workbook: ExcelJS.Workbook, body: TemplateBody | null): void {
  const ws = workbook.addWorksheet(ENTERPRISE_SHEET_NAME);
  ws.getRow(1).values = ['项目', '内容', '说明'];
  ws.getRow(1).font = { bold: true };
  ENTERPRISE_FIELDS.forEach((field, index) => {
    const value =
      field.field === 'enterprise_name'
        ? body?.enterprise_name
        : field.field === 'ai_auto_analysis'
          ? body?.ai_auto_analysis
          : body?.enterprise_info?.[field.field];
    ws.getRow(index + 2).values = [field.label, value ?? null, field.hint ?? ''];
  });
  ws.getColumn(1).width = 16;
  ws.getColumn(2).width = 36;
  ws.getColumn(3).width = 30;
}

/** The template of `standard` as an .xlsx buffer; filled with `body` when given (one set of sheets a year). */
export async function buildTemplate(
  standard: AccountingStandard,
  body: TemplateBody | null = null,
): Promise<Buffer> {
  const workbook = new (await loadExcel()).Workbook();
  workbook.creator = 'financial-report-analysis';
  const guide = workbook.addWorksheet('填写说明');
  [
    '填写说明',
    '1. 每个报表工作表填写一个年度：在第3行填写日期（如“2024年12月31日”“2024年度”），多个年度可复制工作表，或每年一个文件。',
    '2. 金额单位为元；负数可写“-1234.56”或“(1,234.56)”；空白表示未填列。',
    '3. 请勿改动“项目”列的名称；行次与官方格式一致。',
    '4. “企业信息”工作表可选，填写企业名称与行业等信息。',
    '5. 保存为 .xlsx（Excel 工作簿）后上传；不接受 .xls、.xlsm。',
  ].forEach((text, index) => {
    guide.getCell(index + 1, 1).value = text;
  });
  guide.getColumn(1).width = 110;
  const years = body ? body.years_data.map((y) => y.year).sort((a, b) => a - b) : [null];
  for (const year of years) {
    const yearData = body?.years_data.find((y) => y.year === year);
    for (const sheet of ['balance', 'income', 'cash_flow'] as const) {
      const items = yearData
        ? new Map(yearData.sheets.find((s) => s.sheet_type === sheet)?.items.map((i) => [i.item_name, i]))
        : null;
      if (yearData && items?.size === 0) continue;
      addStatement(workbook, sheet, standard, year, body?.enterprise_name, items);
    }
  }
  addEnterpriseSheet(workbook, body);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}
