import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import type { RiskItem } from '../../../worker/types.ts';
import { Report } from './report.entity.ts';

/** One analysis item of a report; `position` keeps the catalogue's order. */
export const AnalysisResult = defineEntity({
  name: 'AnalysisResult',
  tableName: 'analysis_results',
  properties: {
    report: () => p.manyToOne(Report).primary().deleteRule('cascade'),
    slug: p.string().length(64).primary(),
    position: p.integer(),
    spResult: p.json<Record<string, unknown>>().columnType('json'),
    riskItems: p.json<RiskItem[]>().columnType('json'),
    aiContent: p.text().nullable(),
    /** Who wrote ai_content: `model` or `builtin`; null when there is none. */
    aiSource: p.string().length(16).nullable(),
    cachedAt: p.datetime(),
  },
});
export type IAnalysisResult = InferEntity<typeof AnalysisResult>;
