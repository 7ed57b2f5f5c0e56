/**
 * What the model is shown for a batch of analysis items: the report's context once (standard, industry, years,
 * and the verdict with its drivers, so every text agrees with the page's headline), then each item's computed
 * indicators as one table (a row per indicator, labelled with the catalogue's label and unit, a column per
 * year), its other values and its rule-based risk items — never the raw statements, and not the enterprise's
 * name (the interpretation does not need it, and it need not leave the service).
 */
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { CORE_RISK_SLUG } from '../../worker/engine/coreRisk.ts';
import type { AnalysisOutput } from '../../worker/types.ts';
import { catalogueItem } from './catalogue.ts';
import { BATCH_JSON_SCHEMA, LIMITS } from './outputSchema.ts';

/** Report-level context of an item, taken from the report row. */
export interface ReportBrief {
  accountingStandard: string;
  industry: string | null;
  yearStart: number;
  yearEnd: number;
}

const RULES = `你是一名资深财务分析师，为中国企业财务报表分析报告中的每个分析项撰写“AI解读”。读者是企业财务人员、审计人员和信贷人员，需要据此判断并采取行动。

要求（对每个分析项）：
1. 只依据提供的指标、逐年数据和风险项，不得编造数据或引用未提供的数字。table 每行为“指标（单位）”，各列对应 years 中的年份；金额单位为万元，百分比已乘以100，直接加“%”；null 表示无法计算（null_reasons 说明原因）。
2. 使用简体中文，专业、具体：写明年份、关键数值，以及与上一年度相比的变动方向和幅度，并说明其财务含义；避免空泛的套话。
3. summary：数据解读，2–4句，不超过${LIMITS.summary}字。
4. risk_focus：哪些风险最值得关注、为什么，1–3句；没有明显风险时说明判断依据。
5. next_steps：1–${LIMITS.steps}条具体的核查建议（查什么、怎么查），最重要的在前，每条不超过${LIMITS.step}字。
6. risk_items：已有风险项（rules）未覆盖、但数据能够支持的新风险，0–${LIMITS.risks}条；level 取 info、warning 或 danger；不要重复已有风险项，没有则返回空数组。
7. report.verdict 是本报告的总体风险评级（grade A 最低风险、E 最高，score 越高越健康）及其主要驱动因素（effect 为该因素对得分的影响，负数表示增加风险）。各项解读的结论须与之一致，不得给出相反的总体判断。
8. core_risk_insight（核心风险洞察）汇总了全部规则风险项：其 summary 须给出整体财务风险的总体判断——有 verdict 时即采用 verdict.label 并以其驱动因素说明理由，否则按风险项给出较高、中等或较低的判断——并引用 headline_figures 中的核心指标。
9. 为 items 中的每一项各写一条，slug 原样返回，不要遗漏。`;

/** The system prompt: the rules, plus the schema in words when the server has no strict structured output. */
export function systemPrompt(responseFormat: 'json_schema' | 'json_object'): string {
  return responseFormat === 'json_schema'
    ? RULES
    : `${RULES}\n只输出一个符合以下 JSON Schema 的 JSON 对象，不要输出任何其他内容：\n${JSON.stringify(BATCH_JSON_SCHEMA)}`;
}

type Scalar = string | number | boolean | null;
const isScalar = (value: unknown): value is Scalar =>
  value === null || ['string', 'number', 'boolean'].includes(typeof value);

/**
 * An item's values as the model reads them best and at the fewest tokens: every scalar key of the `series` as
 * one row labelled `label（unit）` with a column per year (the latest year is the last column, so the flat
 * latest-year keys it repeats are left out); the remaining latest-year values (lists, checks, texts) as they are.
 */
function itemValues(item: AnalysisOutput, years: number[]): Record<string, unknown> {
  const fields = new Map((catalogueItem(item.slug)?.fields ?? []).map((f) => [f.key, f]));
  const name = (key: string) => {
    const field = fields.get(key);
    if (!field) return key;
    return field.unit && field.unit !== 'text' ? `${field.label}（${field.unit}）` : field.label;
  };
  const { series, ...latest } = item.sp_result;
  delete latest.released_year;
  if (item.slug === 'enterprise_profile') delete latest.enterprise_name;
  const out: Record<string, unknown> = {};
  const rows = Array.isArray(series) ? (series as Array<Record<string, unknown>>) : [];
  const tabled = new Set<string>();
  if (rows.length > 0) {
    const table: Record<string, Scalar[]> = {};
    const keys = new Set(rows.flatMap((row) => Object.keys(row)).filter((key) => key !== 'year'));
    for (const key of keys) {
      if (!rows.every((row) => isScalar(row[key] ?? null))) continue;
      table[name(key)] = years.map(
        (year) => (rows.find((row) => row.year === year)?.[key] ?? null) as Scalar,
      );
      tabled.add(key);
    }
    if (Object.keys(table).length > 0) out.table = table;
    const other = rows
      .map((row) =>
        Object.fromEntries(Object.entries(row).filter(([key]) => key === 'year' || !tabled.has(key))),
      )
      .filter((row) => Object.keys(row).length > 1);
    if (other.length > 0) out.series_other = other;
  }
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(latest)) {
    if (tabled.has(key) && isScalar(value)) continue;
    rest[fields.has(key) ? name(key) : key] = value;
  }
  if (item.slug === CORE_RISK_SLUG) {
    // The verdict goes in the report's context; the top risks are the item's rules already.
    delete rest.verdict;
    delete rest.top_risks;
    if (Array.isArray(rest.modules))
      rest.modules = (
        rest.modules as Array<{
          label?: string;
          total_count?: number;
          danger_count?: number;
          warning_count?: number;
          info_count?: number;
        }>
      )
        .filter((m) => (m.total_count ?? 0) > 0)
        .map((m) => ({
          label: m.label,
          danger: m.danger_count,
          warning: m.warning_count,
          info: m.info_count,
        }));
  }
  if (Object.keys(rest).length > 0) out.values = rest;
  return out;
}

/** The verdict of contract 1 (core_risk_insight.sp_result.verdict), reduced to what the text must agree with. */
function verdictOf(report: readonly AnalysisOutput[]): Record<string, unknown> | null {
  const verdict = report.find((item) => item.slug === CORE_RISK_SLUG)?.sp_result.verdict as
    | { grade?: string; label?: string; score?: number; drivers?: Array<Record<string, unknown>> }
    | undefined;
  if (!verdict || typeof verdict !== 'object') return null;
  return {
    grade: verdict.grade,
    label: verdict.label,
    score: verdict.score,
    drivers: (verdict.drivers ?? []).map((d) => ({ label: d.label, value: d.value, effect: d.effect })),
  };
}

/** The years the report covers, ascending (from the brief). */
function yearsOf(brief: ReportBrief): number[] {
  return Array.from({ length: brief.yearEnd - brief.yearStart + 1 }, (_, i) => brief.yearStart + i);
}

/**
 * The messages of one model call about `items` (one or several). `report` is the whole report: the verdict
 * and, for core_risk_insight, the headline figures (financial_benchmarks) come from it.
 */
export function buildBatchMessages(
  items: readonly AnalysisOutput[],
  brief: ReportBrief,
  report: readonly AnalysisOutput[],
  responseFormat: 'json_schema' | 'json_object' = 'json_schema',
): ChatCompletionMessageParam[] {
  const years = yearsOf(brief);
  const context: Record<string, unknown> = {
    accounting_standard: brief.accountingStandard,
    industry: brief.industry,
    years,
  };
  const verdict = verdictOf(report);
  if (verdict) context.verdict = verdict;
  const core = report.find((item) => item.slug === CORE_RISK_SLUG);
  const gaps = core?.sp_result.data_gaps;
  if (Array.isArray(gaps) && gaps.length > 0)
    context.data_gaps = gaps.map((gap: { message?: string }) => gap.message);
  const payload = {
    report: context,
    items: items.map((item) => {
      const entry = catalogueItem(item.slug);
      const out: Record<string, unknown> = {
        slug: item.slug,
        label: entry?.label ?? item.slug,
        section: entry?.section_label ?? null,
        about: entry?.description ?? null,
        ...itemValues(item, years),
        rules: item.risk_items
          .filter((risk) => risk.source !== 'model')
          .map((risk) => `${risk.level}：${risk.message}`),
      };
      if (item.slug === CORE_RISK_SLUG) {
        const benchmarks = report.find((o) => o.slug === 'financial_benchmarks');
        if (benchmarks) out.headline_figures = itemValues(benchmarks, years);
      }
      return out;
    }),
  };
  return [
    { role: 'system', content: systemPrompt(responseFormat) },
    { role: 'user', content: `请为以下 ${items.length} 个分析项分别撰写解读：\n${JSON.stringify(payload)}` },
  ];
}
