/**
 * AnalysisItem: one item of a finished report (REST's analysis item), and `Report.analysis` /
 * `Report.analysisItem`, which read through the per-request loader: one query for every report on a page.
 */
import * as yup from 'yup';
import { isAnalysisSlug, REPORT_SLUGS } from '../../../worker/engine/registry.ts';
import type { AiSource } from '../../ai/types.ts';
import { NotReadyError } from '../../errors.ts';
import { rateLimitsOf } from '../../lib/rateLimits.ts';
import { spendBudget } from '../../middlewares/rateLimit.ts';
import { presentAnalysisItem } from '../../presenters/reportPresenter.ts';
import { generateAnalysisItemAi, generateReportAiAnalysis } from '../../services/aiAnalysis.ts';
import { pickAnalysisItem } from '../../services/reportBatch.ts';
import { builder } from '../builder.ts';
import type { GraphQLContext } from '../context.ts';
import { listSize } from '../limits.ts';
import { AiSourceEnum, RiskLevelEnum, RiskSourceEnum } from './enums.ts';
import { type PresentedReport, ReportRef } from './report.ts';
import { SpResultUnion, typedSpResult } from './spResult.ts';

type PresentedItem = ReturnType<typeof presentAnalysisItem>;
type PresentedRisk = PresentedItem['risk_items'][number];

export const RiskItemRef = builder.objectRef<PresentedRisk>('RiskItem').implement({
  fields: (t) => ({
    level: t.expose('level', { type: RiskLevelEnum }),
    message: t.exposeString('message', { description: 'What was found (Chinese).' }),
    code: t.exposeString('code', {
      nullable: true,
      description: 'The rule that raised it, e.g. `balance_sheet.opening_mismatch`.',
    }),
    source: t.expose('source', { type: RiskSourceEnum }),
  }),
});

export const AnalysisItemRef = builder.objectRef<PresentedItem>('AnalysisItem').implement({
  description: 'One analysis item of a report: indicators (spResult), risks and the AI interpretation.',
  fields: (t) => ({
    slug: t.exposeString('slug'),
    label: t.exposeString('label', { description: 'Chinese display name.' }),
    spResult: t.expose('sp_result', {
      type: 'JSON',
      description:
        'The indicators as untyped JSON; keys differ per slug (see `catalogue`). Amounts in 万元, ratios already × 100.',
      deprecationReason: 'Use `typedSpResult`: the same keys, typed per slug.',
    }),
    typedSpResult: t.field({
      type: SpResultUnion,
      description:
        'The indicators, typed by slug: select the keys on the member for the slug (`... on RevenueSpResult { operating_revenue }`).',
      // The union's members are built from data: Pothos cannot relate the value to them statically.
      resolve: (item) => typedSpResult(item.slug, item.sp_result as Record<string, unknown>) as never,
    }),
    riskItems: t.expose('risk_items', { type: [RiskItemRef] }),
    aiContent: t.exposeString('ai_content', {
      nullable: true,
      description: 'AI interpretation; null when none was written.',
    }),
    aiSource: t.field({
      type: AiSourceEnum,
      nullable: true,
      description: 'Who wrote aiContent; null when there is none.',
      // Stored as text; only the AI step writes it, with one of AI_SOURCES.
      resolve: (item) => item.ai_source as AiSource | null,
    }),
    cachedAt: t.field({ type: 'DateTime', resolve: (item) => item.cached_at! }),
  }),
});

/** A report's items, once it has succeeded (REPORT_NOT_READY before, as REST's 409). */
async function itemsOf(report: PresentedReport, ctx: GraphQLContext) {
  if (report.status !== 'success') throw new NotReadyError(report.report_id, report.status);
  return ctx.loaders.analysisOfReport.load(report.report_id);
}

const slugsSchema = yup
  .array()
  .of(
    yup
      .string()
      .required()
      .test({
        name: 'slug',
        message: 'is not an analysis slug (the catalogue lists them)',
        test: (slug) => isAnalysisSlug(slug),
      }),
  )
  .max(REPORT_SLUGS.length, `must hold at most ${REPORT_SLUGS.length} slugs`)
  .strict();

builder.objectField(ReportRef, 'analysis', (t) =>
  t.field({
    type: [AnalysisItemRef],
    // Nullable: a report that is not ready gets null here (with its error), not a null report — in a list of
    // reports, one pending report must not blank out the page.
    nullable: true,
    description:
      'The analysis items, in catalogue order: all of them, or those named in `slugs`. null with REPORT_NOT_READY ' +
      'until the report has succeeded.',
    extensions: listSize({
      slicingArgument: 'slugs',
      defaultSize: REPORT_SLUGS.length,
      maxSize: REPORT_SLUGS.length,
    }),
    args: {
      slugs: t.arg.stringList({ validate: slugsSchema, description: 'Only these items (any order).' }),
    },
    resolve: async (report, { slugs }, ctx) => {
      const items = await itemsOf(report, ctx);
      const wanted = slugs ? new Set(slugs) : undefined;
      return items.filter((item) => !wanted || wanted.has(item.slug)).map(presentAnalysisItem);
    },
  }),
);

builder.objectField(ReportRef, 'analysisItem', (t) =>
  t.field({
    type: AnalysisItemRef,
    nullable: true,
    description: 'One analysis item; ANALYSIS_ITEM_NOT_FOUND for a slug the report does not have.',
    args: { slug: t.arg.string({ required: true }) },
    resolve: async (report, { slug }, ctx) =>
      presentAnalysisItem(pickAnalysisItem(report.report_id, await itemsOf(report, ctx), slug)),
  }),
);

builder.mutationField('generateAiAnalysis', (t) =>
  t.field({
    type: [AnalysisItemRef],
    description:
      'Writes (or rewrites) the AI interpretation of a finished report: every item, or only `slug`. ' +
      'The same as REST `POST …/reports/{id}/ai-analysis` and `POST …/analysis/{slug}/ai-analysis`; ' +
      'returns the items written. Test-mode keys always get the built-in writer.',
    args: {
      reportId: t.arg.id({ required: true }),
      slug: t.arg.string({ required: false }),
    },
    resolve: async (_root, { reportId, slug }, ctx) => {
      // The REST routes' ai_regeneration budget, per key (20 an hour by default).
      await spendBudget(rateLimitsOf(ctx.services), 'ai_regeneration', ctx.principal);
      if (slug) {
        return [
          presentAnalysisItem(
            await generateAnalysisItemAi(ctx.services, ctx.principal, String(reportId), slug),
          ),
        ];
      }
      const { items } = await generateReportAiAnalysis(ctx.services, ctx.principal, String(reportId));
      return items.map(presentAnalysisItem);
    },
  }),
);
