/**
 * 企业基本信息: the enterprise as submitted (name, region, industry, headcount, taxpayer status, type, size), the
 * accounting standard and the years covered. Not a numeric indicator, so no series: sp_result is
 *
 *   { released_year, enterprise_name, province, city, area, region, industry_sector_code, industry_sector,
 *     industry_division_code, industry_division, employee_count, taxpayer_qualification, is_vat_taxpayer,
 *     enterprise_type, is_sme, accounting_standard, accounting_standard_label, year_start, year_end, years,
 *     year_count, cash_flow_year_count }
 *
 * Text fields are the submitted text trimmed (employee_count too: the API takes it as free text), null when not
 * given or blank; region joins province, city and area. is_vat_taxpayer / is_sme are 1 or 0 as submitted, else
 * null. `fields` documents the numeric keys; the text keys are listed here and in the description.
 */
import {
  type AccountingStandard,
  ENTERPRISE_INFO_TEXT_FIELDS,
  type EnterpriseInfo,
  type EnterpriseInfoTextField,
} from '../../../types.ts';
import type { ReportContext } from '../../context.ts';
import type { AnalysisModule } from '../../module.ts';

export const ACCOUNTING_STANDARD_LABELS: Readonly<Record<AccountingStandard, string>> = {
  small_enterprise: '小企业会计准则',
  general_new: '企业会计准则（一般企业财务报表格式·新）',
  general_old: '企业会计准则（一般企业财务报表格式·旧）',
};

function text(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

function flag(value: number | null | undefined): 0 | 1 | null {
  return value === 0 || value === 1 ? value : null;
}

function profile(ctx: ReportContext) {
  const { report } = ctx;
  const info: EnterpriseInfo = report.enterpriseInfo ?? {};
  const texts = Object.fromEntries(
    ENTERPRISE_INFO_TEXT_FIELDS.map((key) => [key, text(info[key])]),
  ) as Record<EnterpriseInfoTextField, string | null>;
  const regionParts = [texts.province, texts.city, texts.area].filter((part) => part !== null);
  return {
    sp_result: {
      released_year: ctx.latestYear,
      enterprise_name: text(report.enterpriseName),
      province: texts.province,
      city: texts.city,
      area: texts.area,
      region: regionParts.length > 0 ? regionParts.join('') : null,
      industry_sector_code: texts.industry_sector_code,
      industry_sector: texts.industry_sector,
      industry_division_code: texts.industry_division_code,
      industry_division: texts.industry_division,
      employee_count: texts.employee_count,
      taxpayer_qualification: texts.taxpayer_qualification,
      is_vat_taxpayer: flag(info.is_vat_taxpayer),
      enterprise_type: texts.enterprise_type,
      is_sme: flag(info.is_sme),
      accounting_standard: report.standard,
      accounting_standard_label: ACCOUNTING_STANDARD_LABELS[report.standard],
      year_start: ctx.firstYear,
      year_end: ctx.latestYear,
      years: [...ctx.years],
      year_count: ctx.years.length,
      cash_flow_year_count: ctx.years.filter((year) => ctx.hasSheet(year, 'cash_flow')).length,
    },
    risk_items: [],
  };
}

export const enterpriseProfileModule: AnalysisModule = {
  slug: 'enterprise_profile',
  label: '企业基本信息',
  section: 'enterprise_overview',
  description:
    '企业名称、所在地区（省/市/区县）、所属行业（门类、大类及代码）、从业人数、纳税人资质、是否增值税一般纳税人、' +
    '企业类型、是否小微企业、适用会计准则及报表覆盖年度。文本字段：enterprise_name, province, city, area, region, ' +
    'industry_sector_code, industry_sector, industry_division_code, industry_division, employee_count, ' +
    'taxpayer_qualification, enterprise_type, accounting_standard, accounting_standard_label；标志字段（1/0）：' +
    'is_vat_taxpayer, is_sme；年度：year_start, year_end, years。未提供的字段为空。',
  // Not a cross-check, but like one it has its own sp_result layout (no series), which `indicator` would forbid.
  kind: 'check',
  fields: [
    {
      key: 'year_count',
      label: '报表覆盖年度数',
      unit: '个',
      formula: '提交的年度数（起始年度至截止年度）',
      inputs: ['income.*', 'balance.*'],
    },
    {
      key: 'cash_flow_year_count',
      label: '提交现金流量表的年度数',
      unit: '个',
      formula: '提交了现金流量表的年度数',
      inputs: ['cash_flow.*'],
      note: '小于报表覆盖年度数时，相关年度的现金流量指标为空。',
    },
  ],
  riskRules: [],
  compute: profile,
};
