/**
 * 每股收益波动: basic and diluted earnings per share (元/股, as submitted — not converted to 万元) and their
 * year-on-year change rates. Only the general formats list EPS, and only listed or listing companies must report
 * it; without it every value is null and one info item says why. The spec places this slug in section 4
 * (综合经营分析).
 */
import { findLineItem } from '../../../catalogue/lineItems.ts';
import type { ReportContext } from '../../context.ts';
import {
  type CustomRiskRule,
  defineModule,
  line,
  lineChangeRateMetric,
  periodMetric,
  raise,
} from './shared.ts';

const EPS_KEYS = ['basic_eps', 'diluted_eps'] as const;

const submittedAny = (ctx: ReportContext): boolean =>
  ctx.years.some((year) => EPS_KEYS.some((key) => ctx.keys(year, 'income').includes(key)));

const NOT_AVAILABLE: CustomRiskRule = {
  code: 'eps_fluctuations.not_available',
  tiers: [{ level: 'info', threshold: 0 }],
  description: '报表未列示每股收益（小企业会计准则无此项目，或未提交相关行次），本项指标为空。',
  message: '{reason}，每股收益分析的各项指标为空。',
  role: 'data_gap',
  gap: 'eps_lines',
  evaluate(ctx) {
    const standard = ctx.report.standard;
    const span = `${ctx.firstYear}—${ctx.latestYear}年`;
    if (!EPS_KEYS.some((key) => findLineItem('income', key)?.standards.includes(standard))) {
      return [raise(NOT_AVAILABLE, 'info', { reason: `${span}按小企业会计准则编制的利润表不列示每股收益` })];
    }
    if (submittedAny(ctx)) return [];
    return [
      raise(NOT_AVAILABLE, 'info', {
        reason: `${span}的利润表未提交基本每股收益和稀释每股收益（非上市企业通常不披露）`,
      }),
    ];
  },
};

const epsMetrics = (key: (typeof EPS_KEYS)[number], label: string) => [
  periodMetric(
    {
      key,
      label,
      unit: '元',
      formula: `${label}（元/股，按提交金额列示）`,
      inputs: [`income.${key}`],
    },
    line(`income.${key}`),
  ),
  lineChangeRateMetric(`income.${key}`, { label }),
];

export const epsFluctuationsModule = defineModule({
  slug: 'eps_fluctuations',
  label: '每股收益波动',
  section: 'comprehensive_analysis',
  description: '基本每股收益与稀释每股收益（元/股）的趋势及同比变动率。',
  metrics: [...epsMetrics('basic_eps', '基本每股收益'), ...epsMetrics('diluted_eps', '稀释每股收益')],
  customRules: [NOT_AVAILABLE],
});
