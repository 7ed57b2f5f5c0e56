/**
 * The optional 企业信息 sheet of a workbook (the template has one): one field a row, label in the first
 * column, value in the second. It carries what a statement does not: enterprise_info and ai_auto_analysis.
 */
import type { EnterpriseInfo } from '../../worker/types.ts';

export const ENTERPRISE_SHEET_NAME = '企业信息';

type InfoField = keyof EnterpriseInfo;

/** Label → body field, in the order the template lists them. */
export const ENTERPRISE_FIELDS: readonly {
  label: string;
  field: InfoField | 'enterprise_name' | 'ai_auto_analysis';
  numeric?: true;
  hint?: string;
}[] = [
  { label: '企业名称', field: 'enterprise_name' },
  { label: '省份', field: 'province' },
  { label: '城市', field: 'city' },
  { label: '区县', field: 'area' },
  { label: '行业门类代码', field: 'industry_sector_code', hint: 'GB/T 4754，如 C' },
  { label: '行业门类', field: 'industry_sector' },
  { label: '行业大类代码', field: 'industry_division_code', hint: '如 C38' },
  { label: '行业大类', field: 'industry_division' },
  { label: '从业人数', field: 'employee_count' },
  { label: '纳税人资格', field: 'taxpayer_qualification' },
  { label: '是否一般纳税人', field: 'is_vat_taxpayer', numeric: true, hint: '1 是，0 否' },
  { label: '企业类型', field: 'enterprise_type' },
  { label: '是否小微企业', field: 'is_sme', numeric: true, hint: '1 是，0 否' },
  { label: 'AI自动解读', field: 'ai_auto_analysis', numeric: true, hint: '1 生成 AI 解读，0 不生成' },
];

export interface EnterpriseSheetValues {
  enterpriseName?: string;
  info: EnterpriseInfo;
  aiAutoAnalysis?: number;
}

/** Reads label/value rows; unknown labels are ignored. Values come as text (cells already read). */
export function readEnterpriseRows(
  rows: readonly (readonly [string, string | number | null])[],
): EnterpriseSheetValues {
  const result: EnterpriseSheetValues = { info: {} };
  for (const [label, value] of rows) {
    const field = ENTERPRISE_FIELDS.find((f) => f.label === label.normalize('NFKC').replace(/\s+/gu, ''));
    if (!field || value === null || String(value).trim() === '') continue;
    const text = String(value).trim();
    if (field.field === 'enterprise_name') result.enterpriseName = text;
    else if (field.field === 'ai_auto_analysis') result.aiAutoAnalysis = Number(text);
    else if (field.numeric) (result.info as Record<string, unknown>)[field.field] = Number(text);
    else (result.info as Record<string, unknown>)[field.field] = text;
  }
  return result;
}
