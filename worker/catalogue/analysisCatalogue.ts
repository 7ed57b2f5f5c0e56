/**
 * The analysis catalogue as plain data: sections, every analysis item with its sp_result keys (formula, unit,
 * inputs), every risk rule, and the accepted statement lines. Built from the modules' own metadata, so what is
 * documented is what is computed. Served by the API and rendered to docs/analysis-catalogue.md.
 */
import { CORE_RISK_FIELDS, CORE_RISK_LABEL, CORE_RISK_SLUG } from '../engine/coreRisk.ts';
import type { FieldDoc, RiskRuleDoc, SectionId } from '../engine/module.ts';
import { SECTIONS } from '../engine/module.ts';
import { ANALYSIS_MODULES } from '../engine/registry.ts';
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

export interface AnalysisCatalogue {
  sections: Array<{ id: SectionId; label: string }>;
  risk_levels: string[];
  items: CatalogueItem[];
  line_items: CatalogueLine[];
}

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
  const items: CatalogueItem[] = [
    {
      slug: CORE_RISK_SLUG,
      label: CORE_RISK_LABEL,
      section: 'core_risk',
      section_label: SECTIONS.core_risk,
      kind: 'aggregate',
      description:
        '汇总其他各分析项的全部风险项：按分析项分组，统计各等级数量，并按严重程度列出最重要的风险。',
      fields: CORE_RISK_FIELDS.map(field),
      risk_rules: [],
    },
    ...ANALYSIS_MODULES.map(
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
    ),
  ];
  return {
    sections: (Object.keys(SECTIONS) as SectionId[]).map((id) => ({ id, label: SECTIONS[id] })),
    risk_levels: ['info', 'warning', 'danger'],
    items,
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
