/**
 * The analysis catalogue (GET /catalogue in REST): sections, every slug with its label and the keys of its
 * spResult (unit, formula, inputs), the risk rules, and the accepted statement lines.
 */
import {
  type AnalysisCatalogue,
  analysisCatalogue,
  type CatalogueField,
  type CatalogueItem,
  type CatalogueLine,
  type CatalogueRiskRule,
} from '../../../worker/catalogue/analysisCatalogue.ts';
import { builder } from '../builder.ts';
import { fixedListSize } from '../limits.ts';
import { RiskLevelEnum } from './enums.ts';

type Section = AnalysisCatalogue['sections'][number];
type Tier = CatalogueRiskRule['tiers'][number];

// The catalogue is static: its lists' real sizes (the largest, for the nested ones) size the query cost.
const CATALOGUE = analysisCatalogue();
const largest = (sizes: number[]) => Math.max(1, ...sizes);
const SIZE = {
  sections: fixedListSize(CATALOGUE.sections.length),
  items: fixedListSize(CATALOGUE.items.length),
  lineItems: fixedListSize(CATALOGUE.line_items.length),
  fields: fixedListSize(largest(CATALOGUE.items.map((item) => item.fields.length))),
  riskRules: fixedListSize(largest(CATALOGUE.items.map((item) => item.risk_rules.length))),
  tiers: fixedListSize(
    largest(CATALOGUE.items.flatMap((item) => item.risk_rules.map((rule) => rule.tiers.length))),
  ),
};

const SectionRef = builder.objectRef<Section>('CatalogueSection').implement({
  fields: (t) => ({ id: t.exposeString('id'), label: t.exposeString('label') }),
});

const FieldRef = builder.objectRef<CatalogueField>('CatalogueField').implement({
  description: 'One key of an item’s spResult.',
  fields: (t) => ({
    key: t.exposeString('key'),
    label: t.exposeString('label'),
    unit: t.exposeString('unit'),
    formula: t.exposeString('formula'),
    inputs: t.exposeStringList('inputs', { description: 'The statement lines it is computed from.' }),
    note: t.exposeString('note', { nullable: true }),
  }),
});

const TierRef = builder.objectRef<Tier>('CatalogueRiskTier').implement({
  fields: (t) => ({
    level: t.field({ type: RiskLevelEnum, resolve: (tier) => tier.level as typeof RiskLevelEnum.$inferType }),
    threshold: t.exposeFloat('threshold'),
  }),
});

const RiskRuleRef = builder.objectRef<CatalogueRiskRule>('CatalogueRiskRule').implement({
  fields: (t) => ({
    code: t.exposeString('code'),
    description: t.exposeString('description'),
    message: t.exposeString('message'),
    tiers: t.expose('tiers', { type: [TierRef], extensions: SIZE.tiers }),
  }),
});

const ItemRef = builder.objectRef<CatalogueItem>('CatalogueItem').implement({
  fields: (t) => ({
    slug: t.exposeString('slug'),
    label: t.exposeString('label'),
    section: t.exposeString('section'),
    sectionLabel: t.exposeString('section_label'),
    kind: t.exposeString('kind', { description: '`indicator`, `check` or `aggregate`.' }),
    description: t.exposeString('description'),
    fields: t.expose('fields', { type: [FieldRef], extensions: SIZE.fields }),
    riskRules: t.expose('risk_rules', { type: [RiskRuleRef], extensions: SIZE.riskRules }),
  }),
});

const LineRef = builder.objectRef<CatalogueLine>('CatalogueLine').implement({
  description: 'An accepted item_name of a statement sheet.',
  fields: (t) => ({
    key: t.exposeString('key'),
    sheet: t.exposeString('sheet'),
    group: t.exposeString('group'),
    nameZh: t.exposeString('name_zh'),
    standards: t.exposeStringList('standards'),
    sign: t.exposeString('sign', { nullable: true }),
    note: t.exposeString('note', { nullable: true }),
  }),
});

const CatalogueRef = builder.objectRef<AnalysisCatalogue>('Catalogue').implement({
  fields: (t) => ({
    sections: t.expose('sections', { type: [SectionRef], extensions: SIZE.sections }),
    riskLevels: t.field({
      type: [RiskLevelEnum],
      resolve: (catalogue) => catalogue.risk_levels as (typeof RiskLevelEnum.$inferType)[],
    }),
    items: t.expose('items', {
      type: [ItemRef],
      description: 'Every analysis item, in report order.',
      extensions: SIZE.items,
    }),
    lineItems: t.expose('line_items', { type: [LineRef], extensions: SIZE.lineItems }),
  }),
});

builder.queryField('catalogue', (t) =>
  t.field({
    type: CatalogueRef,
    description: 'What the service computes: every slug, its label, section and spResult keys with units.',
    resolve: () => analysisCatalogue(),
  }),
);
