/**
 * Several items per model call: how a report is cut into batches, how a batch answer is read (each item by the
 * same check as a single answer, one bad item costing only itself), and what the prompt carries — every item's
 * figures once, labelled, and the verdict with its drivers (contract 1) so the texts agree with the headline.
 */
import { describe, expect, it } from 'vitest';
import { validateSubmission } from '../../schema/submission.ts';
import { batchesOf } from '../../server/ai/interpretations.ts';
import { InvalidModelOutputError, parseBatchInterpretations } from '../../server/ai/outputSchema.ts';
import { buildBatchMessages } from '../../server/ai/prompt.ts';
import { ANALYSIS_SLUGS, assembleReportItems, computeAnalysis } from '../../worker/engine/registry.ts';
import { normaliseSubmission } from '../../worker/normalise.ts';
import type { AnalysisOutput } from '../../worker/types.ts';
import { SAMPLE_VERDICT, userPayload, validAnswer } from '../helpers/fakeOpenAi.ts';
import { fixture } from '../helpers/service.ts';

function analyse(): AnalysisOutput[] {
  const validation = validateSubmission(fixture('general_new-3y'));
  if (!validation.ok) throw new Error('fixture is invalid');
  return assembleReportItems(computeAnalysis(normaliseSubmission(validation.value).report, ANALYSIS_SLUGS));
}

const BRIEF = { accountingStandard: 'general_new', industry: null, yearStart: 2022, yearEnd: 2024 };

describe('batches', () => {
  it('cuts items into consecutive, even batches of at most the size', () => {
    const items = Array.from({ length: 43 }, (_, i) => i);
    const batches = batchesOf(items, 6);
    expect(batches.map((b) => b.length)).toEqual([6, 6, 6, 5, 5, 5, 5, 5]);
    expect(batches.flat()).toEqual(items);
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(6);
    expect(batches).toHaveLength(8);
    expect(batchesOf([1], 6)).toEqual([[1]]);
    expect(batchesOf([], 6)).toEqual([]);
  });
});

describe('batch answers', () => {
  const slugs = ['revenue', 'cost', 'expense'];

  it('reads each item by its slug, whatever the order, ignoring items not asked about', () => {
    const content = JSON.stringify({
      items: [
        { slug: 'expense', ...validAnswer('expense') },
        { slug: 'nonsense', ...validAnswer('nonsense') },
        { slug: 'revenue', ...validAnswer('revenue') },
        { slug: 'cost', ...validAnswer('cost') },
      ],
    });
    const parsed = parseBatchInterpretations(`\`\`\`json\n${content}\n\`\`\``, slugs);
    expect([...parsed.keys()]).toEqual(slugs);
    for (const slug of slugs)
      expect(parsed.get(slug)).toMatchObject({ summary: expect.stringContaining(slug) });
  });

  it('rejects only the items that are missing or break the schema', () => {
    const content = JSON.stringify({
      items: [
        { slug: 'revenue', ...validAnswer('revenue', { summary: 'English only' }) },
        { slug: 'expense', ...validAnswer('expense') },
      ],
    });
    const parsed = parseBatchInterpretations(content, slugs);
    expect(parsed.get('revenue')).toBeInstanceOf(InvalidModelOutputError);
    expect((parsed.get('revenue') as Error).message).toContain('summary is not in Chinese');
    expect((parsed.get('cost') as Error).message).toContain('no item cost');
    expect(parsed.get('expense')).not.toBeInstanceOf(Error);
  });

  it('rejects every item of an answer that is not JSON or has no items array', () => {
    for (const content of ['Sorry.', JSON.stringify(validAnswer('revenue')), '', null]) {
      const parsed = parseBatchInterpretations(content, slugs);
      for (const slug of slugs) expect(parsed.get(slug)).toBeInstanceOf(InvalidModelOutputError);
    }
  });
});

describe('batch prompt', () => {
  const report = analyse();

  it('labels each indicator once with its unit, a column per year, and asks for every item', () => {
    const batch = report.filter((item) => ['revenue', 'cost'].includes(item.slug));
    const messages = buildBatchMessages(batch, BRIEF, report);
    const payload = userPayload({ messages });
    expect(payload.report.years).toEqual([2022, 2023, 2024]);
    expect(payload.items.map((i: { slug: string }) => i.slug)).toEqual(['revenue', 'cost']);
    expect(payload.items[0].table['营业收入（万元）']).toHaveLength(3);
    expect(payload.items[0].table['营业收入（万元）'][2]).toBe(8925.77);
    // The schema travels as response_format under json_schema; in JSON mode it is spelled out in the prompt.
    expect(messages[0]!.content).not.toContain('"additionalProperties"');
    expect(buildBatchMessages(batch, BRIEF, report, 'json_object')[0]!.content).toContain(
      '"additionalProperties"',
    );
  });

  it('carries the verdict and its drivers in the report context of every batch', () => {
    const withVerdict = report.map((item) =>
      item.slug === 'core_risk_insight'
        ? {
            ...item,
            sp_result: {
              ...item.sp_result,
              verdict: SAMPLE_VERDICT,
            },
          }
        : item,
    );
    const batch = withVerdict.filter((item) => item.slug === 'revenue');
    const payload = userPayload({ messages: buildBatchMessages(batch, BRIEF, withVerdict) });
    expect(payload.report.verdict).toEqual({
      grade: 'D',
      label: '较高风险',
      score: 38.5,
      drivers: [
        { label: '资产负债率', value: 78.2, effect: -12.4 },
        { label: '经营活动现金流', value: -320.5, effect: -8.1 },
        { label: '净资产收益率', value: 6.3, effect: 2.2 },
      ],
    });
    // A report without a verdict (one stored before the scorecard existed) gives a context without one.
    const withoutVerdict = report.map((item) => {
      if (item.slug !== 'core_risk_insight') return item;
      const { verdict: _verdict, ...rest } = item.sp_result;
      return { ...item, sp_result: rest };
    });
    expect(
      userPayload({ messages: buildBatchMessages(batch, BRIEF, withoutVerdict) }).report.verdict,
    ).toBeUndefined();
  });
});
