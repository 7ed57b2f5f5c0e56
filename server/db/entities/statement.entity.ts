import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import type { SheetLines } from '../../../worker/types.ts';
import { SHEET_TYPES } from '../../../worker/types.ts';
import { Report } from './report.entity.ts';

/**
 * One sheet of one year of a report, in normalised form: canonical item keys mapped to exact decimal
 * strings in yuan (`{ revenue: { current: "101365331.40", previous: "92166349.95" } }`). One row per sheet
 * (not per line) keeps a submission at a few rows, which is what lets the store step keep up with 100+
 * reports a second; the lines are only ever read together.
 */
export const Statement = defineEntity({
  name: 'Statement',
  tableName: 'statements',
  properties: {
    report: () => p.manyToOne(Report).primary().deleteRule('cascade'),
    fiscalYear: p.integer().primary(),
    sheetType: p.enum(SHEET_TYPES).primary(),
    lines: p.json<SheetLines>(),
  },
});
export type IStatement = InferEntity<typeof Statement>;
