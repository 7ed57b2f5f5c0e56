/**
 * The built-in writer over the four submission fixtures, computed as the job computes them (validate,
 * normalise, compute, assemble): every item gets specific Chinese text that names the latest year and at
 * least one of the item's own figures (formatted as the writer formats them), and two reports with
 * different figures never share a text.
 */
import { describe, expect, it } from 'vitest';
import { validateSubmission } from '../../schema/submission.ts';
import { writeBuiltinInterpretation } from '../../server/ai/builtinWriter.ts';
import { composeAiContent } from '../../server/ai/content.ts';
import { formatNumber } from '../../server/ai/format.ts';
import { analysisCatalogue } from '../../worker/catalogue/analysisCatalogue.ts';
import {
  ANALYSIS_SLUGS,
  analysisLabel,
  assembleReportItems,
  computeAnalysis,
  REPORT_SLUGS,
} from '../../worker/engine/registry.ts';
import { normaliseSubmission } from '../../worker/normalise.ts';
import type { AnalysisOutput } from '../../worker/types.ts';
import { FIXTURES, type FixtureName, fixture } from '../helpers/service.ts';

function analyse(name: FixtureName): AnalysisOutput[] {
  const validation = validateSubmission(fixture(name));
  if (!validation.ok) throw new Error(`fixture ${name} is invalid`);
  return assembleReportItems(computeAnalysis(normaliseSubmission(validation.value).report, ANALYSIS_SLUGS));
}

function texts(items: AnalysisOutput[]): Map<string, string> {
  return new Map(
    items.map((item) => [
      item.slug,
      composeAiContent(writeBuiltinInterpretation(item, items, analysisLabel)),
    ]),
  );
}

const REPORTS = Object.fromEntries(FIXTURES.map((name) => [name, analyse(name)])) as Record<
  FixtureName,
  AnalysisOutput[]
>;
const TEXTS = Object.fromEntries(FIXTURES.map((name) => [name, texts(REPORTS[name])])) as Record<
  FixtureName,
  Map<string, string>
>;
const UNITS = new Map(
  analysisCatalogue().items.map((item) => [item.slug, new Map(item.fields.map((f) => [f.key, f.unit]))]),
);
const NOT_FIGURES = new Set([
  'released_year',
  'year_start',
  'year_end',
  'year',
  'years',
  'is_vat_taxpayer',
  'is_sme',
]);

/** Every number of an item's sp_result (latest year; nested lists included), with its catalogue unit. */
function figures(item: AnalysisOutput): Array<{ value: number; unit: string }> {
  const units = UNITS.get(item.slug) ?? new Map<string, string>();
  const found: Array<{ value: number; unit: string }> = [];
  const visit = (value: unknown, key: string, path: string) => {
    if (typeof value === 'number' && Number.isFinite(value) && !NOT_FIGURES.has(key))
      found.push({ value, unit: units.get(path) ?? '' });
    else if (Array.isArray(value)) for (const entry of value) visit(entry, key, `${path}[]`);
    else if (value && typeof value === 'object')
      for (const [k, v] of Object.entries(value)) visit(v, k, path ? `${path}.${k}` : k);
  };
  for (const [key, value] of Object.entries(item.sp_result)) if (key !== 'series') visit(value, key, key);
  return found;
}

/** Does the text show this figure as the writer writes figures (whole numbers standing alone)? */
function mentions(text: string, { value, unit }: { value: number; unit: string }): boolean {
  const forms = new Set([formatNumber(value, unit), formatNumber(Math.abs(value), unit)]);
  if (Number.isInteger(value)) forms.add(String(Math.abs(value)));
  return [...forms].some((form) =>
    new RegExp(`(?<![\\d.,])${form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\d,]|\\.\\d)`).test(text),
  );
}

describe.each(FIXTURES)('built-in writer on %s', (name) => {
  const items = REPORTS[name];
  const written = TEXTS[name];
  const latest = fixture(name).year_end;

  it('writes every item of the report', () => {
    expect([...written.keys()]).toEqual(REPORT_SLUGS);
  });

  it.each(REPORT_SLUGS)('%s: Chinese, three parts, the latest year and one of its own figures', (slug) => {
    const item = items.find((o) => o.slug === slug)!;
    const text = written.get(slug)!;
    expect(text).toMatch(/^数据解读：.+\n风险关注：.+\n核查建议：1\. .+。$/s);
    expect(text).toContain(`${latest}年`);
    const own = figures(item);
    const precise = own.filter((f) => !Number.isInteger(f.value));
    const candidates = precise.length ? precise : own;
    if (candidates.length === 0) {
      // Nothing was computable (the statements lack every input): the text must say so.
      expect(text).toMatch(/为空|未提交|不列示/);
    } else {
      expect(
        candidates.some((f) => mentions(text, f)),
        `${slug} mentions none of ${JSON.stringify(candidates.slice(0, 8))}:\n${text}`,
      ).toBe(true);
    }
  });

  it('quotes every rule-based risk of an item with fewer than three, and names danger/warning counts', () => {
    for (const item of items) {
      if (item.slug === 'core_risk_insight' || item.risk_items.length === 0 || item.risk_items.length > 2)
        continue;
      const text = written.get(item.slug)!;
      for (const risk of item.risk_items) expect(text).toContain(risk.message.replace(/。$/, ''));
    }
  });

  it('is deterministic', () => {
    expect(texts(analyse(name))).toEqual(written);
  });
});

describe('built-in writer across fixtures', () => {
  it.each(FIXTURES.flatMap((a, i) => FIXTURES.slice(i + 1).map((b) => [a, b] as const)))(
    '%s and %s never share a text',
    (a, b) => {
      for (const slug of REPORT_SLUGS) expect(TEXTS[a].get(slug), slug).not.toBe(TEXTS[b].get(slug));
    },
  );

  it('writes direction and size of change with the prior year, in 万元 and %', () => {
    const revenue = TEXTS['general_new-3y'].get('revenue')!;
    expect(revenue).toContain('2024年营业收入为8,925.77万元，较2023年下降7.24%');
    const benchmarks = TEXTS['general_new-3y'].get('financial_benchmarks')!;
    expect(benchmarks).toContain('毛利率为42.63%，较2023年上升12.14个百分点');
    const liquidity = TEXTS['general_new-3y'].get('short_term_liability')!;
    expect(liquidity).toContain('流动比率为2.37倍（2023年为1.85倍）');
  });

  it('describes check mismatches with their amounts and what to verify', () => {
    const check = TEXTS['general_new-4y-inconsistent'].get('income_statement')!;
    expect(check).toContain('发现1项不一致');
    expect(check).toContain('12,250.05万元');
    expect(check).toContain('差额801.41万元');
    expect(check).toContain('识别出1条危险');
  });

  it('gives core_risk_insight an overall assessment from the counts, the top risks and the headline figures', () => {
    const core = TEXTS['general_new-4y-inconsistent'].get('core_risk_insight')!;
    // Risks only: the data notes (no EPS, no OCI lines) are not counted; the restated inventory is a warning.
    expect(core).toContain('共识别出4条风险提示（危险1条、警告3条、提示0条）');
    // The restated revenue is a danger-level data break: the verdict is provisional and says why, first.
    expect(core).toContain('数据存疑，评级待核实：2024年利润表“营业收入”上年金额');
    expect(core).toMatch(/评分卡综合评分为[\d.]+分，评级[A-E]（[\u4e00-\u9fff]+）/);
    expect(core).toContain('另有1条危险级风险（利润表数据核对）需逐条核实');
    expect(core).toContain('【利润表数据核对】');
    expect(core).toContain('营业收入为11,715.65万元');
    const calm = TEXTS['general_old-5y-ai'].get('core_risk_insight')!;
    expect(calm).toContain('总体判断：评级A（低风险），偿债、盈利与现金指标总体健康。');
  });

  it("the overall judgement agrees with the grade: its words are the grade's, never another level's", () => {
    for (const [name, texts] of Object.entries(TEXTS)) {
      const core = texts.get('core_risk_insight')!;
      const verdict = REPORTS[name as keyof typeof REPORTS].find((o) => o.slug === 'core_risk_insight')!
        .sp_result.verdict as { grade: string; label: string };
      expect(core, name).toContain(`总体判断：评级${verdict.grade}（${verdict.label}）`);
      if (verdict.grade === 'A' || verdict.grade === 'B')
        expect(core, name).not.toMatch(/需关注水平|风险较高/);
      expect(core, name).not.toContain('。。');
    }
  });

  it('ignores model-proposed risk items', () => {
    const item = REPORTS['general_new-3y'].find((o) => o.slug === 'revenue')!;
    const withModel: AnalysisOutput = {
      ...item,
      risk_items: [
        ...item.risk_items,
        { level: 'danger', message: '模型风险', code: 'ai.revenue', source: 'model' },
      ],
    };
    expect(writeBuiltinInterpretation(withModel)).toEqual(writeBuiltinInterpretation(item));
  });
});
