/**
 * 其他综合收益分析: 其他综合收益的税后净额 and each of its categories and items (every income-statement key of the
 * catalogue beginning `oci_`, in statement order), 综合收益总额, and their change rates. The small-enterprise
 * standard has no OCI, and an unlisted general enterprise often submits none: every value is then null and one
 * info item says why.
 */
import { LINE_ITEMS } from '../../../catalogue/lineItems.ts';
import type { ReportContext } from '../../context.ts';
import type { LineRef } from '../../module.ts';
import { amountAndChange, type CustomRiskRule, defineModule, raise } from './shared.ts';

const OCI_LINES = LINE_ITEMS.filter((def) => def.sheet === 'income' && def.key.startsWith('oci_'));

const OCI_REFS: readonly LineRef[] = [
  ...OCI_LINES.map((def) => `income.${def.key}` as const),
  'income.total_comprehensive_income',
];

const submittedAny = (ctx: ReportContext): boolean =>
  ctx.years.some((year) =>
    OCI_REFS.some((ref) => ctx.keys(year, 'income').includes(ref.slice('income.'.length))),
  );

const NOT_AVAILABLE: CustomRiskRule = {
  code: 'other_comprehensive_income.not_available',
  tiers: [{ level: 'info', threshold: 0 }],
  description: '报表未列示其他综合收益（小企业会计准则无此项目，或未提交相关行次），本项指标为空。',
  message: '{reason}，其他综合收益分析的各项指标为空。',
  role: 'data_gap',
  gap: 'other_comprehensive_income_lines',
  evaluate(ctx) {
    const standard = ctx.report.standard;
    const span = `${ctx.firstYear}—${ctx.latestYear}年`;
    if (!OCI_LINES.some((def) => def.standards.includes(standard))) {
      return [
        raise(NOT_AVAILABLE, 'info', { reason: `${span}按小企业会计准则编制的利润表不列示其他综合收益` }),
      ];
    }
    if (submittedAny(ctx)) return [];
    return [raise(NOT_AVAILABLE, 'info', { reason: `${span}的利润表未提交其他综合收益及综合收益总额项目` })];
  },
};

export const otherComprehensiveIncomeModule = defineModule({
  slug: 'other_comprehensive_income',
  label: '其他综合收益分析',
  section: 'income_statement_analysis',
  description: '其他综合收益的税后净额及其各分类、明细项目与综合收益总额的金额和同比变动率。',
  metrics: OCI_REFS.flatMap((ref) => amountAndChange(ref)),
  customRules: [NOT_AVAILABLE],
});
