/**
 * The analysis catalogue as plain data: sections, every analysis item with its sp_result keys (formula, unit,
 * inputs), every risk rule, and the accepted statement lines. Built from the modules' own metadata, so what is
 * documented is what is computed. Served by the API and rendered to docs/analysis-catalogue.md.
 */
import { CORE_RISK_FIELDS, CORE_RISK_LABEL, CORE_RISK_SLUG } from '../engine/coreRisk.ts';
import {
  INDUSTRY_BENCHMARK_FIELDS,
  INDUSTRY_BENCHMARK_LABEL,
  INDUSTRY_BENCHMARK_RULES,
  INDUSTRY_BENCHMARK_SLUG,
} from '../engine/industryBenchmark.ts';
import { NULL_REASONS } from '../engine/materiality.ts';
import type { FieldDoc, RiskRuleDoc, SectionId } from '../engine/module.ts';
import { SECTIONS } from '../engine/module.ts';
import { ANALYSIS_MODULES, INDUSTRY_BENCHMARK_POSITION } from '../engine/registry.ts';
import {
  ALTMAN_BANDS,
  BAND_SETS,
  BENEISH_DEDUCTION,
  BENEISH_THRESHOLD,
  GRADES,
  MIN_COVERAGE_PCT,
  SCORECARD_FACTORS,
} from '../engine/verdict.ts';
import { LINE_ITEMS } from './lineItems.ts';

export interface CatalogueField {
  key: string;
  label: string;
  unit: string;
  formula: string;
  inputs: string[];
  note: string | null;
}

export interface CatalogueRiskRule {
  code: string;
  description: string;
  message: string;
  tiers: Array<{ level: string; threshold: number }>;
}

export interface CatalogueItem {
  slug: string;
  label: string;
  section: SectionId;
  section_label: string;
  kind: 'indicator' | 'check' | 'aggregate';
  description: string;
  fields: CatalogueField[];
  risk_rules: CatalogueRiskRule[];
}

export interface CatalogueLine {
  key: string;
  sheet: string;
  group: string;
  name_zh: string;
  standards: string[];
  sign: string | null;
  note: string | null;
}

export interface CatalogueScorecard {
  method: string;
  factors: Array<{
    dimension: string;
    slug: string;
    key: string;
    label: string;
    weight: number;
    unit: string;
    bands: number[];
    band_set: string;
    source: string;
    requires: string;
  }>;
  /** Every band set: source, edition, year. */
  band_sets: Array<{ id: string; source: string; edition: string; year: number | null; note: string }>;
  /** Below this share of the weights scored the verdict is provisional. */
  min_coverage_pct: number;
  altman_bands: Record<string, number[]>;
  beneish: { threshold: number; deduction: number };
  grades: Array<{ grade: string; label: string; min_score: number }>;
}

export interface AnalysisCatalogue {
  sections: Array<{ id: SectionId; label: string }>;
  risk_levels: string[];
  items: CatalogueItem[];
  line_items: CatalogueLine[];
  /** Contract 2: reason code → Chinese explanation of a null value. */
  null_reasons: Record<string, string>;
  /** The verdict's scorecard: every factor, weight and threshold. */
  scorecard: CatalogueScorecard;
}

export const SCORECARD_METHOD =
  '功效系数法（简化）：各因子按五档标准值（优秀/良好/平均/较低/较差）计分为100/75/50/25/0，档间线性插值，优于优秀值得100分、劣于较差值得0分（越低越好的因子档位递增）；' +
  '总分 = 有值因子得分按权重加权平均（缺值因子不参与，权重重新归一）；各因子的影响 effect = 权重占比 × (得分 − 50)，即相对“平均值”水平50分的加减分，总分 = 50 + Σ effect；' +
  `Beneish M值高于${BENEISH_THRESHOLD}时再扣${BENEISH_DEDUCTION}分；总分限定在0–100。等级：A 低风险 ≥ 75，B 较低风险 ≥ 60，C 中等风险 ≥ 45，D 较高风险 ≥ 30，E 高风险 < 30。` +
  '报表数据核对不计分（数据一致不代表信用良好）：核对结果单列为 verdict.data_quality，出现危险级不一致时评级为“待定”（provisional，数据存疑，评级待核实）；' +
  `有值因子权重合计低于${MIN_COVERAGE_PCT}%时评级同样为“待定”（数据不足，评级仅供参考），未计分因子及所需项目列于 verdict.coverage 与 data_gaps。` +
  'drivers 取 |effect| 最大的3–5个因子，每个含取值、单位与一句理由。每套标准值注明来源、版本与年份（band_sets）；详见 docs/verdict.md。' +
  '已加载的行业基准集覆盖企业所属行业（中类、大类或门类）及该因子时，以其五档标准值替代，verdict.benchmark 逐因子注明所用基准集与层级（docs/benchmarks.md）。';

const field = (f: FieldDoc): CatalogueField => ({
  key: f.key,
  label: f.label,
  unit: f.unit,
  formula: f.formula,
  inputs: [...f.inputs],
  note: f.note ?? null,
});

const rule = (r: RiskRuleDoc): CatalogueRiskRule => ({
  code: r.code,
  description: r.description,
  message: r.message,
  tiers: r.tiers.map((t) => ({ level: t.level, threshold: t.threshold })),
});

function build(): AnalysisCatalogue {
  const computed = ANALYSIS_MODULES.map(
    (m): CatalogueItem => ({
      slug: m.slug,
      label: m.label,
      section: m.section,
      section_label: SECTIONS[m.section],
      kind: m.kind,
      description: m.description,
      fields: m.fields.map(field),
      risk_rules: m.riskRules.map(rule),
    }),
  );
  const industryBenchmark: CatalogueItem = {
    slug: INDUSTRY_BENCHMARK_SLUG,
    label: INDUSTRY_BENCHMARK_LABEL,
    section: 'enterprise_overview',
    section_label: SECTIONS.enterprise_overview,
    kind: 'aggregate',
    description:
      '企业各项指标与所属行业基准的对比：已加载的行业基准集（五档标准值、分位数或均值，注明来源、版本、数据年度、样本数与退档层级）和本账户同行业同年度企业的分布（样本数达到最低样本数才列示）。仅当指标处于行业最差档或最差十分之一且幅度重大时提示风险。见 docs/benchmarks.md。',
    fields: INDUSTRY_BENCHMARK_FIELDS.map(field),
    risk_rules: INDUSTRY_BENCHMARK_RULES.map(rule),
  };
  const items: CatalogueItem[] = [
    {
      slug: CORE_RISK_SLUG,
      label: CORE_RISK_LABEL,
      section: 'core_risk',
      section_label: SECTIONS.core_risk,
      kind: 'aggregate',
      description:
        '汇总其他各分析项的风险项（仅风险：数据缺失提示列入 data_gaps，积极信号列入 strengths，均不计数）：按分析项分组，统计各等级数量，按严重程度列出最重要的风险；并按评分卡（见“Verdict scorecard”）给出总体判断 verdict。',
      fields: CORE_RISK_FIELDS.map(field),
      risk_rules: [],
    },
    ...computed.slice(0, INDUSTRY_BENCHMARK_POSITION),
    industryBenchmark,
    ...computed.slice(INDUSTRY_BENCHMARK_POSITION),
  ];
  return {
    sections: (Object.keys(SECTIONS) as SectionId[]).map((id) => ({ id, label: SECTIONS[id] })),
    risk_levels: ['info', 'warning', 'danger'],
    items,
    null_reasons: { ...NULL_REASONS },
    scorecard: {
      method: SCORECARD_METHOD,
      factors: SCORECARD_FACTORS.map((f) => ({
        dimension: f.dimension,
        slug: f.slug,
        key: f.key,
        label: f.label,
        weight: f.weight,
        unit: f.unit,
        bands: [...f.bands],
        band_set: f.bandSet,
        source: f.source,
        requires: f.requires,
      })),
      band_sets: Object.values(BAND_SETS).map((b) => ({ ...b })),
      min_coverage_pct: MIN_COVERAGE_PCT,
      altman_bands: Object.fromEntries(Object.entries(ALTMAN_BANDS).map(([k, v]) => [k, [...v]])),
      beneish: { threshold: BENEISH_THRESHOLD, deduction: BENEISH_DEDUCTION },
      grades: GRADES.map((g) => ({ grade: g.grade, label: g.label, min_score: g.min })),
    },
    line_items: LINE_ITEMS.map((line) => ({
      key: line.key,
      sheet: line.sheet,
      group: line.group,
      name_zh: line.nameZh,
      standards: [...line.standards],
      sign: line.sign ?? null,
      note: line.note ?? null,
    })),
  };
}

let cached: AnalysisCatalogue | undefined;

/** The catalogue (built once; it is immutable data). */
export function analysisCatalogue(): AnalysisCatalogue {
  cached ??= build();
  return cached;
}
