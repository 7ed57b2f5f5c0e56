/**
 * The analysis catalogue: complete (every slug, every field documented) and its generated document current.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analysisCatalogue } from '../../worker/catalogue/analysisCatalogue.ts';
import { CATALOGUE_DOC_PATH, renderCatalogueMarkdown } from '../../worker/catalogue/renderCatalogue.ts';
import { REPORT_SLUGS } from '../../worker/engine/registry.ts';

describe('analysis catalogue', () => {
  const catalogue = analysisCatalogue();

  it('lists every item of a report, in report order, each with documented fields', () => {
    expect(catalogue.items.map((item) => item.slug)).toEqual(REPORT_SLUGS);
    for (const item of catalogue.items) {
      expect(item.label, item.slug).toMatch(/[\u4e00-\u9fff]/);
      expect(item.fields.length, item.slug).toBeGreaterThan(0);
      for (const f of item.fields) expect(f.formula.length, `${item.slug}.${f.key}`).toBeGreaterThan(0);
    }
  });

  it('has unique risk rule codes, each with ordered levels', () => {
    const codes = catalogue.items.flatMap((item) => item.risk_rules.map((r) => r.code));
    expect(new Set(codes).size).toBe(codes.length);
    for (const item of catalogue.items) {
      for (const r of item.risk_rules)
        for (const t of r.tiers) expect(catalogue.risk_levels).toContain(t.level);
    }
  });

  it('is rendered to docs/analysis-catalogue.md, and the committed document is current', () => {
    const committed = readFileSync(CATALOGUE_DOC_PATH, 'utf8');
    // Regenerate with `npm run docs:catalogue` when this fails.
    expect(committed).toBe(renderCatalogueMarkdown());
    for (const item of catalogue.items) expect(committed).toContain(`### ${item.slug}`);
  });
});
