/**
 * What the model is shown for one analysis item: the item's computed indicators, series and rule-based
 * risk items with the catalogue's labels and units — never the raw statements, and not the enterprise's name
 * (the interpretation does not need it, and it need not leave the service).
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { CORE_RISK_SLUG } from '../../worker/engine/coreRisk.ts';
import type { AnalysisOutput } from '../../worker/types.ts';
import { catalogueItem } from './catalogue.ts';
import { INTERPRETATION_JSON_SCHEMA, LIMITS } from './outputSchema.ts';

/** Report-level context of an item, taken from the report row. */
export interface ReportBrief {
  accountingStandard: string;
  industry: string | null;
  yearStart: number;
  yearEnd: number;
}

const SYSTEM_PROMPT = `你是一名资深财务分析师，为中国企业财务报表分析报告中的某一个分析项撰写“AI解读”。读者是企业财务人员、审计人员和信贷人员，需要据此判断并采取行动。

要求：
1. 只依据用户消息中提供的指标、逐年序列和风险项，不得编造数据或引用未提供的数字。金额单位为万元；百分比类指标已乘以100，直接加“%”；其他单位见 fields。
2. 使用简体中文，专业、具体：写明年份、关键数值，以及与上一年度相比的变动方向和幅度，并说明其财务含义；避免空泛的套话。
3. summary：数据解读，2–4句，不超过${LIMITS.summary}字。
4. risk_focus：哪些风险最值得关注、为什么，1–3句；没有明显风险时说明判断依据。
5. next_steps：1–${LIMITS.steps}条具体的核查建议（查什么、怎么查），最重要的在前，每条不超过${LIMITS.step}字。
6. risk_items：已有风险项（rule_risk_items）未覆盖、但数据能够支持的新风险，0–${LIMITS.risks}条；level 取 info、warning 或 danger；不要重复已有风险项，没有则返回空数组。
7. 只输出一个符合以下 JSON Schema 的 JSON 对象，不要输出任何其他内容：
${JSON.stringify(INTERPRETATION_JSON_SCHEMA)}`;

const CORE_RISK_NOTE =
  '本项为“核心风险洞察”，汇总了报告中所有分析项的规则风险项。summary 须给出对企业整体财务风险的总体判断（较高、中等或较低）及主要理由，并引用 headline_figures 中的核心指标。';

/** The sp_result the model sees: without the enterprise's name, and core_risk_insight without empty groups. */
function visibleResult(item: AnalysisOutput): Record<string, unknown> {
  const { series: _series, ...latest } = item.sp_result;
  if (item.slug === 'enterprise_profile') delete latest.enterprise_name;
  if (item.slug === CORE_RISK_SLUG && Array.isArray(latest.modules))
    latest.modules = (latest.modules as Array<{ total_count?: number }>).filter(
      (m) => (m.total_count ?? 0) > 0,
    );
  return latest;
}

/**
 * The messages of one model call. `reportItems` lets core_risk_insight quote the report's headline figures
 * (financial_benchmarks), so its overall assessment rests on more than the risk counts.
 */
export function buildMessages(
  item: AnalysisOutput,
  brief: ReportBrief,
  reportItems: readonly AnalysisOutput[] = [],
): ChatCompletionMessageParam[] {
  const entry = catalogueItem(item.slug);
  const payload: Record<string, unknown> = {
    report: {
      accounting_standard: brief.accountingStandard,
      industry: brief.industry,
      years: `${brief.yearStart}—${brief.yearEnd}`,
    },
    item: {
      slug: item.slug,
      label: entry?.label ?? item.slug,
      section: entry?.section_label ?? null,
      description: entry?.description ?? null,
    },
    fields: (entry?.fields ?? []).map((f) => ({ key: f.key, label: f.label, unit: f.unit })),
    latest: visibleResult(item),
    series: Array.isArray(item.sp_result.series) ? item.sp_result.series : [],
    rule_risk_items: item.risk_items
      .filter((risk) => risk.source !== 'model')
      .map((risk) => ({ level: risk.level, code: risk.code ?? null, message: risk.message })),
  };
  if (item.slug === CORE_RISK_SLUG) {
    const benchmarks = reportItems.find((o) => o.slug === 'financial_benchmarks');
    if (benchmarks) payload.headline_figures = benchmarks.sp_result;
  }
  const note = item.slug === CORE_RISK_SLUG ? `${CORE_RISK_NOTE}\n\n` : '';
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: `${note}请解读以下分析项：\n${JSON.stringify(payload)}` },
  ];
}
